"""Activity review (issue 16 point 1): what others committed since the user's last review, entry by
entry; the "reviewed up to" mark in the git dir; reverting one entry change or a whole commit as
a new commit. Real git repos: the user is FIXED_ENV's author, agents commit with their own."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from amr_tui.cli.main import main
from amr_tui.services.activity.model import REVIEWED_FILE, ActivityError
from amr_tui.services.activity.service import ActivityService
from tests.conftest import FIXED_ENV, git
from tests.driver import app_for, running

AGENT = {
    "GIT_AUTHOR_NAME": "claude-code",
    "GIT_AUTHOR_EMAIL": "agent@amr.invalid",
    "GIT_COMMITTER_NAME": "claude-code",
    "GIT_COMMITTER_EMAIL": "agent@amr.invalid",
}
USER_EMAIL = FIXED_ENV["GIT_AUTHOR_EMAIL"]

MEMORY = "# Memory\n\n- The user prefers short answers\n\n## Index\n- [[deploys]]\n"
DEPLOYS = "# Deploys\n\n- Deploys go out on Tuesdays\n- Staging is reset nightly\n"


def commit(root: Path, files: dict[str, str | None], message: str, env: dict[str, str] | None = None) -> str:
    """Write (None: delete) the files and commit them, as the agent when ``env`` says so."""
    for rel, text in files.items():
        if text is None:
            git(root, "rm", "-q", "--", rel)
        else:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
            git(root, "add", "--", rel)
    git(root, "commit", "-q", "-m", message, env=env)
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture
def repo(make_repo) -> Path:
    """The user's two commits, then two agent commits: one adds two entries and rewords one,
    the other adds a file and links it from the Index."""
    root = make_repo("memory", {"MEMORY.md": MEMORY, "deploys.md": DEPLOYS})
    commit(root, {"MEMORY.md": MEMORY.replace("short answers", "short answers in bullets")}, "User edit")
    commit(
        root,
        {
            "deploys.md": DEPLOYS.replace("Tuesdays", "Tuesdays and Thursdays")
            + "- Rollbacks need a second reviewer\n- Freeze deploys the week of a launch\n"
        },
        "Remember deploy rules",
        AGENT,
    )
    commit(
        root,
        {
            "oncall.md": "# On-call\n\n- Pages go to the #ops channel first\n",
            "MEMORY.md": (root / "MEMORY.md").read_text() + "- [[oncall]]\n",
        },
        "Remember on-call",
        AGENT,
    )
    return root


def texts(activity) -> list[tuple[str, str, str]]:
    """(kind, path, text) of each unreviewed change, as a whole."""
    return [
        (c.change.kind.value, c.change.primary_path, (c.change.new or c.change.old[0]).text) for c in activity.changes
    ]


def test_agents_commits_after_the_users_are_listed_entry_by_entry_and_the_users_are_not(repo):
    service = ActivityService(repo)
    a = service.activity()
    assert a.user_email == USER_EMAIL
    assert a.start_reason == "root"  # no mark yet: from the first commit, the user's own commits or not
    assert a.start is None
    assert [c.subject for c in a.commits] == ["Remember deploy rules", "Remember on-call"]
    assert {c.author_email for c in a.commits} == {"agent@amr.invalid"}
    assert sorted(texts(a)) == sorted(
        [
            ("reworded", "deploys.md", "Deploys go out on Tuesdays and Thursdays"),
            ("new", "deploys.md", "Rollbacks need a second reviewer"),
            ("new", "deploys.md", "Freeze deploys the week of a launch"),
            ("new", "oncall.md", "Pages go to the #ops channel first"),
            ("new", "MEMORY.md", "[[oncall]]"),
        ]
    )
    assert a.count == 5
    # each change names the agent commit that made it
    by = {t[2]: c.commit.subject for t, c in zip(texts(a), a.changes)}
    assert by["Rollbacks need a second reviewer"] == "Remember deploy rules"
    assert by["[[oncall]]"] == "Remember on-call"
    # the user's own reword of MEMORY.md is not listed, and neither is it when the range covers it
    wide = service.activity(since=git(repo, "rev-list", "--max-parents=0", "HEAD").strip())
    assert wide.own_commits == 1
    assert not any("bullets" in t[2] for t in texts(wide))
    assert wide.count == 5
    service.close()


def test_the_users_own_commit_does_not_hide_what_agents_wrote_before_it(repo, capsys, monkeypatch):
    """Issue 24 point 2: after one `amr forget` by the user, the agents' changes are all still
    listed (the CLI, its JSON, and the tree's count use the same start); only a review moves it."""
    monkeypatch.chdir(repo)
    assert ActivityService(repo).activity().count == 5
    assert main(["forget", "MEMORY.md:3", "--reason", "stale"]) == 0  # the user's own commit on top
    capsys.readouterr()
    service = ActivityService(repo)
    a = service.activity()
    assert a.start_reason == "root" and a.count == 5
    assert service.count() == 5
    assert not (Path(service.repo.git_dir) / REVIEWED_FILE).exists()  # nothing moved the mark
    assert main(["activity", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["count"] == 5
    assert main(["activity"]) == 0
    out = capsys.readouterr().out
    assert "5 unreviewed entry changes in 2 commits" in out and "nothing unreviewed" not in out
    # a revert (the user's own commit too) leaves the rest to review and writes no mark
    target = next(c.change for c in a.changes if c.change.new and c.change.new.text.startswith("Rollbacks"))
    service.revert_change(target.id)
    assert service.activity().count == 4
    assert not (Path(service.repo.git_dir) / REVIEWED_FILE).exists()
    service.close()


def test_mark_reviewed_empties_the_list_and_is_kept_in_the_git_dir(repo):
    service = ActivityService(repo)
    assert service.count() == 5
    head = git(repo, "rev-parse", "HEAD").strip()
    assert service.mark_reviewed() == head
    assert json.loads((repo / ".git" / REVIEWED_FILE).read_text())["commit"] == head
    assert git(repo, "status", "--porcelain") == ""  # nothing in the work tree
    a = service.activity()
    assert (a.start_reason, a.commits, a.count) == ("mark", [], 0)
    # a new agent commit after the mark is listed, alone
    commit(repo, {"oncall.md": (repo / "oncall.md").read_text() + "- Escalate after 15 minutes\n"}, "More", AGENT)
    assert texts(service.activity()) == [("new", "oncall.md", "Escalate after 15 minutes")]
    service.close()


def test_revert_one_entry_change_is_a_new_commit_undoing_only_that_entry(repo):
    service = ActivityService(repo)
    a = service.activity()
    before = git(repo, "rev-parse", "HEAD").strip()
    target = next(c.change for c in a.changes if c.change.new and c.change.new.text.startswith("Rollbacks"))
    saved = service.revert_change(target.id)
    assert saved.committed
    assert git(repo, "rev-parse", "HEAD~1").strip() == before  # a new commit on top; history kept
    body = git(repo, "log", "-1", "--format=%B")
    assert f"Activity-Revert: {a.commits[0].oid}" in body
    assert f"Activity-Entry: {target.id}" in body
    assert git(repo, "log", "-1", "--format=%ae").strip() == USER_EMAIL
    deploys = (repo / "deploys.md").read_text()
    assert "Rollbacks need a second reviewer" not in deploys
    # the agent's other changes in that commit stay
    assert "Deploys go out on Tuesdays and Thursdays" in deploys
    assert "Freeze deploys the week of a launch" in deploys
    assert git(repo, "diff", "HEAD~1", "HEAD", "--stat").count("|") == 1
    # the rest is still to review: the user's revert commit did not become "the last review"
    left = service.activity()
    assert left.start == a.start and left.count == 4
    assert not any(t[2].startswith("Rollbacks") for t in texts(left))
    with pytest.raises(ActivityError):
        service.revert_change(target.id)  # it is not listed any more
    service.close()


def test_revert_a_reworded_entry_puts_the_old_text_back_in_its_place(repo):
    service = ActivityService(repo)
    target = next(c.change for c in service.activity().changes if c.change.kind.value == "reworded")
    service.revert_change(target.id)
    lines = (repo / "deploys.md").read_text().splitlines()
    assert lines[2] == "- Deploys go out on Tuesdays"
    assert "- Rollbacks need a second reviewer" in lines
    service.close()


def test_revert_a_whole_commit(repo):
    service = ActivityService(repo)
    a = service.activity()
    first = a.commits[0]  # "Remember deploy rules": a later agent commit came after it
    service.revert_commit(first.short)
    assert (repo / "deploys.md").read_text() == DEPLOYS
    assert "[[oncall]]" in (repo / "MEMORY.md").read_text()  # the later commit stays
    assert (repo / "oncall.md").exists()
    assert f"Activity-Revert: {first.oid}" in git(repo, "log", "-1", "--format=%B")
    # the last one: a file added and a link at the end of an Index that the user had changed
    # next to it (a three-way merge of the whole file conflicts; the entries are undone one by one)
    second = a.commits[1]
    service.revert_commit(second.oid)
    assert not (repo / "oncall.md").exists()
    memory = (repo / "MEMORY.md").read_text()
    assert "[[oncall]]" not in memory and "short answers in bullets" in memory
    assert service.activity().count == 0
    with pytest.raises(ActivityError):
        service.revert_commit(second.oid)  # already undone: nothing is written
    assert git(repo, "status", "--porcelain") == ""
    service.close()


def test_revert_is_refused_when_the_entry_changed_again_since(repo):
    service = ActivityService(repo)
    a = service.activity()
    target = next(c for c in a.commits[0].diff.changes if c.new and c.new.text.startswith("Freeze"))
    commit(repo, {"deploys.md": (repo / "deploys.md").read_text().replace("Freeze", "Always freeze")}, "User")
    head = git(repo, "rev-parse", "HEAD").strip()
    with pytest.raises(ActivityError, match="changed again"):
        service.revert_change(target.id, a.commits[0].oid, since=a.start)
    assert git(repo, "rev-parse", "HEAD").strip() == head
    service.close()


def test_cli_lists_entries_with_commit_author_date_as_json_and_marks_reviewed(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)

    def amr(*args: str) -> subprocess.CompletedProcess[str]:
        capsys.readouterr()
        code = main(["activity", *args])
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out, err)

    out = amr("--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["count"] == 5 and data["user"] == USER_EMAIL and data["since_reason"] == "root"
    rollback = next(c for c in data["changes"] if c["new"] and c["new"]["text"].startswith("Rollbacks"))
    assert rollback["kind"] == "new" and rollback["author"] == "claude-code"
    assert rollback["email"] == "agent@amr.invalid" and rollback["subject"] == "Remember deploy rules"
    assert rollback["commit"] == git(repo, "rev-parse", "HEAD~1").strip() and rollback["date"].startswith("2026-10-01")
    assert [c["subject"] for c in data["commits"]] == ["Remember deploy rules", "Remember on-call"]
    text = amr(str(repo))
    assert "5 unreviewed entry changes in 2 commits" in text.stdout and "Rollbacks need" in text.stdout
    marked = amr("mark-reviewed", str(repo))
    assert marked.returncode == 0 and "reviewed up to" in marked.stdout
    assert json.loads(amr("--json").stdout)["count"] == 0
    assert "nothing unreviewed" in amr().stdout
    assert amr("--since", "no-such-rev").returncode == 2


@pytest.mark.slow
async def test_the_tree_counts_unreviewed_changes_and_the_review_reverts_one_and_marks_reviewed(repo):
    app = app_for([repo], poll_interval=3600)
    async with running(app, ready=False) as drive:
        pilot = drive.pilot
        await drive.settled()
        tree = app.screen.query_one("#tree")

        def repo_row() -> str:
            return str(tree.root.children[0].label)

        await drive.until(lambda: "5 pending" in repo_row(), what="the tree's unreviewed count")
        await pilot.press("A")
        await drive.until(lambda: type(app.screen).__name__ == "ActivityScreen", what="the activity review")
        screen = app.screen
        await drive.until(lambda: screen.activity is not None, what="the activity read")
        assert len(screen.changes) == 5  # all together first
        await pilot.press("j")  # the first agent commit
        await drive.settled()
        assert screen.scope == 1 and len(screen.changes) == 3
        changes = screen.query_one("#review-changes")
        changes.focus()
        at = next(i for i, c in enumerate(screen.changes) if c.new and c.new.text.startswith("Rollbacks"))
        changes.highlighted = at
        await pilot.press("x")
        (await drive.asked("Revert this new entry change?")).action_answer(True)
        await drive.until(lambda: screen.activity is not None and screen.activity.count == 4, what="the revert")
        assert "Rollbacks" not in (repo / "deploys.md").read_text()
        assert "Freeze deploys" in (repo / "deploys.md").read_text()
        await drive.settled()
        assert screen.scope == 1  # still on that commit: the reverted change is marked as history
        prompts = [str(changes.get_option_at_index(i).prompt) for i in range(changes.option_count)]
        assert [p.startswith("\u21ba") for p in prompts] == [i == at for i in range(len(prompts))], prompts
        await pilot.press("m")
        await drive.until(lambda: screen.activity is not None and screen.activity.count == 0, what="marked reviewed")
        await pilot.press("escape")
        await drive.until(lambda: "pending" not in repo_row(), what="the tree's count gone")
        await drive.settled()
        assert "pending" not in repo_row() and "unreviewed" not in repo_row()


def test_an_agent_writing_a_forgotten_fact_again_is_a_resurrection(repo, capsys, monkeypatch):
    """Issue 24 point 3: the activity (its JSON and its text) calls it a resurrection, not new."""
    monkeypatch.chdir(repo)
    assert main(["forget", "deploys.md:4", "--reason", "staging is gone"]) == 0  # "Staging is reset nightly"
    text = (repo / "deploys.md").read_text()
    commit(repo, {"deploys.md": text + "- Staging is reset nightly\n"}, "Remember staging", AGENT)
    capsys.readouterr()
    assert main(["activity", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    back = [c for c in data["changes"] if c["new"] and c["new"]["text"] == "Staging is reset nightly"]
    assert len(back) == 1 and back[0]["kind"] == "resurrected", back
    assert back[0]["resurrects"] and "staging is gone" in back[0]["resurrects"]
    assert main(["activity"]) == 0
    assert "resurrect" in capsys.readouterr().out.lower()
    # the agent's earlier commits were new then: not marked
    first = next(c for c in data["changes"] if c["new"] and c["new"]["text"].startswith("Rollbacks"))
    assert first["kind"] == "new" and first["resurrects"] is None


@pytest.mark.slow
async def test_a_resurrection_is_marked_in_the_past_search_and_the_finders_past_view(repo, capsys, monkeypatch):
    """Issue 24 point 3: the fact forgotten on purpose and written again by an agent is called a
    resurrection by `amr search --history` (text and JSON) and in the finder's past view."""
    from textual.widgets import OptionList

    from amr_tui.screens.finder import FinderScreen
    from tests.driver import wait_for

    monkeypatch.chdir(repo)
    assert main(["forget", "deploys.md:4", "--reason", "staging is gone"]) == 0  # "Staging is reset nightly"
    text = (repo / "deploys.md").read_text()
    commit(repo, {"deploys.md": text + "- Staging is reset nightly\n"}, "Remember staging", AGENT)
    capsys.readouterr()
    assert main(["search", "--history", "staging reset nightly", "--json"]) == 0
    rows = [r for r in json.loads(capsys.readouterr().out) if r["text"] == "Staging is reset nightly"]
    assert rows and all(r["resurrected"] and r["present"] for r in rows), rows
    assert rows[0]["tombstone"]["reason"] == "staging is gone"
    assert main(["search", "--history", "staging reset nightly"]) == 0
    assert "written again since: resurrected" in capsys.readouterr().out

    app = app_for([repo], poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.screen, FinderScreen), what="finder")
        finder = app.screen
        await pilot.press("ctrl+r", *"staging reset nightly")
        await wait_for(pilot, lambda: finder.past_entries, timeout=20, what="the past results")
        at = next(i for i, e in enumerate(finder.past_entries) if e.text == "Staging is reset nightly")
        label = str(finder.query_one("#finder-results", OptionList).get_option_at_index(at).prompt)
        assert "written again at deploys.md:" in label and "resurrected" in label, label


def test_a_new_commit_diffs_only_itself_and_the_activity_is_the_same_as_from_scratch(repo):
    """The badge re-reads the activity after every agent commit: each commit's own entry diff is
    kept (by parent and commit), so the next activity diffs only the new commit, and what it
    lists is what a fresh service lists."""
    service = ActivityService(repo)
    first = service.activity()
    assert len(first.commits) == 2
    commit(repo, {"deploys.md": (repo / "deploys.md").read_text() + "- Canary first, then all\n"}, "Canary", AGENT)
    second = service.activity()
    assert [c.oid for c in second.commits][:2] == [c.oid for c in first.commits]
    assert all(a.diff is b.diff for a, b in zip(first.commits, second.commits, strict=False))  # not diffed again
    fresh = ActivityService(repo).activity()
    assert [(c.oid, [ch.id for ch in c.diff.changes]) for c in second.commits] == [
        (c.oid, [ch.id for ch in c.diff.changes]) for c in fresh.commits
    ]
    assert [(c.change.id, c.commit.oid) for c in second.changes] == [(c.change.id, c.commit.oid) for c in fresh.changes]
    assert second.count == fresh.count == first.count + 1
