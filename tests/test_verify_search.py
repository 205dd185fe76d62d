"""The finder's ``is:stale``, ``verified:``, ``is:unread`` and ``read:`` filters, shared by the
finder (the session's search), ``amr search`` and the agents' ``memory_search``."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from amr_tui.cli.main import main
from amr_tui.core.search.index import QueryError
from amr_tui.core.search.query import parse
from amr_tui.services.config import Config
from amr_tui.services.session.session import Session
from amr_tui.services.usage import record
from amr_tui.services.workspace import discover
from tests.mcp_client import amr_mcp
from tests.verifyscenario import build_code_repo, build_memory, git


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("scenario")
    code = build_code_repo(root / "payments")
    return code, build_memory(root / "memory-payments", code)


@pytest.fixture
def session(scenario):
    code, memory = scenario
    s = Session(discover([memory]))
    s.verifying.config = Config(code={"memory-payments": [code]})
    s.load()
    yield s
    s.close()


def texts(session: Session, query: str) -> list[str]:
    return sorted(h.item.text for h in session.search(query, 50))


def test_is_stale_lists_the_facts_whose_evidence_no_longer_holds(session) -> None:
    assert texts(session, "is:stale") == []  # nothing judged yet: nothing claimed
    session.verifying.run("memory-payments")
    stale = texts(session, "is:stale")
    assert len(stale) == 8
    assert "Rate limiting is `rateLimitMiddleware` in middleware/rateLimit.ts" in stale
    assert not any("pay_sid" in t for t in stale)  # it holds
    assert texts(session, "redis is:stale") == [
        "The redis client lives in `lib/redis.ts`; import `getRedisClient` from there"
    ]


def test_verified_dates_and_never_verified(session, scenario) -> None:
    _code, memory = scenario
    assert texts(session, "verified:>=2026-01-01") == []
    older = texts(session, "verified:<2026-10")  # never verified counts as older than any date
    assert "Use bun, not npm, for everything in this repo" in older
    assert parse("verified:<90d").filters[0].value == "90d"
    with pytest.raises(QueryError, match="verified: takes a date"):
        session.search("verified:soon", 5)


def test_unread_and_read_filters_know_when_reads_are_unknown(session, scenario) -> None:
    _code, memory = scenario
    assert texts(session, "is:unread") == []  # amr mcp never served it: unknown, not zero
    assert texts(session, "read:<90d") == []
    long_ago = (dt.date.today() - dt.timedelta(days=200)).isoformat() + "T10:00:00+00:00"
    recent = dt.date.today().isoformat() + "T09:00:00+00:00"
    record(memory, [("MEMORY.md", "Use bun, not npm, for everything in this repo")], at=long_ago)
    record(memory, [("backend.md", "Lint with `npm run lint` before pushing")], at=recent)
    session.verifying._usage.clear()  # read the database again now (it is re-read every few seconds)
    unread = texts(session, "is:unread")
    assert "Use bun, not npm, for everything in this repo" not in unread
    assert "Lint with `npm run lint` before pushing" not in unread
    assert "Priya reviews every schema change; be terse with her" in unread
    not_lately = texts(session, "read:<90d")
    assert "Use bun, not npm, for everything in this repo" in not_lately  # read 200 days ago
    assert "Priya reviews every schema change; be terse with her" in not_lately  # never read
    assert "Lint with `npm run lint` before pushing" not in not_lately
    assert texts(session, "read:>=90d") == ["Lint with `npm run lint` before pushing"]


def test_amr_search_takes_the_same_filters(scenario, tmp_path: Path, capsys, monkeypatch) -> None:
    code, memory = scenario
    config = Path(str(tmp_path)) / "cfg"
    (config / "amr").mkdir(parents=True)
    (config / "amr" / "config.toml").write_text(f'[repo."memory-payments"]\ncode = ["{code}"]\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    assert main(["search", "is:stale", str(memory), "--json", "--no-cache"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 8 and {h["path"] for h in hits} == {"MEMORY.md", "backend.md"}
    assert main(["search", "is:unread", str(memory), "--json", "--no-cache"]) == 0
    assert json.loads(capsys.readouterr().out) == []  # reads unknown: no entry is claimed unread


@pytest.mark.slow
async def test_memory_search_takes_is_stale(scenario, tmp_path: Path) -> None:
    code, memory = scenario
    home = tmp_path / "home"
    (home / ".config" / "amr").mkdir(parents=True)
    (home / ".config" / "amr" / "config.toml").write_text(f'[repo."memory-payments"]\ncode = ["{code}"]\n')
    async with amr_mcp(memory, home=home) as client:
        res = await client.ok("memory_search", {"query": "is:stale", "limit": 20})
        got = {(r["path"], r["line"]) for r in res["results"]}
        assert ("MEMORY.md", 6) in got and ("backend.md", 8) not in got and len(got) == 8
    assert git(memory, "status", "--porcelain") == ""


def test_the_side_panel_lines_say_unknown_reads_beside_the_evidence(session) -> None:
    v = session.verifying
    v.usage("memory-payments")  # loaded (the app does it in a worker)
    entry = session.entry("memory-payments", "MEMORY.md", 6)
    today = dt.date(2026, 11, 2)
    before = v.panel("memory-payments", "MEMORY.md", 6, entry.text, entry, today)
    assert before[0] == ("evidence: symbol rateLimitMiddleware (not checked yet: v checks it)", "muted")
    assert ("read by agents: unknown (amr mcp never served this repo)", "muted") in before
    v.run("memory-payments", today=today)
    after = v.panel("memory-payments", "MEMORY.md", 6, entry.text, entry, today)
    assert after[0][1] == "gone" and after[0][0].startswith(
        "gone: symbol rateLimitMiddleware \u2014 rateLimitMiddleware was removed"
    )
    assert ("never verified", "muted") in after
    plain = session.entry("memory-payments", "MEMORY.md", 3)  # "Use bun, not npm": no evidence
    assert v.panel("memory-payments", "MEMORY.md", 3, plain.text, plain, today) == []  # nothing, not even reads
