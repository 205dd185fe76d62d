"""The link graph (``L``): the open file's neighbourhood, or the whole repo's overview.

The neighbourhood puts the file in the middle, the files linking to it on the left and the files it
links to on the right (``d``: two steps each way); the overview (``v``) shows the repo's folders
as clusters (files, links inside, links to other folders) and its hubs. Both are drawn by the pure
``core.graph`` in a thread worker; this screen styles them and moves between their nodes.

Keys: arrows or ``h j k l`` move between nodes, ``enter`` opens the file (in the overview: centres
the graph on a hub, or on a folder's most linked file), ``c`` re-centres on the file picked, ``d``
toggles depth 1 and 2, ``v`` the overview, ``esc`` closes. A click picks a node, a click on the node
picked re-centres, a double click opens. Marks are symbols and words, never colour alone: the
legend line names them and the detail line says, in words, what the picked node is.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.cells import cell_len
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import ScrollableContainer, Vertical
from textual.content import Content
from textual.geometry import Region
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from amr_tui.core.graph import BROKEN, CENTRE, MUTUAL, ORPHAN, Drawing, GraphNode, LinkGraph, neighbourhood, overview
from amr_tui.core.textsafety import make_visible
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.footer import Footer
from amr_tui.widgets.safe import content

LEGEND = (
    f"{CENTRE} the file in the middle \u00b7 \u25b6 a link points here \u00b7 {MUTUAL} links both ways \u00b7 "
    f"{BROKEN} broken (a link to no file) \u00b7 {ORPHAN} orphan (nothing links to it from MEMORY.md)"
)
_KIND_STYLE = {
    "centre": "bold $accent",
    "broken": "bold $error",
    "more": "italic $text-muted",
    "folder": "bold",
    "hub": "",
    "file": "",
}


@dataclass(frozen=True, slots=True)
class GraphResult:
    """The file to open on the main screen."""

    repo: str
    path: str


_INK = re.compile(r"\S+")


def _offset(line: str, x: int) -> int:
    """The index in ``line`` of the character drawn at cell ``x``."""
    cells = 0
    for i, ch in enumerate(line):
        if cells >= x:
            return i
        cells += cell_len(ch)
    return len(line)


class GraphCanvas(Static):
    """The drawing, one line a row; a click posts the node under it."""

    @dataclass
    class Clicked(Message):
        node: GraphNode | None
        """The node clicked (None: a click on no node)."""
        chain: int
        """1 for a click, 2 for a double click."""

    def __init__(self) -> None:
        super().__init__("", id="graph-canvas", markup=False)
        self.drawing: Drawing | None = None

    def show(self, drawing: Drawing, selected: str | None) -> None:
        self.drawing = drawing
        by_row: dict[int, list[GraphNode]] = {}
        for node in drawing.nodes:
            by_row.setdefault(node.row, []).append(node)
        lines: list[Content] = []
        for row, line in enumerate(drawing.lines):
            # Labels are repo text: made visible in core.graph, and never parsed as markup here.
            # Only the lines are muted, not the spaces between: a styled run that starts with
            # spaces is drawn without them by SVG renderers (the screenshots).
            text = Content(line)
            for run in _INK.finditer(line):
                text = text.stylize("$text-muted", run.start(), run.end())
            for node in by_row.get(row, []):
                a = _offset(line, node.x)
                b = _offset(line, node.x + node.width)
                style = _KIND_STYLE.get(node.kind, "")
                if ORPHAN in node.label[:3] and node.kind != "centre":
                    style = "$warning"
                text = text.stylize("$text", a, b)
                if style:
                    text = text.stylize(style, a, b)
                if node.key == selected:
                    text = text.stylize("reverse bold", a, b)
            lines.append(text)
        self.update(Content("\n").join(lines) if lines else Content(""))

    def on_click(self, event: events.Click) -> None:
        if self.drawing is None:
            return
        at = event.get_content_offset(self)
        node = self.drawing.node_at(at.y, at.x) if at is not None else None
        self.post_message(self.Clicked(node, event.chain))


class GraphScreen(Screen[GraphResult | None]):
    """See the module."""

    HELP_TITLE = "Link graph"
    BINDINGS = bindings("graph")
    DEFAULT_CSS = """
    #graph-title {
        text-style: bold;
    }
    #graph-legend {
        color: $text-muted;
    }
    #graph-scroll {
        border: round $primary;
    }
    """

    @dataclass
    class Built(Message):
        """The repo's link graph is read (in a worker)."""

        graph: LinkGraph
        """Who links to whom."""
        seconds: float
        """How long reading it took."""

    @dataclass
    class Drawn(Message):
        """A drawing is made (in a worker): only the newest request's is shown."""

        serial: int
        """Which request it answers."""
        drawing: Drawing
        """What to show."""
        seconds: float
        """How long drawing it took."""

    def __init__(self, repo: str, centre: str | None, build: Callable[[], LinkGraph]) -> None:
        """``build`` reads the repo's graph (thread-safe: the session's ``link_graph``); ``centre``:
        the file to start from (None: the overview)."""
        super().__init__()
        self.repo = repo
        self.centre = centre
        self.build = build
        self.graph: LinkGraph | None = None
        self.mode = "neighbourhood" if centre is not None else "overview"
        self.depth = 1
        self.serial = 0
        self.drawing: Drawing | None = None
        self.selected: str | None = None
        self.timings: dict[str, float] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="graph-box"):
            yield Static("", id="graph-title", markup=False)
            yield Static(LEGEND, id="graph-legend", markup=False)
            with ScrollableContainer(id="graph-scroll"):
                yield GraphCanvas()
            yield Static("Reading the links\u2026", id="graph-detail", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self._title()
        self._read(self.build)

    @work(thread=True, exclusive=True, group="graph-read")
    def _read(self, build: Callable[[], LinkGraph]) -> None:
        start = time.perf_counter()
        graph = build()
        self.post_message(self.Built(graph, time.perf_counter() - start))

    def on_graph_screen_built(self, message: Built) -> None:
        self.graph = message.graph
        self.timings["read"] = message.seconds
        if self.centre is not None and self.centre not in message.graph.files:
            self.mode = "overview"
        self._redraw()

    def _redraw(self) -> None:
        if self.graph is None:
            return
        self.serial += 1
        self._title()
        self._draw(self.serial, self.graph, self.mode, self.centre, self.depth)

    @work(thread=True, exclusive=True, group="graph-draw")
    def _draw(self, serial: int, graph: LinkGraph, mode: str, centre: str | None, depth: int) -> None:
        start = time.perf_counter()
        if mode == "overview" or centre is None:
            drawing = overview(graph, width_of=cell_len)
        else:
            drawing = neighbourhood(graph, centre, depth, width_of=cell_len)
        self.post_message(self.Drawn(serial, drawing, time.perf_counter() - start))

    def on_graph_screen_drawn(self, message: Drawn) -> None:
        if message.serial != self.serial:
            return
        self.drawing = message.drawing
        self.timings["draw"] = message.seconds
        keys = {n.key for n in message.drawing.nodes}
        if self.selected not in keys:
            first = message.drawing.by_key(self.centre) if self.centre and self.mode != "overview" else None
            first = first or (message.drawing.nodes[0] if message.drawing.nodes else None)
            self.selected = first.key if first is not None else None
        self._show()

    def _title(self) -> None:
        if self.mode == "overview":
            what = f"Links of {self.repo}: overview by folder, and the hubs"
        else:
            what = f"Links of {self.repo}/{self.centre}: depth {self.depth}"
        self.query_one("#graph-title", Static).update(content(make_visible(what)))

    def _show(self) -> None:
        if self.drawing is None:
            return
        canvas = self.query_one(GraphCanvas)
        canvas.show(self.drawing, self.selected)
        node = self.drawing.by_key(self.selected) if self.selected else None
        detail = self.query_one("#graph-detail", Static)
        if node is None:
            detail.update(content("No links to draw." if not self.drawing.nodes else ""))
            return
        detail.update(content(make_visible(node.note or node.label)))
        scroll = self.query_one("#graph-scroll", ScrollableContainer)
        self.call_after_refresh(scroll.scroll_to_region, Region(node.x, node.row, node.width, 1), animate=False)

    # -- moving ------------------------------------------------------------------------------------
    def action_move(self, dx: int, dy: int) -> None:
        if self.drawing is None or not self.drawing.nodes:
            return
        here = self.drawing.by_key(self.selected) if self.selected else None
        if here is None:
            self.selected = self.drawing.nodes[0].key
            self._show()
            return
        nodes = self.drawing.nodes
        if dy:
            same = sorted((n for n in nodes if n.column == here.column), key=lambda n: n.row)
            at = next(i for i, n in enumerate(same) if n.key == here.key)
            pick = same[max(0, min(len(same) - 1, at + dy))]
        else:
            beside = [n for n in nodes if n.column == here.column + dx]
            if not beside:
                return
            pick = min(beside, key=lambda n: (abs(n.row - here.row), n.row))
        self.selected = pick.key
        self._show()

    def _picked(self) -> GraphNode | None:
        return self.drawing.by_key(self.selected) if self.drawing is not None and self.selected else None

    def action_open(self) -> None:
        """Open the file picked; in the overview, centre the graph on a hub or a folder's hub."""
        node = self._picked()
        if node is None:
            return
        if self.mode == "overview":
            self._centre_from_overview(node)
            return
        if node.path is not None:
            self.dismiss(GraphResult(self.repo, node.path))

    def _centre_from_overview(self, node: GraphNode) -> None:
        path = node.path
        if node.kind == "folder" and self.graph is not None:
            folder = node.key.removeprefix("folder:")
            inside = [p for p in self.graph.files if p.startswith(folder)] if folder.endswith("/") else []
            if not inside:
                inside = [p for p in self.graph.files if "/" not in p]
            path = max(inside, key=lambda p: (self.graph.degree_in(p) if self.graph else 0), default=None)
        if path is not None:
            self.centre, self.mode = path, "neighbourhood"
            self.selected = path
            self._redraw()

    def action_recentre(self) -> None:
        node = self._picked()
        if node is None or node.path is None:
            return
        if self.mode == "overview":
            self._centre_from_overview(node)
            return
        self.centre = node.path
        self._redraw()

    def action_depth(self) -> None:
        self.depth = 2 if self.depth == 1 else 1
        if self.mode == "overview" and self.centre is not None:
            self.mode = "neighbourhood"
        self._redraw()

    def action_overview(self) -> None:
        if self.mode == "overview" and self.centre is not None:
            self.mode = "neighbourhood"
            self.selected = self.centre
        else:
            self.mode = "overview"
            self.selected = None
        self._redraw()

    def action_close(self) -> None:
        self.dismiss(None)

    @on(GraphCanvas.Clicked)
    def _clicked(self, message: GraphCanvas.Clicked) -> None:
        node = message.node
        if node is None:
            return
        if message.chain >= 2:
            self.selected = node.key
            self.action_open()
            return
        if node.key == self.selected:
            self.action_recentre()
            return
        self.selected = node.key
        self._show()
