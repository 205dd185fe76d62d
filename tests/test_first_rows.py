"""The first frame's tree rows come from ``peek.first_files``: a repo's root files and its first
top folders, not every path (20,000 at 1M). Built into the real ``MemoryTree`` from that subset
and from the whole list, the first ``FIRST_ROWS`` rows are the same, for any repo layout."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.app import App, ComposeResult

from amr_tui.screens.main.peek import FIRST_ROWS, first_files
from amr_tui.widgets.file_tree import BareBadge, MemoryTree

_NAME = st.sampled_from(["a", "B", "c-d", "c", "Zeta", "memory", "notes", "x_y", "a.b", "MEMORY.md"])


@st.composite
def _files(draw: st.DrawFn) -> list[str]:
    paths = set()
    for _ in range(draw(st.integers(0, 900))):
        depth = draw(st.integers(0, 3))
        parts = [draw(_NAME) for _ in range(depth)]
        leaf = draw(st.sampled_from(["MEMORY.md", "index.md", "Ops.md", "z.md", "a.md"]))
        paths.add("/".join([*parts, f"{draw(st.integers(0, 40))}-{leaf}"] if draw(st.booleans()) else [*parts, leaf]))
    return sorted(paths)


class _Tree(App[None]):
    def compose(self) -> ComposeResult:
        yield MemoryTree(id="tree")


def _rows(tree: MemoryTree, rows: int) -> list[str]:
    out: list[str] = []

    def walk(node: object) -> None:
        for child in node.children:  # type: ignore[attr-defined]
            out.append(child.data.path)
            walk(child)

    walk(tree.root)
    return out[: rows + 1]


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=_files(), rows=st.sampled_from([3, 10, FIRST_ROWS]))
async def test_the_first_rows_from_the_subset_are_the_whole_lists(files: list[str], rows: int) -> None:
    app = _Tree()
    async with app.run_test():
        tree = app.query_one(MemoryTree)
        tree.set_repo(BareBadge("memory"), files, rows=rows)
        whole = _rows(tree, rows)
        tree.set_repo(BareBadge("memory"), first_files(files, rows), rows=rows)
        assert _rows(tree, rows) == whole


def test_a_big_repo_gives_the_first_frame_a_tenth_of_its_paths() -> None:
    files = sorted([f"area{a:02}/file{k:04}.md" for a in range(10) for k in range(2000)] + ["MEMORY.md", "area00.md"])
    assert set(first_files(files)) == {"MEMORY.md", "area00.md"} | {f"area00/file{k:04}.md" for k in range(2000)}


def _labels(tree: MemoryTree) -> dict[str, str]:
    out: dict[str, str] = {}

    def walk(node: object) -> None:
        for child in node.children:  # type: ignore[attr-defined]
            out[child.data.path] = child.label.plain
            walk(child)

    walk(tree.root)
    return out


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=_files(),
    marks=st.lists(st.sampled_from(["\u25cf1", "orphan", ""]), max_size=30),
    branch=st.sampled_from(["", "main", "a-long-branch-name-that-widens-the-tree"]),
)
@pytest.mark.slow
async def test_the_same_files_again_relabel_what_a_rebuild_would_show(
    files: list[str], marks: list[str], branch: str
) -> None:
    """set_repo with the files it was built from only relabels (a rebuild of 20,000 rows took
    0.7 s of the UI thread at every poll at 1M): the rows, their marks, the repo's badge and the
    scrollable width are what a tree built afresh shows, and the nodes are the ones built."""
    problems: dict[str, object] = {f: m for f, m in zip(files, marks) if m}
    badge = BareBadge("memory", branch=branch, unreviewed=len(marks))
    app, fresh = _Tree(), _Tree()
    async with app.run_test() as pilot, fresh.run_test() as fresh_pilot:
        tree = app.query_one(MemoryTree)
        tree.set_repo(BareBadge("memory"), files)
        await pilot.pause()  # laid out with the bare labels
        nodes = {id(n) for n in tree.root.children}
        tree.set_repo(badge, list(files), problems)  # type: ignore[arg-type]
        await pilot.pause()
        assert {id(n) for n in tree.root.children} == nodes  # relabelled, not rebuilt
        again = fresh.query_one(MemoryTree)
        again.set_repo(badge, files, problems)  # type: ignore[arg-type]
        await fresh_pilot.pause()
        assert _labels(tree) == _labels(again)
        assert tree.root.children[0].label == again.root.children[0].label
        assert tree.virtual_size.width == again.virtual_size.width
