"""A virtualised view of a memory file: one or more rows per line, a cursor, live links.

Only the rows on screen are rendered (Line API); wrapping is computed from cell widths, so
a 10,000-entry file opens and scrolls without building 10,000 widgets.
"""

from __future__ import annotations

import datetime as _dt
import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING
from unicodedata import east_asian_width

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip

from amr_tui.core.format.links import LinkState
from amr_tui.core.model import Entry, LineKind, Link, Severity
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.line_display import Hotspot, LineDisplay, build_line, links_by_line
from amr_tui.widgets.textual_private import LaidOutScrollView

if TYPE_CHECKING:  # the parser is not needed to draw: kept off the first frame's imports
    from amr_tui.core.format.parser import Document

GUTTER = 7
_MARKS = {
    Severity.ERROR: ("\u25cf", "error"),
    Severity.WARNING: ("\u25b2", "warning"),
    Severity.INFO: ("\u00b7", "info"),
}


def wrap_points(disp: LineDisplay, width: int) -> list[int]:
    """Cell offsets where each row starts: break between words, or inside a word longer than a row."""
    plain = "".join(piece for piece, _ in disp.pieces)
    points = [0]
    row_start = 0
    pos = 0
    for m in _WORD.finditer(plain):
        word = m.group(0)
        w = cell_len(word)
        stripped = cell_len(word.rstrip())
        wide = not word.isascii() and any(east_asian_width(ch) in "WF" for ch in word)
        if pos > row_start and pos + stripped - row_start > width and not wide:
            points.append(pos)
            row_start = pos
        if pos + stripped - row_start > width:
            # A word longer than the row, or a run of wide (CJK) text, which breaks between any
            # two characters: fill the row, never splitting a character's cells.
            at = pos
            for ch in word.rstrip():
                cw = cell_len(ch)
                if at + cw - row_start > width and at > row_start:
                    points.append(at)
                    row_start = at
                at += cw
        pos += w
    return points


_WORD = re.compile(r"\S+\s*|\s+")


class EntryView(LaidOutScrollView, can_focus=True):
    """The open file. Cursor on lines; tab cycles the links of the cursor line."""

    COMPONENT_CLASSES = {
        "entry-view--text",
        "entry-view--heading",
        "entry-view--code",
        "entry-view--quote",
        "entry-view--bullet",
        "entry-view--link",
        "entry-view--link-broken",
        "entry-view--source",
        "entry-view--added",
        "entry-view--meta-key",
        "entry-view--meta-value",
        "entry-view--gutter",
        "entry-view--cursor",
        "entry-view--link-focus",
        "entry-view--error",
        "entry-view--warning",
        "entry-view--info",
        "entry-view--editing",
        "entry-view--cut",
        "entry-view--scope",
    }

    HELP_TITLE = "Entries"
    BINDINGS = bindings("view")
    SCOPED_CSS = False  # the light theme's rules start at the app (App.-light-mode EntryView ...)
    DEFAULT_CSS = """
    EntryView {
        background: $background;
        scrollbar-gutter: stable;
    }
    EntryView:focus {
        background-tint: $foreground 2%;
    }
    EntryView > .entry-view--text { color: $foreground; }
    EntryView > .entry-view--heading { color: $accent; text-style: bold; }
    EntryView > .entry-view--code { color: $foreground-muted; }
    EntryView > .entry-view--quote { color: $foreground-muted; text-style: italic; }
    EntryView > .entry-view--bullet { color: $secondary; }
    EntryView > .entry-view--link { color: $primary; text-style: underline; }
    EntryView > .entry-view--link-broken { color: $error; text-style: strike; }
    EntryView > .entry-view--link-focus { background: $primary-darken-1; color: $text; text-style: bold underline; }
    EntryView > .entry-view--source { color: $success; }
    EntryView > .entry-view--added { color: $foreground-muted; }
    EntryView > .entry-view--meta-key { color: $foreground-muted; }
    EntryView > .entry-view--meta-value { color: $foreground-muted; text-style: italic; }
    EntryView > .entry-view--gutter { color: $foreground-muted; }
    EntryView > .entry-view--cursor { background: $primary-darken-3; text-style: bold; }
    EntryView:focus > .entry-view--cursor { background: $primary-darken-1; }
    /* In a light theme the dark cursor hid the line's dark text: a light cursor keeps every colour readable. */
    App.-light-mode EntryView > .entry-view--cursor { background: $panel-darken-2; }
    App.-light-mode EntryView:focus > .entry-view--cursor { background: $primary-lighten-3; }
    EntryView > .entry-view--editing { background: $warning-darken-3; text-style: bold; }
    EntryView > .entry-view--error { color: $error; }
    EntryView > .entry-view--warning { color: $warning; }
    EntryView > .entry-view--info { color: $foreground-muted; }
    EntryView > .entry-view--cut { color: $warning; text-style: bold; }
    EntryView > .entry-view--scope { color: $accent; }
    """

    @dataclass
    class LinkActivated(Message):
        """A ``[[link]]`` was clicked or opened from the keyboard."""

        link: Link
        """The link, as the parser found it (it may be broken or leave the root)."""

    @dataclass
    class SourceActivated(Message):
        """A ``source:`` value was clicked or opened from the keyboard."""

        url: str
        """The value as written in the entry: not checked to be a web link yet."""

    @dataclass
    class CursorMoved(Message):
        """The cursor is on another line."""

        line: int
        """The line number (1-based) the cursor is on now."""
        entry: Entry | None
        """The entry on that line, if it holds one."""

    cursor_line: reactive[int] = reactive(1, always_update=True)
    raw: reactive[bool] = reactive(False)
    editing: reactive[bool] = reactive(False)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.doc: Document | None = None
        self.link_states: dict[tuple[int, int], LinkState] = {}
        self.marks: dict[int, Severity] = {}
        self.today = _dt.date.today()
        self.link_focus = -1  # index into the cursor line's links
        self._displays: dict[int, LineDisplay] = {}
        self._reuse: dict[
            tuple[object, ...], LineDisplay
        ] = {}  # the previous document's displays, while a new one is laid out
        self._strips: dict[int, Strip] = {}
        self._row_starts: list[int] = []  # first row of each line (0-based line index)
        self._breaks: dict[int, list[int]] = {}  # cell offsets where each row of a wrapped line starts
        self._rows = 0
        self._wrap_width = 0
        self._entries: dict[int, Entry] = {}
        self._links: dict[int, list[tuple[int, Link]]] = {}
        # Where an agent stops loading this file at session start (``core.budget``): a row drawn
        # above this line (1-based), the first one not loaded; None: no cut to draw.
        self.cut_line: int | None = None
        self.cut_label = ""

    def set_cut(self, line: int | None, label: str = "") -> None:
        """Draw the load budget's cut above ``line`` (the first line an agent does not load at
        session start), saying ``label``; None: no cut (the file loads whole, or is not read)."""
        if self.doc is None or line is None or not 1 <= line <= len(self.doc.lines):
            line = None
        if (line, label) != (self.cut_line, self.cut_label):
            self.cut_line, self.cut_label = line, label
            self._layout_rows()
            self._scroll_cursor_visible()
            self.refresh()

    def _cut_rows(self, idx: int) -> int:
        """Rows drawn above line ``idx`` (0-based) before its text: 1 for the cut, else 0."""
        return 1 if self.cut_line is not None and idx == self.cut_line - 1 else 0

    # ----------------------------------------------------------------- data
    def set_document(
        self,
        doc: Document | None,
        link_states: dict[tuple[int, int], LinkState],
        marks: dict[int, Severity],
        *,
        keep_cursor: bool = False,
        cut: tuple[int | None, str] = (None, ""),
    ) -> None:
        """Show ``doc``; ``cut``: the first line an agent does not load, and what the cut says
        (``set_cut``), laid out with the document."""
        old_cursor = self.cursor_line
        old_text = self._line_text(old_cursor)
        # A reload (an agent appended a line) keeps the layout of every line that reads the same:
        # laying out a 10,000-entry file again took a few hundred milliseconds of the UI thread.
        reuse = {self._display_key(idx): disp for idx, disp in self._displays.items()} if self.doc else {}
        self.doc = doc
        self.link_states = link_states
        self.marks = marks
        self._entries = {e.line: e for e in doc.entries} if doc else {}
        self._links = links_by_line(doc) if doc else {}
        line, self.cut_label = cut
        self.cut_line = line if doc is not None and line is not None and 1 <= line <= len(doc.lines) else None
        self._reuse = reuse
        self._relayout()
        self._reuse = {}
        if keep_cursor and doc:
            self.cursor_line = self._find_line(old_text, old_cursor)
        else:
            self.cursor_line = self._first_selectable()
            self.scroll_to(0, 0, animate=False)
        self.link_focus = -1

    def set_marks(self, marks: dict[int, Severity]) -> None:
        """New lint marks for the same document (they arrive after it is shown)."""
        if marks != self.marks:
            self.marks = marks
            self._strips.clear()
            self.refresh()

    def _line_text(self, number: int) -> str | None:
        if self.doc and 1 <= number <= len(self.doc.lines):
            return self.doc.lines[number - 1].text
        return None

    def _find_line(self, text: str | None, near: int) -> int:
        """After a reload, keep the cursor on the same text when it moved, else the same number."""
        assert self.doc is not None
        n = len(self.doc.lines)
        if text is not None:
            for delta in range(0, 400):
                for cand in (near + delta, near - delta):
                    if 1 <= cand <= n and self.doc.lines[cand - 1].text == text:
                        return cand
        return max(1, min(near, n))

    def _first_selectable(self) -> int:
        if not self.doc:
            return 1
        for e in self.doc.entries:
            return e.line
        for ln in self.doc.lines:
            if ln.text.strip():
                return ln.number
        return 1

    def _relayout(self) -> None:
        self._displays.clear()
        self._strips.clear()
        self._wrap_width = 0
        self._layout_rows()
        self.refresh()

    def watch_raw(self) -> None:
        self._relayout()

    def watch_editing(self) -> None:
        self._strips.pop(self.cursor_line - 1, None)
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def laid_out(self) -> None:
        # Called as Textual lays the screen out, before it renders the frame; the Resize event
        # comes after that frame. Laid out here, the rows are at the view's width in the very
        # first frame (the first file's lines, not a column of ten cells).
        self._fit_width()

    def on_resize(self, event: events.Resize) -> None:
        self._fit_width()

    def _fit_width(self) -> None:
        """Lay the rows out again when the text width changed."""
        if self._wrap_width != self._text_width():
            first = not self._wrap_width
            self._layout_rows()
            if first:  # a cursor set before the view had a size (a file opened at a line) is shown
                self._scroll_cursor_visible()

    @property
    def entry(self) -> Entry | None:
        return self._entries.get(self.cursor_line)

    def cursor_links(self) -> list[Link]:
        return [lk for _, lk in self._links.get(self.cursor_line, [])]

    # -------------------------------------------------------------- layout
    def _line_display(self, idx: int) -> LineDisplay:
        disp = self._displays.get(idx)
        if disp is None:
            assert self.doc is not None
            if self._reuse:
                disp = self._reuse.get(self._display_key(idx))
            if disp is None:
                line = self.doc.lines[idx]
                disp = build_line(
                    line,
                    self._entries.get(line.number),
                    self._links.get(line.number, []),
                    self.link_states,
                    raw=self.raw,
                    today=self.today,
                )
            self._displays[idx] = disp
        return disp

    def _display_key(self, idx: int) -> tuple[object, ...]:
        """Everything ``build_line`` reads for line ``idx`` (equal keys: the same display)."""
        assert self.doc is not None
        line = self.doc.lines[idx]
        entry = self._entries.get(line.number)
        links = self._links.get(line.number)
        return (
            line.text,
            line.kind,
            self.raw,
            self.today,
            None if entry is None else (entry.depth, entry.indent, entry.content_start, entry.meta_start),
            None
            if not links
            else tuple((i, lk.start, lk.end, self.link_states.get((lk.line, lk.start))) for i, lk in links),
        )

    def _text_width(self) -> int:
        return max(10, self.scrollable_content_region.width - GUTTER)

    def _layout_rows(self) -> None:
        if not self.size.width:  # not laid out yet: laid_out lays the rows out at its width
            self._wrap_width, self._row_starts, self._breaks, self._rows = 0, [], {}, 0
            self._strips.clear()
            return
        width = self._text_width()
        self._wrap_width = width
        starts: list[int] = []
        breaks: dict[int, list[int]] = {}
        rows = 0
        if self.doc:
            for idx in range(len(self.doc.lines)):
                starts.append(rows)
                rows += self._cut_rows(idx)
                disp = self._line_display(idx)
                if disp.cells <= width:
                    rows += 1
                else:
                    breaks[idx] = wrap_points(disp, width)
                    rows += len(breaks[idx])
        self._row_starts = starts
        self._breaks = breaks
        self._rows = rows
        self._strips.clear()
        self.virtual_size = Size(width + GUTTER, rows)

    def _row_to_line(self, row: int) -> tuple[int, int]:
        idx = bisect_right(self._row_starts, row) - 1
        return idx, row - self._row_starts[idx]

    # ------------------------------------------------------------- render
    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"entry-view--{name}", partial=True)

    def _full_strip(self, idx: int) -> Strip:
        strip = self._strips.get(idx)
        if strip is None:
            disp = self._line_display(idx)
            text = Text(no_wrap=True, end="")
            for piece, comp in disp.pieces:
                text.append(piece, self._style(comp))
            number = idx + 1
            if number == self.cursor_line and 0 <= self.link_focus:
                spots = [h for h in disp.hotspots if h.kind == "link"]
                if self.link_focus < len(spots):
                    text.stylize(self._style("link-focus"), *self._cells_to_chars(disp, spots[self.link_focus]))
            strip = Strip(text.render(self.app.console), disp.cells)
            self._strips[idx] = strip
        return strip

    @staticmethod
    def _cells_to_chars(disp: LineDisplay, spot: Hotspot) -> tuple[int, int]:
        chars = cells = 0
        start = end = None
        for piece, _ in disp.pieces:
            for ch in piece:
                if start is None and cells >= spot.start:
                    start = chars
                if cells >= spot.end:
                    end = chars
                    return start or 0, end
                cells += cell_len(ch)
                chars += 1
        return start or 0, chars

    def render_line(self, y: int) -> Strip:
        _, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if not self.doc or row >= self._rows or not self._row_starts:
            return Strip.blank(width, base)
        idx, sub = self._row_to_line(row)
        number = idx + 1
        text_width = self._wrap_width
        if self._cut_rows(idx):
            if sub == 0:
                return self._cut_strip(width).apply_style(base)
            sub -= 1
        start, end = self._row_span(idx, sub)
        strip = self._full_strip(idx).crop(start, end)
        strip = strip.extend_cell_length(text_width)
        gutter = self._gutter(number, first=sub == 0)
        line = Strip.join([gutter, strip])
        if number == self.cursor_line:
            line = line.apply_style(self._style("editing" if self.editing else "cursor"))
        return line.crop(0, width).extend_cell_length(width, base).apply_style(base)

    def _cut_strip(self, width: int) -> Strip:
        """The row between the last line loaded at session start and the first one not loaded."""
        style = self._style("cut")
        label = f" {self.cut_label} " if self.cut_label else " "
        lead = "\u2500" * (GUTTER + 1)
        text = Text(no_wrap=True, end="")
        text.append(lead + label, style)
        rest = width - text.cell_len
        if rest > 0:
            text.append("\u2500" * rest, style)
        return Strip(text.render(self.app.console), text.cell_len).crop(0, width).extend_cell_length(width)

    def _row_span(self, idx: int, sub: int) -> tuple[int, int]:
        points = self._breaks.get(idx)
        if points is None:
            return 0, self._wrap_width
        start = points[sub]
        end = points[sub + 1] if sub + 1 < len(points) else start + self._wrap_width
        return start, end

    def _gutter(self, number: int, *, first: bool) -> Strip:
        style = self._style("gutter")
        if not first:
            return Strip([Segment(" " * GUTTER, style)], GUTTER)
        mark = self.marks.get(number)
        segs = [Segment(f"{number:>5}", style)]
        if mark is not None:
            glyph, comp = _MARKS[mark]
            segs.append(Segment(f"{glyph} ", style + self._style(comp)))
        else:
            segs.append(Segment("  ", style))
        return Strip(segs, GUTTER)

    # ------------------------------------------------------------- cursor
    def _selectable(self, number: int) -> bool:
        if not self.doc or not 1 <= number <= len(self.doc.lines):
            return False
        line = self.doc.lines[number - 1]
        return bool(line.text.strip()) and line.kind is not LineKind.BLANK

    def watch_cursor_line(self, old: int, new: int) -> None:
        self._strips.pop(old - 1, None)
        self._strips.pop(new - 1, None)
        self.link_focus = -1
        self.refresh()
        self._scroll_cursor_visible()
        self.post_message(self.CursorMoved(new, self.entry))

    def _scroll_cursor_visible(self) -> None:
        if not self._row_starts or self.cursor_line - 1 >= len(self._row_starts):
            return
        top = self._row_starts[self.cursor_line - 1]
        nxt = self._row_starts[self.cursor_line] if self.cursor_line < len(self._row_starts) else self._rows
        height = self.scrollable_content_region.height or 1
        if top < self.scroll_y:
            self.scroll_to(y=top, animate=False)
        elif nxt > self.scroll_y + height:
            self.scroll_to(y=max(0, nxt - height), animate=False)

    def move_cursor(self, delta: int) -> None:
        if not self.doc:
            return
        n = len(self.doc.lines)
        cand = self.cursor_line
        step = 1 if delta > 0 else -1
        moved = 0
        while moved < abs(delta):
            nxt = cand + step
            while 1 <= nxt <= n and not self._selectable(nxt):
                nxt += step
            if not 1 <= nxt <= n:
                break
            cand = nxt
            moved += 1
        self.cursor_line = cand

    def go_to_line(self, number: int) -> None:
        if self.doc:
            self.cursor_line = max(1, min(number, len(self.doc.lines)))

    def action_cursor(self, delta: int) -> None:
        self.move_cursor(delta)

    def action_page(self, direction: int) -> None:
        height = max(1, self.scrollable_content_region.height - 1)
        self.move_cursor(direction * height)

    def action_edge(self, end: int) -> None:
        if not self.doc:
            return
        self.cursor_line = len(self.doc.lines) if end else 1
        self.move_cursor(-1 if end else 1) if not self._selectable(self.cursor_line) else None

    def action_next_link(self, step: int) -> None:
        links = self.cursor_links()
        if not links:
            # jump to the next line with a link
            if not self.doc:
                return
            numbers = sorted(self._links)
            after = [n for n in numbers if (n > self.cursor_line if step > 0 else n < self.cursor_line)]
            if after:
                self.cursor_line = after[0] if step > 0 else after[-1]
                self.link_focus = 0
            return
        self.link_focus = (
            (self.link_focus + step) % len(links) if self.link_focus >= 0 else (0 if step > 0 else len(links) - 1)
        )
        self._strips.pop(self.cursor_line - 1, None)
        self.refresh()

    def action_activate(self) -> None:
        links = self.cursor_links()
        if links:
            self.post_message(self.LinkActivated(links[max(0, self.link_focus)]))
        elif self.entry and self.entry.first("source"):
            self.post_message(self.SourceActivated(self.entry.first("source") or ""))

    # -------------------------------------------------------------- mouse
    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not self.doc or not self._row_starts:
            return
        row = offset.y + int(self.scroll_y)
        if row >= self._rows:
            return
        idx, sub = self._row_to_line(row)
        self.cursor_line = idx + 1
        if self._cut_rows(idx):
            if sub == 0:
                return  # the cut's own row: the cursor goes to the line below it
            sub -= 1
        cell = self._row_span(idx, sub)[0] + offset.x - GUTTER
        disp = self._line_display(idx)
        for spot in disp.hotspots:
            if spot.start <= cell < spot.end:
                if spot.kind == "link":
                    self.post_message(self.LinkActivated(self.doc.links[spot.index]))
                else:
                    entry = self._entries.get(idx + 1)
                    if entry is not None:
                        self.post_message(self.SourceActivated(entry.metadata[spot.index].value))
                return
