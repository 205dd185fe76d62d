"""Issue 38 point 11: a forgotten fact no longer hides behind a similar one, and every place that
decides "the same fact" decides it one way (``similarity.same_fact``: equal normalised text, or
texts of 20+ characters at 90+ with the same numbers, versions and dates).

The three reproductions, replayed: `amr forget` of "listens on port 5432" next to "... 6432"
then `amr forgotten` (it is listed, restorable) and `amr lint --history` (6432 is not
resurrected); an MCP client's `memory_remember` of another value (written, not a duplicate). And
the dream check's near duplicates, which decided "same fact" on their own (a text under 20
characters could match), now agree with lint's AMR015."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amr_tui.cli.main import main
from amr_tui.core.format.parser import parse
from amr_tui.core.lint.repo import RepoSnapshot, lint_repo
from amr_tui.services.dreams.check import accept_problems
from amr_tui.services.dreams.service import DreamService
from tests.historyhelpers import branch_commit, new_repo

PORTS = (
    "# Database\n\n- The billing database listens on port 5432 [source: https://example.com/s/1]\n"
    "- The billing database listens on port 6432 [source: https://example.com/s/2]\n"
)
MEMORY = "# Memory\n\n## Index\n- [[db]]\n"


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo("memory", {"MEMORY.md": MEMORY, "db.md": PORTS})


def test_forgetting_5432_next_to_6432_is_listed_restorable_and_6432_is_not_resurrected(repo, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    assert main(["forget", "db.md:3", "--reason", "pgbouncer now"]) == 0
    capsys.readouterr()
    assert main(["forgotten", "--json"]) == 0
    (fact,) = json.loads(capsys.readouterr().out)
    assert fact["text"] == "The billing database listens on port 5432"
    assert main(["lint", "--history", "."]) == 0
    assert "AMR030" not in capsys.readouterr().out
    assert main(["forgotten", "--restore", fact["id"]]) == 0
    assert "port 5432" in (repo / "db.md").read_text()


@pytest.mark.slow
async def test_mcp_remember_of_another_value_is_written_not_a_duplicate(tmp_path):
    from tests.mcp_client import amr_mcp, memory_repo

    repo = memory_repo(tmp_path / "memory", {"MEMORY.md": MEMORY, "db.md": PORTS})
    async with amr_mcp(repo, home=tmp_path / "home") as client:
        args = {"repo": "memory", "path": "db.md"}
        res = await client.ok("memory_remember", {**args, "text": "The billing database listens on port 7432"})
        assert res["status"] == "written", res
        res = await client.ok("memory_remember", {**args, "text": "The billing database listens on port 6432"})
        assert res["status"] == "duplicate" and res["matches"] == ["db.md:4"], res


def test_the_dream_checks_near_duplicates_agree_with_lint(tmp_path):
    """ "Redis port is 6379" (18 characters normalised) and "The Redis port is 6379" score 90: the
    dream check called them the same fact, lint's AMR015 (and the tombstone matcher) do not."""
    notes = "# Notes\n\n- Redis port is 6379\n"
    written = "- The Redis port is 6379\n- Deploy previews live for seven days on the staging cluster\n"
    root = new_repo(tmp_path / "memory", {"MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n", "notes.md": notes})
    files = {"MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n", "notes.md": notes + written}
    snap = RepoSnapshot("r", set(files), {p: parse(t.encode(), p) for p, t in files.items()})
    assert [f for f in lint_repo(snap) if f.diagnostic.code in ("AMR014", "AMR015")] == []
    branch_commit(root, "dreams/nightly", {"notes.md": notes + written}, "dream")
    assert [str(p) for p in accept_problems(DreamService(root), "nightly") if p.kind == "duplicate"] == []
    # a near duplicate both call one: long enough, the same values
    near = "- Deploy previews live for 7 days on the staging cluster\n- Deploy previews live for 7 days on staging cluster\n"
    branch_commit(root, "dreams/second", {"notes.md": notes + near}, "dream 2")
    dupes = [p for p in accept_problems(DreamService(root), "second") if p.kind == "duplicate"]
    files["notes.md"] = notes + near
    snap = RepoSnapshot("r", set(files), {p: parse(t.encode(), p) for p, t in files.items()})
    lint_near = [f.diagnostic.line for f in lint_repo(snap) if f.diagnostic.code == "AMR015"]
    # (the dream check names each written line, lint the later one of the pair)
    assert {p.line for p in dupes} == {4, 5} and lint_near == [5], (dupes, lint_near)
