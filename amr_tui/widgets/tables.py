"""The lists of rows that are not option lists: ``PickList`` (the share screen's selection list)
and ``KeyTable`` (the help's table), with the keys every list shares (``widgets.lists``).

Apart from ``widgets.lists`` because the main screen's first frame needs neither: Textual's
``DataTable`` and ``SelectionList`` cost 3 ms of start-up to import.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from textual import events
from textual.binding import BindingType
from textual.strip import Strip
from textual.widgets import Checkbox, DataTable, SelectionList

from amr_tui.widgets.lists import LIST_BINDINGS, ListKeys, OptionJumps


class PickList(OptionJumps, SelectionList[str]):
    """A selection list (rows the user ticks): typing jumps to the next row starting with the text.

    A ticked row shows a tick and an unticked one an empty box: Textual's list tells them apart by
    colour only (the same "X" on both), which a colour-blind user or a monochrome terminal cannot."""

    BINDINGS: ClassVar[list[BindingType]] = LIST_BINDINGS
    TICKED, UNTICKED = "\u2714", " "

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        if len(segments) < 3 or segments[1].text != Checkbox.BUTTON_INNER:
            return strip
        inner = segments[1]
        index = inner.style.meta.get("option") if inner.style is not None else None
        if index is None:
            return strip
        ticked = self.get_option_at_index(index).value in self.ticked
        segments[1] = Segment(self.TICKED if ticked else self.UNTICKED, inner.style, inner.control)
        return Strip(segments, strip.cell_length)

    @property
    def ticked(self) -> set[str]:
        """The values of the ticked rows (``selected`` as a set, kept between changes)."""
        if self._ticked is None:
            self._ticked = set(self.selected)
        return self._ticked

    _ticked: set[str] | None = None

    def on_selection_list_selected_changed(self) -> None:
        self._ticked = None  # read again when the lines are drawn again, now
        self.refresh()


class KeyTable(ListKeys, DataTable[object]):
    """A table of rows to read (the help): j/k/g/G move, page keys page; no filter."""

    BINDINGS: ClassVar[list[BindingType]] = LIST_BINDINGS

    def action_list_first(self) -> None:
        self.action_scroll_top()

    def action_list_last(self) -> None:
        self.action_scroll_bottom()

    async def on_key(self, event: events.Key) -> None:
        return  # no typing in a table


__all__ = ["KeyTable", "PickList"]
