"""The reproductions of issue 24 point 1 and issue 28 points 1-2, each as the user or agent made it:
the entry written is the entry named, or nothing is written and the reply says why."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from amr_tui.cli.main import main
from amr_tui.git.gate import observe_steps
from amr_tui.screens.dialogs import ChoiceScreen, PromptScreen
from amr_tui.services.session import editing
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import discover
from tests.conftest import git
from tests.driver import AppDriver, app_for, notes, said
from tests.mcp_client import amr_mcp, memory_repo

C1 = "# C1\n\n" + "".join(f"- Entry E{i} holds fact {i}\n" for i in range(1, 6))
AGENT = {
    "GIT_AUTHOR_NAME": "Plain Agent",
    "GIT_AUTHOR_EMAIL": "plain@agent.test",
    "GIT_COMMITTER_NAME": "Plain Agent",
    "GIT_COMMITTER_EMAIL": "plain@agent.test",
}


def agent_commit(root: Path, rel: str, text: str, message: str = "agent") -> None:
    (root / rel).write_text(text)
    subprocess.run(["git", "add", "--", rel], cwd=root, check=True, env={**AGENT, "PATH": "/usr/bin:/bin"})
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=root, check=True, env={**AGENT, "PATH": "/usr/bin:/bin"})


def head(root: Path, rel: str) -> str:
    return git(root, "show", f"HEAD:{rel}")


@pytest.mark.slow
async def test_memory_forget_forgets_the_entry_named_when_an_agent_commits_meanwhile(tmp_path: Path) -> None:
    """Issue 24 point 1, by a real MCP client: read c1.md, a plain-git agent deletes E1 and commits,
    then memory_forget names E3 by its line and hash as read. E3 goes, E4 stays."""
    repo = memory_repo(tmp_path / "memory", {"MEMORY.md": "# Memory\n\n## Index\n\n- [[c1]]\n", "c1.md": C1})
    async with amr_mcp(repo, home=tmp_path / "home") as client:
        is_error, read = await client.call("memory_read", {"repo": "memory", "path": "c1.md"})
        assert not is_error
        e3 = next(e for e in read["entries"] if "E3" in e["text"])
        agent_commit(repo, "c1.md", C1.replace("- Entry E1 holds fact 1\n", ""), "agent deletes E1")
        is_error, reply = await client.call(
            "memory_forget",
            {"repo": "memory", "path": "c1.md", "line": e3["line"], "hash": e3["hash"], "reason": "stale"},
        )
        assert not is_error and reply["status"] == "written", reply
    text = head(repo, "c1.md")
    assert "E3" not in text and "E4" in text and "E1" not in text and "E2" in text and "E5" in text
    assert "E3 holds fact 3" in head(repo, ".amr/forgotten.md")
    assert "E4" not in head(repo, ".amr/forgotten.md")


def test_amr_forget_names_the_entry_of_the_file_as_shown(make_repo, monkeypatch, capsys) -> None:
    """Issue 28 point 1: an agent left an uncommitted line above the target; `amr forget FILE:LINE`
    takes the line of the file as it is on disk, says which entry, and commits only that."""
    root = make_repo("memory", {"MEMORY.md": "# Memory\n\n## Index\n- [[c1]]\n", "c1.md": C1})
    (root / "c1.md").write_text(C1.replace("# C1\n\n", "# C1\n\n- Uncommitted line by an agent\n"))
    monkeypatch.chdir(root)
    assert main(["forget", "c1.md:5", "--reason", "wrong"]) == 0  # line 5 on disk: E2 (E3 in HEAD)
    out = capsys.readouterr().out
    assert '"Entry E2 holds fact 2"' in out and "(line 4 in the last commit)" in out, out
    text = head(root, "c1.md")
    assert "E2" not in text and all(f"E{i}" in text for i in (1, 3, 4, 5))
    assert "Uncommitted line" not in text  # not the user's change: never committed by amr
    assert "Uncommitted line by an agent" in (root / "c1.md").read_text()


def test_forget_is_refused_when_the_entry_named_is_only_in_the_work_tree(make_repo, monkeypatch, capsys) -> None:
    root = make_repo("memory", {"MEMORY.md": "# Memory\n\n## Index\n- [[c1]]\n", "c1.md": C1})
    (root / "c1.md").write_text(C1.replace("# C1\n\n", "# C1\n\n- Uncommitted line by an agent\n"))
    monkeypatch.chdir(root)
    before = git(root, "rev-parse", "HEAD")
    assert main(["forget", "c1.md:3"]) == 2
    assert "not in the last commit" in capsys.readouterr().err
    assert git(root, "rev-parse", "HEAD") == before


def test_the_apps_move_from_a_stale_view_is_refused_and_writes_nothing(make_repo) -> None:
    """Issue 28 point 2: the file was open when an agent reworded the entry; `m` neither copies the
    old wording nor leaves a duplicate. Within one repo a move is one commit."""
    files = {"MEMORY.md": "# Memory\n\n## Index\n- [[c1]]\n- [[c2]]\n", "c1.md": C1, "c2.md": "# C2\n\n- Other\n"}
    root = make_repo("memory", files)
    session = Session(discover([root]))
    try:
        session.load()
        shown = session.open("memory", "c1.md")
        agent_commit(root, "c1.md", C1.replace("E3 holds fact 3", "E3 holds fact 3, reworded"))
        before = git(root, "rev-parse", "HEAD")
        with pytest.raises(editing.StaleEntryError):
            editing.move_entry(session, shown, 5, "memory", "c2.md")
        assert git(root, "rev-parse", "HEAD") == before
        assert "E3" not in head(root, "c2.md") and "reworded" in head(root, "c1.md")

        fresh = session.open("memory", "c1.md")
        (saved,) = editing.move_entry(session, fresh, 4, "memory", "c2.md")  # E2: one commit
        assert git(root, "rev-parse", "HEAD~1").strip() == before.strip()
        assert "E2" in head(root, "c2.md") and "E2" not in head(root, "c1.md")
        assert sorted(git(root, "diff", "--name-only", "HEAD~1", "HEAD").split()) == ["c1.md", "c2.md"]
        assert saved.committed
    finally:
        session.close()


def test_a_move_whose_entry_an_agent_deletes_during_the_write_is_refused(make_repo) -> None:
    """The agent's commit lands inside the write (the gate's first step): the entry named is gone
    from the commit the move would be made onto, so nothing is moved (it would bring it back)."""
    files = {"MEMORY.md": "# Memory\n\n## Index\n- [[c1]]\n- [[c2]]\n", "c1.md": C1, "c2.md": "# C2\n\n- Other\n"}
    root = make_repo("memory", files)
    session = Session(discover([root]))
    fired: list[str] = []

    def agent(step: str) -> None:
        if step == "head" and not fired:
            fired.append(step)
            agent_commit(root, "c1.md", C1.replace("- Entry E3 holds fact 3\n", ""), "agent deletes E3")

    try:
        session.load()
        shown = session.open("memory", "c1.md")
        with observe_steps(agent), pytest.raises(editing.StaleEntryError):
            editing.move_entry(session, shown, 5, "memory", "c2.md")
        assert fired and "E3" not in head(root, "c2.md") and "E3" not in head(root, "c1.md")
    finally:
        session.close()


@pytest.fixture
def app(make_repo):
    root = make_repo("memory", {"MEMORY.md": "# Memory\n\n## Index\n- [[c1]]\n", "c1.md": C1})
    return app_for([root], poll_interval=60)


async def test_x_in_the_app_forgets_the_entry_under_the_cursor(driver: AppDriver) -> None:
    """Issue 28 point 1 in the app: an uncommitted line above the entry; x, Enter, Enter forgets
    the entry the cursor is on and says which."""
    root = driver.app.screen.session.mount("memory").root
    (root / "c1.md").write_text(C1.replace("# C1\n\n", "# C1\n\n- Uncommitted line by an agent\n"))
    await driver.open("memory", "c1.md")
    await driver.until(lambda: "Uncommitted" in driver.current.doc.lines[2].text, "the file as on disk")
    await driver.to_line(6)  # E3 on disk (E4 is on line 6 in HEAD)
    await driver.press("x")
    await driver.until(lambda: isinstance(driver.screen, ChoiceScreen), "forget mode")
    await driver.press("enter")
    await driver.until(lambda: isinstance(driver.screen, PromptScreen), "reason")
    await driver.press("enter")
    await driver.until(lambda: "E3" not in head(root, "c1.md"), f"the forget's commit {notes(driver.app)}", timeout=10)
    text = head(root, "c1.md")
    assert all(f"E{i}" in text for i in (1, 2, 4, 5)) and "Uncommitted" not in text
    await driver.until(lambda: said(driver.app, 'Forgot "Entry E3 holds fact 3"'), "the notice naming the entry")
