"""Dreaming with evidence: the built-in pass proposes, on its branch and with a reason each, the
entries whose evidence is gone or moved and the entries no agent read; the review gives each
change its reason and says whether new entries' sources and evidence exist; the schedule."""

from __future__ import annotations

import datetime as dt
import io
import json
import shutil
from pathlib import Path

import pytest

from amr_tui.cli.main import main
from amr_tui.core.dreams.clean import REASON_TRAILER
from amr_tui.services.config import Config
from amr_tui.services.dreams.evidence import builtin_with_evidence, dream_now, unread_proposals
from amr_tui.services.dreams.schedule import cron_time, plan, systemd_calendar
from amr_tui.services.dreams.service import DreamService
from amr_tui.services.usage import Usage, record
from amr_tui.services.verify.coderepo import CodeSource
from tests.verifyscenario import build_code_repo, build_memory, git

TODAY = dt.date(2026, 11, 2)


@pytest.fixture
def scenario(tmp_path: Path) -> tuple[Path, Path]:
    code = build_code_repo(tmp_path / "payments")
    return code, build_memory(tmp_path / "memory-payments", code)


def test_the_pass_drops_gone_and_rewrites_moved_entries_each_with_its_reason(scenario) -> None:
    code, memory = scenario
    service = DreamService(memory)
    main_before = git(memory, "rev-parse", "main").strip()
    try:
        run, notes = builtin_with_evidence(
            service, service.mount, Config(code={"memory-payments": [code]}), today=TODAY
        )
        assert run is not None and notes[-1] == "8 evidence proposal(s), 0 unread proposal(s)"
        assert git(memory, "rev-parse", "main").strip() == main_before  # never on main
        assert git(memory, "status", "--porcelain") == ""
        body = git(memory, "log", "-1", "--format=%B", run.branch)
        assert body.startswith(
            "dream: drop 5 entries whose evidence is gone and rewrite 3 entries whose evidence moved"
        )
        assert f"{REASON_TRAILER}: MEMORY.md:6: evidence gone: symbol rateLimitMiddleware gone" in body
        tip = git(memory, "show", f"{run.branch}:MEMORY.md")
        assert "`lib/cache/redis.ts`" in tip and "bun run db:migrate" in tip and "rateLimitMiddleware" not in tip
        assert "calls `reconcile_ledger_day` in src/payments/ledger.py:10" in git(
            memory, "show", f"{run.branch}:backend.md"
        )
        review = service.review(run.id)
        by_text = {(c.old[0].text if c.old else c.new.text): c for c in review.diff.changes}  # type: ignore[union-attr]
        dropped = by_text["Lint with `npm run lint` before pushing"]
        assert dropped.kind == "dropped"
        assert review.reasons[dropped.id].startswith("evidence gone: script lint (npm) gone: package.json dropped")
        assert len(review.reasons) == 8  # every change of the run says why
        service.code = lambda: [CodeSource(code, "config")]
        checks = service.evidence_notes(review)
        moved = by_text["The redis client lives in `lib/redis.ts`; import `getRedisClient` from there"]
        assert ("evidence holds: path lib/cache/redis.ts \u2014 in payments at HEAD", False) in checks[moved.id]
        assert ("source: https://example.com/sessions/2 (a URL: not fetched)", False) in checks[moved.id]
    finally:
        service.close()


def test_without_code_nothing_is_judged_and_the_pass_says_so(scenario) -> None:
    _code, memory = scenario
    service = DreamService(memory)
    try:
        run, notes = builtin_with_evidence(service, service.mount, Config(), today=TODAY)
    finally:
        service.close()
    assert run is None
    assert "no code to check entries against: evidence not checked" in notes


def test_unread_entries_are_proposed_only_where_reads_are_known_long_enough(tmp_path: Path) -> None:
    db = tmp_path / "usage.sqlite3"
    repo = tmp_path / "memory"
    repo.mkdir()
    files: dict[str, bytes | None] = {
        "MEMORY.md": b"# M\n\n- Loaded at every start\n\n## Index\n\n- [[topic]]\n",
        "topic.md": (
            b"# Topic\n\n- Read last week\n- Read long ago\n- Never read at all\n"
            b"- Added lately [added: 2026-10-20]\n- Verified lately [verified: 2026-10-25]\n"
        ),
    }
    usage = Usage(repo, path=db)
    assert unread_proposals(files, usage, days=90, today=TODAY) == []  # unknown: nothing
    record(repo, [("topic.md", "Read long ago")], at="2026-06-01T10:00:00+00:00", path=db)
    record(repo, [("topic.md", "Read last week")], at="2026-10-26T10:00:00+00:00", path=db)
    assert unread_proposals(files, Usage(repo, path=db), days=200, today=TODAY) == []  # known 154 days only
    found = unread_proposals(files, Usage(repo, path=db), days=90, today=TODAY)
    assert [(p.path, p.raw) for p in found] == [("topic.md", "- Read long ago"), ("topic.md", "- Never read at all")]
    assert (
        found[0].reason
        == "no agent read it through amr mcp in 90 days (last read 2026-06-01; reads recorded since 2026-06-01)"
    )
    assert "never read" in found[1].reason


def test_dream_now_makes_a_run_per_repo(scenario) -> None:
    code, memory = scenario
    service = DreamService(memory)
    try:
        lines = dream_now([(service, service.mount)], Config(code={"memory-payments": [code]}), today=TODAY)
        assert lines == [
            "memory-payments: dreams/2026-11-02-amr: drop 5 entries whose evidence is gone and rewrite 3 entries "
            "whose evidence moved (8 evidence proposal(s), 0 unread proposal(s))"
        ]
        again = dream_now([(service, service.mount)], Config(code={"memory-payments": [code]}), today=TODAY)
        assert again[0].startswith("memory-payments: dreams/2026-11-02-amr-2")  # a second run, numbered
    finally:
        service.close()


@pytest.mark.slow
def test_dreams_show_prints_the_reasons_and_checks(scenario, capsys, monkeypatch, tmp_path: Path) -> None:
    code, memory = scenario
    (tmp_path / "cfg" / "amr").mkdir(parents=True)
    (tmp_path / "cfg" / "amr" / "config.toml").write_text(f'[repo."memory-payments"]\ncode = ["{code}"]\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert main(["dream", str(memory), "--today", "2026-11-02"]) == 0
    capsys.readouterr()
    assert main(["dreams", "show", "-C", str(memory), "2026-11-02-amr", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["reasons"]) == 8 and all(r.startswith("evidence ") for r in data["reasons"].values())
    assert any("evidence holds: script db:migrate (bun)" in n for notes in data["checks"].values() for n in notes)
    assert main(["dreams", "show", "-C", str(memory), "2026-11-02-amr"]) == 0
    text = capsys.readouterr().out
    assert ": why: evidence gone: config FEATURE_NEW_CHECKOUT gone" in text


# ---------------------------------------------------------------------- the schedule


def test_schedule_times() -> None:
    assert (cron_time(24), systemd_calendar(24)) == ("17 3 * * *", "*-*-* 03:17:00")
    assert (cron_time(12), systemd_calendar(12)) == ("17 */12 * * *", "*-*-* 00/12:17:00")
    assert (cron_time(168), systemd_calendar(168)) == ("17 3 * * 1", "Mon *-*-* 03:17:00")


def test_install_schedule_shows_asks_then_writes_the_systemd_user_timer(
    scenario, capsys, monkeypatch, tmp_path
) -> None:
    _code, memory = scenario
    cfg = tmp_path / "cfg"
    (cfg / "amr").mkdir(parents=True)
    (cfg / "amr" / "config.toml").write_text('[dream]\nagent = "my-agent --dream"\nevery = "12h"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(cfg))
    units = cfg / "systemd" / "user"
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    assert main(["dream", str(memory), "--install-schedule", "--schedule-with", "systemd", "--no-enable"]) == 1
    shown = capsys.readouterr().out
    assert "OnCalendar=*-*-* 00/12:17:00" in shown and f"dream {memory} --agent 'my-agent --dream'" in shown
    assert "Nothing was added." in shown and not units.exists()  # asked, said no: nothing written
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    assert main(["dream", str(memory), "--install-schedule", "--schedule-with", "systemd", "--no-enable"]) == 0
    files = sorted(p.name for p in units.iterdir())
    assert len(files) == 2 and files[0].startswith("amr-dream-memory-payments-") and files[1].endswith(".timer")
    service = (units / files[0]).read_text()
    assert "ExecStart=" in service and f"-m amr_tui dream {memory} --agent 'my-agent --dream'" in service
    assert "Persistent=true" in (units / files[1]).read_text()
    capsys.readouterr()
    assert main(["dream", str(memory), "--install-schedule", "--schedule-with", "systemd", "--yes", "--no-enable"]) == 0
    out = capsys.readouterr().out
    assert "already there" in out and "systemctl --user enable --now amr-dream-memory-payments-" in out


@pytest.mark.skipif(shutil.which("crontab") is None, reason="no crontab on this machine")
def test_the_cron_line_names_the_repo(scenario) -> None:
    _code, memory = scenario
    p = plan(memory, agent=None, every="1d", kind="cron")
    assert p.cron_line.startswith("17 3 * * * ") and p.cron_line.endswith(f"# amr dream {memory.resolve()}")
