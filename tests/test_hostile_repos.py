"""Repos git refuses, or that try to send git elsewhere: a clear message, nothing written.

* another user's repo (git's "dubious ownership", simulated with GIT_TEST_ASSUME_DIFFERENT_OWNER);
* a repo whose own config sets ``core.worktree`` to another folder: before the fix, amr's save
  wrote that folder's file and committed into the repo that lived there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from amr_tui.git import GitRepo, UnsafeRepoError
from amr_tui.services.session import editing
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import discover
from tests.driver import app_for, notes, screen_text, wait_for
from tests.hostilehelpers import check_cli_run, cli_invocations, git, init_repo, run_amr, subcommands

MEMORY = "# Memory\n\n- Joe leads the team [source: https://example.com/1]\n\n## Index\n"


def test_core_worktree_pointing_elsewhere_is_refused(tmp_path: Path) -> None:
    victim = init_repo(tmp_path / "victim", {"MEMORY.md": "# Victim\n"})
    repo = init_repo(tmp_path / "memory", {"MEMORY.md": MEMORY})
    git(repo, "config", "core.worktree", str(victim))
    victim_head = git(victim, "rev-parse", "HEAD")
    with pytest.raises(UnsafeRepoError) as info:
        GitRepo(repo)
    assert "core.worktree" in str(info.value)
    s = Session(discover([repo]))
    s.load()
    assert "points git elsewhere" in s.info("memory").note
    of = s.open("memory", "MEMORY.md")
    assert of.read_only and of.data == MEMORY.encode()
    with pytest.raises(editing.EditRefused):
        editing.write(s, of, b"# changed\n", "edit")
    with pytest.raises(editing.EditRefused):
        editing.create_file(s, "memory", "new")
    assert (victim / "MEMORY.md").read_text() == "# Victim\n"
    assert git(victim, "rev-parse", "HEAD") == victim_head
    assert (repo / "MEMORY.md").read_text() == MEMORY and not (repo / "new.md").exists()


def test_another_users_repo_is_read_only_with_a_clear_message(tmp_path: Path, monkeypatch) -> None:
    repo = init_repo(tmp_path / "theirs", {"MEMORY.md": MEMORY, "notes.md": "- a fact\n"})
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    s = Session(discover([repo]))
    s.load()
    assert s.info("theirs").note == "git refuses it: another user owns it"
    of = s.open("theirs", "notes.md")
    assert of.data == b"- a fact\n" and of.read_only
    with pytest.raises(editing.EditRefused) as info:
        editing.replace_entry_line(s, of, 1, "- changed")
    assert "belongs to another user" in str(info.value) and "safe.directory" in str(info.value)
    assert (repo / "notes.md").read_bytes() == b"- a fact\n"


@pytest.mark.slow
@pytest.mark.parametrize("command", subcommands())
def test_cli_on_another_users_repo(tmp_path: Path, command: str) -> None:
    repo = init_repo(tmp_path / "theirs", {"MEMORY.md": MEMORY})
    head = git(repo, "rev-parse", "HEAD")
    problems: list[str] = []
    for argv in cli_invocations(command, repo, tmp_path):
        run = run_amr(argv, cwd=tmp_path, env={"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"})
        problems += check_cli_run(run)
        if "dubious" in run.stderr or "another user" in run.stderr:
            assert "another user" in run.stderr, run.stderr  # amr's sentence, not git's raw output
    assert not problems, "\n".join(problems)
    assert git(repo, "rev-parse", "HEAD") == head


async def test_app_on_another_users_repo(tmp_path: Path, monkeypatch) -> None:
    repo = init_repo(tmp_path / "theirs", {"MEMORY.md": MEMORY})
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    app = app_for([repo])
    async with app.run_test(size=(140, 36)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        await wait_for(pilot, lambda: "another user owns it" in screen_text(app), what="the badge says why")
        await pilot.press("e")
        await wait_for(pilot, lambda: any("another user" in str(n.message) for n in notes(app)), what="a clear refusal")
        assert app.is_running
    assert (repo / "MEMORY.md").read_text() == MEMORY
