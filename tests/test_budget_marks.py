"""Issue 24 point 9: the editors show where MEMORY.md's load budget (200 lines or 25 KB) cuts: the
whole-file editor says before which line agents stop loading and warns when the cursor is past
it; the entry editor says so when the entry it edits is past it. Issue 41: the whole-file editor
draws the cut in the text (the last loaded line underlined), with the gauge, as it is edited.
Real repos, Pilot, keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from amr_tui.screens.file_editor import FileEditScreen
from amr_tui.widgets.cut_area import CutTextArea
from tests.driver import TMUX_SIZE, app_for, running

LONG = "# Memory\n\n" + "".join(f"- Fact number {k} about the payments team\n" for k in range(1, 221)) + "\n## Index\n"


@pytest.fixture
def long_repo(make_repo) -> Path:
    return make_repo(files={"MEMORY.md": LONG})


def _budget(app) -> Static:
    return app.screen.query_one("#file-edit-budget", Static)


@pytest.mark.slow
async def test_the_file_editor_names_the_cut_and_warns_past_it(long_repo: Path) -> None:
    app = app_for([long_repo], poll_interval=60)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        await drive.press("E")
        await drive.until(lambda: isinstance(app.screen, FileEditScreen), what="the file editor")
        text = str(_budget(app).render())
        assert text.startswith("MEMORY.md 224/200 lines \u00b7 ")
        assert text.endswith(" \u00b7 Agents stop loading MEMORY.md before line 201 (200 lines or 25 KB).")
        assert not _budget(app).has_class("-past-budget")
        area = app.screen.query_one(CutTextArea)
        row_201 = area.wrapped_document.location_to_offset((200, 0)).y  # where line 201 starts
        assert area.cut_line == 201 and area.cut_row() == row_201 - 1  # under line 200
        for _ in range(12):
            await drive.press("pagedown")
        await drive.until(lambda: area.cursor_location[0] > 200, what="the cursor at the end")
        await pilot.pause(0.1)
        assert _budget(app).has_class("-past-budget")
        assert f"line {area.cursor_location[0] + 1}, where the cursor is, is not read at start" in str(
            _budget(app).render()
        )
        # cut the file down to the budget: all of it loads
        for _ in range(12):
            await drive.press("pageup")
        await drive.press("down", "down", *["shift+down"] * 30, "delete")  # 30 entries gone
        await pilot.pause(0.1)
        assert "Agents load all of MEMORY.md at start (200 lines or 25 KB)" in str(_budget(app).render())
        assert not _budget(app).has_class("-past-budget")
        assert area.cut_line is None and area.cut_row() is None


@pytest.mark.slow
async def test_the_entry_editor_says_an_entry_is_past_the_cut(long_repo: Path) -> None:
    app = app_for([long_repo], poll_interval=60)
    async with running(app, TMUX_SIZE) as drive:
        await drive.to_line(3)
        await drive.press("e")
        title = app.screen.query_one("#editor-title", Static)
        await drive.until(lambda: "Editing line 3" in str(title.render()), what="the editor")
        assert "past the load budget" not in str(title.render())
        await drive.press("escape")
        await drive.press("G")  # the last line, then up to line 205
        while drive.view.cursor_line > 205:
            await drive.press("k")
        assert drive.view.cursor_line == 205
        await drive.press("e")
        await drive.until(lambda: "Editing line 205" in str(title.render()), what="the editor")
        assert "past the load budget: agents stop reading MEMORY.md before line 201" in str(title.render())
