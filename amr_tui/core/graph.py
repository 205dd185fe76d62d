"""The link graph of one repo, and how it is drawn in a terminal.

``build_graph`` reads every Markdown file's links (``RepoSnapshot.links_of``), resolved as the
repo's format resolves them (``RepoSnapshot.resolve``): an edge for each link to a file, a broken
link for each one that names none. Orphans (files nothing links to from MEMORY.md, AMR013) are
handed in from the lint, as the tree marks them.

Two drawings, both plain text with the position of every node, so a screen can style and pick them:

* ``neighbourhood``: one file in the middle; the files linking to it on the left, the files it
  links to on the right (a file that does both, once, on the right, marked ``↔``); at depth 2 the
  files linking to those on the far left and the files they link to on the far right. Each file
  appears once. Box-drawing lines join them, an arrow head ``▶`` where a link points.
* ``overview``: the whole repo by folder (files, links inside, links to other folders, broken and
  orphan files under it) and its hubs (most linked to, most links out).

Marks are symbols and words, never colour alone: ``◆`` the centre, ``✗`` a link that names no
file, ``○`` an orphan, ``↔`` a file linked both ways. Pure: no I/O; ``width_of`` measures text in
cells (the screen passes a terminal's measure; by default one cell a character).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from amr_tui.core.format.links import LinkState, link_text_for
from amr_tui.core.lint.repo import RepoSnapshot
from amr_tui.core.order import natural_key
from amr_tui.core.textsafety import make_visible

__all__ = [
    "BROKEN",
    "CENTRE",
    "MUTUAL",
    "ORPHAN",
    "Drawing",
    "GraphNode",
    "LinkGraph",
    "build_graph",
    "neighbourhood",
    "overview",
]

CENTRE, BROKEN, ORPHAN, MUTUAL = "\u25c6", "\u2717", "\u25cb", "\u2194"
HUB = "\u2022"
ROOT = "(root)"  # the files at the top of the repo, as a folder of the overview
ARROW = "\u25b6"
GAP = 6  # cells between two columns: " ─┬─▶ "
MAX_LABEL = 32  # a label longer than this is cut, with "…"

WidthOf = Callable[[str], int]


@dataclass(slots=True)
class LinkGraph:
    """Who links to whom in one repo."""

    out: dict[str, list[str]]  # file -> the files it links to, in the order written, once each
    inn: dict[str, list[str]]  # file -> the files linking to it
    broken: dict[str, list[str]]  # file -> the targets of its links that name no file (as written)
    orphans: frozenset[str]  # files nothing links to from MEMORY.md (AMR013)
    files: list[str]  # every file of the repo

    @property
    def links(self) -> int:
        return sum(len(v) for v in self.out.values())

    def degree_in(self, path: str) -> int:
        return len(self.inn.get(path, ()))

    def degree_out(self, path: str) -> int:
        return len(self.out.get(path, ()))


def build_graph(repo: RepoSnapshot, orphans: Iterable[str] = ()) -> LinkGraph:
    """The link graph of a repo (its parsed files, or their facts)."""
    out: dict[str, list[str]] = {}
    inn: dict[str, list[str]] = {}
    broken: dict[str, list[str]] = {}
    for path in repo.markdown_paths():
        links, _text = repo.links_of(path)
        targets: list[str] = []
        for link in links:
            if not link.target.strip():
                continue  # [[#Heading]]: a heading of the file itself
            res = repo.resolve(link.target)
            if res.state is LinkState.OK and res.path is not None and res.path not in repo.escaping:
                if res.path != path and res.path not in targets:
                    targets.append(res.path)
            elif res.state is LinkState.BROKEN and link.target not in broken.setdefault(path, []):
                broken[path].append(link.target)
        if targets:
            out[path] = targets
            for t in targets:
                inn.setdefault(t, []).append(path)
        if not broken.get(path):
            broken.pop(path, None)
    return LinkGraph(out, inn, broken, frozenset(orphans), sorted(repo.files, key=natural_key))


# ---------------------------------------------------------------------------------- drawings


@dataclass(frozen=True, slots=True)
class GraphNode:
    """One thing drawn that can be picked: a file, a broken link, a folder, a "+N more" row."""

    key: str  # unique in its drawing
    path: str | None  # the file it stands for (None: a broken link, a "more" row)
    label: str  # what is drawn (made visible, cut to fit)
    kind: str  # "centre", "file", "broken", "more", "folder", "hub", "heading"
    column: int  # -2..2 in a neighbourhood (0 the centre); 0 in an overview
    row: int
    x: int  # the first cell of the label
    width: int  # its width in cells
    note: str = ""  # what the detail line says of it (words, not symbols)


@dataclass(slots=True)
class Drawing:
    lines: list[str]
    nodes: list[GraphNode] = field(default_factory=list)
    title: str = ""

    def node_at(self, row: int, x: int) -> GraphNode | None:
        for node in self.nodes:
            if node.row == row and node.x <= x < node.x + node.width:
                return node
        return None

    def by_key(self, key: str) -> GraphNode | None:
        return next((n for n in self.nodes if n.key == key), None)


def _fit(text: str, width_of: WidthOf, limit: int = MAX_LABEL) -> str:
    text = make_visible(text)
    if width_of(text) <= limit:
        return text
    while text and width_of(text) > limit - 1:
        text = text[:-1]
    return text + "\u2026"


def _name(path: str) -> str:
    return link_text_for(path)


_BOX = {
    frozenset("EW"): "\u2500",
    frozenset("NS"): "\u2502",
    frozenset("NE"): "\u2514",
    frozenset("SE"): "\u250c",
    frozenset("NW"): "\u2518",
    frozenset("SW"): "\u2510",
    frozenset("NSE"): "\u251c",
    frozenset("NSW"): "\u2524",
    frozenset("EWS"): "\u252c",
    frozenset("EWN"): "\u2534",
    frozenset("NSEW"): "\u253c",
    frozenset("E"): "\u2500",
    frozenset("W"): "\u2500",
    frozenset("N"): "\u2502",
    frozenset("S"): "\u2502",
}


class _Canvas:
    def __init__(self) -> None:
        self.text: dict[tuple[int, int], str] = {}
        self.dirs: dict[tuple[int, int], set[str]] = {}

    def put(self, row: int, x: int, text: str, width_of: WidthOf) -> None:
        for ch in text:
            self.text[(row, x)] = ch
            w = width_of(ch)
            for k in range(1, w):
                self.text[(row, x + k)] = ""  # the second cell of a wide character
            x += max(1, w)

    def hline(self, row: int, a: int, b: int) -> None:
        self._run([(row, x) for x in range(a, b + 1)], "W", "E")

    def vline(self, x: int, a: int, b: int) -> None:
        self._run([(row, x) for row in range(a, b + 1)], "N", "S")

    def _run(self, cells: list[tuple[int, int]], back: str, on: str) -> None:
        """A straight line through ``cells``: each joins the one before it (``back``) and after it (``on``)."""
        for i, cell in enumerate(cells):
            d = self.dirs.setdefault(cell, set())
            if i > 0:
                d.add(back)
            if i < len(cells) - 1:
                d.add(on)

    def lines(self, height: int) -> list[str]:
        rows: list[dict[int, str]] = [{} for _ in range(height)]
        for (r, x), d in self.dirs.items():
            if d and 0 <= r < height:
                rows[r][x] = _BOX.get(frozenset(d), " ")
        for (r, x), ch in self.text.items():
            if 0 <= r < height:
                rows[r][x] = ch
        out: list[str] = []
        for cells in rows:
            width = max(cells) + 1 if cells else 0
            out.append("".join(cells.get(x, " ") for x in range(width)).rstrip())
        return out


@dataclass(slots=True)
class _Item:
    key: str
    path: str | None
    label: str
    kind: str
    note: str
    children: list[_Item] = field(default_factory=list)


def _file_item(g: LinkGraph, path: str, width_of: WidthOf, *, mutual: bool = False) -> _Item:
    marks = []
    notes = []
    if mutual:
        marks.append(MUTUAL)
        notes.append("links back")
    if path in g.orphans:
        marks.append(ORPHAN)
        notes.append("orphan: nothing links to it from MEMORY.md")
    if g.broken.get(path):
        marks.append(BROKEN)
        n = len(g.broken[path])
        notes.append(f"{n} broken link{'s' if n != 1 else ''} in it")
    label = ("".join(marks) + " " if marks else "") + _fit(_name(path), width_of)
    note = f"{path} \u00b7 {g.degree_in(path)} in, {g.degree_out(path)} out" + (
        " \u00b7 " + "; ".join(notes) if notes else ""
    )
    return _Item(path, path, label, "file", note)


def _more(key: str, n: int) -> _Item:
    return _Item(key, None, f"+{n} more", "more", f"{n} more not drawn (re-centre on a file near them to see them)")


def neighbourhood(
    g: LinkGraph,
    centre: str,
    depth: int = 1,
    *,
    width_of: WidthOf = len,
    first: int = 60,
    per_parent: int = 8,
) -> Drawing:
    """``centre``'s neighbourhood (see the module): ``depth`` 1 or 2; at most ``first`` files in
    each inner column and ``per_parent`` under each of them (the rest as one "+N more" row)."""
    placed = {centre}
    outs = [t for t in g.out.get(centre, []) if t != centre]
    mutual = set(outs) & set(g.inn.get(centre, []))
    right: list[_Item] = []
    for t in outs[:first]:
        right.append(_file_item(g, t, width_of, mutual=t in mutual))
        placed.add(t)
    for target in g.broken.get(centre, []):
        right.append(
            _Item(
                f"broken:{target}",
                None,
                f"{BROKEN} " + _fit(target, width_of) + " (no file)",
                "broken",
                f"broken link: [[{make_visible(target)}]] names no file",
            )
        )
    if len(outs) > first:
        right.append(_more("more:right", len(outs) - first))
    ins = [s for s in g.inn.get(centre, []) if s not in placed]
    left: list[_Item] = []
    for s in ins[:first]:
        left.append(_file_item(g, s, width_of))
        placed.add(s)
    if len(ins) > first:
        left.append(_more("more:left", len(ins) - first))
    if depth >= 2:
        for side, edges in ((right, g.out), (left, g.inn)):
            for item in side:
                if item.kind != "file" or item.path is None:
                    continue
                nxt = [p for p in edges.get(item.path, []) if p not in placed]
                for p in nxt[:per_parent]:
                    item.children.append(_file_item(g, p, width_of))
                    placed.add(p)
                if len(nxt) > per_parent:
                    item.children.append(_more(f"more:{item.key}", len(nxt) - per_parent))
    centre_label = f"{CENTRE} " + _fit(_name(centre), width_of)
    centre_notes = [f"{centre} \u00b7 {g.degree_in(centre)} in, {g.degree_out(centre)} out"]
    if centre in g.orphans:
        centre_label = f"{CENTRE}{ORPHAN} " + _fit(_name(centre), width_of)
        centre_notes.append("orphan: nothing links to it from MEMORY.md")
    if g.broken.get(centre):
        centre_notes.append(f"{len(g.broken[centre])} broken link(s) in it")
    centre_item = _Item(centre, centre, centre_label, "centre", " \u00b7 ".join(centre_notes))
    return _draw(centre_item, left, right, width_of)


def _band(items: list[_Item]) -> int:
    return sum(max(1, len(i.children)) for i in items)


def _draw(centre: _Item, left: list[_Item], right: list[_Item], width_of: WidthOf) -> Drawing:
    height = max(_band(left), _band(right), 1)
    mid = (height - 1) // 2
    # column widths
    col: dict[int, int] = {0: width_of(centre.label)}
    for side, sign in ((left, -1), (right, 1)):
        if side:
            col[sign] = max(width_of(i.label) for i in side)
        kids = [k for i in side for k in i.children]
        if kids:
            col[2 * sign] = max(width_of(k.label) for k in kids)
    xs: dict[int, int] = {}
    x = 0
    for c in (-2, -1, 0, 1, 2):
        if c in col:
            xs[c] = x
            x += col[c] + GAP
    canvas = _Canvas()
    nodes: list[GraphNode] = []

    def place(item: _Item, column: int, row: int) -> None:
        canvas.put(row, xs[column], item.label, width_of)
        nodes.append(
            GraphNode(
                item.key, item.path, item.label, item.kind, column, row, xs[column], width_of(item.label), item.note
            )
        )

    place(centre, 0, mid)

    def join(
        a_col: int, a_rows: list[int], b_col: int, b_rows: list[int], ends: list[int], widths: dict[int, int]
    ) -> None:
        """Lines from the labels of column ``a_col`` (rows ``a_rows``, right edges by row in
        ``widths``) to column ``b_col`` (rows ``b_rows``), with an arrow head on the ``ends`` rows."""
        spine = xs[a_col] + col[a_col] + 2
        for r in a_rows:
            canvas.hline(r, xs[a_col] + widths[r] + 1, spine)
        for r in b_rows:
            canvas.hline(r, spine, xs[b_col] - 3)
        rows = a_rows + b_rows
        canvas.vline(spine, min(rows), max(rows))
        for r in ends:
            canvas.text[(r, xs[b_col] - 2)] = ARROW

    centre_w = {mid: width_of(centre.label)}
    for side, sign in ((right, 1), (left, -1)):
        if not side:
            continue
        top = mid - (_band(side) - 1) // 2
        top = max(0, min(top, height - _band(side)))
        rows: list[int] = []
        r = top
        for item in side:
            place(item, sign, r)
            rows.append(r)
            if item.children:
                kid_rows = []
                for k, kid in enumerate(item.children):
                    place(kid, 2 * sign, r + k)
                    kid_rows.append(r + k)
                w = {r: width_of(item.label)}
                if sign > 0:
                    join(1, [r], 2, kid_rows, kid_rows, w)
                else:
                    join(
                        -2,
                        kid_rows,
                        -1,
                        [r],
                        [r],
                        {kr: width_of(kid.label) for kr, kid in zip(kid_rows, item.children, strict=True)},
                    )
            r += max(1, len(item.children))
        if sign > 0:
            join(0, [mid], 1, rows, rows, centre_w)
        else:
            join(-1, rows, 0, [mid], [mid], {row: width_of(item.label) for row, item in zip(rows, side, strict=True)})
    return Drawing(canvas.lines(height), nodes)


# ----------------------------------------------------------------------------------- overview


def _cluster(paths: list[str]) -> Callable[[str], str]:
    """The folder a file is clustered by: its top folder, or one level deeper while every file
    shares one top folder (``memory/``)."""
    prefix = ""
    while True:
        tops = {p[len(prefix) :].split("/", 1)[0] for p in paths if "/" in p[len(prefix) :]}
        at_root = any("/" not in p[len(prefix) :] for p in paths)
        if len(tops) != 1 or at_root:
            break
        prefix += tops.pop() + "/"

    def of(path: str) -> str:
        rest = path[len(prefix) :] if path.startswith(prefix) else path
        head, slash, _ = rest.partition("/")
        return prefix + head + "/" if slash else (prefix or ROOT)

    return of


def overview(g: LinkGraph, *, width_of: WidthOf = len, hubs: int = 12, title: str = "") -> Drawing:
    """The whole repo (see the module): one row per folder, then the hubs. Each row is a node:
    a folder's key is ``folder:NAME``, a hub's its path."""
    of = _cluster(g.files)
    files: Counter[str] = Counter(of(p) for p in g.files)
    inside: Counter[str] = Counter()
    across: dict[str, Counter[str]] = {}
    for src, targets in g.out.items():
        for t in targets:
            a, b = of(src), of(t)
            if a == b:
                inside[a] += 1
            else:
                across.setdefault(a, Counter())[b] += 1
    broken_files: Counter[str] = Counter(of(p) for p in g.broken)
    orphan_files: Counter[str] = Counter(of(p) for p in g.orphans)
    broken_links = sum(len(v) for v in g.broken.values())
    lines: list[str] = []
    nodes: list[GraphNode] = []
    head = (
        f"{len(g.files):,} files \u00b7 {g.links:,} links \u00b7 {len(files)} folders \u00b7 "
        f"{BROKEN} {broken_links} broken link{'s' if broken_links != 1 else ''} in {len(g.broken)} "
        f"file{'s' if len(g.broken) != 1 else ''} \u00b7 {ORPHAN} {len(g.orphans)} orphan{'s' if len(g.orphans) != 1 else ''}"
    )
    lines += [head, "", "Folders: files, links inside, links out to other folders (\u2192)"]
    names = sorted(files, key=lambda f: (-files[f], natural_key(f)))
    name_w = max((width_of(_fit(n, width_of, 28)) for n in names), default=4)
    biggest = max(files.values(), default=1)
    for name in names:
        shown = _fit(name, width_of, 28)
        bar = "\u2588" * max(1, round(12 * files[name] / biggest))
        outs = across.get(name, Counter()).most_common(3)
        to = ", ".join(f"{_fit(f, width_of, 20)} {n}" for f, n in outs)
        marks = []
        if broken_files[name]:
            marks.append(f"{BROKEN}{broken_files[name]}")
        if orphan_files[name]:
            marks.append(f"{ORPHAN}{orphan_files[name]}")
        row_text = (
            f"  {shown}{' ' * (name_w - width_of(shown))}  {files[name]:>5} file{'s' if files[name] != 1 else ' '}  {bar:<12}  "
            f"{inside[name]:>5} inside" + (f"  \u2192 {to}" if to else "") + ("  " + " ".join(marks) if marks else "")
        )
        note = (
            f"{name}: {files[name]} files, {inside[name]} links inside, "
            f"{sum(across.get(name, Counter()).values())} to other folders"
            + (f", {broken_files[name]} with broken links" if broken_files[name] else "")
            + (f", {orphan_files[name]} orphans" if orphan_files[name] else "")
        )
        nodes.append(GraphNode(f"folder:{name}", None, shown, "folder", 0, len(lines), 2, width_of(shown), note))
        lines.append(row_text)

    def hub_rows(heading: str, ranked: list[str]) -> None:
        lines.extend(["", heading])
        for path in ranked:
            label = _fit(_name(path), width_of, 40)
            marks = (f" {ORPHAN}" if path in g.orphans else "") + (f" {BROKEN}" if g.broken.get(path) else "")
            lines.append(
                f"  {HUB} {label}{' ' * max(1, 42 - width_of(label))}\u2190 {g.degree_in(path):>4}   \u2192 {g.degree_out(path):>4}{marks}"
            )
            note = (
                f"{path} \u00b7 {g.degree_in(path)} in, {g.degree_out(path)} out \u00b7 enter centres the graph on it"
            )
            nodes.append(
                GraphNode(f"hub:{heading}:{path}", path, label, "hub", 0, len(lines) - 1, 4, width_of(label), note)
            )

    by_in = sorted(g.inn, key=lambda p: (-g.degree_in(p), natural_key(p)))[:hubs]
    by_out = sorted(g.out, key=lambda p: (-g.degree_out(p), natural_key(p)))[:hubs]
    hub_rows("Hubs: most linked to (\u2190 links in, \u2192 links out)", by_in)
    hub_rows("Most links out", by_out)
    if g.orphans:
        lines.extend(["", f"Orphans ({ORPHAN}): nothing links to them from MEMORY.md"])
        for path in sorted(g.orphans, key=natural_key)[:hubs]:
            label = _fit(_name(path), width_of, 40)
            lines.append(f"  {ORPHAN} {label}")
            nodes.append(
                GraphNode(
                    f"orphan:{path}", path, label, "hub", 0, len(lines) - 1, 4, width_of(label), f"{path} \u00b7 orphan"
                )
            )
        if len(g.orphans) > hubs:
            lines.append(f"  +{len(g.orphans) - hubs} more")
    return Drawing(lines, nodes, title)
