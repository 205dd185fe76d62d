"""The lines that say what a screen shows: its title under the header, and a muted note."""

from __future__ import annotations

from textual.widgets import Static


class ScreenTitle(Static):
    """A screen's title line (history, timeline, forgotten facts, activity, dreams, share, sync)."""

    DEFAULT_CSS = """
    ScreenTitle {
        background: $panel;
        text-style: bold;
    }
    """


class ScreenNote(Static):
    """A line of status or help under a screen's title, muted."""

    DEFAULT_CSS = """
    ScreenNote {
        color: $text-muted;
    }
    """


__all__ = ["ScreenNote", "ScreenTitle"]
