"""Pilot tests of history, timelines, forgotten facts, forgetting and the dream review screen."""

from __future__ import annotations

import os
import subprocess

import pytest
from textual.widgets import DataTable, OptionList

from amr_tui.screens.dialogs import ChoiceScreen, ConfirmScreen, PromptScreen
from amr_tui.screens.dreams.screen import DreamListScreen, RunReviewScreen
from amr_tui.screens.forgotten import ForgottenScreen
from amr_tui.screens.history import FileHistoryScreen, TimelineScreen
from amr_tui.widgets.entry_view import EntryView
from amr_tui.widgets.side_by_side import SideBySide
from tests.driver import WIDE_SIZE, app_for, git, notes, running, screen_text, shown, wait_for


async def test_file_history_lists_commits_and_shows_versions(demo):
    app = app_for(demo, poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, FileHistoryScreen), what="history screen")
        table = app.screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count >= 10, what="commits")
        await wait_for(pilot, lambda: app.screen.query_one(SideBySide).rows, what="version rows")
        await shown(pilot, app, "Remember API rate limits")
        await pilot.press("down")
        await wait_for(
            pilot,
            lambda: "Remember migration order" in str(app.screen.query_one("#history-version-title").render()),
            what="second version",
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, FileHistoryScreen), what="closed")


async def test_entry_timeline_and_reblame(demo):
    app = app_for(demo, poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        await drive.open("memory-alice", "projects/website.md")
        doc = drive.current.doc
        edited = next(e for e in doc.entries if "sign" in e.text.lower())
        await drive.to_line(edited.line)
        await pilot.press("H")
        await wait_for(pilot, lambda: isinstance(app.screen, TimelineScreen), what="timeline")
        events = app.screen.query_one("#timeline-events", OptionList)
        await wait_for(pilot, lambda: events.option_count >= 2, what="events")
        await shown(pilot, app, "added", "reworded", "Last touched", "Update website launch sign-off")
        await pilot.press("p")
        await wait_for(
            pilot,
            lambda: "Before that" in screen_text(app) or any("first appeared" in str(n.message) for n in notes(app)),
            what="reblame",
        )


@pytest.mark.slow
async def test_forget_records_tombstone_and_restore_brings_back(demo):
    alice = demo[0]
    app = app_for(demo, poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        entry = drive.current.doc.entries[0]
        await drive.to_first_entry()
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="forget mode")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="reason")
        app.screen.query_one("#prompt-input").value = "the user asked"
        await pilot.press("enter")
        await wait_for(pilot, lambda: entry.text not in (alice / "MEMORY.md").read_text(), what="forgotten")
        tomb = next(alice.rglob("forgotten.md"))
        assert entry.text in tomb.read_text() and "the user asked" in tomb.read_text()
        # F lists what the history holds: wait for the forget's commit (it follows the file write)
        await wait_for(pilot, lambda: git(alice, "status", "--porcelain") == "", what="the forget committed")
        await pilot.press("F")
        await wait_for(pilot, lambda: isinstance(app.screen, ForgottenScreen), what="forgotten screen")
        listing = app.screen.query_one("#forgotten-list", OptionList)
        await wait_for(pilot, lambda: app.screen.facts, timeout=20, what="facts")
        assert "staging" in screen_text(app).lower() or len(app.screen.facts) >= 1
        idx = next(i for i, f in enumerate(app.screen.facts) if f.text == entry.text)
        listing.highlighted = idx
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: entry.text in (alice / "MEMORY.md").read_text(), timeout=15, what="restored")
    assert git(alice, "status", "--porcelain") == ""


@pytest.mark.slow
async def test_review_accept_part_reject_rest(demo):
    alice = demo[0]
    app = app_for(demo, poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        await pilot.press("V")
        await wait_for(
            pilot, lambda: isinstance(app.screen, DreamListScreen) and app.screen.cards, timeout=20, what="runs"
        )
        await shown(pilot, app, "2026-10-07-nightly")
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: isinstance(app.screen, RunReviewScreen) and app.screen.review, timeout=20, what="review"
        )
        text = screen_text(app)
        for kind in ("merged", "dropped", "moved"):
            assert kind in text or any(kind in f.counts for f in app.screen.review.files), kind
        screen = app.screen
        stack = next(i for i, f in enumerate(screen.review.files) if f.path == "frontend/stack.md")
        screen.query_one("#review-files", OptionList).highlighted = stack
        await pilot.pause(0.3)
        merged = next(c for c in screen.changes if c.kind.value == "merged")
        screen.query_one("#review-changes", OptionList).highlighted = screen.changes.index(merged)
        screen.query_one("#review-changes", OptionList).focus()
        await pilot.press("a")
        assert merged.id in screen.accepted
        main_before = git(alice, "rev-parse", "main")
        # the merge lands in a new file, but the Index link to it is not accepted: amr says so first
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=20, what="broken-link warning")
        await shown(pilot, app, "frontend/stack.md: new file that no file links to")
        await pilot.press("escape")
        await pilot.pause(0.3)
        assert git(alice, "rev-parse", "main") == main_before and merged.id in screen.accepted
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=20, what="warning again")
        await pilot.press(*"anyway", "enter")
        await wait_for(
            pilot, lambda: (alice / "frontend" / "stack.md").exists(), timeout=20, what="accepted change on main"
        )
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, RunReviewScreen)
            and app.screen.review
            and merged.id in app.screen.review.applied,
            timeout=20,
            what="reloaded review",
        )
        await pilot.press("X")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm reject")
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, DreamListScreen), timeout=20, what="back to the list")
    log = git(alice, "log", "-3", "--format=%B", "main")
    assert "Dream-Run: 2026-10-07-nightly" in log
    assert "dreams/2026-10-07-nightly" not in git(alice, "branch", "--list")
    assert (alice / "dev-port.md").exists()  # the drop was not accepted
    assert git(alice, "status", "--porcelain") == ""


async def test_resurrected_fact_is_marked_in_the_entry_view(make_repo):
    repo = make_repo(
        "mem",
        {
            "MEMORY.md": "# Memory\n\n- Dev server runs on port 3001 [source: https://e.com/s/1]\n\n## Index\n- [[notes]]\n",
            "notes.md": "# Notes\n",
        },
    )
    (repo / "MEMORY.md").write_text("# Memory\n\n## Index\n- [[notes]]\n")
    git(repo, "commit", "-qam", "dream: drop dev-port")
    (repo / "notes.md").write_text("# Notes\n\n- Dev server runs on port 3001 [source: https://e.com/s/9]\n")
    agent = {**os.environ, "GIT_AUTHOR_NAME": "stale-session", "GIT_AUTHOR_EMAIL": "agent@amr.invalid"}
    subprocess.run(["git", "commit", "-qam", "stale session re-learns the port"], cwd=repo, env=agent, check=True)
    app = app_for([repo], poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        await wait_for(
            pilot,
            lambda: any(n.title == "Resurrected facts" for n in notes(app)),
            timeout=20,
            what="resurrection notice",
        )
        await drive.open("mem", "notes.md")
        await wait_for(
            pilot,
            lambda: drive.current.path == "notes.md" and 3 in app.screen.query_one(EntryView).marks,
            what="resurrection marked",
        )
        await shown(pilot, app, "AMR030")
