"""The bounded first look walks a screenful of the tree, not the whole repo (at 1M entries 2,000
of 20,000 paths), and looks up each link of MEMORY.md on its own (``workspace.listed_as``).

Done when, for any layout on a real file system (folders, files the walk skips, symlinks to
files and folders inside and outside the root, into ``.git``, broken ones, names that differ
only in case), the bounded look shows what the whole walk would: the same first rows, the same
state for every link, the same document; and ``listed_as`` says of every path what the walk
lists.
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from amr_tui.screens.main.peek import FIRST_ROWS, first_files, first_listing, first_look
from amr_tui.services.workspace import discover, listed_as, scan_files
from tests.examples import examples

_DIR = st.sampled_from(["a", "B", "b", "notes", "node_modules", ".git", "x y", "Zeta"])
_FILE = st.sampled_from(["MEMORY.md", "infra.md", "Infra.md", "z.md", ".amr-tmp-1", "data.csv", "ops"])
_LINK = st.sampled_from(["in-file", "in-dir", "out-file", "out-dir", "git", "broken"])


@st.composite
def _layout(draw: st.DrawFn) -> tuple[list[tuple[str, str]], list[str]]:
    """(entries: (kind, path), MEMORY.md's link targets); kind is "file", "dir" or a _LINK kind."""
    entries: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(0, 60))):
        parts = [draw(_DIR) for _ in range(draw(st.integers(0, 2)))]
        kind = draw(st.sampled_from(["file", "file", "file", "link"]))
        name = draw(_FILE) if draw(st.booleans()) else f"{draw(st.integers(0, 30))}-{draw(_FILE)}"
        entries.append((draw(_LINK) if kind == "link" else "file", "/".join([*parts, name])))
    names = [p for _k, p in entries] + ["infra", "Infra", "a/infra", "b/z", "notes/ops", "nope", "node_modules/x"]
    links = draw(st.lists(st.sampled_from(names), max_size=12))
    return entries, links


def _build(tmp: Path, entries: list[tuple[str, str]], links: list[str]) -> Path:
    root = tmp / "repo"
    outside = tmp / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "file.md").write_text("- outside\n")
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text("")
    (root / "target").mkdir()
    (root / "target" / "t.md").write_text("- t\n")
    for kind, rel in entries:
        path = root / rel
        if path.parent.is_symlink() or (path.parent.exists() and not path.parent.is_dir()):
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            continue
        if path.exists() or path.is_symlink():
            continue
        if kind == "file":
            path.write_text(f"- {rel}\n")
            continue
        target = {
            "in-file": root / "target" / "t.md",
            "in-dir": root / "target",
            "out-file": outside / "file.md",
            "out-dir": outside / "dir",
            "git": root / ".git" / "config",
            "broken": root / "missing.md",
        }[kind]
        os.symlink(target, path)
    body = "\n".join(f"- see [[{t}]]" for t in links)
    (root / "MEMORY.md").unlink(missing_ok=True)
    (root / "MEMORY.md").write_text(f"# Memory\n\n## Index\n{body}\n")
    return root


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(layout=_layout(), rows=st.sampled_from([1, 3, FIRST_ROWS]))
# found by CI: the rows were full, and the folder left held only a symlinked folder (no file)
@example(layout=([("file", "0-MEMORY.md"), ("file", "MEMORY.md"), ("in-dir", "x y/0-MEMORY.md")], []), rows=1)
def test_the_bounded_look_shows_what_the_whole_walk_would(tmp_path_factory, layout, rows) -> None:
    entries, links = layout
    root = _build(tmp_path_factory.mktemp("look"), entries, links)
    files, escaping, _ = scan_files(root, stats=False)
    # listed_as: the walk's answer for every path, listed or not
    names: dict[str, set[str] | None] = {}
    asked = {p for _k, p in entries} | set(files) | {"MEMORY.md", "target", "target/t.md", "nope.md", ".git/config"}
    for rel in sorted(asked):
        want = ("escaping" if rel in escaping else "file") if rel in files else None
        assert listed_as(root, rel, names) == want, rel
    # the bounded listing holds what the first rows need, and every file in it is listed
    some, some_escaping, whole = first_listing(root, rows)
    assert set(some) <= set(files) and some_escaping <= escaping
    assert whole == (set(some) == set(files))
    assert set(first_files(files, rows)) <= set(some) or len(files) <= rows * 8
    # the bounded look: same rows (FIRST_ROWS), same links, same document
    mounts = discover([root])
    full, bounded = first_look(mounts, None), first_look(mounts, None, bounded=True)
    name = mounts[0].name
    assert full.first_rows is not None and bounded.first_rows is not None
    assert set(first_files(full.files[name])) <= set(bounded.files[name])
    assert (bounded.repo, bounded.path) == (full.repo, full.path)
    assert bounded.states == full.states
    assert (bounded.doc.lines if bounded.doc else None) == (full.doc.lines if full.doc else None)


def test_links_past_the_first_rows_resolve_as_the_whole_walk_says(tmp_path) -> None:
    root = tmp_path / "repo"
    for folder in ("alpha", "beta", "gamma"):
        (root / folder).mkdir(parents=True)
        for i in range(FIRST_ROWS):
            (root / folder / f"{i}.md").write_text(f"- {folder} {i}\n")
    (root / ".git").mkdir()
    os.symlink(tmp_path, root / "gamma" / "out")
    links = ["gamma/5", "gamma/Out", "gamma/out", "Gamma/5", "gamma/999", "beta/1.md", "alpha/0"]
    (root / "MEMORY.md").write_text("# Memory\n\n## Index\n" + "".join(f"- [[{t}]]\n" for t in links))
    mounts = discover([root])
    full, bounded = first_look(mounts, None), first_look(mounts, None, bounded=True)
    assert not bounded.complete and full.complete
    name = mounts[0].name
    assert "gamma/5.md" not in bounded.files[name]  # not walked: gamma is past the first rows
    assert bounded.states == full.states
    states = sorted(s.name for s in bounded.states.values())
    assert states.count("OK") == 3, states  # gamma/5, beta/1.md, alpha/0
