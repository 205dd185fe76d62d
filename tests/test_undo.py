"""Undo (issue 24 point 5): `z` and `amr undo` undo amr's last write as a new commit through the
write gate; refused with the reason when someone changed those entries since; never a reset."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from amr_tui.cli.main import main
from amr_tui.services.session import editing
from amr_tui.services.session.session import Session
from amr_tui.services.undo import NothingToUndo, undo_newest
from amr_tui.services.workspace import discover
from tests.conftest import git
from tests.driver import AppDriver, app_for, said

NOTES = "# Notes\n\n- Deploys go out on Tuesdays\n- Staging resets nightly\n- Cache is redis\n"
AGENT = {
    "GIT_AUTHOR_NAME": "Plain Agent",
    "GIT_AUTHOR_EMAIL": "plain@agent.test",
    "GIT_COMMITTER_NAME": "Plain Agent",
    "GIT_COMMITTER_EMAIL": "plain@agent.test",
    "PATH": "/usr/bin:/bin",
}


def agent_commit(root: Path, rel: str, text: str) -> None:
    (root / rel).write_text(text)
    subprocess.run(["git", "add", "--", rel], cwd=root, check=True, env=AGENT)
    subprocess.run(["git", "commit", "-q", "-m", "agent"], cwd=root, check=True, env=AGENT)


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo("memory", {"MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n", "notes.md": NOTES})


def test_amr_undo_brings_a_forgotten_entry_back_and_keeps_the_agents_commit(repo, monkeypatch, capsys) -> None:
    monkeypatch.chdir(repo)
    assert main(["forget", "notes.md:4", "--reason", "old"]) == 0
    agent_commit(repo, "notes.md", (repo / "notes.md").read_text() + "- Queue is sqs\n")  # meanwhile
    forgot, agent = git(repo, "rev-parse", "HEAD~1").strip(), git(repo, "rev-parse", "HEAD").strip()
    capsys.readouterr()
    assert main(["undo"]) == 0
    assert f"Undid {forgot[:8]}" in capsys.readouterr().out
    assert git(repo, "rev-parse", "HEAD~1").strip() == agent  # a new commit on top: nothing reset
    text = git(repo, "show", "HEAD:notes.md")
    assert "- Staging resets nightly\n" in text and "- Queue is sqs\n" in text
    assert not _has(repo, ".amr/forgotten.md")  # the tombstone file the forget made is gone again
    assert f"Undoes: {forgot}" in git(repo, "log", "-1", "--format=%B")
    assert main(["undo"]) == 2  # the undo is not undone by undo, and the agent's commit is not amr's
    assert "nothing of amr's to undo" in capsys.readouterr().err


def _has(repo: Path, rel: str) -> bool:
    return subprocess.run(["git", "cat-file", "-e", f"HEAD:{rel}"], cwd=repo).returncode == 0


def test_undo_is_refused_when_someone_changed_the_entry_since(repo) -> None:
    session = Session(discover([repo]))
    try:
        session.load()
        of = session.open("memory", "notes.md")
        editing.replace_entry_line(session, of, 3, "- Deploys go out on Tuesdays and Thursdays")
        agent_commit(repo, "notes.md", git(repo, "show", "HEAD:notes.md").replace("and Thursdays", "only, says ops"))
        before = git(repo, "rev-parse", "HEAD")
        with pytest.raises(editing.EditRefused, match="changed since by someone else"):
            undo_newest(session, list(session.written))
        assert git(repo, "rev-parse", "HEAD") == before
        # a write whose entries nobody touched since is undone, the agent's change kept
        of = session.open("memory", "notes.md")
        editing.delete_entry(session, of, 5)  # Cache is redis
        saved = undo_newest(session, list(session.written))
        assert saved.committed and "- Cache is redis\n" in git(repo, "show", "HEAD:notes.md")
        assert "only, says ops" in git(repo, "show", "HEAD:notes.md")
        with pytest.raises(editing.EditRefused):  # the edit under the agent's reword is still refused
            undo_newest(session, list(session.written))
    finally:
        session.close()


def test_nothing_to_undo_in_a_fresh_session(repo) -> None:
    session = Session(discover([repo]))
    try:
        with pytest.raises(NothingToUndo):
            undo_newest(session, [])
    finally:
        session.close()


@pytest.fixture
def app(repo):
    return app_for([repo], poll_interval=60)


@pytest.mark.slow
async def test_z_in_the_app_undoes_the_last_delete(driver: AppDriver, repo: Path) -> None:
    await driver.open("memory", "notes.md")
    await driver.to_line(4)
    await driver.press("d")
    await driver.asked("Delete entry?")
    await driver.press("y")
    await driver.until(lambda: "Staging" not in git(repo, "show", "HEAD:notes.md"), "the delete's commit")
    await driver.settled()
    await driver.press("z")
    await driver.until(lambda: "Staging resets nightly" in git(repo, "show", "HEAD:notes.md"), "the undo's commit")
    assert git(repo, "log", "-1", "--format=%s").startswith('Undo "Remove entry from notes.md')
    await driver.settled()
    await driver.press("z")
    await driver.until(lambda: said(driver.app, "Nothing to undo"), "the refusal")


@pytest.mark.slow
async def test_z_undoes_a_restore_made_in_the_forgotten_facts_screen(driver: AppDriver, repo: Path) -> None:
    """A restore is a write of amr's like a save: z after it takes the fact out again."""
    from amr_tui.screens.forgotten import ForgottenScreen

    app = driver.app
    forget = subprocess.run(
        [sys.executable, "-m", "amr_tui", "forget", "notes.md:4"], cwd=repo, capture_output=True, text=True
    )
    assert forget.returncode == 0, forget.stderr
    assert "Staging" not in git(repo, "show", "HEAD:notes.md")
    await driver.press("F")
    await driver.until(lambda: isinstance(app.screen, ForgottenScreen) and app.screen.facts, "the forgotten facts")
    await driver.press("r")
    await driver.asked("Restore this fact?")
    await driver.press("y")
    await driver.until(lambda: "Staging resets nightly" in git(repo, "show", "HEAD:notes.md"), "the restore")
    await driver.press("escape")
    await driver.until(lambda: not isinstance(app.screen, ForgottenScreen), "back", timeout=10)
    await driver.settled()
    await driver.press("z")
    await driver.until(lambda: git(repo, "log", "-1", "--format=%s").startswith('Undo "'), "the undo's commit")
    assert "Staging resets nightly" not in git(repo, "show", "HEAD:notes.md")
    assert "estore" in git(repo, "log", "-1", "--format=%s")  # Undo "Restore ...""
