"""The keys every list shares: j/k move, g/G go to the first and last row, typing filters.

``ListKeys`` is mixed into (its ``LIST_BINDINGS`` named in each class's ``BINDINGS``: Textual
merges bindings of widget classes only) each list widget the app uses (``FilterList`` for option lists,
``widgets.tables``' ``PickList`` for the share screen's selection list and ``KeyTable`` for tables,
and the file tree),
so a list works the same on every screen. Typing narrows an option list to the rows holding
the typed text (backspace takes a letter back, esc clears); in a list whose rows the screen
indexes (the selection list, the tree), typing jumps to the next row starting with the text
instead. A letter the screen binds (``r`` restores, ``q`` closes) keeps its binding until a
filter is under way; then every letter is part of the filter (in a jump, only while some row
still starts with the text: ``F`` right after jumping to a file still opens forgotten facts).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, ClassVar, cast

from textual import events
from textual.binding import BindingType
from textual.widget import Widget
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from amr_tui.widgets.actions import bindings

#: Seconds after the last typed letter that a jump's text is forgotten (the next letter starts anew).
JUMP_PAUSE = 1.0

LIST_BINDINGS: list[BindingType] = bindings("list")


def printable(event: events.Key) -> str | None:
    """The character a key types, if it types one (a letter, a digit, punctuation, a space)."""
    ch = event.character
    if ch is None or len(ch) != 1 or not ch.isprintable():
        return None
    return ch


def is_bound(widget: Any, key: str) -> bool:
    """Some binding of the screen's focus chain (the list's own j/k/g/G aside) or of the app takes ``key``."""
    try:
        active = widget.screen.active_bindings
    except Exception:  # no screen (being removed): nothing is bound
        return False
    bound = active.get(key)
    return bound is not None and bound.node is not widget


class ListKeys:
    """j/k/g/G and type-to-filter for a list widget; the widget says how it moves and filters."""

    HELP_TITLE = "Lists"
    typed: str = ""

    # -- how each list moves (the widget's own actions) -------------------------------------------
    def action_list_down(self) -> None:
        self.action_cursor_down()  # type: ignore[attr-defined]

    def action_list_up(self) -> None:
        self.action_cursor_up()  # type: ignore[attr-defined]

    def action_list_first(self) -> None:
        self.action_first()  # type: ignore[attr-defined]

    def action_list_last(self) -> None:
        self.action_last()  # type: ignore[attr-defined]

    # -- typing ------------------------------------------------------------------------------------
    #: True: typing narrows the rows to those holding the text; False: it jumps to the next row
    #: starting with it (the text is forgotten JUMP_PAUSE seconds after the last letter).
    narrows: ClassVar[bool] = True
    _last_typed: float = 0.0

    def set_typed(self, text: str) -> None:
        """Show what is typed (a filter) and act on it."""
        self.typed = text
        self._last_typed = time.monotonic()
        if self.narrows:
            cast("Widget", self).border_subtitle = f"filter: {text}  (esc clears)" if text else ""
            self.apply_typed(text)
        elif text:
            rows, start = self.jump_rows()
            found = jump_to(rows, start, text)
            if found is not None:
                self.jump_go(found)

    def apply_typed(self, text: str) -> None:
        """Narrow the rows to those holding ``text`` (all rows for "")."""

    def jump_rows(self) -> tuple[list[str], int]:
        """The rows' texts, and the row the cursor is on."""
        return [], 0

    def jump_go(self, row: int) -> None:
        """Put the cursor on ``row``."""

    def typing_active(self) -> bool:
        if self.narrows:
            return bool(self.typed)
        return bool(self.typed) and time.monotonic() - self._last_typed < JUMP_PAUSE

    async def on_key(self, event: events.Key) -> None:
        if event.key in ("escape", "backspace") and self.typing_active():
            event.stop()
            event.prevent_default()
            self.set_typed("" if event.key == "escape" else self.typed[:-1])
            return
        ch = printable(event)
        if ch is None:
            return
        if ch == " " and not (self.narrows and self.typing_active()):
            return  # space ticks a row or opens a folder; only a filter under way takes it
        own = event.key in {"j", "k", "g", "G"} or is_bound(self, event.key)
        if own and not self.typing_active():
            return  # a key of the screen (or the list's own) while nothing is typed: its binding runs
        if (
            own
            and not self.narrows
            and not any(r.lstrip().casefold().startswith((self.typed + ch).casefold()) for r in self.jump_rows()[0])
        ):
            self.typed = ""  # no row goes on with it: the key is the screen's (F right after a jump)
            return
        event.stop()
        event.prevent_default()
        self.set_typed(self.typed + ch if self.typing_active() else ch)


def _text_of(option: Option) -> str:
    return str(option.prompt).casefold()


class FilterList(ListKeys, OptionList):
    """An option list whose rows narrow to the typed text; ``source_index`` maps a shown row to
    the row the screen added (screens keep their items in the order they added them)."""

    BINDINGS: ClassVar[list[BindingType]] = LIST_BINDINGS

    def __init__(self, *content: Any, **kw: Any) -> None:
        super().__init__(*content, **kw)
        self._all: list[Option] | None = None  # every option, while a filter hides some
        self._shown: list[int] = []

    def clear_options(self) -> Any:
        """The screen fills the list afresh: any filter is dropped with the old rows."""
        if self._all is not None or self.typed:
            self._all = None
            self.typed = ""
            self.border_subtitle = ""
        return super().clear_options()

    def apply_typed(self, text: str) -> None:
        if self._all is None:
            self._all = list(self.options)
        wanted = text.casefold()
        self._shown = [i for i, opt in enumerate(self._all) if not wanted or wanted in _text_of(opt)]
        all_options = self._all
        OptionList.clear_options(self)
        self.add_options(all_options[i] for i in self._shown)
        if not text:
            self._all = None
        if self.option_count:
            self.highlighted = 0

    def source_index(self, index: int | None) -> int | None:
        """The row as the screen added it, of shown row ``index``."""
        if index is None or self._all is None:
            return index
        return self._shown[index] if 0 <= index < len(self._shown) else None

    @property
    def source_highlighted(self) -> int | None:
        """The highlighted row, as the screen added it."""
        return self.source_index(self.highlighted)


class OptionJumps(ListKeys):
    """``ListKeys`` for an option list (a selection list is one) whose rows stay as they are:
    typing jumps to the next option whose prompt starts with the text."""

    narrows = False

    def jump_rows(self) -> tuple[list[str], int]:
        options = cast(OptionList, self)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        return prompts, options.highlighted or 0

    def jump_go(self, row: int) -> None:
        cast(OptionList, self).highlighted = row


class JumpList(OptionJumps, OptionList):
    """An option list whose rows the screen follows as they are highlighted (a review's files and
    changes): typing jumps to the next row starting with the text, the rows stay as they are."""

    BINDINGS: ClassVar[list[BindingType]] = LIST_BINDINGS


def jump_to(rows: Iterable[str], start: int, text: str) -> int | None:
    """The first row from ``start`` (from the one after it when ``text`` is one letter: each press
    goes on to the next match) whose text, leading spaces aside, starts with ``text``; wraps."""
    labels = [r.lstrip().casefold() for r in rows]
    if not labels:
        return None
    wanted = text.casefold()
    first = start + 1 if len(text) == 1 else start
    for step in range(len(labels)):
        i = (first + step) % len(labels)
        if labels[i].startswith(wanted):
            return i
    return None
