"""The one module that touches Textual's private API (Textual is pinned in pyproject.toml).

Each adapter is a place where Textual has no public way to do what amr needs. docs/textual.md
has, for each one, a minimal upstream-style reproduction of the need, and
tests/test_textual_private.py checks that the pinned Textual still has what these adapters use.
Nothing else in amr reads or overrides a private Textual name (bench/structure.py counts them).

- :class:`FrameWatchingApp`: the first frame *written to the terminal* (no public event: the
  Ready event comes before the first write, ``call_after_refresh`` from a mounting screen too);
  and app-wide CSS read only before the first screen that needs it is shown (``LATER_CSS_PATH``:
  Textual reads an app's CSS_PATH whole before its first frame, and a screen's own CSS_PATH is
  scoped to nothing but has to be named on each screen class).
- :func:`run_binding_now`: run the binding of a key the app has just read, before Textual
  forwards it to the focused widget (no public "check bindings" call).
- :class:`LaidOutScrollView`: lay a scroll view out at its size before the first frame renders
  (the Resize event only comes after that frame).
- :func:`relayout_tree`: a ``Tree`` whose labels became wider lays its lines out again
  (``TreeNode.set_label`` only redraws the rows).
- :class:`ShownInput`: an ``Input`` that draws its value through a same-length transform (no
  public hook for what Input renders; its cursor maths must use the same text).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from rich.cells import cell_len, get_character_cell_size
from rich.text import Text
from textual.app import App
from textual.expand_tabs import expand_tabs_inline
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.widgets import Input, Tree

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.screen import Screen

ReturnType = TypeVar("ReturnType")


class FrameWatchingApp(App[ReturnType]):
    """An app that knows when its first frame is written to the terminal, and reads the CSS of
    ``LATER_CSS_PATH`` only before the first screen that ``needs_later_css`` is shown."""

    LATER_CSS_PATH: ClassVar[list[str]] = []
    """App-wide CSS (read like CSS_PATH, after it) that the first screen does not use."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._amr_frame_written = False
        self._amr_after_frame: list[Callable[[], object]] = []
        self._amr_later_css_read = False

    def needs_later_css(self, screen: Screen[Any]) -> bool:
        """Whether ``screen`` is laid out by ``LATER_CSS_PATH`` (read before it is shown)."""
        return True

    def _load_screen_css(self, screen: Screen[Any]) -> None:
        # Textual calls this for every screen about to be shown (the first one, pushed, switched
        # to). The later CSS is added as CSS_PATH's is (Stylesheet.read, which leaves the map of
        # rules by selector stale: add_source drops it); the stylesheet parses it at its next use
        # (the screen's mount), the sources it parsed already taken from its cache. The nodes on
        # screen are not styled again: the later CSS names none of them (a test checks it).
        if not self._amr_later_css_read and self.needs_later_css(screen):
            self._amr_later_css_read = True
            for path in self.LATER_CSS_PATH:
                with open(path, encoding="utf-8") as fh:
                    css = fh.read()
                self.stylesheet.add_source(css, read_from=(os.path.abspath(path), ""), is_default_css=False)
        super()._load_screen_css(screen)

    @property
    def frame_written(self) -> bool:
        """The first frame is on the terminal."""
        return self._amr_frame_written

    def after_first_frame(self, callback: Callable[[], object]) -> bool:
        """Call ``callback`` once the first frame is written to the terminal; False (and no call)
        when it was written already or nothing is (headless): then the caller goes on itself."""
        if self._amr_frame_written or self.is_headless:
            return False
        self._amr_after_frame.append(callback)
        return True

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        # Textual writes each frame here; the first one written releases what waits on it.
        super()._display(screen, renderable)
        written = renderable is not None and self._running and not self._batch_count and self._driver is not None
        if written and not self._amr_frame_written:
            self._amr_frame_written = True
            waiting, self._amr_after_frame = self._amr_after_frame, []
            for callback in waiting:
                self.call_next(callback)


async def run_binding_now(app: App[Any], key: str) -> bool:
    """Run the binding ``key`` has on the focused chain (priority bindings first), as Textual
    would once the key bubbled back up from the focused widget; whether one ran."""
    return await app._check_bindings(key, priority=True) or await app._check_bindings(key)


class LaidOutScrollView(ScrollView):
    """A scroll view told its size as Textual lays the screen out (:meth:`laid_out`), before the
    frame renders; the Resize event follows the first frame."""

    def laid_out(self) -> None:
        """The view has its size for the frame about to render."""

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        changed = super()._size_updated(size, virtual_size, container_size, layout)
        self.laid_out()
        return changed


def relayout_tree(tree: Tree[Any]) -> None:
    """Lay a tree's lines out again (a relabelled node may be wider), as adding nodes does."""
    tree._invalidate()


class ShownInput(Input):
    """An Input that draws :meth:`shown` of its value, one cell per character of the value where
    the value has one; the value itself is untouched, and cursor and mouse positions are computed
    on the same shown text so they line up."""

    def shown(self, value: str) -> str:
        """The text drawn for ``value``, as many characters long."""
        return value

    @property
    def _value(self) -> Text:
        if self.password:
            return super()._value
        text = Text(self.shown(self.value), no_wrap=True, overflow="ignore", end="")
        if self.highlighter is not None:
            text = self.highlighter(text)
        return text

    def _position_to_cell(self, position: int) -> int:
        return cell_len(expand_tabs_inline(self.shown(self.value[:position]), 4))

    def _cell_offset_to_index(self, offset: int) -> int:
        cell_offset = 0
        offset += self.scroll_offset[0]
        shown = self.shown(self.value)
        for index, char in enumerate(shown):
            width = get_character_cell_size(char)
            if cell_offset <= offset < cell_offset + width:
                return index
            cell_offset += width
        return max(0, min(offset, len(shown)))
