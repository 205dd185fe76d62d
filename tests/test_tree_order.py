"""The file tree: names in natural order (``n2`` before ``n10``), a folder's mark counting the
broken and orphan files under it, and folders that open and close predictably: each keeps its
state through a rebuild, and one that appears later starts closed unless it holds the file under
the cursor."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from textual.app import App, ComposeResult

from amr_tui.core.order import natural_key, tree_key
from amr_tui.widgets.file_tree import BareBadge, MemoryTree, folder_marks
from tests.driver import app_for, running
from tests.examples import examples


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(0, 5000), min_size=1, max_size=30, unique=True), st.sampled_from(["n", "note-", "N"]))
def test_numbers_sort_by_value(numbers: list[int], prefix: str) -> None:
    names = [f"{prefix}{n}.md" for n in numbers]
    assert sorted(names, key=natural_key) == [f"{prefix}{n}.md" for n in sorted(numbers)]


def test_natural_order_is_total_and_ignores_case() -> None:
    names = ["b.md", "A.md", "a.md", "n01.md", "n1.md", "n10.md", "n2.md", "redis-2.md", "redis.md"]
    assert sorted(names, key=tree_key) == [
        "A.md",
        "a.md",
        "b.md",
        "n01.md",
        "n1.md",
        "n2.md",
        "n10.md",
        "redis.md",  # the name before its extension first
        "redis-2.md",
    ]


class _Tree(App[None]):
    def compose(self) -> ComposeResult:
        yield MemoryTree(id="tree")


def _labels(tree: MemoryTree) -> dict[str, str]:
    """Every row's label by path, folders included, in the tree's order."""
    out: dict[str, str] = {}
    stack = list(reversed(tree.root.children))
    while stack:
        node = stack.pop()
        out[node.data.path] = node.label.plain
        stack.extend(reversed(node.children))
    return out


def _folders(tree: MemoryTree) -> dict[str, bool]:
    """Each folder's state: open or not."""
    out: dict[str, bool] = {}
    stack = list(tree.root.children)
    while stack:
        node = stack.pop()
        if node.data.path.endswith("/"):
            out[node.data.path] = node.is_expanded
        stack.extend(node.children)
    return out


def _rows(tree: MemoryTree) -> list[str]:
    out: list[str] = []

    def walk(node: object) -> None:
        for child in node.children:  # type: ignore[attr-defined]
            out.append(child.data.path)
            if child.is_expanded:  # type: ignore[attr-defined]
                walk(child)

    walk(tree.root)
    return out


async def test_rows_in_natural_order_memory_first_then_folders() -> None:
    files = ["n1028.md", "n10.md", "n2.md", "n1.md", "MEMORY.md", "d10/a.md", "d9/a.md", "z.sql"]
    app = _Tree()
    async with app.run_test():
        tree = app.query_one(MemoryTree)
        tree.set_repo(BareBadge("memory"), files)
        assert _rows(tree) == [
            "",
            "MEMORY.md",
            "d9/",
            "d9/a.md",
            "d10/",
            "d10/a.md",
            "n1.md",
            "n2.md",
            "n10.md",
            "n1028.md",
            "z.sql",
        ]


async def test_folders_keep_their_state_and_new_ones_start_closed() -> None:
    app = _Tree()
    async with app.run_test():
        tree = app.query_one(MemoryTree)
        tree.set_repo(BareBadge("memory"), ["MEMORY.md", "a/x.md", "b/y.md"])
        assert _folders(tree) == {"a/": True, "b/": True}  # at start every folder is open
        next(n for n in tree.root.children[0].children if n.data.path == "a/").collapse()
        # an agent adds c/ and d/ (and a/ stays closed, b/ open)
        tree.set_repo(BareBadge("memory"), ["MEMORY.md", "a/x.md", "b/y.md", "c/z.md", "d/w.md"])
        assert _folders(tree) == {"a/": False, "b/": True, "c/": False, "d/": False}
        # every folder closed, then a rebuild: they stay closed (they used to all open again)
        for node in tree.root.children[0].children:
            node.collapse()
        tree.set_repo(BareBadge("memory"), ["MEMORY.md", "a/x.md", "b/y.md", "c/z.md", "d/w.md", "e/v.md"])
        assert not any(_folders(tree).values())
        # a new folder holding the file under the cursor opens, with its parents
        tree.select_file("memory", "MEMORY.md")
        tree.set_repo(BareBadge("memory"), ["MEMORY.md", "f/g/h.md"])
        tree.select_file("memory", "f/g/h.md")
        tree.set_repo(BareBadge("memory"), ["MEMORY.md", "f/g/h.md", "f/g/i.md", "k/l.md"])
        state = _folders(tree)
        assert state["f/"] and state["f/g/"] and not state["k/"]
        # a folder closed with the cursor on its own row stays closed (it opened at every update)
        folder = next(n for n in tree.root.children[0].children if n.data.path == "f/")
        tree.move_cursor(folder)
        folder.collapse()
        tree.set_repo(BareBadge("memory"), ["MEMORY.md", "f/g/h.md", "f/g/i.md", "k/l.md", "m/n.md"])
        assert not _folders(tree)["f/"]


def test_folder_marks_count_what_is_under_them() -> None:
    marks = folder_marks({"a/b/x.md", "a/y.md"}, {"a/b/z.md", "c/o.md"})
    assert {k: v.plain for k, v in marks.items()} == {
        "a/": "\u27172 \u25cb1",
        "a/b/": "\u27171 \u25cb1",
        "c/": "\u25cb1",
    }


async def test_the_app_marks_folders_holding_broken_and_orphan_files(make_repo) -> None:
    root: Path = make_repo(
        "memory",
        {
            "MEMORY.md": "# M\n\n## Index\n- [[n1]]\n- [[n10]]\n- [[d/x]]\n",
            "n1.md": "- one\n",
            "n10.md": "- ten\n",
            "d/x.md": "- see [[nowhere]]\n",
            "e/o.md": "- nothing links here\n",
        },
    )
    async with running(app_for([root], poll_interval=60)) as drive:
        await drive.until(lambda: not drive.screen.indexing, what="loaded")
        tree = drive.screen.query_one(MemoryTree)
        await drive.until(lambda: "\u2717" in _labels(tree).get("d/", ""), what="the folder mark")
        rows = _labels(tree)
        assert rows["d/"] == "d/ \u27171" and rows["d/x.md"] == "x.md broken"
        assert rows["e/"] == "e/ \u25cb1" and rows["e/o.md"] == "o.md orphan"
        assert list(rows).index("n1.md") < list(rows).index("n10.md")
