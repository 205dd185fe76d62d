"""The adapter over Textual's private API (amr_tui/widgets/textual_private.py): the pinned
Textual still has what it uses, with the signatures it calls, and each adapter does what amr
relies on, in a real app. docs/textual.md has the upstream-style reproductions."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.scroll_view import ScrollView
from textual.widget import Widget
from textual.widgets import Input, Tree

from amr_tui.widgets.safe import SafeInput
from amr_tui.widgets.textual_private import (
    FrameWatchingApp,
    LaidOutScrollView,
    ShownInput,
    relayout_tree,
    run_binding_now,
)

ROOT = Path(__file__).resolve().parent.parent


def test_the_pinned_textual_has_what_the_adapters_use():
    assert list(inspect.signature(App._display).parameters) == ["self", "screen", "renderable"]
    assert list(inspect.signature(App._check_bindings).parameters) == ["self", "key", "priority"]
    assert list(inspect.signature(ScrollView._size_updated).parameters) == [
        "self",
        "size",
        "virtual_size",
        "container_size",
        "layout",
    ]
    assert callable(Tree._invalidate)
    assert list(inspect.signature(App._load_screen_css).parameters) == ["self", "screen"]
    assert isinstance(inspect.getattr_static(Input, "_value"), property)
    for name in ("_position_to_cell", "_cell_offset_to_index"):
        assert callable(getattr(Input, name)), name
    app = App()
    for name in ("_running", "_batch_count", "_driver"):
        assert hasattr(app, name), name


def test_no_other_module_touches_those_private_names():
    names = {"_display", "_check_bindings", "_size_updated", "_invalidate", "_position_to_cell"}
    names |= {"_cell_offset_to_index", "_batch_count", "_load_screen_css"}
    for path in (ROOT / "amr_tui").rglob("*.py"):
        if path.name == "textual_private.py":
            continue
        text = path.read_text(encoding="utf-8")
        if "textual" not in text:
            continue  # a private name of amr's own, in a module without Textual
        tree = ast.parse(text)
        used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        used |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert not used & names, f"{path.relative_to(ROOT)}: {sorted(used & names)}"


class _Sized(LaidOutScrollView):
    def __init__(self) -> None:
        super().__init__()
        self.widths: list[int] = []
        self.painted_widths: list[int] = []

    def laid_out(self) -> None:
        self.widths.append(self.size.width)

    def render_line(self, y: int):  # type: ignore[no-untyped-def]
        self.painted_widths.append(self.size.width)
        return super().render_line(y)


class _Host(FrameWatchingApp[None]):
    BINDINGS = [Binding("x", "mark", "Mark")]

    def __init__(self) -> None:
        super().__init__()
        self.marked = 0

    def compose(self) -> ComposeResult:
        yield _Sized()
        yield Tree("root", id="tree")
        yield ShownInput(id="plain")

    def action_mark(self) -> None:
        self.marked += 1


async def test_laid_out_comes_before_the_first_frame_renders():
    app = _Host()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        view = app.query_one(_Sized)
        assert view.widths and view.widths[0] == 60
        assert view.painted_widths and view.painted_widths[0] == 60  # never drawn at another width


async def test_the_first_frame_handed_to_the_driver_is_seen():
    app = _Host()
    assert app.frame_written is False
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        assert app.frame_written is True  # the test driver is handed frames as a terminal is
        assert app.after_first_frame(lambda: None) is False  # headless: the caller goes on itself


async def test_run_binding_now_runs_the_apps_binding_and_says_so():
    app = _Host()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        app.set_focus(None)
        assert await run_binding_now(app, "x") is True
        assert app.marked == 1
        assert await run_binding_now(app, "y") is False
        assert app.marked == 1


async def test_relayout_tree_widens_the_tree_to_a_longer_label():
    app = _Host()
    async with app.run_test(size=(60, 10)) as pilot:
        tree = app.query_one(Tree)
        tree.root.expand()
        leaf = tree.root.add_leaf("a")
        await pilot.pause()
        before = tree.virtual_size.width
        leaf.set_label("a label much wider than the first one")
        relayout_tree(tree)
        await pilot.pause()
        assert tree.virtual_size.width > before


async def test_shown_input_draws_the_shown_text_and_maps_the_cursor_on_it():
    app = _Host()
    async with app.run_test(size=(60, 10)) as pilot:
        safe = SafeInput(id="safe")
        await app.mount(safe)
        safe.value = "a\x1b[31mb"  # an escape sequence: one stand-in cell per character
        safe.cursor_position = len(safe.value)
        await pilot.pause()
        assert safe._value.plain == "a\u241b[31mb"
        assert safe.value == "a\x1b[31mb"  # the value itself is untouched
        assert safe._position_to_cell(2) == 2
        assert safe._cell_offset_to_index(3) == 3
        plain = app.query_one("#plain", ShownInput)
        plain.value = "abc"
        assert plain._value.plain == "abc"


def test_the_size_override_has_the_signature_textual_calls():
    assert list(inspect.signature(LaidOutScrollView._size_updated).parameters) == list(
        inspect.signature(Widget._size_updated).parameters
    )
