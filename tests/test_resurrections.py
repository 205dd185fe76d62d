"""Issue 38 point 5: a resurrection is a fact written again, after it was forgotten, by someone
other than the one who forgot it; and it is said so everywhere at once (lint's AMR030, the
activity's text and JSON, the app's tree, marks and side panel, MCP) and nowhere else.

Not resurrections: an undo (`z`, `amr undo`) of one's own forget, a restore, the one who forgot
a fact writing it again, an entry rewritten in place (a conflict resolved "keep mine", an agent's
later reword of it), a near duplicate that was there before the forget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amr_tui.cli.main import main
from amr_tui.services.history.service import resurrections
from tests.conftest import git

AGENT = {
    "GIT_AUTHOR_NAME": "claude-code",
    "GIT_AUTHOR_EMAIL": "agent@amr.invalid",
    "GIT_COMMITTER_NAME": "claude-code",
    "GIT_COMMITTER_EMAIL": "agent@amr.invalid",
}
OTHER_AGENT = {**AGENT, "GIT_AUTHOR_NAME": "cursor", "GIT_COMMITTER_NAME": "cursor"}
PORT = "The billing database listens on port 5432"
FREEZE = "Deploys freeze on Fridays after noon"
OPS = f"# Ops\n\n- {PORT} [source: https://example.com/s/1; added: 2026-10-01]\n- {FREEZE} [source: https://example.com/s/2]\n"


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo("memory", {"MEMORY.md": "# Memory\n\n## Index\n- [[ops]]\n", "ops.md": OPS})


def commit(root: Path, files: dict[str, str], message: str, env: dict[str, str] | None = None) -> str:
    for rel, text in files.items():
        (root / rel).write_text(text)
        git(root, "add", "--", rel)
    git(root, "commit", "-q", "-m", message, env=env)
    return git(root, "rev-parse", "HEAD").strip()


def amr030(root: Path) -> list[tuple[str, int, str]]:
    return [(f.path, f.diagnostic.line, f.diagnostic.message) for f in resurrections(root)]


def test_undoing_ones_own_forget_is_no_resurrection(repo, monkeypatch, capsys):
    """`amr undo` of a forget put the fact back: AMR030 said it was resurrected."""
    monkeypatch.chdir(repo)
    assert main(["forget", "ops.md:3", "--reason", "stale"]) == 0
    assert main(["undo"]) == 0
    assert PORT in (repo / "ops.md").read_text()
    assert amr030(repo) == []
    capsys.readouterr()
    assert main(["lint", "--history", "."]) == 0
    assert "AMR030" not in capsys.readouterr().out


def test_an_agent_writing_back_what_the_user_forgot_is_one_and_names_both(repo, monkeypatch):
    monkeypatch.chdir(repo)
    assert main(["forget", "ops.md:3", "--reason", "moved to pgbouncer"]) == 0
    text = (repo / "ops.md").read_text()
    oid = commit(repo, {"ops.md": text + f"- {PORT}\n"}, "Remember db port", AGENT)
    ((path, line, message),) = amr030(repo)
    assert (path, line) == ("ops.md", 4)
    assert "forgotten on purpose" in message and "(moved to pgbouncer)" in message  # the tombstone: who, why
    assert f"written again by claude-code <agent@amr.invalid> in {oid[:7]}" in message  # who wrote it again


def test_a_line_nobody_committed_is_written_again_by_someone_not_committed_yet(repo, monkeypatch):
    monkeypatch.chdir(repo)
    assert main(["forget", "ops.md:3"]) == 0
    with (repo / "ops.md").open("a") as f:
        f.write(f"- {PORT}\n")
    ((_path, _line, message),) = amr030(repo)
    assert message.endswith("written again by someone, not committed yet")


def test_the_one_who_forgot_it_writing_it_again_is_no_resurrection(repo, monkeypatch):
    """The user's own re-adding; and an agent's own, told apart from another agent by name
    (agents writing through amr mcp share one address)."""
    monkeypatch.chdir(repo)
    assert main(["forget", "ops.md:3"]) == 0
    commit(repo, {"ops.md": (repo / "ops.md").read_text() + f"- {PORT} [source: https://example.com/s/9]\n"}, "Mine")
    assert amr030(repo) == []
    # an agent deletes a fact (no tombstone); the same agent writes it again: no; another agent: yes
    commit(
        repo,
        {"ops.md": (repo / "ops.md").read_text().replace(f"- {FREEZE} [source: https://example.com/s/2]\n", "")},
        "Drop the freeze",
        AGENT,
    )
    commit(repo, {"ops.md": (repo / "ops.md").read_text() + f"- {FREEZE}\n"}, "Freeze again", AGENT)
    assert amr030(repo) == []
    text = (repo / "ops.md").read_text().replace(f"- {FREEZE}\n", "")
    commit(repo, {"ops.md": text}, "Drop the freeze again", AGENT)
    commit(repo, {"ops.md": text + f"- {FREEZE}\n"}, "Freeze, says cursor", OTHER_AGENT)
    ((_p, _l, message),) = amr030(repo)
    assert '"Drop the freeze again"' in message and "by claude-code" in message and "by cursor" in message


def test_an_entry_rewritten_in_place_is_edited_not_forgotten(repo):
    """The conflict view's "Keep mine" puts the user's line where the agent's reword was; the
    agent then rewords it again. Neither commit forgot anything (their words share little)."""
    reword = "Deploys are frozen every Friday afternoon, no exceptions"
    commit(repo, {"ops.md": OPS.replace(FREEZE, reword)}, "Reword deploy freeze", AGENT)
    kept = OPS.replace(FREEZE, FREEZE + " UTC")
    commit(repo, {"ops.md": kept}, "Resolve edit conflict in ops.md: kept mine")
    assert amr030(repo) == []
    commit(repo, {"ops.md": OPS.replace(FREEZE, reword)}, "Reword deploy freeze again", AGENT)
    assert amr030(repo) == []
    from amr_tui.services.history.service import HistoryService

    service = HistoryService(repo)
    assert service.forgotten() == []  # nothing was deleted: each line took another's place
    timeline = service.entry_timeline("ops.md", 4)
    assert [e.kind for e in timeline.events] == ["reworded", "reworded", "reworded", "added"]


def test_a_near_duplicate_written_before_the_forget_is_no_resurrection(repo, monkeypatch):
    monkeypatch.chdir(repo)
    near = "The billing database listens on port 5432 today"
    commit(repo, {"ops.md": OPS + f"- {near}\n"}, "Near duplicate", AGENT)
    assert main(["forget", "ops.md:3"]) == 0
    assert amr030(repo) == []


def test_the_activity_calls_it_a_resurrection_after_a_review_mark(repo, monkeypatch, capsys):
    """After mark-reviewed, a forget by the user and the fact written again by an agent: the
    activity said "metadata, LOST 1 source" instead."""
    monkeypatch.chdir(repo)
    assert main(["activity", "mark-reviewed"]) == 0
    assert main(["forget", "ops.md:3", "--reason", "moved to pgbouncer"]) == 0
    oid = commit(repo, {"ops.md": (repo / "ops.md").read_text() + f"- {PORT}\n"}, "Remember db port", AGENT)
    capsys.readouterr()
    assert main(["activity", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ((change,),) = [data["changes"]]
    assert change["kind"] == "resurrected" and change["commit"] == oid and change["old"] == []
    assert "moved to pgbouncer" in change["resurrects"] and "written again by claude-code" in change["resurrects"]
    ((own,),) = [c["changes"] for c in data["commits"]]
    assert own["kind"] == "resurrected"
    assert main(["activity"]) == 0
    out = capsys.readouterr().out
    assert "resurrected" in out and "LOST" not in out and "metadata" not in out
    # the same, as lint says it
    ((_p, line, message),) = amr030(repo)
    assert message == f"resurrected fact: {change['resurrects']}" and line == change["new"]["line"]


def test_reverting_the_resurrection_in_the_activity_removes_only_that_line(repo, monkeypatch):
    from amr_tui.services.activity.service import ActivityService

    monkeypatch.chdir(repo)
    assert main(["activity", "mark-reviewed"]) == 0
    assert main(["forget", "ops.md:3"]) == 0
    forgotten = (repo / "ops.md").read_text()
    commit(repo, {"ops.md": forgotten + f"- {PORT}\n"}, "Remember db port", AGENT)
    service = ActivityService(repo)
    (change,) = service.activity().changes
    service.revert_change(change.change.id)
    assert (repo / "ops.md").read_text() == forgotten  # the forget stands: its line is not put back
    service.close()


def test_an_agents_own_deletion_undone_in_the_activity_is_no_resurrection(repo):
    """The user reverts an agent's deletion (Activity-Revert): the fact is put back, not written again."""
    from amr_tui.services.activity.service import ActivityService

    commit(
        repo,
        {"ops.md": OPS.replace(f"- {PORT} [source: https://example.com/s/1; added: 2026-10-01]\n", "")},
        "Drop port",
        AGENT,
    )
    service = ActivityService(repo)
    (change,) = service.activity().changes
    assert change.change.kind.value == "dropped"
    service.revert_change(change.change.id)
    service.close()
    assert PORT in (repo / "ops.md").read_text()
    assert amr030(repo) == []


@pytest.mark.slow
async def test_the_app_says_it_at_once_in_the_tree_the_marks_and_the_side_panel(repo, monkeypatch):
    """The side panel showed it only after ~15 s or a later write, the tree never: now the poll
    that shows the agent's commit shows its resurrection too."""
    from amr_tui.widgets.side_panel import SidePanel
    from tests.driver import WIDE_SIZE, app_for, running

    monkeypatch.chdir(repo)
    assert main(["forget", "ops.md:3", "--reason", "moved to pgbouncer"]) == 0
    app = app_for([repo], poll_interval=0.2)
    async with running(app, WIDE_SIZE) as drive:
        await drive.open("memory", "ops.md")
        screen = drive.screen
        await drive.until(lambda: screen.polls.history_checked, what="the first history walk")
        tree = screen.query_one("#tree")

        def row(path: str) -> str:
            return next(str(n.label) for n in tree.root.children[0].children if n.data and n.data.path == path)

        assert "resurrected" not in row("ops.md")
        commit(repo, {"ops.md": (repo / "ops.md").read_text() + f"- {PORT}\n"}, "Remember db port", AGENT)

        def shown_line() -> bool:
            doc = drive.current.doc
            return doc is not None and len(doc.lines) >= 4 and PORT in doc.lines[3].text

        await drive.until(shown_line, what="the agent's line shown")
        # the same refresh: the tree's mark and the entry's mark are there with it
        assert "resurrected" in row("ops.md")
        assert 4 in drive.view.marks
        await drive.to_line(4)

        def side() -> str:
            return str(screen.query_one(SidePanel).query_one("#entry-details").render())

        assert "AMR030" in side(), side()
        # (a poll that read the file before the commit names "someone, not committed yet" first)
        await drive.until(lambda: "written again by claude-code" in side(), what="the writer named")


@pytest.mark.slow
async def test_mcp_reports_it_when_an_agent_forces_a_fact_someone_else_forgot(tmp_path):
    """memory_remember with force=true of a fact the user forgot: the reply carries lint's
    AMR030, naming both; the agent forcing back a fact it forgot itself gets none."""
    import subprocess
    import sys

    from tests.mcp_client import USER_ENV, amr_mcp, memory_repo

    repo = memory_repo(tmp_path / "memory", {"MEMORY.md": "# Memory\n\n## Index\n- [[ops]]\n", "ops.md": OPS})
    env = {**__import__("os").environ, **USER_ENV}
    subprocess.run([sys.executable, "-m", "amr_tui", "forget", "ops.md:3"], cwd=repo, env=env, check=True)
    async with amr_mcp(repo, home=tmp_path / "home") as client:
        res = await client.ok("memory_remember", {"text": PORT, "repo": "memory", "path": "ops.md", "force": True})
        assert res["status"] == "written", res
        (d,) = [d for d in res["diagnostics"] if d["code"] == "AMR030"]
        assert "by Repo User" in d["message"] and "written again by test-agent 1.0 <agent@amr.invalid>" in d["message"]
        assert d["line"] == res["entry"]["line"]
        read = await client.ok("memory_read", {"repo": "memory", "path": "ops.md"})
        mine = next(e for e in read["entries"] if e["text"] == FREEZE)
        await client.ok(
            "memory_forget",
            {"repo": "memory", "path": "ops.md", "line": mine["line"], "hash": mine["hash"], "reason": "x"},
        )
        res = await client.ok("memory_remember", {"text": FREEZE, "repo": "memory", "path": "ops.md", "force": True})
        assert res["status"] == "written" and not [d for d in res["diagnostics"] if d["code"] == "AMR030"], res


def test_the_past_search_calls_resurrected_what_lint_does_and_nothing_else(repo, monkeypatch, capsys):
    """`amr search --history`: the user's own re-adding of a fact they forgot is back, not resurrected."""
    monkeypatch.chdir(repo)
    assert main(["forget", "ops.md:3", "--reason", "stale"]) == 0
    commit(repo, {"ops.md": (repo / "ops.md").read_text() + f"- {PORT}\n"}, "Mine again")
    capsys.readouterr()
    assert main(["search", "--history", "billing database port", "--json"]) == 0
    rows = [r for r in json.loads(capsys.readouterr().out) if r["text"] == PORT]
    assert rows and all(r["present"] and not r["resurrected"] for r in rows), rows
    commit(repo, {"ops.md": (repo / "ops.md").read_text().replace(f"- {PORT}\n", "")}, "Gone again")
    commit(repo, {"ops.md": (repo / "ops.md").read_text() + f"- {PORT}\n"}, "Agent remembers", AGENT)
    assert main(["search", "--history", "billing database port", "--json"]) == 0
    rows = [r for r in json.loads(capsys.readouterr().out) if r["text"] == PORT]
    assert rows and any(r["resurrected"] for r in rows), rows


def test_a_tombstone_nobody_committed_names_who_forgot_by_its_by(repo):
    """docs/format.md 9.3: with no commit behind the tombstone, its `by` says who forgot it."""
    commit(repo, {"ops.md": OPS.replace(FREEZE, FREEZE + " in the EU")}, "Agent edit", AGENT)
    stone = f"- {FREEZE} in the EU [forgotten: 2026-10-08; by: claude-code]\n"
    (repo / ".amr").mkdir()
    (repo / ".amr" / "forgotten.md").write_text("# Forgotten facts\n\n" + stone)
    assert amr030(repo) == []  # claude-code forgot it and wrote its line: its own
    (repo / ".amr" / "forgotten.md").write_text("# Forgotten facts\n\n" + stone.replace("claude-code", "Alice"))
    ((_p, _l, message),) = amr030(repo)
    assert "by Alice" in message and "written again by claude-code" in message


@pytest.mark.parametrize("writer", ["the same user", "an agent"])
def test_sync_says_resurrected_where_amr030_does(tmp_path, writer):
    """The seed's case 6 through `amr sync`: one clone deletes a fact, a stale one writes it into a
    new file. Sync's warning follows AMR030: flagged when someone else wrote it, not the user's own."""
    from amr_tui.services.sync.run import sync

    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    seed = tmp_path / "seed"
    git(tmp_path, "init", "-q", "-b", "main", str(seed))
    commit(seed, {"MEMORY.md": "# Memory\n\n## Index\n- [[ops]]\n", "ops.md": OPS}, "seed")
    git(seed, "push", "-q", str(origin), "main")
    a, b = tmp_path / "a", tmp_path / "b"
    for clone in (a, b):
        git(tmp_path, "clone", "-q", str(origin), str(clone))
    commit(a, {"ops.md": OPS.replace(f"- {FREEZE} [source: https://example.com/s/2]\n", "")}, "Drop the freeze")
    git(a, "push", "-q", "origin", "main")
    (b / "deploys.md").write_text(f"# Deploys\n\n- {FREEZE}\n")
    git(b, "add", "deploys.md")
    git(b, "commit", "-q", "-m", "Stale session", env=AGENT if writer == "an agent" else None)
    res = sync(b)
    assert res.status == "synced", res.message
    expected = (("deploys.md", FREEZE.lower()),) if writer == "an agent" else ()
    assert res.resurrected == expected
    assert bool(amr030(b)) == (writer == "an agent")


def test_the_activity_uses_the_history_walk_for_deletions_without_a_tombstone_once_it_is_done(repo):
    """docs/activity.md: tombstoned facts always; a fact deleted without one once the walk is done
    (the app's AMR030 walk), never waited for."""
    from amr_tui.services.activity.service import ActivityService

    commit(repo, {"ops.md": OPS.replace(f"- {FREEZE} [source: https://example.com/s/2]\n", "")}, "Drop", AGENT)
    commit(repo, {"ops.md": (repo / "ops.md").read_text() + f"- {FREEZE}\n"}, "Freeze again", OTHER_AGENT)
    service = ActivityService(repo)

    def kind() -> str:
        return next(
            c.change.kind.value for c in service.activity().changes if c.change.new and FREEZE in c.change.new.text
        )

    assert kind() != "resurrected" and not service.history.walked()  # not walked for it
    assert [f.diagnostic.code for f in service.history.resurrections()] == ["AMR030"]  # the walk, as the app does
    assert kind() == "resurrected"
    service.close()


@pytest.mark.slow
async def test_the_activity_review_screen_lists_it_as_a_resurrection(repo, monkeypatch):
    from tests.driver import WIDE_SIZE, app_for, running, screen_text

    monkeypatch.chdir(repo)
    assert main(["activity", "mark-reviewed"]) == 0
    assert main(["forget", "ops.md:3", "--reason", "moved to pgbouncer"]) == 0
    commit(repo, {"ops.md": (repo / "ops.md").read_text() + f"- {PORT}\n"}, "Remember db port", AGENT)
    app = app_for([repo], poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        await drive.press("A")
        await drive.until(lambda: type(app.screen).__name__ == "ActivityScreen", what="the activity review")
        screen = app.screen
        await drive.until(lambda: screen.activity is not None, what="the activity read")
        assert [c.kind.value for c in screen.changes] == ["resurrected"]  # all together
        assert screen.changes[0].old == ()
        assert "written again by claude-code" in (screen.changes[0].resurrects or "")
        await drive.shown("resurrects a forgotten fact")
        assert "LOST" not in screen_text(app)


def test_a_recheck_reads_what_changed_and_finds_what_a_whole_check_finds(repo, monkeypatch):
    """After the first check, the app's poll re-checks AMR030 on the files changed since and those
    of the findings (at a million entries the whole work tree took minutes a poll): the same
    findings as a check of every file, as agents write a forgotten fact again, elsewhere, and a
    forget is undone."""
    from amr_tui.services.session.session import Session
    from amr_tui.services.workspace import Mount

    monkeypatch.chdir(repo)
    monkeypatch.setenv("AMR_NO_CACHE", "1")
    assert main(["forget", "ops.md:3", "--reason", "stale"]) == 0
    s = Session([Mount("memory", repo)])
    s.load()
    assert s.check_history("memory") == 0

    def recheck() -> list[tuple[str, int]]:
        s.watch.poll()
        assert s.repos["memory"].history_paths is not None  # incremental from now on
        s.check_history("memory")
        got = [(f.path, f.diagnostic.line) for f in s.repos["memory"].history_findings]
        assert got == [(p, ln) for p, ln, _m in amr030(repo)]  # what a whole check finds
        return got

    commit(repo, {"notes.md": f"# Notes\n\n- {PORT}\n"}, "Remember db port", AGENT)
    assert recheck() == [("notes.md", 3)]
    commit(repo, {"other.md": "# Other\n\n- Something else entirely\n"}, "Unrelated", OTHER_AGENT)
    assert recheck() == [("notes.md", 3)]  # a finding in a file not changed since is kept
    commit(repo, {"more.md": f"# More\n\n- {PORT}\n"}, "Again", OTHER_AGENT)
    assert recheck() == [("more.md", 3), ("notes.md", 3)]
