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

from amr_tui.widgets.lists import LIST_BINDINGS, ListKeys


class PickList(ListKeys, SelectionList[str]):
    """A selection list (rows the user ticks): typing jumps to the next row starting with the text."""

    BINDINGS: ClassVar[list[BindingType]] = LIST_BINDINGS
    narrows = False

    def jump_rows(self) -> tuple[list[str], int]:
        return [str(self.get_option_at_index(i).prompt) for i in range(self.option_count)], self.highlighted or 0

    def jump_go(self, row: int) -> None:
        self.highlighted = row


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
