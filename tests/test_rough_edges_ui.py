"""Issue 16, section 5: rough edges found by trying the demo (the app's side)."""

from __future__ import annotations

from textual.widgets import DataTable

from tests.driver import AppDriver, app_for, screen_text

SMALL = (130, 38)


async def test_help_scrolls_to_every_binding(demo):
    """On a 38-row terminal the ? help is longer than the screen: j, arrows and pgdn reach its
    last binding, and k/g come back to the first."""
    app = app_for(demo, poll_interval=60)
    async with app.run_test(size=SMALL) as pilot:
        drive = AppDriver(pilot)
        await drive.ready()
        await pilot.press("question_mark")
        await drive.until(lambda: app.screen.query("#help-table"), what="the help")
        table = app.screen.query_one("#help-table", DataTable)
        last = str(table.get_row_at(table.row_count - 1)[2])
        first = str(table.get_row_at(0)[2])
        assert table.row_count > SMALL[1], "the help fits the screen: nothing to scroll"
        await pilot.pause()
        assert last not in screen_text(app)
        for _ in range(table.row_count):
            await pilot.press("pagedown")
        await pilot.pause()
        assert last in screen_text(app)
        await pilot.press("g")
        await pilot.pause()
        assert first in screen_text(app) and last not in screen_text(app)
        for _ in range(table.row_count):
            await pilot.press("j")
        await pilot.pause()
        assert last in screen_text(app)
        await pilot.press("k", "g")
        for _ in range(table.row_count):
            await pilot.press("down")
        await pilot.pause()
        assert last in screen_text(app)
