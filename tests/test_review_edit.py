"""The dream review's "Edit, then accept" (e) edits the entry with the main editor's field and
checks, and what is accepted is what was written (issue 38, 4).

The field held the raw line with its "- ", so typing at Home wrote "- EDITED: - Landing page …";
nothing was checked; the change list kept showing the run's text and the accept's commit body
named the run's text, not what was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, Static

from tests.conftest import git
from tests.driver import REVIEW_SIZE, app_for, running, wait_for

STACK = "frontend/stack.md"


async def _review_at_the_merge(drive):
    """V, Enter, the merged change of frontend/stack.md highlighted in the change list."""
    from amr_tui.screens.dreams.screen import DreamListScreen, RunReviewScreen

    app, pilot = drive.app, drive.pilot
    await pilot.press("V")
    await wait_for(pilot, lambda: isinstance(app.screen, DreamListScreen) and app.screen.cards, what="runs")
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, RunReviewScreen) and app.screen.stage == "done", what="review")
    review = app.screen
    files = review.query_one("#review-files", OptionList)
    files.highlighted = [f.path for f in review.files].index(STACK)
    await wait_for(pilot, lambda: review.path == STACK and review.changes, what="the file's changes")
    changes = review.query_one("#review-changes", OptionList)
    changes.focus()
    change = next(c for c in review.changes if c.kind.value == "merged")
    changes.highlighted = review.changes.index(change)
    await pilot.pause()
    return review, change


async def _edit(drive):
    """e on the change: the entry editor dialog, its input focused."""
    from amr_tui.screens.dreams.edit import EntryEditScreen

    app = drive.app
    await drive.press("e")
    await drive.until(lambda: isinstance(app.screen, EntryEditScreen), what="the entry editor")
    inp = app.screen.query_one("#editor-input", Input)
    await drive.until(lambda: inp.has_focus, what="its focus")
    return app.screen, inp


def _findings(screen) -> str:
    return str(screen.query_one("#editor-diagnostics", Static).render())


@pytest.mark.slow
async def test_edit_then_accept_writes_the_entry_as_edited_and_says_so(demo: list[Path]) -> None:
    alice = demo[0]
    app = app_for(demo, poll_interval=60)
    async with running(app, REVIEW_SIZE) as drive:
        pilot = drive.pilot
        review, change = await _review_at_the_merge(drive)
        screen, inp = await _edit(drive)
        assert change.new is not None and inp.value == change.new.raw.removeprefix("- ")  # the text, no marker
        await pilot.press("home", *"EDITED: ")
        assert inp.value.startswith("EDITED: The website and its landing page")
        await pilot.press("end", *" [[nope")
        await drive.until(lambda: "AMR010" in _findings(screen), what="the finding shown as typed")
        assert "never closed" in _findings(screen)
        await pilot.press("enter")  # a warning does not stop it: accepted as written
        await drive.until(lambda: app.screen is review, what="back in the review")
        line = review.edits[change.id]
        assert line.startswith("- EDITED: The website and its landing page") and line.endswith("[[nope")
        assert change.id in review.accepted
        changes = review.query_one("#review-changes", OptionList)
        row = str(changes.get_option_at_index(review.changes.index(change)).prompt)
        assert "EDITED: The website" in row and "(edited)" in row, row  # the list shows what was written
        head = git(alice, "rev-parse", "main").strip()
        await pilot.press("ctrl+s")
        await drive.until(lambda: type(app.screen).__name__ == "ChoiceScreen", what="what the accept would leave")
        app.screen.dismiss("apply")
        await drive.until(lambda: git(alice, "rev-parse", "main").strip() != head, timeout=30, what="the accept")
        written = (alice / STACK).read_text()
        assert "- EDITED: The website and its landing page" in written and "- EDITED: - " not in written
        body = git(alice, "log", "-1", "--format=%B", "main")
        assert "EDITED: The website" in body and "edited in review" in body, body


@pytest.mark.slow
async def test_a_line_that_breaks_the_format_is_not_accepted_and_the_text_comes_back(demo: list[Path]) -> None:
    app = app_for(demo, poll_interval=60)
    async with running(app, REVIEW_SIZE) as drive:
        pilot = drive.pilot
        review, change = await _review_at_the_merge(drive)
        screen, inp = await _edit(drive)
        await pilot.press("end", *" [added: soon")  # a metadata bracket never closed: AMR026, an error
        await drive.until(lambda: "AMR026" in _findings(screen), what="the error shown as typed")
        typed = inp.value
        await pilot.press("enter")
        question = await drive.asked("This entry breaks the format")
        assert "AMR026" in question.body
        await pilot.press("escape")  # keep editing
        await drive.until(lambda: app.screen is screen and inp.has_focus, what="back in the editor")
        assert inp.value == typed and change.id not in review.edits and change.id not in review.accepted
        await pilot.press("escape")  # the text changed: asks before dropping it
        await drive.asked("Discard this edit?")
        await pilot.press("y")
        await drive.until(lambda: app.screen is review, what="back in the review")
        assert change.id not in review.edits


@pytest.mark.slow
async def test_a_credential_typed_into_the_entry_is_asked_about(demo: list[Path]) -> None:
    app = app_for(demo, poll_interval=60)
    async with running(app, REVIEW_SIZE) as drive:
        pilot = drive.pilot
        review, change = await _review_at_the_merge(drive)
        screen, inp = await _edit(drive)
        await pilot.press("end", *" token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
        await pilot.press("enter")
        await drive.asked_secret()
        await pilot.press("escape")  # keep editing: the text as typed, the focus in it
        await drive.until(lambda: app.screen is screen and inp.has_focus, what="back in the editor")
        await pilot.press("enter")
        await drive.asked_secret()
        await pilot.press("enter")  # the placeholder
        await drive.until(lambda: app.screen is review, what="back in the review")
        assert "<redacted: GitHub token>" in review.edits[change.id] and "ghp_" not in review.edits[change.id]


async def test_the_edited_change_reads_as_written() -> None:
    """The commit body's line and the list's row are made from the change as edited."""
    from amr_tui.core.diff.entries import ChangeKind, EntryChange, EntryRef
    from amr_tui.core.diff.text import describe
    from amr_tui.core.dreams.apply import as_edited

    new = EntryRef("a.md", 3, "- Old text [source: https://e.co/1]", "Old text", "old text", ("https://e.co/1",), False)
    change = EntryChange("c1", ChangeKind.NEW, (), new)
    edited = as_edited(change, "New text, as the reviewer wrote it [source: https://e.co/1]")
    assert edited.new is not None and edited.new.raw == "- New text, as the reviewer wrote it [source: https://e.co/1]"
    assert edited.new.text == "New text, as the reviewer wrote it" and edited.new.line == 3
    assert "New text, as the reviewer" in describe(edited) and "Old text" not in describe(edited)
