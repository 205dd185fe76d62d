"""Unsaved text is never dropped without asking: ctrl+q (Textual's own binding), q, the whole-file
editor (esc, ctrl+q, a credential question, a save that fails), drafts kept when switching files,
and what $EDITOR leaves behind. Every test presses the keys a person would."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList, TextArea

from amr_tui.screens.dialogs import ChoiceScreen, ConfirmScreen, PromptScreen
from amr_tui.screens.file_editor import FileEditScreen
from amr_tui.screens.main.screen import MainScreen
from amr_tui.widgets.entry_view import EntryView
from tests.driver import app_for, git, notes, running, screen_text, settle, shown, wait_for

GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.mark.slow
async def test_ctrl_q_with_an_entry_edit_asks_and_keep_editing_keeps_it(driver):
    app, pilot = driver.app, driver.pilot
    inp = await driver.edit_first_entry()
    await pilot.press(*" half a thought")
    typed = inp.value
    assert typed.endswith(" half a thought")
    await pilot.press("ctrl+q")
    dialog = await driver.asked("Quit and discard 1 unsaved edit?")
    assert "memory-alice/MEMORY.md, line" in dialog.body and "the entry you are editing" in dialog.body
    await shown(pilot, app, "Discard (y)", "Keep editing (n)")
    await pilot.press("n")  # Keep editing
    await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), what="back to the editor")
    assert app.return_code is None
    assert inp.value == typed and inp.has_focus
    await pilot.press("ctrl+q")
    await driver.asked("Quit and discard 1 unsaved edit?")
    await pilot.press("ctrl+q")  # pressed again while asking: still one question
    await settle(pilot, 0.2)
    assert sum(isinstance(s, ConfirmScreen) for s in app.screen_stack) == 1
    await pilot.press("y")  # Discard
    await driver.quits()


@pytest.mark.slow
async def test_without_unsaved_text_q_and_ctrl_q_quit_at_once(demo):
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("q")
        await drive.quits()
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await drive.edit_first_entry()  # open, nothing typed: nothing to lose
        await pilot.press("ctrl+q")
        await drive.quits()


@pytest.mark.slow
async def test_a_draft_kept_when_switching_files_counts_when_quitting(driver):
    app, pilot = driver.app, driver.pilot
    await driver.edit_first_entry()
    await pilot.press(*" draft in memory")
    # Switch files from inside the editor: the palette, then a fact in another file.
    await pilot.press("ctrl+p")
    await pilot.press(*"bun install")
    await pilot.pause(1.0)
    await shown(pilot, app, "tooling/bun.md")
    await pilot.press("down", "enter")
    await wait_for(pilot, lambda: driver.current.path == "tooling/bun.md", what="switched file")
    screen = app.screen
    assert not screen.editor.display and list(screen.drafts) == [("memory-alice", "MEMORY.md")]
    assert any("kept as a draft" in str(n.message) for n in notes(app))
    inp = await driver.edit_first_entry()
    await pilot.press(*" and one here")
    await pilot.press("ctrl+q")
    dialog = await driver.asked("Quit and discard 2 unsaved edits?")
    assert "memory-alice/tooling/bun.md, line" in dialog.body
    assert "memory-alice/MEMORY.md, line" in dialog.body and "a draft kept when you left the file" in dialog.body
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), what="back")
    assert inp.value.endswith(" and one here") and screen.drafts[("memory-alice", "MEMORY.md")][1].endswith(
        " draft in memory"
    )
    # Drop the open edit (esc asks, as before); the draft alone still makes q ask.
    await pilot.press("escape")
    await driver.asked("Discard this edit?")
    await pilot.press("y")
    await wait_for(pilot, lambda: not screen.editor.display, what="editor closed")
    await pilot.press("q")
    await driver.asked("Quit and discard 1 unsaved edit?")
    await pilot.press("y")
    await driver.quits()


@pytest.mark.slow
async def test_whole_file_editor_asks_on_escape_and_on_ctrl_q(demo):
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("E")
        await wait_for(pilot, lambda: isinstance(app.screen, FileEditScreen), what="file editor")
        area = app.screen.query_one(TextArea)
        await wait_for(pilot, lambda: area.has_focus, what="text area focus")
        await pilot.press(*"typed into the file")
        typed = area.text
        assert "typed into the file" in typed
        await pilot.press("escape")
        await drive.asked("Discard changes?")
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, FileEditScreen), what="back in the file editor")
        assert area.text == typed
        await pilot.press("ctrl+q")
        dialog = await drive.asked("Quit and discard 1 unsaved edit?")
        assert "memory-alice/MEMORY.md: your whole-file edit" in dialog.body
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, FileEditScreen), what="back in the file editor")
        assert area.text == typed and area.has_focus
        await pilot.press("ctrl+q")
        await drive.asked("Quit and discard 1 unsaved edit?")
        await pilot.press("y")
        await drive.quits()
    assert "typed into the file" not in (demo[0] / "MEMORY.md").read_text()


@pytest.mark.slow
async def test_whole_file_editor_keep_editing_after_the_credential_question(demo, driver):
    alice = demo[0]
    app, pilot = driver.app, driver.pilot
    await pilot.press("E")
    await wait_for(pilot, lambda: isinstance(app.screen, FileEditScreen), what="file editor")
    area = app.screen.query_one(TextArea)
    area.move_cursor(area.document.end)
    await pilot.press(*f"deploy with {GH}")
    typed = area.text
    await pilot.press("ctrl+s")
    await driver.asked_secret()
    await pilot.press("escape")  # Keep editing: the text is still there to fix
    await wait_for(pilot, lambda: isinstance(app.screen, FileEditScreen), what="back in the file editor")
    assert app.screen.query_one(TextArea).text == typed
    assert GH not in (alice / "MEMORY.md").read_text()


@pytest.mark.slow
async def test_a_whole_file_save_that_fails_hands_the_text_back(demo, driver):
    alice = demo[0]
    app, pilot = driver.app, driver.pilot
    await pilot.press("E")
    await wait_for(pilot, lambda: isinstance(app.screen, FileEditScreen), what="file editor")
    area = app.screen.query_one(TextArea)
    await pilot.press(*"kept through a refusal ")
    typed = area.text
    (alice / ".git" / "BISECT_LOG").write_text("")  # mid-bisect: amr refuses to commit
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: any(n.title == "Not saved" for n in notes(app)), what="refusal")
    await wait_for(pilot, lambda: isinstance(app.screen, FileEditScreen), what="the text handed back")
    assert app.screen.query_one(TextArea).text == typed
    (alice / ".git" / "BISECT_LOG").unlink()
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: "kept through a refusal" in git(alice, "show", "HEAD:MEMORY.md"), what="saved")
    await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), what="editor closed")


@pytest.mark.slow
async def test_an_unsaved_entry_edit_is_not_closed_by_another_write(driver):
    app, pilot = driver.app, driver.pilot
    inp = await driver.edit_first_entry()
    await pilot.press(*" not yet saved")
    typed = inp.value
    app.screen.query_one(EntryView).focus()
    await pilot.press("E")  # its save would close the entry editor and lose the text
    await settle(pilot, 0.3)
    assert isinstance(app.screen, MainScreen)
    assert any("Finish the entry you are editing first" in str(n.message) for n in notes(app))
    assert inp.value == typed and inp.has_focus


def _credential_editor(tmp_path: Path, monkeypatch) -> None:
    script = tmp_path / "fake-editor"
    script.write_text(f'#!/bin/sh\nprintf -- "- deploy with {GH}\\n" >> "$1"\n')
    script.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(script))
    monkeypatch.delenv("VISUAL", raising=False)


async def _choose(pilot, app, choice: str) -> None:
    await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="what becomes of the $EDITOR text")
    options = app.screen.query_one(OptionList)
    ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
    options.highlighted = ids.index(choice)
    await pilot.press("enter")


@pytest.mark.slow
async def test_external_editor_changes_not_committed_stay_on_disk_and_are_said(demo, tmp_path, monkeypatch):
    alice = demo[0]
    _credential_editor(tmp_path, monkeypatch)
    before = git(alice, "rev-parse", "HEAD")
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("ctrl+e")
        await drive.asked_secret()
        await shown(pilot, app, "Esc: do not commit.")
        await pilot.press("escape")
        await _choose(pilot, app, "again")  # $EDITOR again: it adds a second line, the question comes back
        await drive.asked_secret()
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the choice")
        assert "are not committed" in screen_text(app)
        await pilot.press("escape")  # no answer: nothing is thrown away, and it says where the text is
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), what="back")
        await wait_for(
            pilot,
            lambda: any("stay in memory-alice/MEMORY.md on disk" in str(n.message) for n in notes(app)),
            what="the notice",
        )
    assert (alice / "MEMORY.md").read_text().count(GH) == 2
    assert git(alice, "rev-parse", "HEAD") == before


async def test_external_editor_changes_put_back_on_request(demo, tmp_path, monkeypatch):
    alice = demo[0]
    original = (alice / "MEMORY.md").read_bytes()
    _credential_editor(tmp_path, monkeypatch)
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("ctrl+e")
        await drive.asked_secret()
        await pilot.press("escape")
        await _choose(pilot, app, "restore")
        await wait_for(pilot, lambda: (alice / "MEMORY.md").read_bytes() == original, what="put back")
        assert git(alice, "status", "--porcelain") == ""


async def _capture_prompt(pilot, app):
    await pilot.press("c")
    await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="the capture prompt")
    inp = app.screen.query_one("#prompt-input")
    await wait_for(pilot, lambda: inp.has_focus, what="prompt focus")
    return app.screen, inp


@pytest.mark.slow
async def test_capture_asks_before_dropping_typed_text_on_escape_and_ctrl_q(demo):
    """The capture prompt (c) dropped what was typed on esc, and ctrl+q quit without asking."""
    heads = [git(r, "rev-parse", "HEAD") for r in demo]
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        prompt, inp = await _capture_prompt(pilot, app)
        await pilot.press("escape")  # nothing typed: closes at once
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), what="prompt closed")
        prompt, inp = await _capture_prompt(pilot, app)
        await pilot.press(*"The build uses make")
        await pilot.press("escape")
        await drive.asked("Discard what you typed?")
        await pilot.press("n")  # Keep editing
        await wait_for(pilot, lambda: app.screen is prompt, what="back in the prompt")
        assert inp.value == "The build uses make" and inp.has_focus
        await pilot.press("ctrl+q")
        dialog = await drive.asked("Quit and discard 1 unsaved edit?")
        assert "the fact you are capturing" in dialog.body
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is prompt, what="back in the prompt")
        assert app.return_code is None and inp.value == "The build uses make" and inp.has_focus
        await pilot.press(*" and ninja", "escape")
        await drive.asked("Discard what you typed?")
        await pilot.press("y")  # Discard
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), what="prompt closed")
        await pilot.press("q")  # nothing held any more: quits at once
        await drive.quits()
    assert [git(r, "rev-parse", "HEAD") for r in demo] == heads
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await _capture_prompt(pilot, app)
        await pilot.press(*"half a fact", "ctrl+q")
        await drive.asked("Quit and discard 1 unsaved edit?")
        await pilot.press("y")
        await drive.quits()


@pytest.mark.slow
async def test_capture_text_comes_back_from_the_repo_question_and_the_credential_question(demo):
    bob = demo[1]
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        _, inp = await _capture_prompt(pilot, app)
        await pilot.press(*"Bob prefers tabs")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="which repo")
        await pilot.press("ctrl+q")  # the text waits on the choice: quitting asks
        dialog = await drive.asked("Quit and discard 1 unsaved edit?")
        assert "the fact you are capturing" in dialog.body
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="back at the choice")
        await pilot.press("escape")  # no repo chosen: back to the text
        prompt, inp = await _capture_prompt_shown(pilot, app)
        assert inp.value == "Bob prefers tabs"
        inp.value = f"deploy with {GH}"
        await pilot.press("enter")
        await drive.asked_secret()
        await pilot.press("escape")  # Keep editing: the text is back to fix
        prompt, inp = await _capture_prompt_shown(pilot, app)
        assert inp.value == f"deploy with {GH}"
        inp.value = "Bob prefers tabs"
        n = len(git(bob, "log", "--oneline").splitlines())
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="which repo")
        app.screen.query_one(OptionList).highlighted = 1
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(git(bob, "log", "--oneline").splitlines()) == n + 1, what="saved")
    assert "Bob prefers tabs" in git(bob, "show", "HEAD:MEMORY.md")
    assert all(GH not in git(r, "show", "HEAD:MEMORY.md") for r in demo)


async def _capture_prompt_shown(pilot, app):
    await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="the capture prompt again")
    inp = app.screen.query_one("#prompt-input")
    await wait_for(pilot, lambda: inp.has_focus, what="prompt focus")
    return app.screen, inp


async def _leave_for(drive, name: str, path: str) -> None:
    """Switch files from inside the entry editor, by the palette (the edit is kept as a draft)."""
    pilot, app = drive.pilot, drive.app
    await pilot.press("ctrl+p")
    await pilot.press(*name)
    await pilot.pause(1.0)
    await shown(pilot, app, path)
    await pilot.press("down", "enter")
    await wait_for(pilot, lambda: drive.current.path == path, what=f"switched to {path}")


@pytest.mark.slow
async def test_a_draft_follows_its_file_when_renamed_and_goes_with_it_when_deleted(demo, driver):
    """Drafts were keyed by the old path: after R the draft was not resumed in the renamed file and
    the quit question named a file that no longer existed; after D it stayed, for a deleted file."""
    alice = demo[0]
    app, pilot = driver.app, driver.pilot
    screen = app.screen
    await driver.open("memory-alice", "tooling/bun.md")
    inp = await driver.edit_first_entry()
    await pilot.press("home", *"Always: ")
    typed = inp.value
    await _leave_for(driver, "redis.md", "backend/redis.md")
    assert list(screen.drafts) == [("memory-alice", "tooling/bun.md")]
    await pilot.press("left_square_bracket")  # back to the file
    await wait_for(pilot, lambda: driver.current.path == "tooling/bun.md", what="back in bun.md")
    await pilot.press("R")
    await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="rename prompt")
    app.screen.query_one("#prompt-input").value = "tooling/bun-renamed.md"
    await pilot.press("enter")
    await wait_for(pilot, lambda: driver.current.path == "tooling/bun-renamed.md", timeout=20, what="renamed")
    assert list(screen.drafts) == [("memory-alice", "tooling/bun-renamed.md")]
    await pilot.press("ctrl+q")
    dialog = await driver.asked("Quit and discard 1 unsaved edit?")
    assert "memory-alice/tooling/bun-renamed.md, line 3: a draft" in dialog.body
    assert "tooling/bun.md" not in dialog.body
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), what="back")
    await pilot.press("e")  # resumes the draft in the renamed file, and saves it there
    await wait_for(pilot, lambda: inp.has_focus and inp.value == typed, what="the draft resumed")
    assert screen.editor.target.path == "tooling/bun-renamed.md"
    await pilot.press("enter")
    await wait_for(
        pilot,
        lambda: "Always: Use `bun install`" in git(alice, "show", "HEAD:tooling/bun-renamed.md"),
        timeout=20,
        what="the draft saved in the renamed file",
    )
    assert not (alice / "tooling" / "bun.md").exists() and not screen.drafts
    # A draft of a file that is then deleted: D says the draft goes too, and it goes.
    await wait_for(pilot, lambda: not screen.editor.display, what="editor closed")
    inp = await driver.edit_first_entry()
    await pilot.press("home", *"Doomed: ")
    await _leave_for(driver, "redis.md", "backend/redis.md")
    await pilot.press("left_square_bracket")
    await wait_for(pilot, lambda: driver.current.path == "tooling/bun-renamed.md", what="back in the file")
    await pilot.press("D")
    dialog = await driver.asked("Delete file?")
    assert "Your unsaved draft of line 3 in this file" in dialog.body and "will be discarded" in dialog.body
    await pilot.press("y")
    await wait_for(pilot, lambda: not (alice / "tooling" / "bun-renamed.md").exists(), timeout=20, what="deleted")
    await wait_for(pilot, lambda: driver.current.path == "MEMORY.md", what="back at MEMORY.md")
    assert not screen.drafts
    await pilot.press("q")  # nothing unsaved is left: quits at once
    await driver.quits()


async def _review_edit_prompt(pilot, app):
    from amr_tui.screens.dreams.edit import EntryEditScreen
    from amr_tui.screens.dreams.screen import DreamListScreen, RunReviewScreen

    await pilot.press("V")
    await wait_for(pilot, lambda: isinstance(app.screen, DreamListScreen) and app.screen.cards, timeout=20, what="runs")
    await pilot.press("enter")
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, RunReviewScreen) and app.screen.review and app.screen.changes,
        timeout=20,
        what="review",
    )
    review = app.screen
    review.query_one("#review-changes", OptionList).focus()
    change = next(c for c in review.changes if c.new is not None)
    review.query_one("#review-changes", OptionList).highlighted = review.changes.index(change)
    await pilot.pause(0.2)
    prompt, inp = await _review_editor(pilot, app)
    assert isinstance(prompt, EntryEditScreen)
    return review, change, prompt, inp


async def _review_editor(pilot, app):
    """e in the dream review: the entry editor dialog and its input, once focused."""
    from amr_tui.screens.dreams.edit import EntryEditScreen

    await pilot.press("e")
    await wait_for(pilot, lambda: isinstance(app.screen, EntryEditScreen), what="the entry editor")
    inp = app.screen.query_one("#editor-input")
    await wait_for(pilot, lambda: inp.has_focus, what="editor focus")
    return app.screen, inp


@pytest.mark.slow
async def test_dream_review_edit_prompt_asks_before_dropping_typed_text(driver):
    """The review's "Edit, then accept" dropped a typed change on esc and ctrl+q."""
    from amr_tui.screens.dreams.screen import RunReviewScreen

    app, pilot = driver.app, driver.pilot
    review, change, prompt, inp = await _review_edit_prompt(pilot, app)
    await pilot.press("escape")  # nothing changed: closes at once
    await wait_for(pilot, lambda: app.screen is review, what="prompt closed")
    prompt, inp = await _review_editor(pilot, app)
    await pilot.press("end", *" (edited)")
    typed = inp.value
    assert typed.endswith(" (edited)")
    await pilot.press("escape")
    await driver.asked("Discard this edit?")
    await pilot.press("n")  # Keep editing
    await wait_for(pilot, lambda: app.screen is prompt and inp.has_focus, what="back in the prompt")
    assert inp.value == typed
    await pilot.press("ctrl+q")
    dialog = await driver.asked("Quit and discard 1 unsaved edit?")
    assert "the dream entry you are editing" in dialog.body
    await pilot.press("n")
    await wait_for(pilot, lambda: app.screen is prompt, what="back in the prompt")
    assert app.return_code is None and inp.value == typed
    await pilot.press("enter")  # saved into the review's edits and accepted
    await wait_for(pilot, lambda: isinstance(app.screen, RunReviewScreen), what="back in the review")
    assert review.edits[change.id] == prompt.prefix + typed and change.id in review.accepted
    prompt, inp = await _review_editor(pilot, app)  # the edit again, changed again: ctrl+q asks, discard quits
    assert inp.value == typed
    await pilot.press("end", *" more", "ctrl+q")
    await driver.asked("Quit and discard 1 unsaved edit?")
    await pilot.press("y")
    await driver.quits()


@pytest.mark.slow
async def test_a_capture_that_is_not_saved_gives_the_text_back(demo):
    """A captured fact whose save was refused (the repo mid-bisect) was lost with the prompt."""
    alice = demo[0]
    app = app_for(demo, poll_interval=60, read_only={"memory-bob"})  # one writable repo: no repo question
    async with running(app) as drive:
        pilot = drive.pilot
        head = git(alice, "rev-parse", "HEAD")
        _, inp = await _capture_prompt(pilot, app)
        await pilot.press(*"Kept through a refusal")
        (alice / ".git" / "BISECT_LOG").write_text("")  # mid-bisect: amr refuses to commit
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.title == "Not saved" for n in notes(app)), what="refusal")
        prompt, inp = await _capture_prompt_shown(pilot, app)
        assert inp.value == "Kept through a refusal"
        assert git(alice, "rev-parse", "HEAD") == head
        (alice / ".git" / "BISECT_LOG").unlink()
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Kept through a refusal" in git(alice, "show", "HEAD:MEMORY.md"), what="saved")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), what="prompt closed")


@pytest.mark.slow
async def test_ctrl_q_on_the_credential_question_of_a_capture_counts_the_fact(demo):
    """With one writable repo the capture prompt is gone while the credential question is open:
    ctrl+q there quit without a word about the fact."""
    app = app_for(demo, poll_interval=60, read_only={"memory-bob"})
    async with running(app) as drive:
        pilot = drive.pilot
        _, inp = await _capture_prompt(pilot, app)
        inp.value = f"deploy with {GH}"
        await pilot.press("enter")
        question = await drive.asked_secret()
        await pilot.press("ctrl+q")
        dialog = await drive.asked("Quit and discard 1 unsaved edit?")
        assert "the fact you are capturing" in dialog.body
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is question, what="back at the credential question")
        await pilot.press("escape")  # Keep editing: the text is back
        _, inp = await _capture_prompt_shown(pilot, app)
        assert inp.value == f"deploy with {GH}" and app.return_code is None
        await pilot.press("ctrl+q")
        await drive.asked("Quit and discard 1 unsaved edit?")
        await pilot.press("y")
        await drive.quits()
    assert all(GH not in git(r, "show", "HEAD:MEMORY.md") for r in demo)


@pytest.mark.slow
async def test_ctrl_q_on_the_identity_question_of_a_capture_counts_the_fact(demo, monkeypatch):
    """A capture whose repo has no git identity asks for one; the prompt holding the fact is gone
    then, and ctrl+q on the identity question quit without a word about it."""
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("EMAIL", "")
    app = app_for(demo, poll_interval=60, read_only={"memory-bob"})
    async with running(app) as drive:
        pilot = drive.pilot
        _, inp = await _capture_prompt(pilot, app)
        inp.value = "Fact waiting on an identity"
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, PromptScreen) and "Git needs a name" in app.screen.title_text,
            what="the identity question",
        )
        question = app.screen
        await pilot.press("ctrl+q")
        dialog = await drive.asked("Quit and discard 1 unsaved edit?")
        assert "the text waiting on this save" in dialog.body
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is question, what="back at the identity question")
        app.screen.query_one("#prompt-input").value = "Ada Lovelace <ada@example.test>"
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: "Fact waiting on an identity" in git(demo[0], "show", "HEAD:MEMORY.md"), what="saved"
        )
    assert app.return_code is None
