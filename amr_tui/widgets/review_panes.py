"""The review layout the activity review and the dream review share: the files (or commits)
and their entry changes on the left, a status line and the side-by-side diff on the right.

The screens find the parts by their ids (``#review-files``, ``#review-changes``,
``#review-status``, ``#review-diff``), laid out in ``styles/app.tcss`` and drawn as ``ReviewPanes.DEFAULT_CSS`` says.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Header, Static

from amr_tui.widgets.footer import Footer
from amr_tui.widgets.lists import JumpList
from amr_tui.widgets.side_by_side import SideBySide
from amr_tui.widgets.titles import ScreenTitle


def review_screen(title: Content, files: str, changes: str, status: str) -> ComposeResult:
    """A review screen, whole: the header, its title (``#review-title``), the panes (see
    ``ReviewPanes``), the footer."""
    yield Header()
    yield ScreenTitle(title, id="review-title")
    yield ReviewPanes(files, changes, status)
    yield Footer()


class ReviewPanes(Horizontal):
    """Two lists over each other on the left, what the selected change is on the right."""

    DEFAULT_CSS = """
    #review-left {
        border-right: vkey $panel-lighten-1;
    }
    #review-status {
        color: $text-muted;
    }
    """

    def __init__(self, files: str, changes: str, status: str) -> None:
        """``files``, ``changes``: the titles of the two lists; ``status``: the status line's
        text until the screen has read what it reviews."""
        super().__init__(id="review-panes")
        self._titles = (files, changes, status)

    def compose(self) -> ComposeResult:
        files, changes, status = self._titles
        with Vertical(id="review-left"):
            yield Static(files, classes="side-title", markup=False)
            yield JumpList(id="review-files")
            yield Static(changes, classes="side-title", markup=False)
            yield JumpList(id="review-changes")
        with Vertical(id="review-right"):
            yield Static(status, id="review-status", markup=False)
            yield SideBySide(id="review-diff")
