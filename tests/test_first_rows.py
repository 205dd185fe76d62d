"""The first frame's tree rows come from ``peek.first_files``: a repo's root files and its first
top folders, not every path (20,000 at 1M). Built into the real ``MemoryTree`` from that subset
and from the whole list, the first ``FIRST_ROWS`` rows are the same, for any repo layout."""

from __future__ import annotations

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
