"""Old on the left, new on the right, entries aligned: a virtualised view of aligned rows.

Rows come from core.entryalign (history of a file, a dreaming run). Each row may carry a
change id; the cursor walks rows and the screen acts on the change under it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from amr_tui.core.diff.align import Row
from amr_tui.core.textsafety import make_visible

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


def _fit(text: str, width: int) -> str:
    text = make_visible(text).expandtabs(4)
    if cell_len(text) <= width:
        return text + " " * (width - cell_len(text))
    out, used = [], 0
    for ch in text:
        w = cell_len(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "\u2026" + " " * (width - used - 1)


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
    }
    BINDINGS = [
        Binding("down,j", "move(1)", "Down", show=False, id="sbs.down"),
        Binding("up,k", "move(-1)", "Up", show=False, id="sbs.up"),
        Binding("n", "next_change(1)", "Next change", id="sbs.next"),
        Binding("p", "next_change(-1)", "Prev change", show=False, id="sbs.prev"),
        Binding("pagedown", "move(20)", "Page down", show=False, id="sbs.pagedown"),
        Binding("pageup", "move(-20)", "Page up", show=False, id="sbs.pageup"),
    ]

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

    def set_rows(self, rows: list[Row]) -> None:
        self.rows = rows
        self.virtual_size = Size(self.scrollable_content_region.width, len(rows))
        first = next((i for i, r in enumerate(rows) if r.change and r.kind not in ("unchanged", "context")), 0)
        self.cursor = first
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
        width = self.scrollable_content_region.width
        idx = int(self.scroll_y) + y
        base = self.rich_style
        if idx >= len(self.rows):
            return Strip.blank(width, base)
        row = self.rows[idx]
        half = max(10, (width - 3) // 2)
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
        mark = KIND_LABEL.get(kind, "?")
        segs = [
            Segment(_fit(row.old_text or "", half), old_style),
            Segment(f" {mark} ", gutter + (self._style("changed") if changed else Style())),
            Segment(_fit(row.new_text or "", half), new_style),
        ]
        strip = Strip(segs).extend_cell_length(width, base)
        if row.change and row.change in self.accepted:
            strip = strip.apply_style(self._style("accepted"))
        elif row.change and row.change in self.rejected:
            strip = strip.apply_style(self._style("rejected"))
        if idx == self.cursor:
            strip = strip.apply_style(self._style("cursor"))
        return strip.crop(0, width)

    def watch_cursor(self, value: int) -> None:
        height = self.scrollable_content_region.height or 1
        if value < self.scroll_y:
            self.scroll_to(y=value, animate=False)
        elif value >= self.scroll_y + height:
            self.scroll_to(y=value - height + 1, animate=False)
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
