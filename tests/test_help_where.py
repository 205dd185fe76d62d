"""`?` names the screen it was opened from and lists that screen's keys (issue 38, 10)."""

from __future__ import annotations

import inspect

import pytest
from textual.screen import Screen

from amr_tui.screens.help import HelpScreen
from tests.driver import REVIEW_SIZE, app_for, running, wait_for


def _screen_classes() -> list[type[Screen]]:
    import importlib
    import pkgutil

    import amr_tui.screens as package

    found: dict[str, type[Screen]] = {}
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Screen) and cls.__module__.startswith("amr_tui.") and cls is not HelpScreen:
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return [found[k] for k in sorted(found)]


@pytest.mark.parametrize("cls", _screen_classes(), ids=lambda c: c.__name__)
def test_every_screen_says_what_help_calls_it(cls: type[Screen]) -> None:
    title = cls.__dict__.get("HELP_TITLE")
    assert isinstance(title, str) and title, f"{cls.__name__} has no HELP_TITLE of its own"


@pytest.mark.slow  # the demo's dream list and run review opened end to end: over 2 s
async def test_help_in_the_dream_review_names_it_and_lists_its_keys(demo) -> None:
    """`?` in the dream review said "Main screen" above the review's keys, and listed the finder's
    query syntax, which has nothing to do there."""
    from amr_tui.screens.dreams.screen import DreamListScreen, RunReviewScreen

    app = app_for(demo, poll_interval=60)
    async with running(app, REVIEW_SIZE) as drive:
        pilot = drive.pilot
        await pilot.press("V")
        await wait_for(pilot, lambda: isinstance(app.screen, DreamListScreen) and app.screen.cards, what="runs")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        groups = dict(app.screen.groups)
        assert "Dreaming runs" in groups and "Review" in dict(groups["Dreaming runs"]).values(), list(groups)
        assert "Main screen" not in groups
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, DreamListScreen), what="help closed")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RunReviewScreen), what="the review")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        groups = dict(app.screen.groups)
        assert "Main screen" not in groups and not any(g.startswith("Find (/)") for g in groups), list(groups)
        does = set(dict(groups["Dream review"]).values())
        assert {"Accept change", "Reject change", "Apply accepted", "Edit, then accept", "Undo decision"} <= does
        assert "Dream review" in str(app.screen.query_one("#help-title").render())


async def test_help_on_the_main_screen_still_says_main_screen_and_the_query_syntax(driver) -> None:
    await driver.press("question_mark")
    await driver.until(lambda: isinstance(driver.app.screen, HelpScreen), what="help")
    groups = dict(driver.app.screen.groups)
    assert "Main screen" in groups and any(g.startswith("Find (/)") for g in groups)


def test_every_widget_with_keys_says_what_help_calls_it() -> None:
    """Help named the side-by-side view's keys "SideBySide", its class name."""
    import importlib
    import pkgutil

    from textual.widget import Widget

    import amr_tui.widgets as package

    nameless = []
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Widget) and cls.__module__ == module.__name__ and cls.__dict__.get("BINDINGS"):
                described = [b for b in cls.__dict__["BINDINGS"] if getattr(b, "description", "")]
                if described and not getattr(cls, "HELP_TITLE", ""):
                    nameless.append(cls.__name__)
    assert nameless == []
