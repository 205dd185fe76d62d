"""A TextArea that draws where an agent stops loading the file at session start.

The whole-file editor (``E``) edits MEMORY.md in it: the last line an agent loads is underlined
across the editor's width, so the cut sits between it and the first line that is not loaded,
and it moves as the text is edited (``cut_line`` is set by the screen after every change).
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widgets import TextArea


class CutTextArea(TextArea):
    """``cut_line``: the first line (1-based) an agent does not load; None: no cut to draw."""

    COMPONENT_CLASSES = TextArea.COMPONENT_CLASSES | {"cut-area--cut"}
    DEFAULT_CSS = """
    CutTextArea > .cut-area--cut { color: $warning; text-style: underline; }
    """

    cut_line: int | None = None

    def set_cut(self, line: int | None) -> None:
        if line != self.cut_line:
            self.cut_line = line
            self.refresh()

    def cut_row(self) -> int | None:
        """The row (in the wrapped text, from the top) the cut is drawn under: the last row of the
        last line loaded; None when there is no cut or nothing loads."""
        cut = self.cut_line
        if cut is None or cut < 2 or cut - 2 >= self.document.line_count:
            return None
        last = cut - 2
        end = (last, len(self.document.get_line(last)))
        return self.wrapped_document.location_to_offset(end).y

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        row = self.cut_row()
        if row is None or row != y + int(self.scroll_offset.y):
            return strip
        cut = self.get_component_rich_style("cut-area--cut", partial=True) + Style(underline=True)
        # On top of the text's own styles (a highlighted word keeps its colour otherwise); the
        # blank cells after the text are drawn as a low bar, so the line runs the whole width
        # where a terminal (or a screenshot) draws no underline under spaces.
        segments = [Segment(text, (style or Style()) + cut, control) for text, style, control in strip]
        for i in range(len(segments) - 1, -1, -1):
            text, style, control = segments[i]
            kept = text.rstrip(" ")
            segments[i] = Segment(kept + "\u2581" * (len(text) - len(kept)), style, control)
            if kept:
                break
        return Strip(segments, strip.cell_length)
