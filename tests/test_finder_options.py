"""The finder makes a screenful of result rows as the results come, the rest once typing
pauses or when the cursor goes past them (screens/finder.py: making all 200 rows was most of a
keystroke's time in the app)."""

from __future__ import annotations

from textual.widgets import OptionList

from amr_tui.screens.finder import OPTIONS_AT_ONCE, FinderScreen
from tests.driver import app_for, running

ENTRIES = 120
FILES = {
    "MEMORY.md": "# Memory\n\n## Index\n\n- [[ports]]\n",
    "ports.md": "# Ports\n\n" + "".join(f"- Service {k} listens on port {9000 + k}\n" for k in range(ENTRIES)),
}


async def _finder(drive, query: str, rest_after: float) -> tuple[FinderScreen, OptionList]:
    await drive.press("slash")
    await drive.until(lambda: isinstance(drive.app.screen, FinderScreen), "the finder")
    finder = drive.app.screen
    finder.rest_after = rest_after
    await drive.press(*query)
    await drive.until(lambda: finder.shown_query == query and finder.hits, f"the hits of {query!r}")
    return finder, finder.query_one(OptionList)


async def test_a_screenful_first_then_the_rest_when_the_cursor_goes_past_it(make_repo):
    app = app_for([make_repo("memory", FILES)], poll_interval=60)
    async with running(app) as drive:
        finder, options = await _finder(drive, "port", rest_after=600)  # typing never pauses long enough
        assert len(finder.hits) > ENTRIES > OPTIONS_AT_ONCE
        assert options.option_count == OPTIONS_AT_ONCE
        options.highlighted = OPTIONS_AT_ONCE - 2  # the last rows made
        await drive.press("down")
        assert options.option_count == OPTIONS_AT_ONCE
        await drive.press("down", "down")  # past them
        assert options.option_count == len(finder.hits)
        assert options.highlighted == OPTIONS_AT_ONCE + 1


async def test_every_row_is_made_once_typing_pauses(make_repo):
    app = app_for([make_repo("memory", FILES)], poll_interval=60)
    async with running(app) as drive:
        finder, options = await _finder(drive, "listens", rest_after=0.05)
        await drive.until(lambda: options.option_count == len(finder.hits), "every row")
        await drive.press("backspace")  # newer results: rows of the old ones are not added to them
        await drive.until(lambda: finder.shown_query == "listen", "the new hits")
        await drive.until(lambda: options.option_count == len(finder.hits), "every row again")
        await drive.settled()
        assert options.option_count == len(finder.hits)


async def test_the_rest_is_made_once_when_the_cursor_goes_past_before_typing_pauses(make_repo):
    app = app_for([make_repo("memory", FILES)], poll_interval=60)
    async with running(app) as drive:
        finder, options = await _finder(drive, "port", rest_after=0.5)
        options.highlighted = OPTIONS_AT_ONCE - 1
        await drive.press("down")  # past the rows made, before the pause is over
        await drive.pilot.pause(0.8)  # the pause's timer comes too, and adds nothing twice
        assert options.option_count == len(finder.hits)
