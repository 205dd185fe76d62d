"""Keys typed right after enter saves an entry: they are commands, never text of the saved line.

Found in tmux: `e`, type, then enter and `e` in one burst (as a quick typist sends them). The
`e` was typed into the editor after the enter, saved in the commit ("... zze"), and the editor
then closed, so the second edit never opened. A terminal delivers such a burst as one read, so
these tests post the key events together, as Textual's driver does.
"""

from __future__ import annotations

import pytest

from tests.driver import AppDriver, burst, git, said, wait_for


async def save_first_entry_then(driver: AppDriver, value: str, key: str):
    """Edit the first entry to ``value``, then enter and ``key`` in one read; once the save is
    reported: (the editor's input, the entry's line)."""
    inp = await driver.edit_first_entry()
    line = driver.view.cursor_line
    inp.value = value
    burst(driver, "enter", key)
    await driver.until(lambda: said(driver.app, "Edit entry in MEMORY.md"), what="the save")
    return inp, line


async def test_a_key_pressed_with_enter_is_not_saved_in_the_line(driver: AppDriver, demo) -> None:
    inp, line = await save_first_entry_then(
        driver, "Alice wants summaries as bullets [source: https://example.com/s/1]", "e"
    )
    saved = (demo[0] / "MEMORY.md").read_text().splitlines()[line - 1]
    assert saved == "- Alice wants summaries as bullets [source: https://example.com/s/1]"
    assert git(demo[0], "show", "HEAD:MEMORY.md").splitlines()[line - 1] == saved
    # The e was a command: once the save is shown, it edits the line just saved, with its new text.
    await driver.until(lambda: driver.screen.editor.display and inp.has_focus, what="the second edit")
    assert inp.value == "Alice wants summaries as bullets [source: https://example.com/s/1]"
    assert driver.screen.editor.target.line == line


@pytest.mark.slow
async def test_o_pressed_with_enter_opens_a_new_entry_below_the_saved_one(driver: AppDriver, demo) -> None:
    inp, line = await save_first_entry_then(driver, "First fact [source: https://example.com/s/2]", "o")
    await driver.until(lambda: driver.screen.editor.display and inp.has_focus, what="the new entry's editor")
    target = driver.screen.editor.target
    assert (target.mode, target.line, inp.value) == ("below", line, "")
    assert "First fact [source: https://example.com/s/2]" in (demo[0] / "MEMORY.md").read_text()
    # What is typed now is the new entry, saved on the line below.
    inp.value = "Second fact [source: https://example.com/s/3]"
    await driver.press("enter")
    await driver.until(lambda: not driver.screen.editor.display, what="the second save")
    lines = (demo[0] / "MEMORY.md").read_text().splitlines()
    assert lines[line - 1 : line + 1] == [
        "- First fact [source: https://example.com/s/2]",
        "- Second fact [source: https://example.com/s/3]",
    ]


async def test_while_saving_the_editor_takes_no_keys(driver: AppDriver, demo) -> None:
    inp = await driver.edit_first_entry()
    inp.value = "Kept as typed [source: https://example.com/s/4]"
    main = driver.screen
    burst(driver, "enter", "x", "y", "z")  # x: forget the entry saved (it asks which way)
    await driver.until(lambda: said(driver.app, "Edit entry in MEMORY.md"), what="the save")
    await wait_for(driver.pilot, lambda: not main.editor.display, what="the editor closed")
    assert "- Kept as typed [source: https://example.com/s/4]\n" in (demo[0] / "MEMORY.md").read_text()
    assert not inp.has_focus
    # x asks how to forget the entry saved: answered with esc, so the app quits with no question up.
    await driver.until(lambda: type(driver.app.screen).__name__ == "ChoiceScreen", what="the forget question")
    await driver.press("escape")
    await driver.settled()


@pytest.mark.slow
async def test_e_pressed_with_enter_in_the_finder_edits_the_entry_found(driver: AppDriver) -> None:
    await driver.press("slash")
    await driver.until(lambda: type(driver.app.screen).__name__ == "FinderScreen", what="the finder")
    await driver.press(*"session ttl")
    finder = driver.app.screen
    await driver.until(lambda: finder.hits, what="hits for session ttl")
    item = finder.hits[0].item
    assert item.line > 0, item  # an entry, not a file name
    main = driver.app.screen_stack[-2]
    burst(driver, "enter", "e")
    inp = main.query_one("#editor-input")
    await driver.until(lambda: main.editor.display and inp.has_focus, what="the editor on the entry found")
    target = driver.screen.editor.target
    assert (target.repo, target.path, target.line) == (item.repo, item.path, item.line)
    assert driver.current.doc.lines[item.line - 1].text == target.prefix + inp.value


async def test_a_key_typed_with_ctrl_s_in_the_file_editor_is_not_committed(driver: AppDriver, demo) -> None:
    from amr_tui.screens.file_editor import FileEditScreen

    await driver.press("E")
    await driver.until(lambda: isinstance(driver.app.screen, FileEditScreen), what="the file editor")
    area = driver.app.screen.query_one("#file-edit-area")
    area.text = area.text.rstrip("\n") + "\n- Added whole [source: https://example.com/s/5]\n"
    area.move_cursor(area.document.end)
    want = area.text
    burst(driver, "ctrl+s", "x")
    await driver.until(lambda: said(driver.app, "MEMORY.md"), what="the save")
    await driver.until(lambda: git(demo[0], "show", "HEAD:MEMORY.md") == want, what="the text as it was at ctrl+s")
    assert (demo[0] / "MEMORY.md").read_text() == want


@pytest.mark.slow
async def test_a_key_typed_with_enter_in_a_prompt_is_not_in_the_answer(driver: AppDriver, demo) -> None:
    from textual.widgets import OptionList

    from amr_tui.screens.dialogs import ChoiceScreen, PromptScreen

    await driver.press("c")
    await driver.until(lambda: isinstance(driver.app.screen, PromptScreen), what="the capture prompt")
    driver.app.screen.query_one("#prompt-input").value = "Bob prefers tabs [added: 2026-11-29]"
    burst(driver, "enter", "x")
    await driver.until(lambda: isinstance(driver.app.screen, ChoiceScreen), what="which repo")
    # The x went where the focus went next: the list of repos, which it filters. Take it back.
    await driver.press("backspace")
    driver.app.screen.query_one(OptionList).highlighted = 1
    await driver.press("enter")
    await driver.until(lambda: "Bob prefers tabs" in (demo[1] / "MEMORY.md").read_text(), what="the capture saved")
    assert "- Bob prefers tabs [added: 2026-11-29]\n" in (demo[1] / "MEMORY.md").read_text()


async def test_keys_read_with_a_focus_key_go_to_the_pane_it_focuses(driver: AppDriver) -> None:
    """`1` and Down three times in one read, from the entry view (bench/million_captures.py sends
    them so): the tree's cursor moves three rows and enter opens that file. The Downs went to
    the view before: its focus binding ran only once `1` had bubbled back up from the view."""
    view, tree = driver.view, driver.screen.query_one("#tree")
    assert view.has_focus
    line = view.cursor_line
    start = tree.cursor_line
    burst(driver, "1", "down", "down", "down")
    await driver.until(lambda: tree.has_focus and tree.cursor_line == start + 3, what="the tree's cursor 3 rows down")
    assert view.cursor_line == line  # the view's cursor did not move
    chosen = tree.cursor_node.data
    burst(driver, "enter")
    await driver.until(lambda: driver.screen.current and driver.screen.current.path == chosen.path, what="the file")
