"""How the main screens look, at a fixed terminal size, on the deterministic demo set.

Each test's ``run_before`` presses the keys and waits with Textual's own waits (the driver's
``settled``: no worker running, their messages handled, no animation due) before the picture.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

import pytest
from textual.widgets import Input

from amr_tui.screens.dreams.screen import DreamListScreen, RunReviewScreen
from amr_tui.screens.finder import FinderScreen
from amr_tui.widgets.side_by_side import SideBySide
from tests.driver import SNAPSHOT_SIZE, AppDriver, app_for, before_snapshot

TODAY = _dt.date(2026, 11, 29)


@pytest.fixture
def demo_root(demo: list[Path]) -> Path:
    """The demo folder (``tmp_path / "vm"``), copied from the one built for this test process."""
    return demo[0].parent


def _app(demo_root: Path):
    return app_for([demo_root], poll_interval=3600, today=TODAY)


async def _quiet(drive: AppDriver) -> None:
    """Loaded, and quiet: the first file open and indexed, the tree's cursor on it (it moves there
    after the first refresh), no worker running (the history check and the badges post their
    results from workers); the start-up notifications cleared."""
    pilot = drive.pilot
    await drive.settled()
    screen = pilot.app.screen
    node = screen.query_one("#tree").cursor_node
    assert screen.current is not None and not screen.indexing, "the first file is not open and indexed"
    assert node is not None and node.data is not None and node.data.path == screen.current.path, (
        f"the tree's cursor is on {node and node.data}, not on the open file"
    )
    pilot.app.clear_notifications()
    await pilot.pause(0.1)


# ------------------------------------------------------------------------------ the main screen


def test_main_screen(snap_compare, demo_root):
    """The demo's first MEMORY.md, the tree and the side panel, as the app opens."""
    assert snap_compare(_app(demo_root), terminal_size=SNAPSHOT_SIZE, run_before=before_snapshot(_quiet))


def test_topic_file_with_links(snap_compare, demo_root):
    """A topic file with links and backlinks (projects/payments.md)."""

    async def go(drive):
        pilot = drive.pilot
        await _quiet(drive)
        await drive.open("memory-alice", "projects/payments.md")
        await drive.settled()
        await pilot.pause(0.5)

    assert snap_compare(_app(demo_root), terminal_size=SNAPSHOT_SIZE, run_before=before_snapshot(go))


def test_editing_with_diagnostics(snap_compare, demo_root):
    """The entry editor (o) with an entry whose date is invalid, and its diagnostics."""

    async def go(drive):
        pilot = drive.pilot
        await _quiet(drive)
        await pilot.press("o")
        await pilot.pause(0.2)
        pilot.app.screen.query_one(
            "#editor-input"
        ).value = "Deploys freeze on Fridays [source: s/301; added: 2026-02-30]"
        await pilot.pause(0.3)

    assert snap_compare(_app(demo_root), terminal_size=SNAPSHOT_SIZE, run_before=before_snapshot(go))


# ------------------------------------------------------------------------------ the finder


def test_finder(snap_compare, demo_root):
    """The finder (/) with the hits for 'launch'."""

    async def go(drive):
        pilot = drive.pilot
        await _quiet(drive)
        await pilot.press("slash", *"launch")
        await drive.settled()
        screen = pilot.app.screen
        assert isinstance(screen, FinderScreen) and screen.hits and screen.query_one("#finder-input").value == "launch"
        # the cursor drawn, whatever the time: a blinking one was caught on or off by chance
        screen.query_one("#finder-input", Input).cursor_blink = False
        await drive.settled()  # the input is laid out again once the hits are in: wait for that too
        await pilot.pause(0.5)
        await pilot.wait_for_scheduled_animations()

    assert snap_compare(_app(demo_root), terminal_size=SNAPSHOT_SIZE, run_before=before_snapshot(go))


# ------------------------------------------------------------------------------ the help screen


def test_help_screen(snap_compare, demo_root):
    """The help screen (?) with the key bindings."""

    async def go(drive):
        pilot = drive.pilot
        await _quiet(drive)
        await pilot.press("question_mark")
        await pilot.pause(0.3)
        await pilot.wait_for_scheduled_animations()

    assert snap_compare(_app(demo_root), terminal_size=SNAPSHOT_SIZE, run_before=before_snapshot(go))


# ------------------------------------------------------------------------------ file history


def test_file_history_screen(snap_compare, demo_root):
    """The history of the open file (h), versions side by side."""

    async def go(drive):
        pilot = drive.pilot
        await _quiet(drive)
        await pilot.press("h")
        await drive.settled()
        views = pilot.app.screen.query(SideBySide)
        assert views and views.first().rows, "the history shows no versions"
        await pilot.pause(0.3)

    assert snap_compare(_app(demo_root), terminal_size=SNAPSHOT_SIZE, run_before=before_snapshot(go))


# ------------------------------------------------------------------------------ dream review


def test_dream_review_screen(snap_compare, demo_root):
    """A dreaming run's review (V, then enter on the first run)."""

    async def go(drive):
        pilot = drive.pilot
        await _quiet(drive)
        await pilot.press("V")
        await drive.settled()
        assert isinstance(pilot.app.screen, DreamListScreen) and pilot.app.screen.cards, "no dreaming runs listed"
        await pilot.press("enter")
        await drive.settled()
        screen = pilot.app.screen
        assert isinstance(screen, RunReviewScreen) and screen.review is not None, "the run's review is not shown"
        await pilot.pause(0.4)
        pilot.app.clear_notifications()

    assert snap_compare(_app(demo_root), terminal_size=SNAPSHOT_SIZE, run_before=before_snapshot(go))


def test_dream_review_edit(snap_compare, demo_root):
    """e on the merged entry of frontend/stack.md: the entry editor over the review, its text
    edited at Home and a link typed that names no file (the finding under the field)."""
    from amr_tui.screens.dreams.edit import EntryEditScreen

    async def go(drive):
        pilot = drive.pilot
        await _quiet(drive)
        await pilot.press("V")
        await drive.settled()
        await pilot.press("enter")
        await drive.settled()
        screen = pilot.app.screen
        assert isinstance(screen, RunReviewScreen) and screen.review is not None, "the run's review is not shown"
        files = screen.query_one("#review-files")
        files.highlighted = [f.path for f in screen.files].index("frontend/stack.md")
        await drive.settled()
        changes = screen.query_one("#review-changes")
        changes.focus()
        changes.highlighted = next(i for i, c in enumerate(screen.changes) if c.kind.value == "merged")
        await drive.settled()
        await pilot.press("e")
        await drive.until(lambda: isinstance(pilot.app.screen, EntryEditScreen), what="the entry editor")
        await pilot.press("home", *"EDITED: ", "end", *" [[nope]]")
        await drive.settled()
        await pilot.pause(0.4)
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False  # the cursor drawn, never blinked off at the capture
            field.focus()
        await drive.settled()
        pilot.app.clear_notifications()

    assert snap_compare(_app(demo_root), terminal_size=SNAPSHOT_SIZE, run_before=before_snapshot(go))


def test_activity_review_screen(snap_compare, demo_root):
    """What agents committed since the last review (A), one commit's entry changes side by side.
    The review mark is set at a fixed demo commit, so the same commits are listed every run."""
    from amr_tui.screens.activity import ActivityScreen
    from amr_tui.services.activity.service import ActivityService

    alice = demo_root / "memory-alice"
    service = ActivityService(alice)
    service.mark_reviewed("HEAD~5")
    service.close()

    async def go(drive):
        pilot = drive.pilot
        await _quiet(drive)
        await pilot.press("A")
        await drive.settled()
        screen = pilot.app.screen
        assert isinstance(screen, ActivityScreen) and screen.activity is not None, "the activity is not shown"
        assert screen.activity.count > 0 and screen.activity.start_reason == "mark"
        await pilot.press("j", "j")  # the second commit since the mark
        await drive.settled()
        await pilot.pause(0.2)
        pilot.app.clear_notifications()

    assert snap_compare(_app(demo_root), terminal_size=SNAPSHOT_SIZE, run_before=before_snapshot(go))


# ------------------------------------------------------------------------------ links and tags


def test_link_completion(snap_compare, demo_root):
    """A new entry (o) with ``[[back`` typed: the completion list above the cursor, ranked as the
    finder ranks (the backend files first), the first row picked."""
    from amr_tui.widgets.link_complete import LinkCompletion

    async def go(drive):
        pilot = drive.pilot
        await _quiet(drive)
        await pilot.press("o")
        inp = pilot.app.screen.query_one("#editor-input", Input)
        await drive.until(lambda: inp.has_focus, what="the entry editor")
        inp.cursor_blink = False
        await pilot.press(*"See", "space", *"[[back")
        completion = pilot.app.screen.query_one(LinkCompletion)
        await drive.until(lambda: completion.is_open and completion.current, what="the completion list")
        await drive.settled()
        await pilot.pause(0.3)

    assert snap_compare(_app(demo_root), terminal_size=SNAPSHOT_SIZE, run_before=before_snapshot(go))


def test_link_graph(snap_compare, demo_root):
    """The link graph (L) of projects/payments.md at depth 2, the file it links to picked."""
    from amr_tui.screens.graph import GraphScreen

    async def go(drive):
        pilot = drive.pilot
        await _quiet(drive)
        await drive.open("memory-alice", "projects/payments.md")
        await drive.settled()
        await pilot.press("L")
        await drive.until(lambda: isinstance(pilot.app.screen, GraphScreen), what="the graph")
        screen = pilot.app.screen
        await drive.until(lambda: screen.drawing is not None, what="the drawing")
        await pilot.press("d")
        await drive.until(lambda: screen.depth == 2 and screen.drawing.by_key("MEMORY.md"), what="depth 2")
        await pilot.press("l")
        await drive.settled()
        await pilot.pause(0.3)

    assert snap_compare(_app(demo_root), terminal_size=SNAPSHOT_SIZE, run_before=before_snapshot(go))


def test_tags_view(snap_compare, make_repo):
    """The tags view (#) of a repo with tags in entry text, in [tags: ...] and in front matter."""
    from amr_tui.screens.tags import TagsScreen

    root = make_repo(
        "memory",
        {
            "MEMORY.md": "# Memory\n\n- Deploys run from CI #infra #release\n"
            "- Rotate the database password monthly [tags: infra, security]\n"
            "- Issue #123 is no tag, nor is #fff\n\n## Index\n- [[ops]]\n",
            "ops.md": "---\ntags: [ops, infra]\n---\n# Ops\n\n- Pager rotation is weekly #oncall/primary\n"
            "- Deploy freezes start two days before a release #release\n",
        },
    )

    async def go(drive):
        pilot = drive.pilot
        await _quiet(drive)
        await pilot.press("number_sign")
        await drive.until(lambda: isinstance(pilot.app.screen, TagsScreen), what="the tags view")
        await drive.until(lambda: pilot.app.screen.counts, what="the counts")
        await drive.settled()
        await pilot.pause(0.3)

    assert snap_compare(_app(root), terminal_size=SNAPSHOT_SIZE, run_before=before_snapshot(go))
