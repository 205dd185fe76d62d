"""The ? help screen: every binding that applies, grouped by where it works."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from amr_tui.widgets.actions import bindings, by_id
from amr_tui.widgets.safe import rich_text
from amr_tui.widgets.tables import KeyTable

INTRO = (
    "amr shows Agent Memory Repos: MEMORY.md first, entries as one-line facts with their source and "
    "date, [[links]] you can follow, and every save is a git commit that never drops an agent's work."
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = bindings("help")
    DEFAULT_CSS = """
    #help-body {
        background: $surface;
        border: thick $primary;
    }
    #help-title {
        text-style: bold;
        color: $accent;
    }
    #help-intro, #help-footer {
        color: $text-muted;
    }
    """

    def __init__(self, groups: list[tuple[str, list[tuple[str, str]]]], where: str = "") -> None:
        """``where``: the screen help was opened from (its ``HELP_TITLE``), named in the title."""
        super().__init__()
        self.groups = groups
        self.where = where

    def compose(self) -> ComposeResult:
        # The table is the part that scrolls (j/k, arrows, page keys, g/G), under a title that stays.
        with Vertical(id="help-body"):
            title = f"amr \u2014 keys ({self.where})" if self.where else "amr \u2014 keys"
            yield Static(title, id="help-title", markup=False)
            yield Static(INTRO, id="help-intro", markup=False)
            table = KeyTable(id="help-table", show_header=True, zebra_stripes=True, cursor_type="row")
            table.add_columns("Where", "Key", "Does")
            for group, rows in self.groups:
                for key, desc in rows:
                    table.add_row(rich_text(group, "bold"), rich_text(key), rich_text(desc))
            yield table
            yield Static("j/k, arrows, pgup/pgdn scroll \u00b7 esc closes this screen", id="help-footer", markup=False)

    def on_mount(self) -> None:
        self.query_one(KeyTable).focus()


def screen_title(screen: Screen[Any]) -> str:
    """What help calls ``screen``: its class's ``HELP_TITLE`` (every screen of amr has one)."""
    return str(getattr(screen, "HELP_TITLE", "") or type(screen).__name__)


def collect_bindings(app: App[Any], screen: Screen[Any]) -> list[tuple[str, list[tuple[str, str]]]]:
    """Bindings of the app, the screen (under the name it gives, ``screen_title``) and the widgets
    of the screen, with their keys as shown and what they do as the table of actions
    (widgets/actions.py) says."""
    groups: list[tuple[str, list[tuple[str, str]]]] = []
    seen: set[tuple[str, str]] = set()

    def add(title: str, bindings: Iterable[object]) -> None:
        rows: list[tuple[str, str]] = []
        for binding in bindings:
            if not isinstance(binding, Binding):
                continue
            action = by_id(binding.id)  # amr's actions are described in their table; Textual's by their binding
            does = action.description if action is not None else binding.description
            if not does:
                continue
            keys = ", ".join(app.get_key_display(Binding(k.strip(), binding.action)) for k in binding.key.split(","))
            if (keys, does) in seen:
                continue
            seen.add((keys, does))
            rows.append((keys, does))
        if rows:
            groups.append((title, rows))

    add("Anywhere", app.BINDINGS)
    add(screen_title(screen), getattr(screen, "BINDINGS", []))
    for widget in screen.query("*"):
        # the keys an amr widget declares itself (not those it inherits from Textual's, as the footer)
        own = [
            b
            for cls in type(widget).__mro__
            if cls.__module__.startswith("amr_tui")
            for b in vars(cls).get("BINDINGS", [])
        ]
        if own:
            add(getattr(widget, "HELP_TITLE", type(widget).__name__), own)
    return groups
