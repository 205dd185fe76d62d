"""The lists of rows that are not option lists: ``PickList`` (the share screen's selection list)
and ``KeyTable`` (the help's table), with the keys every list shares (``widgets.lists``).

Apart from ``widgets.lists`` because the main screen's first frame needs neither: Textual's
``DataTable`` and ``SelectionList`` cost 3 ms of start-up to import.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import BindingType
from textual.widgets import DataTable, SelectionList

from amr_tui.widgets.lists import LIST_BINDINGS, ListKeys, OptionJumps


class PickList(OptionJumps, SelectionList[str]):
    """A selection list (rows the user ticks): typing jumps to the next row starting with the text."""

    BINDINGS: ClassVar[list[BindingType]] = LIST_BINDINGS


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
