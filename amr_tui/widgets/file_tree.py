"""The file tree of every mounted repo: one root per repo, MEMORY.md first.

Names sort naturally (``n2`` before ``n10``: ``core.order.tree_key``): MEMORY.md, then the folders,
then the other files. A file's mark says what is wrong with it (errors, ``orphan``, ``broken``); a
folder's mark counts the files under it with a broken link (``✗2``) or that nothing links to
(``○1``), so a problem deep in a closed folder shows on the folder.

Folders open and close as you leave them: a rebuild (a poll, a save, a sync) keeps each one's
state. At start every folder is open. A folder that appears later (an agent's commit, a new file,
a move) starts closed, unless it holds the file under the cursor, which the tree always shows.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol, Union

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from amr_tui.core.inbox import badge_text
from amr_tui.core.order import TreeKey, tree_key
from amr_tui.core.paths import MEMORY_FILE
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.lists import ListKeys
from amr_tui.widgets.safe import clean
from amr_tui.widgets.textual_private import relayout_tree


class Badge(Protocol):
    """What a repo's row shows (``services.session.RepoInfo``, or a ``BareBadge`` before git status is read)."""

    name: str
    branch: str
    dirty: bool
    ahead: int
    behind: int
    read_only: bool
    note: str
    last_sync: str | None
    offline: bool
    unreviewed: int
    pending: int
    oldest: str | None


@dataclass(slots=True)
class BareBadge:
    """A repo's row before its git status is read (the first frame): its name only."""

    name: str
    read_only: bool = False
    branch: str = ""
    dirty: bool = False
    ahead: int = 0
    behind: int = 0
    note: str = ""
    last_sync: str | None = None
    offline: bool = False
    unreviewed: int = 0
    pending: int = 0
    oldest: str | None = None


@dataclass(frozen=True, slots=True)
class FileRef:
    repo: str
    path: str  # "" for the repo root, "dir/" for a folder


#: A repo's files as nested folders: a name ending in "/" maps to its folder, a file name to None.
FolderTree = dict[str, Union["FolderTree", None]]


def repo_label(badge: Badge, today: _dt.date | None = None) -> Text:
    """Name first, then what needs attention (state, dirty, ahead/behind, what waits for review
    and how old the oldest is, read-only, how long since the last sync, or offline), branch last.
    ``today``: the day ages count to (fixed in tests and screenshots)."""
    label = Text(no_wrap=True, end="")
    label.append(clean(badge.name), "bold")
    if badge.note:
        label.append(f" ({clean(badge.note)})", "yellow")
    if badge.dirty:
        label.append(" \u25cf", "yellow")
    if badge.ahead:
        label.append(f" \u2191{badge.ahead}", "green")
    if badge.behind:
        label.append(f" \u2193{badge.behind}", "red")
    if badge.pending:  # others' entry changes, pending runs, review-mode writes (A and V review them)
        label.append(" ", label.spans[-1].style if label.spans else "")  # the gap in the run before (see below)
        label.append(f"\u00b7 {pending_text(badge, today)}", "cyan")
    elif badge.unreviewed:  # others' entry changes since the user's last review (A reviews them)
        label.append(" ", label.spans[-1].style if label.spans else "")  # the gap in the run before (see below)
        label.append(f"\u00b7 {badge.unreviewed} unreviewed", "cyan")
    if badge.read_only:
        label.append(" [read-only]", "italic magenta")
    synced = "offline" if badge.offline else since(badge.last_sync)
    if synced:
        label.append(f" \u27f3{clean(synced)}", "red" if badge.offline else "dim")
    if badge.branch:
        # The gap ends the run before it, in that run's style: a run that starts with spaces is
        # drawn without them by SVG renderers (screenshots showed "memory-alicemain").
        label.append("  ", label.spans[-1].style if label.spans else "")
        label.append(clean(badge.branch), "dim")
    return label


def pending_text(badge: Badge, today: _dt.date | None = None) -> str:
    """``3 pending · oldest 9d``: what waits for review in the repo, and how many days (calendar
    days, in UTC, up to ``today``) the oldest has waited."""
    since = None
    if badge.oldest:
        try:
            since = _dt.datetime.fromisoformat(badge.oldest)
        except ValueError:
            since = None
    if since is None:
        return badge_text(badge.pending, None, _dt.datetime.now(_dt.UTC))
    if since.tzinfo is None:
        since = since.replace(tzinfo=_dt.UTC)
    day = today or _dt.datetime.now(_dt.UTC).date()
    start = _dt.datetime.combine(since.astimezone(_dt.UTC).date(), _dt.time(), _dt.UTC)
    return badge_text(badge.pending, start, _dt.datetime.combine(day, _dt.time(), _dt.UTC))


def sort_key(name: str) -> tuple[int, TreeKey]:
    """The order of the names in one folder (a folder's name ends in "/"): MEMORY.md, the
    folders, then the other files, each group in natural order."""
    return (0 if name == MEMORY_FILE else 1 if name.endswith("/") else 2, tree_key(name))


BROKEN_MARK = "\u2717"  # a folder holds files with a link to no file
ORPHAN_MARK = "\u25cb"  # a folder holds files nothing links to


def folder_marks(broken: set[str], orphans: set[str]) -> dict[str, Text]:
    """Each folder's mark ("dir/" -> "✗2 ○1"): how many files under it have a broken link, and
    how many nothing links to (a symbol and a count: never colour alone)."""
    counts: dict[str, list[int]] = {}
    for which, paths in ((0, broken), (1, orphans)):
        for path in paths:
            parts = path.split("/")[:-1]
            for k in range(1, len(parts) + 1):
                counts.setdefault("/".join(parts[:k]) + "/", [0, 0])[which] += 1
    out: dict[str, Text] = {}
    for folder, (n_broken, n_orphan) in counts.items():
        mark = Text()
        if n_broken:
            mark.append(f"{BROKEN_MARK}{n_broken}", "yellow")
        if n_orphan:
            mark.append((" " if mark else "") + f"{ORPHAN_MARK}{n_orphan}", "yellow")
        out[folder] = mark
    return out


class MemoryTree(ListKeys, Tree[FileRef]):
    """Repos and their files. Selecting a file posts Tree.NodeSelected with a FileRef.

    j/k/g/G move; typing a name jumps to the next row starting with it (ListKeys)."""

    HELP_TITLE = "File tree"
    BINDINGS = bindings("tree", "list")
    narrows = False

    def action_list_first(self) -> None:
        self.action_scroll_home()

    def action_list_last(self) -> None:
        self.action_scroll_end()

    def jump_rows(self) -> tuple[list[str], int]:
        rows: list[str] = []
        for line in range(self.last_line + 1):
            node = self.get_node_at_line(line)
            rows.append(str(node.label) if node is not None else "")
        return rows, max(self.cursor_line, 0)

    def jump_go(self, row: int) -> None:
        self.cursor_line = row
        self.scroll_to_line(row)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(Text("memory"), id=id)
        self.show_root = False
        self.guide_depth = 2
        self._repo_nodes: dict[str, TreeNode[FileRef]] = {}
        self._file_nodes: dict[tuple[str, str], TreeNode[FileRef]] = {}  # files and folders ("dir/")
        self._folders: dict[str, set[str]] = {}  # each repo's folders the tree has shown (open or closed)
        self._rows_left = -1  # rows set_repo may still add (-1: all of them)
        # What each repo's subtree was built from: (its files, their marks), None when only its
        # first rows were built. The same files again only relabel (badges, marks): rebuilding
        # 20,000 rows took 0.7 s of the UI thread at every poll, save and lint at 1M entries.
        self._built: dict[str, tuple[tuple[str, ...], dict[str, str | Text]] | None] = {}
        self.today: _dt.date | None = None  # the day ages count to (the app's: fixed in tests)

    def set_repo(
        self,
        badge: Badge,
        files: list[str],
        problems: dict[str, str | Text] | None = None,
        *,
        rows: int | None = None,
    ) -> None:
        """Replace one repo's subtree, keeping which folders were open (a new folder starts closed
        unless it holds the file under the cursor; at the first build every folder is open).
        ``problems``: a mark after a file's or a folder's ("dir/") name (a string is drawn red; a
        Text in its own styles: errors, "orphan", ``folder_marks``). ``rows``: only the first rows
        (the first frame shows a screenful; the whole list follows)."""
        problems = problems or {}
        node = self._repo_nodes.get(badge.name)
        listed = tuple(files)
        built = self._built.get(badge.name)
        if node is not None and rows is None and built is not None and built[0] == listed:
            self._relabel(node, badge, built[1], problems)
            self._built[badge.name] = (listed, dict(problems))
            return
        self._built[badge.name] = (listed, dict(problems)) if rows is None else None
        expanded: set[str] = set()
        at = self.cursor_node.data if self.cursor_node is not None else None
        keep = at if at is not None and at.repo == badge.name and at.path else None
        if node is None:
            node = self.root.add(repo_label(badge, self.today), FileRef(badge.name, ""), expand=True)
            self._repo_nodes[badge.name] = node
        else:
            expanded = {n.data.path for n in self._walk(node) if n.data and n.data.path.endswith("/") and n.is_expanded}
            node.set_label(repo_label(badge, self.today))
            node.remove_children()
        for key in [k for k in self._file_nodes if k[0] == badge.name]:
            del self._file_nodes[key]
        tree: FolderTree = {}
        for path in files:
            cur = tree
            parts = path.split("/")
            for part in parts[:-1]:
                sub = cur.setdefault(part + "/", {})
                assert sub is not None  # a folder name ends in "/", a file name never does
                cur = sub
            cur[parts[-1]] = None
        self._rows_left = rows if rows is not None else -1
        seen = self._folders.get(badge.name)
        # the folders above the cursor's row (a folder row's own state is its own: closed stays closed)
        under = keep.path.rstrip("/") if keep is not None else ""
        holding = {under[: i + 1] for i, ch in enumerate(under) if ch == "/"}
        opened = expanded | holding if seen is not None else None
        shown: set[str] = set()
        self._add_tree(node, badge.name, "", tree, opened, seen or set(), problems, shown)
        if rows is None:
            self._folders[badge.name] = shown
        if keep is not None:  # a rebuilt subtree keeps the cursor where it was
            found = self._file_nodes.get((keep.repo, keep.path)) or next(
                (n for n in self._walk(node) if n.data == keep), None
            )
            if found is not None:
                self._place_cursor(found)

    def _relabel(
        self, node: TreeNode[FileRef], badge: Badge, old: dict[str, str | Text], new: dict[str, str | Text]
    ) -> None:
        """The same files as built: the repo's badge, and the rows whose mark changed."""
        changed = False
        label = repo_label(badge, self.today)
        if node.label != label:
            node.set_label(label)
            changed = True
        for path in old.keys() | new.keys():
            if old.get(path) != new.get(path) and (leaf := self._file_nodes.get((badge.name, path))) is not None:
                if path.endswith("/"):
                    leaf.set_label(folder_label(path[:-1].rsplit("/", 1)[-1] + "/", path, new))
                else:
                    leaf.set_label(file_label(path.rsplit("/", 1)[-1], path, new))
                changed = True
        if changed:
            # A new label may be wider: the lines (and the scrollable width) are laid out again,
            # as after adding nodes (Textual's Tree; pinned). set_label alone redraws the rows.
            relayout_tree(self)

    def _place_cursor(self, node: TreeNode[FileRef]) -> None:
        # A node's line is known once the tree has laid its lines out; after a rebuild or an
        # expand that waits for the next render, and a cursor moved before it stayed on line 0
        # (the repo's row). Asking for a line lays them out now.
        self.get_node_at_line(0)
        self.move_cursor(node, animate=False)

    def _add_tree(
        self,
        parent: TreeNode[FileRef],
        repo: str,
        prefix: str,
        tree: FolderTree,
        opened: set[str] | None,
        seen: set[str],
        problems: dict[str, str | Text],
        shown: set[str],
    ) -> None:
        """Add ``tree``'s rows under ``parent``. ``opened``: the folders to open (None: the first
        build, every one); ``seen``: the folders shown before (one not among them is new)."""
        for name in sorted(tree, key=sort_key):
            if self._rows_left == 0:
                return
            self._rows_left -= 1
            sub = tree[name]
            path = prefix + name
            if sub is None:
                self._file_nodes[(repo, path)] = parent.add_leaf(file_label(name, path, problems), FileRef(repo, path))
            else:
                shown.add(path)
                child = parent.add(
                    folder_label(name, path, problems), FileRef(repo, path), expand=opened is None or path in opened
                )
                self._file_nodes[(repo, path)] = child
                self._add_tree(child, repo, path, sub, opened, seen, problems, shown)

    def _walk(self, node: TreeNode[FileRef]) -> Iterator[TreeNode[FileRef]]:
        for child in node.children:
            yield child
            yield from self._walk(child)

    def select_file(self, repo: str, path: str) -> None:
        node = self._file_nodes.get((repo, path))
        if node is None:
            return
        parent = node.parent
        while parent is not None:
            if not parent.is_expanded:
                parent.expand()
            parent = parent.parent
        self._place_cursor(node)


def folder_label(name: str, path: str, problems: dict[str, str | Text]) -> Text:
    """A folder's row: its name, then its mark (``folder_marks``) if it has one."""
    label = Text(clean(name), "bold dim", no_wrap=True, end="")
    mark = problems.get(path)
    if mark:
        _add_mark(label, mark)
    return label


def file_label(name: str, path: str, problems: dict[str, str | Text]) -> Text:
    """A file's row: its name (MEMORY.md in bold), then its mark if it has one (a string in red)."""
    label = Text(clean(name), no_wrap=True, end="")
    if name == MEMORY_FILE:
        label.stylize("bold")
    if path in problems:
        _add_mark(label, problems[path])
    return label


def _add_mark(label: Text, mark: str | Text) -> None:
    """A row's mark after its name: a string in red, a Text as it is styled."""
    label.append(" ")
    if isinstance(mark, Text):
        label.append_text(mark)
    else:
        label.append(mark, "red")


def since(iso: str | None) -> str:
    """'5m', '3h', '2d' since an ISO time; '' when unknown."""
    if not iso:
        return ""
    try:
        then = _dt.datetime.fromisoformat(iso)
    except ValueError:
        return ""
    if then.tzinfo is None:
        then = then.replace(tzinfo=_dt.UTC)
    secs = max(0, int((_dt.datetime.now(_dt.UTC) - then).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if secs >= size:
            return f"{secs // size}{unit}"
    return "now"
