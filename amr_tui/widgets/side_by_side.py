"""Old on the left, new on the right, entries aligned: a virtualised view of aligned rows.

Rows come from core.diff.align (history of a file, a dreaming run, others' activity). Each row
may carry a change id; the cursor walks rows and the screen acts on the change under it. A long
entry wraps onto as many screen lines as it needs (at word boundaries when it can), never cut;
inside a changed entry the words taken out (left) and put in (right) are highlighted
(``core.diff.words``). Text is made visible first (``core.textsafety``), never parsed.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from amr_tui.core.diff.align import Row
from amr_tui.core.diff.words import word_changes
from amr_tui.core.textsafety import make_visible
from amr_tui.widgets.actions import bindings

KIND_LABEL = {
    "unchanged": " ",
    "context": " ",
    "metadata": "~",
    "reworded": "\u270e",
    "moved": "\u2192",
    "merged": "\u2a01",
    "dropped": "\u2212",
    "new": "+",
    "resurrected": "!",
    "removed": "\u2212",
    "added": "+",
}


def _wrap(text: str, width: int) -> list[tuple[int, int]]:
    """(start, end) offsets of the screen lines of ``text`` at ``width`` cells, broken after a
    space when one is in the line's last half, else at the width."""
    if not text:
        return [(0, 0)]
    out: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        used, i = 0, start
        while i < len(text) and used + cell_len(text[i]) <= width:
            used += cell_len(text[i])
            i += 1
        if i == start:  # one character wider than the column
            i += 1
        elif i < len(text):
            space = text.rfind(" ", start, i)
            if space >= start + max(1, (i - start) // 2):
                i = space + 1
        out.append((start, i))
        start = i
    return out


def _pieces(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> list[tuple[str, bool]]:
    """``text[start:end]`` cut where the highlighted ``spans`` begin and end: (piece, highlighted)."""
    out: list[tuple[str, bool]] = []
    at = start
    for s0, s1 in spans:
        if s1 <= at or s0 >= end:
            continue
        if s0 > at:
            out.append((text[at:s0], False))
        out.append((text[max(s0, at) : min(s1, end)], True))
        at = min(s1, end)
    if at < end:
        out.append((text[at:end], False))
    return out


@dataclass(frozen=True, slots=True)
class _Laid:
    """One row laid out at a width: its visible texts, their screen lines and highlights."""

    old: str
    new: str
    old_lines: list[tuple[int, int]]
    new_lines: list[tuple[int, int]]
    old_marks: list[tuple[int, int]]
    new_marks: list[tuple[int, int]]

    @property
    def height(self) -> int:
        return max(len(self.old_lines), len(self.new_lines))


class SideBySide(ScrollView, can_focus=True):
    """Aligned rows; ``cursor`` is a row index. Decisions (accepted/rejected ids) tint rows."""

    COMPONENT_CLASSES = {
        "side-by-side--context",
        "side-by-side--old",
        "side-by-side--new",
        "side-by-side--changed",
        "side-by-side--warning",
        "side-by-side--cursor",
        "side-by-side--gutter",
        "side-by-side--accepted",
        "side-by-side--rejected",
        "side-by-side--word",
    }
    HELP_TITLE = "Side by side"
    BINDINGS = bindings("sbs")
    DEFAULT_CSS = """
    SideBySide {
        height: 1fr;
        background: $background;
    }
    SideBySide > .side-by-side--context { color: $foreground-muted; }
    SideBySide > .side-by-side--old { color: $error; }
    SideBySide > .side-by-side--new { color: $success; }
    SideBySide > .side-by-side--changed { color: $accent; text-style: bold; }
    SideBySide > .side-by-side--warning { color: $warning; text-style: bold; }
    SideBySide > .side-by-side--gutter { color: $foreground-muted; }
    SideBySide > .side-by-side--cursor { background: $primary-darken-2; }
    SideBySide:focus > .side-by-side--cursor { background: $primary-darken-1; }
    SideBySide > .side-by-side--accepted { background: $success-darken-3; }
    SideBySide > .side-by-side--rejected { background: $error-darken-3; }
    SideBySide > .side-by-side--word { text-style: bold reverse; }
    """

    cursor: reactive[int] = reactive(0, always_update=True)

    @dataclass
    class Moved(Message):
        """The cursor moved to another row."""

        row: Row | None
        """The row now under the cursor (None when there are no rows)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[Row] = []
        self.accepted: set[str] = set()
        self.rejected: set[str] = set()
        self._laid: list[_Laid] = []
        self._starts: list[int] = []  # row -> its first screen line
        self._lines: list[tuple[int, int]] = []  # screen line -> (row, line within the row)
        self._half = 0

    def set_rows(self, rows: list[Row]) -> None:
        self.rows = rows
        self._half = 0  # laid out again at the next paint
        self._layout()
        first = next((i for i, r in enumerate(rows) if r.change and r.kind not in ("unchanged", "context")), 0)
        self.cursor = first
        self.refresh()

    def _half_width(self) -> int:
        return max(10, (self.scrollable_content_region.width - 3) // 2)

    def _layout(self) -> None:
        """Wrap every row at the current width (again only when the width changed)."""
        half = self._half_width()
        if half == self._half and len(self._laid) == len(self.rows):
            return
        self._half = half
        laid: list[_Laid] = []
        starts: list[int] = []
        lines: list[tuple[int, int]] = []
        for k, row in enumerate(self.rows):
            old = make_visible(row.old_text or "").expandtabs(4)
            new = make_visible(row.new_text or "").expandtabs(4)
            changed = row.kind not in ("unchanged", "context") and row.old_text is not None and row.new_text is not None
            marks = word_changes(old, new) if changed else ([], [])
            one = _Laid(old, new, _wrap(old, half), _wrap(new, half), marks[0], marks[1])
            starts.append(len(lines))
            lines.extend((k, i) for i in range(one.height))
            laid.append(one)
        self._laid, self._starts, self._lines = laid, starts, lines
        self.virtual_size = Size(self.scrollable_content_region.width, len(lines))

    def on_resize(self) -> None:
        self._layout()
        self.refresh()

    def set_decisions(self, accepted: set[str], rejected: set[str]) -> None:
        self.accepted, self.rejected = set(accepted), set(rejected)
        self.refresh()

    @property
    def row(self) -> Row | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"side-by-side--{name}", partial=True)

    def render_line(self, y: int) -> Strip:
        self._layout()
        width = self.scrollable_content_region.width
        at = int(self.scroll_y) + y
        base = self.rich_style
        if at >= len(self._lines):
            return Strip.blank(width, base)
        idx, sub = self._lines[at]
        row, laid = self.rows[idx], self._laid[idx]
        half = self._half
        gutter = self._style("gutter")
        kind = row.kind
        changed = kind not in ("unchanged", "context")
        warn = kind in ("resurrected",)
        old_style = self._style("old") if changed and row.old_text is not None else self._style("context")
        new_style = (
            self._style("warning" if warn else "new")
            if changed and row.new_text is not None
            else self._style("context")
        )
        word = self._style("word")
        mark = KIND_LABEL.get(kind, "?") if sub == 0 else " "
        segs = [
            *self._side(laid.old, laid.old_lines, sub, laid.old_marks, half, old_style, old_style + word),
            Segment(f" {mark} ", gutter + (self._style("changed") if changed else Style())),
            *self._side(laid.new, laid.new_lines, sub, laid.new_marks, half, new_style, new_style + word),
        ]
        strip = Strip(segs).extend_cell_length(width, base)
        if row.change and row.change in self.accepted:
            strip = strip.apply_style(self._style("accepted"))
        elif row.change and row.change in self.rejected:
            strip = strip.apply_style(self._style("rejected"))
        if idx == self.cursor:
            strip = strip.apply_style(self._style("cursor"))
        return strip.crop(0, width)

    @staticmethod
    def _side(
        text: str,
        lines: list[tuple[int, int]],
        sub: int,
        marks: list[tuple[int, int]],
        half: int,
        style: Style,
        marked: Style,
    ) -> list[Segment]:
        """One screen line of one side, padded to ``half`` cells, changed words in ``marked``."""
        if sub >= len(lines):
            return [Segment(" " * half, style)]
        start, end = lines[sub]
        segs = [Segment(piece, marked if hit else style) for piece, hit in _pieces(text, start, end, marks) if piece]
        used = sum(cell_len(seg.text) for seg in segs)
        segs.append(Segment(" " * max(0, half - used), style))
        return segs

    def watch_cursor(self, value: int) -> None:
        self._layout()
        height = self.scrollable_content_region.height or 1
        top = self._starts[value] if 0 <= value < len(self._starts) else value
        bottom = top + (self._laid[value].height if 0 <= value < len(self._laid) else 1) - 1
        if top < self.scroll_y:
            self.scroll_to(y=top, animate=False)
        elif bottom >= self.scroll_y + height:
            self.scroll_to(y=max(top, bottom - height + 1), animate=False)
        self.refresh()
        self.post_message(self.Moved(self.row))

    def action_move(self, step: int) -> None:
        if self.rows:
            self.cursor = max(0, min(len(self.rows) - 1, self.cursor + step))

    def action_next_change(self, step: int) -> None:
        i = self.cursor + step
        cur = self.row.change if self.row else None
        while 0 <= i < len(self.rows):
            r = self.rows[i]
            if r.change and r.change != cur and r.kind not in ("unchanged", "context"):
                self.cursor = i
                return
            i += step
        self.app.bell()
