"""The first frame parses the main screen's layout only (styles/app.tcss). The other screens'
(styles/screens.tcss, ``AmrApp.LATER_CSS_PATH``) is read before the first of them is shown, and
names nothing of the main screen: reading it then leaves everything on screen styled as it was,
as when both were one file read at start."""

from __future__ import annotations

import os

from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

from amr_tui.app import AmrApp
from tests.driver import SMALL_SIZE, app_for, running, wait_for

LATER = os.path.abspath(AmrApp.LATER_CSS_PATH[0])


def _later_names() -> set[str]:
    """Every id, class and type a rule of screens.tcss names (in any part of its selector)."""
    sheet = Stylesheet()
    sheet.read(LATER)
    return {name for rule in sheet.rules for name in rule.selector_names}


def _names(node: DOMNode) -> set[str]:
    names = {cls.__name__ for cls in type(node).__mro__} | {f".{c}" for c in node.classes}
    return names | ({f"#{node.id}"} if node.id else set())


async def test_the_other_screens_layout_is_read_when_the_first_of_them_opens(make_repo):
    memory = "# Memory\n\n## Index\n- [[notes]]\n- Alice likes tea\n"
    root = make_repo("memory", {"MEMORY.md": memory, "notes.md": "- a note [[MEMORY]]\n"})
    app = app_for([root])
    async with running(app, SMALL_SIZE) as drive:
        pilot = drive.pilot
        assert not app.stylesheet.has_source(LATER), "the main screen's first frame parsed screens.tcss"
        later = _later_names()
        assert "#finder-box" in later and "ModalScreen" in later
        named = {
            f"{type(node).__name__}#{node.id}": sorted(_names(node) & later)
            for node in app.screen.walk_children(with_self=True)
            if _names(node) & later
        }
        assert named == {}, "screens.tcss names parts of the main screen: reading it later would restyle them"
        await pilot.press("slash")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "FinderScreen", what="finder")
        assert app.stylesheet.has_source(LATER)
        box = app.screen.query_one("#finder-box")
        assert (str(box.styles.width), str(box.styles.height)) == ("90w", "80h")  # screens.tcss: 90% and 80%
