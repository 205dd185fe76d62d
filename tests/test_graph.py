"""The link graph: who links to whom, the neighbourhood drawing (each file once, marks as symbols,
lines that join what links), the overview by folder with the hubs, and the screen (keys, mouse,
open, re-centre)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amr_tui.core.format.parser import parse
from amr_tui.core.graph import BROKEN, CENTRE, MUTUAL, ORPHAN, LinkGraph, build_graph, neighbourhood, overview
from amr_tui.core.lint.repo import RepoSnapshot
from amr_tui.screens.graph import GraphCanvas, GraphScreen
from tests.driver import AppDriver
from tests.examples import examples


def snapshot(files: dict[str, str]) -> RepoSnapshot:
    docs = {p: parse(t.encode(), p) for p, t in files.items() if p.endswith(".md")}
    return RepoSnapshot("memory", set(files), docs)


FILES = {
    "MEMORY.md": "# M\n\n## Index\n- [[hub]]\n- [[a]]\n",
    "hub.md": "- links [[a]], [[b]], [[c]] and [[gone]]\n",
    "a.md": "- back to [[hub]]\n",
    "b.md": "- on to [[deep/d]]\n",
    "c.md": "- nothing here\n",
    "deep/d.md": "- leaf [[c]]\n",
    "lonely.md": "- nothing links here [[hub]]\n",
}


def graph() -> LinkGraph:
    return build_graph(snapshot(FILES), orphans={"lonely.md"})


def test_the_graph_of_a_repo() -> None:
    g = graph()
    assert g.out["hub.md"] == ["a.md", "b.md", "c.md"]
    assert sorted(g.inn["hub.md"]) == ["MEMORY.md", "a.md", "lonely.md"]
    assert g.broken == {"hub.md": ["gone"]}
    assert g.links == 9


def test_a_neighbourhood_at_depth_1() -> None:
    d = neighbourhood(graph(), "hub.md", 1)
    assert d.lines == [
        "                     ┌─▶ ↔ a",
        "MEMORY ───┬─▶ ◆ hub ─┼─▶ b",
        "○ lonely ─┘          ├─▶ c",
        "                     └─▶ ✗ gone (no file)",
    ]
    keys = [n.key for n in d.nodes]
    assert len(keys) == len(set(keys))  # every file once: a (links both ways) only on the right
    for node in d.nodes:  # every node is drawn where it says
        assert d.lines[node.row][node.x : node.x + node.width] == node.label
    kinds = {n.key: n.kind for n in d.nodes}
    assert kinds["hub.md"] == "centre" and kinds["broken:gone"] == "broken"
    labels = {n.key: n.label for n in d.nodes}
    assert labels["a.md"].startswith(MUTUAL) and labels["lonely.md"].startswith(ORPHAN)


def test_depth_2_adds_the_next_step_each_way_once() -> None:
    d = neighbourhood(graph(), "hub.md", 2)
    assert d.lines[1] == "MEMORY ───┬─▶ ◆ hub ─┼─▶ b ──────────────────▶ deep/d"
    cols = {n.key: n.column for n in d.nodes}
    assert cols["hub.md"] == 0 and cols["b.md"] == 1 and cols["deep/d.md"] == 2
    assert cols["MEMORY.md"] == -1
    assert "c.md" in cols and list(cols).count("c.md") == 1  # c is linked from hub and from deep/d: drawn once
    for node in d.nodes:
        assert d.lines[node.row][node.x : node.x + node.width] == node.label
    # a line joins b to deep/d, with an arrow head before deep/d
    d_node = next(n for n in d.nodes if n.key == "deep/d.md")
    assert d.lines[d_node.row][d_node.x - 2] == "\u25b6"


def test_the_overview_groups_by_folder_and_names_the_hubs() -> None:
    d = overview(graph())
    text = "\n".join(d.lines)
    assert text.splitlines()[0].startswith("7 files \u00b7 9 links \u00b7 2 folders")
    assert f"{BROKEN} 1 broken link in 1 file" in text and f"{ORPHAN} 1 orphan" in text
    hubs = [n.path for n in d.nodes if n.key.startswith("hub:Hubs")]
    assert hubs[0] == "hub.md"  # three files link to it
    folders = [n.key for n in d.nodes if n.kind == "folder"]
    assert folders == ["folder:(root)", "folder:deep/"]


_NAMES = st.sampled_from(["a", "b", "c", "d/e", "d/f", "g/h/i", "MEMORY"])


@settings(max_examples=examples(80), deadline=None)
@given(st.dictionaries(_NAMES, st.lists(_NAMES, max_size=5), min_size=1), st.sampled_from([1, 2]))
def test_any_neighbourhood_draws_each_node_once_where_it_says(links: dict[str, list[str]], depth: int) -> None:
    files = {f"{name}.md": "".join(f"- [[{t}]]\n" for t in targets) or "- x\n" for name, targets in links.items()}
    g = build_graph(snapshot(files))
    for centre in files:
        d = neighbourhood(g, centre, depth)
        keys = [n.key for n in d.nodes]
        assert len(keys) == len(set(keys))
        for node in d.nodes:
            assert d.lines[node.row][node.x : node.x + node.width] == node.label


# ------------------------------------------------------------------------------ the screen


async def _graph(driver: AppDriver) -> GraphScreen:
    await driver.press("L")
    await driver.until(lambda: isinstance(driver.app.screen, GraphScreen), what="the graph")
    screen = driver.app.screen
    await driver.until(lambda: screen.drawing is not None, what="the drawing")
    return screen


@pytest.mark.slow
async def test_keys_move_recentre_and_open(driver: AppDriver) -> None:
    screen = await _graph(driver)
    assert screen.selected == "MEMORY.md" and screen.centre == "MEMORY.md"
    await driver.press("l")  # to the right column, the row nearest the centre
    picked = screen.drawing.by_key(screen.selected)
    assert picked is not None and picked.column == 1
    while screen.selected != "projects/payments.md":
        await driver.press("k" if screen.drawing.by_key(screen.selected).row > 1 else "j")
    await driver.press("c")
    await driver.until(
        lambda: screen.centre == "projects/payments.md" and screen.drawing.by_key("MEMORY.md"), what="recentred"
    )
    assert screen.drawing.by_key("MEMORY.md").column == -1  # MEMORY.md links to it: on the left
    await driver.press("d")
    await driver.until(lambda: screen.depth == 2 and screen.drawing.by_key("team_structure.md"), what="depth 2")
    await driver.press("v")
    await driver.until(
        lambda: screen.mode == "overview" and screen.drawing.lines[0].startswith("12 files"), what="overview"
    )
    await driver.press("v", "l")
    await driver.until(lambda: screen.mode == "neighbourhood", what="back")
    await driver.press("enter")
    await driver.until(lambda: driver.app.screen is not screen, what="the graph closed")
    await driver.until(lambda: driver.current.path == screen.selected, what="the file opened")


@pytest.mark.slow
async def test_mouse_picks_recentres_and_opens(driver: AppDriver) -> None:
    screen = await _graph(driver)
    canvas = screen.query_one(GraphCanvas)
    target = screen.drawing.by_key("tooling/bun.md")
    assert target is not None
    await driver.pilot.click(canvas, offset=(target.x + 1, target.row))
    assert screen.selected == "tooling/bun.md" and screen.centre == "MEMORY.md"
    await driver.pilot.click(canvas, offset=(target.x + 1, target.row))  # a click on the picked node
    await driver.until(lambda: screen.centre == "tooling/bun.md", what="recentred by the mouse")
    await driver.until(lambda: screen.drawing.by_key("backend/migrations.md"), what="its backlinks drawn")
    node = screen.drawing.by_key("backend/migrations.md")
    await driver.pilot.click(canvas, offset=(node.x + 1, node.row), times=2)
    await driver.until(lambda: driver.current.path == "backend/migrations.md", what="opened by a double click")


def test_marks_are_never_colour_alone() -> None:
    """Broken, orphan and mutual nodes carry a symbol in their text, and the legend names each."""
    from amr_tui.screens.graph import LEGEND

    d = neighbourhood(graph(), "hub.md", 1)
    for key, mark in (("broken:gone", BROKEN), ("lonely.md", ORPHAN), ("a.md", MUTUAL), ("hub.md", CENTRE)):
        node = d.by_key(key)
        assert node is not None and mark in node.label and mark in LEGEND
    assert "broken" in LEGEND and "orphan" in LEGEND


def test_a_repo_of_two_thousand_files_draws(tmp_path: Path) -> None:
    files = {"MEMORY.md": "# M\n\n## Index\n" + "".join(f"- [[area{a}]]\n" for a in range(10))}
    for a in range(10):
        files[f"area{a}.md"] = "".join(f"- [[area{a}/n{k}]]\n" for k in range(200))
        for k in range(200):
            files[f"area{a}/n{k}.md"] = f"- see [[area{(a + 1) % 10}/n{k}]]\n"
    g = build_graph(snapshot(files))
    assert len(g.files) == 2011 and g.links == 10 + 2000 + 2000
    d = overview(g)
    assert [n.key for n in d.nodes if n.kind == "folder"][:3] == ["folder:area0/", "folder:area1/", "folder:area2/"]
    hub = neighbourhood(g, "area3.md", 2)
    assert sum(1 for n in hub.nodes if n.column == 1) == 61  # 60 drawn and "+140 more"
    assert hub.by_key("more:right") is not None
