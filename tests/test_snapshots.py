"""How the main screens look, at a fixed terminal size, on the deterministic demo set."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

import pytest

from amr_tui.services.demo import build_demo
from tests.apphelpers import app_for

SIZE = (130, 36)
TODAY = _dt.date(2026, 11, 29)


@pytest.fixture
def demo_root(tmp_path: Path) -> Path:
    build_demo(tmp_path / "vm")
    return tmp_path / "vm"


def _tree_on_file(screen) -> bool:
    """The tree's cursor reached the open file (it moves there after the first refresh)."""
    node = screen.query_one("#tree").cursor_node
    return node is not None and node.data is not None and node.data.path == screen.current.path


async def _ready(pilot) -> None:
    """Loaded, and quiet: the file open, the tree's cursor on it, no worker running (the history
    check and the badges post their results from workers), three checks in a row."""
    app = pilot.app

    def settled() -> bool:
        screen = app.screen
        return (getattr(screen, "current", None) is not None and not getattr(screen, "indexing", True)
                and _tree_on_file(screen) and not any(w.is_running for w in app.workers))

    calm = 0
    for _ in range(300):
        calm = calm + 1 if settled() else 0
        if calm >= 3:
            break
        await pilot.pause(0.1)
    else:
        node = app.screen.query_one("#tree").cursor_node
        raise AssertionError(f"the app never settled: tree cursor on {node and node.data}, "
                             f"workers running {[w.name for w in app.workers if w.is_running]}")
    app.clear_notifications()
    await pilot.pause(0.1)


def test_main_screen(snap_compare, demo_root):
    app = app_for([demo_root], poll_interval=3600, today=TODAY)
    assert snap_compare(app, terminal_size=SIZE, run_before=_ready)


def test_topic_file_with_links(snap_compare, demo_root):
    async def go(pilot):
        await _ready(pilot)
        from amr_tui.screens.main.screen import Place

        pilot.app.screen.open_place(Place("memory-alice", "projects/payments.md", 0))
        await pilot.pause(0.5)

    app = app_for([demo_root], poll_interval=3600, today=TODAY)
    assert snap_compare(app, terminal_size=SIZE, run_before=go)


def test_finder(snap_compare, demo_root):
    async def go(pilot):
        await _ready(pilot)
        await pilot.press("slash", *"launch")
        from amr_tui.screens.finder import FinderScreen

        for _ in range(200):
            screen = pilot.app.screen
            if isinstance(screen, FinderScreen) and screen.hits and screen.query_one("#finder-input").value == "launch":
                break
            await pilot.pause(0.05)
        await pilot.pause(0.3)

    app = app_for([demo_root], poll_interval=3600, today=TODAY)
    assert snap_compare(app, terminal_size=SIZE, run_before=go)


def test_editing_with_diagnostics(snap_compare, demo_root):
    async def go(pilot):
        await _ready(pilot)
        await pilot.press("o")
        await pilot.pause(0.2)
        pilot.app.screen.query_one("#editor-input").value = "Deploys freeze on Fridays [source: s/301; added: 2026-02-30]"
        await pilot.pause(0.3)

    app = app_for([demo_root], poll_interval=3600, today=TODAY)
    assert snap_compare(app, terminal_size=SIZE, run_before=go)


def test_help_screen(snap_compare, demo_root):
    async def go(pilot):
        await _ready(pilot)
        await pilot.press("question_mark")
        await pilot.pause(0.3)
        await pilot.wait_for_scheduled_animations()

    app = app_for([demo_root], poll_interval=3600, today=TODAY)
    assert snap_compare(app, terminal_size=SIZE, run_before=go)


def test_file_history_screen(snap_compare, demo_root):
    async def go(pilot):
        await _ready(pilot)
        await pilot.press("h")
        from amr_tui.widgets.side_by_side import SideBySide

        for _ in range(200):
            views = pilot.app.screen.query(SideBySide)
            if views and views.first().rows:
                break
            await pilot.pause(0.05)
        await pilot.pause(0.3)

    app = app_for([demo_root], poll_interval=3600, today=TODAY)
    assert snap_compare(app, terminal_size=SIZE, run_before=go)


def test_dream_review_screen(snap_compare, demo_root):
    async def go(pilot):
        await _ready(pilot)
        await pilot.press("V")
        from amr_tui.screens.review.screen import DreamListScreen, RunReviewScreen

        for _ in range(400):
            if isinstance(pilot.app.screen, DreamListScreen) and pilot.app.screen.cards:
                break
            await pilot.pause(0.05)
        await pilot.press("enter")
        for _ in range(400):
            screen = pilot.app.screen
            if isinstance(screen, RunReviewScreen) and screen.review is not None:
                break
            await pilot.pause(0.05)
        await pilot.pause(0.4)
        pilot.app.clear_notifications()

    app = app_for([demo_root], poll_interval=3600, today=TODAY)
    assert snap_compare(app, terminal_size=SIZE, run_before=go)
