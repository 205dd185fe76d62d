"""The edit-conflict view by keys, on real repos with an agent using plain git: what "Keep mine" and
"Keep theirs" commit from a whole-file edit, and a resolution that cannot be saved gives the
whole-file edit back instead of dropping it."""

from __future__ import annotations

from pathlib import Path

import pytest

from amr_tui.screens.conflict import ConflictScreen
from amr_tui.screens.dialogs import ConfirmScreen
from amr_tui.screens.file_editor import FileEditScreen
from amr_tui.screens.main.screen import MainScreen
from tests.driver import TMUX_SIZE, app_for, git, notes, running, wait_for

MEMORY = "# Memory\n\n- fact 0 s0\n- fact 1 s0\n- fact 2 s0\n- fact 3 s0\n\n## Index\n- [[notes/a]]\n"


@pytest.fixture
def memory_repo(make_repo) -> Path:
    return make_repo(files={"MEMORY.md": MEMORY, "notes/a.md": "# A\n\n- note a\n"})


def _agent_commits(root: Path, old: str, new: str) -> None:
    path = root / "MEMORY.md"
    path.write_text(path.read_text().replace(old, new))
    git(root, "commit", "-qam", f"agent: {new}")


async def _file_edit_in_conflict(pilot, app, root: Path) -> None:
    """E; fact 1 and fact 3 retyped; the agent commits its own fact 1 and fact 2; ctrl+s."""
    await pilot.press("E")
    await wait_for(pilot, lambda: isinstance(app.screen, FileEditScreen), what="the file editor")
    await pilot.press("down", "down", "down", "end", "ctrl+u", *"- fact 1 u1")
    await pilot.press("down", "down", "end", "ctrl+u", *"- fact 3 u3")
    _agent_commits(root, "- fact 1 s0", "- fact 1 a1")
    _agent_commits(root, "- fact 2 s0", "- fact 2 a2")
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen), what="the conflict view")


@pytest.mark.slow
async def test_keep_theirs_of_a_whole_file_edit_keeps_my_other_change_and_their_commits(memory_repo) -> None:
    root = memory_repo
    app = app_for([root], poll_interval=0.2)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        await _file_edit_in_conflict(pilot, app, root)
        head = git(root, "rev-parse", "HEAD")
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: git(root, "rev-parse", "HEAD") != head, what="the resolution committed")
    committed = git(root, "show", "HEAD:MEMORY.md")
    assert committed == MEMORY.replace("fact 1 s0", "fact 1 a1").replace("fact 2 s0", "fact 2 a2").replace(
        "fact 3 s0", "fact 3 u3"
    )
    assert git(root, "status", "--porcelain") == ""


@pytest.mark.slow
async def test_keep_mine_of_a_whole_file_edit_keeps_their_commit_outside_the_conflict(memory_repo) -> None:
    root = memory_repo
    app = app_for([root], poll_interval=0.2)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        await _file_edit_in_conflict(pilot, app, root)
        head = git(root, "rev-parse", "HEAD")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: git(root, "rev-parse", "HEAD") != head, what="the resolution committed")
    committed = git(root, "show", "HEAD:MEMORY.md")
    assert committed == MEMORY.replace("fact 1 s0", "fact 1 u1").replace("fact 2 s0", "fact 2 a2").replace(
        "fact 3 s0", "fact 3 u3"
    )
    assert "agent: - fact 2 a2" in git(root, "log", "--format=%s")


@pytest.mark.slow
async def test_a_resolution_refused_gives_the_whole_file_edit_back(memory_repo) -> None:
    root = memory_repo
    app = app_for([root], poll_interval=0.2)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        await _file_edit_in_conflict(pilot, app, root)
        # While the conflict view is open the agent rewrites fact 1 again and leaves it uncommitted:
        # the user's choice for fact 1 cannot go into the file without dropping that.
        (root / "MEMORY.md").write_text((root / "MEMORY.md").read_text().replace("- fact 1 a1", "- fact 1 a9"))
        head = git(root, "rev-parse", "HEAD")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, FileEditScreen), what="the file editor back")
        typed = app.screen.query_one("#file-edit-area").text
        assert "- fact 1 u1" in typed and "- fact 3 u3" in typed
        assert any(n.title == "Someone else's uncommitted change" for n in notes(app))
        # Quitting now asks: the text is unsaved again.
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the quit question")
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, FileEditScreen), what="back to the file editor")
    assert git(root, "rev-parse", "HEAD") == head  # nothing committed
    assert "- fact 1 a9" in (root / "MEMORY.md").read_text()  # the agent's uncommitted line is still there


@pytest.mark.slow
async def test_ctrl_q_in_the_conflict_view_of_an_entry_edit_asks_and_keeps_the_view(memory_repo) -> None:
    root = memory_repo
    app = app_for([root], poll_interval=0.2)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        view = app.screen.view
        view.focus()
        await pilot.press("g")
        while drive.current.doc.lines[view.cursor_line - 1].text != "- fact 1 s0":
            await pilot.press("j")
        await pilot.press("e")
        inp = app.screen.query_one("#editor-input")
        await wait_for(pilot, lambda: inp.has_focus, what="the editor")
        await pilot.press("home", "ctrl+k", *"fact 1 u1")
        _agent_commits(root, "- fact 1 s0", "- fact 1 a1")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen), what="the conflict view")
        conflict = app.screen
        assert any("conflict view" in e for e in app.unsaved_edits())
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the quit question")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is conflict, what="back to the conflict view")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), what="the main screen")
        assert app.screen.editor.display and inp.value == "fact 1 u1"
    assert "fact 1 a1" in git(root, "show", "HEAD:MEMORY.md")


@pytest.mark.slow
async def test_the_conflict_view_opens_with_the_focus_in_the_result_at_the_first_conflict(memory_repo) -> None:
    """Issue 24 point 9: typing goes where it can land (the sides are read-only), at the first
    conflict marker, and typed text ends up in what is saved."""
    from textual.widgets import TextArea

    root = memory_repo
    app = app_for([root], poll_interval=0.2)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        await _file_edit_in_conflict(pilot, app, root)
        result = app.screen.query_one("#conflict-merged", TextArea)
        assert app.focused is result
        row, _ = result.cursor_location
        assert result.document.get_line(row).startswith("<<<<<<<")
        head = git(root, "rev-parse", "HEAD")
        lines = result.text.split("\n")
        first, last = row, next(k for k, ln in enumerate(lines) if ln.startswith(">>>>>>>"))
        await pilot.press(*["shift+down"] * (last - first), "shift+end", *"- fact 1 both")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: git(root, "rev-parse", "HEAD") != head, what="the edited result committed")
    assert "- fact 1 both\n" in git(root, "show", "HEAD:MEMORY.md")
