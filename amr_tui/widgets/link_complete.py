"""``[[`` completion: a list of link targets under (or above) the cursor of an Input or a TextArea.

The list never takes the focus: the text widget keeps it, and its host (the entry editor, the
whole-file editor, the capture prompt) hands the list the keys it answers while it is open, through
:meth:`LinkCompletion.key`: ``tab`` and ``enter`` take the highlighted target, ``up`` and ``down``
move, ``escape`` closes the list only (the edit stays open). Each change of the text asks the host's
source for the targets in a thread worker (``@work``: the ranking of ``services.session.linktargets``
reads files on first use); the rows come as a message and replace the old ones, so no keystroke
waits on the index.

Keys typed in one burst end as they end typed one at a time: a key the list answers that comes
before the rows for the text as typed are shown waits for them (a type-ahead hold), then acts on
them, or, when no row came, does what it does without the list (enter saves the entry).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from amr_tui.core.format.complete import Completion, LinkQuery, apply_completion, link_query
from amr_tui.widgets.safe import content
from amr_tui.widgets.type_ahead import hold

if TYPE_CHECKING:  # the entry editor, on the first frame, never loads the TextArea (tree-sitter)
    from textual.widgets import TextArea

Source = Callable[[str, int], list[Completion]]
"""(line text, cursor offset) -> completions, best first. Called in a thread worker."""

#: Rows shown at once (the list scrolls past them).
MAX_ROWS = 8
#: The widest the list grows, in cells.
MAX_WIDTH = 72


def row(completion: Completion) -> Content:
    """A row: the target as it will be written, then (muted) its file or heading's file."""
    parts = [content(completion.label)]
    if completion.detail:
        parts.append(content("  " + completion.detail, "$text-muted italic"))
    return Content.assemble(*parts)


class LinkCompletion(OptionList):
    """The ``[[`` completion list of one text widget (see the module); its look is its DEFAULT_CSS."""

    can_focus = False
    DEFAULT_CSS = """
    /* Over the screen, under or above the cursor */
    LinkCompletion {
        position: absolute;
        overlay: screen;
        constrain: inside inside;
        display: none;
        width: auto;
        min-width: 24;
        max-width: 72;
        height: auto;
        max-height: 10;
        border: round $accent;
        background: $surface;
        padding: 0 1;
    }
    """

    @dataclass
    class Found(Message):
        """The rows for one state of the text (only the newest request's are shown)."""

        serial: int
        """Which request it answers."""
        text: str
        """The line as it was when asked."""
        cursor: int
        """The cursor's offset in it."""
        items: list[Completion]
        """The completions, best first."""

    def __init__(self, editor: Input | TextArea, source: Source | None = None, *, above: bool = False) -> None:
        """``editor``: the text widget completed; ``source``: what gives the rows (None: no
        completion); ``above``: open above the cursor (an editor at the bottom of the screen)."""
        super().__init__(id=f"{editor.id or 'editor'}-complete")
        self.editor = editor
        self.source = source
        self.above = above
        self.serial = 0
        self.items: list[Completion] = []
        self.shown_for: tuple[str, int] | None = None  # the (text, cursor) the rows are for
        self.dismissed: int | None = None  # the "[[" whose list esc closed (its offset)
        self._pending: tuple[str, Callable[[], None]] | None = None  # a key that waits for the rows

    def on_mount(self) -> None:
        if isinstance(self.editor, Input):  # a cursor moved out of the link closes the list
            self.watch(self.editor, "cursor_position", self._moved, init=False)

    def _moved(self) -> None:
        if self.display and self.query_now() is None:
            self.close()

    # -- the text widget ---------------------------------------------------------------------------
    def state(self) -> tuple[str, int]:
        """The line being edited and the cursor's offset in it."""
        ed = self.editor
        if isinstance(ed, Input):
            return ed.value, ed.cursor_position
        row_, col = ed.cursor_location
        return ed.document.get_line(row_), col

    def _replace(self, query: LinkQuery, new_text: str, cursor: int) -> None:
        ed = self.editor
        if isinstance(ed, Input):
            ed.value = new_text
            ed.cursor_position = cursor
            return
        row_ = ed.cursor_location[0]
        old = ed.document.get_line(row_)
        ed.replace(new_text, (row_, 0), (row_, len(old)))
        ed.move_cursor((row_, cursor))

    def query_now(self) -> LinkQuery | None:
        """The ``[[`` being typed at the cursor, or None."""
        text, cursor = self.state()
        return link_query(text, cursor) if self.source is not None else None

    @property
    def is_open(self) -> bool:
        return bool(self.display) and bool(self.items)

    @property
    def current(self) -> bool:
        """The rows shown are for the text as it is now."""
        return self.shown_for == self.state()

    # -- asking ------------------------------------------------------------------------------------
    def changed(self) -> None:
        """The text or the cursor moved: ask for the rows of the ``[[`` at the cursor (the rows
        shown stay until the new ones come), or close the list when there is none."""
        query = self.query_now()
        if query is None:
            self.dismissed = None
            self.close()
            return
        if self.dismissed is not None and self.dismissed != query.start:
            self.dismissed = None
        self.serial += 1
        text, cursor = self.state()
        assert self.source is not None
        self._lookup(self.serial, text, cursor, self.source)

    @work(thread=True, exclusive=True, group="link-complete")
    def _lookup(self, serial: int, text: str, cursor: int, source: Source) -> None:
        try:
            items = source(text, cursor)
        except Exception:  # a repo that went away: no rows, never a crash in the editor
            items = []
        self.post_message(self.Found(serial, text, cursor, items))

    def on_link_completion_found(self, message: Found) -> None:
        message.stop()
        if message.serial != self.serial:
            return
        self.items = message.items
        self.shown_for = (message.text, message.cursor)
        self.clear_options()
        if self.items:
            self.add_options([Option(row(c)) for c in self.items])
            self.highlighted = 0
        query = link_query(message.text, message.cursor)
        show = bool(self.items) and query is not None and self.dismissed != query.start
        self._show(show)
        pending, self._pending = self._pending, None
        if pending is not None:
            self.key(*pending)

    def _show(self, show: bool) -> None:
        if show:
            self._place()
        self.display = show

    def _place(self) -> None:
        """Under the cursor (above it for an editor at the bottom, or where there is no room below)."""
        at = self.editor.cursor_screen_offset
        height = min(len(self.items), MAX_ROWS) + 2
        frame = 4 + (2 if len(self.items) > MAX_ROWS else 0)  # border and padding; a scrollbar past MAX_ROWS
        width = min(MAX_WIDTH, max(24, *(row(c).cell_length + frame for c in self.items)))
        screen_height = self.screen.size.height
        below = at.y + 1
        y = at.y - height if self.above or below + height > screen_height else below
        query = self.query_now()
        back = (self.state()[1] - query.start) if query is not None else 0
        self.styles.width = width
        self.styles.height = height
        self.styles.offset = (max(0, at.x - back - 1), max(0, y))

    def close(self) -> None:
        self.display = False

    # -- keys the host hands over ------------------------------------------------------------------
    def wants(self, what: str) -> bool:
        """Whether the list answers ``what`` now (a host whose text widget has keys of its own, the
        TextArea, hands over only these): the list is open, its rows are on their way, or tab on
        a link whose list esc closed."""
        if self.is_open:
            return True
        query = self.query_now()
        if query is None:
            return False
        return not self.current or (what == "complete" and self.dismissed == query.start and bool(self.items))

    def key(self, what: str, otherwise: Callable[[], None]) -> None:
        """``what`` ("complete": tab, "accept": enter, "up", "down", "close": escape) was pressed in
        the editor; ``otherwise`` does what the key does without the list. While the rows for the
        text as typed are on their way, the key waits for them (and the keys after it wait too).
        Tab opens a list esc closed again; enter on a closed list does what it does without one."""
        query = self.query_now()
        if query is None:
            otherwise()
            return
        if not self.current:
            if self._pending is None:
                self._pending = (what, otherwise)
                hold(self.app, "the link completion's rows", lambda: self._pending is None or not self.is_attached, 2.0)
                self.changed()  # the rows for the text as it is now (a cursor moved asks no one)
            return
        if what == "complete" and self.dismissed == query.start and self.items:
            self.dismissed = None  # tab on a closed list opens it again
            self._show(True)
            return
        if not self.is_open:
            otherwise()
            return
        if what in ("accept", "complete"):
            self.accept()
        elif what == "close":
            self.dismissed = query.start
            self.close()
        else:
            step = 1 if what == "down" else -1
            self.highlighted = ((self.highlighted or 0) + step) % len(self.items)

    def accept(self, index: int | None = None) -> None:
        """Write the highlighted (or ``index``-th) completion in place of the ``[[`` typed."""
        query = self.query_now()
        at = self.highlighted if index is None else index
        if query is None or at is None or not 0 <= at < len(self.items):
            return
        text, _cursor = self.state()
        new_text, cursor = apply_completion(text, query, self.items[at])
        self.close()
        self._replace(query, new_text, cursor)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A click on a row takes it."""
        event.stop()
        self.accept(event.option_index)
        self.editor.focus()


__all__ = ["LinkCompletion", "Source", "row"]
