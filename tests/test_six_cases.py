"""The seed article's six concurrency cases, in real git, through a real server on 127.0.0.1.

Two clones, A and B. A pushes first; B commits from its older checkout, then B integrates:

* ``plain``: no merge driver, B runs ``git pull --no-rebase`` (what the seed article measured);
* ``driver``: amr's merge driver configured (``amr merge-driver install``), same ``git pull``;
* ``sync``: the driver, and B runs ``amr sync`` (services.sync).

The outcome of every run is observed and compared with ``EXPECTED``; docs/sync.md prints the same
table (``test_docs_table_is_the_measured_one`` keeps the two in step).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from amr_tui.services.sync.resolve import pending_merge, resolve
from amr_tui.services.sync.run import sync
from tests.synchelpers import append, clone, commit_all, git, git_server, replace_line  # noqa: F401

S = "https://example.com/sessions"
DEV = f"- Dev server was on port 3001 this afternoon [source: {S}/290]"
DEV_EDITED = f"- Dev server moved to port 3002 [source: {S}/304]"
DEV_AGAIN = f"- Dev server was on port 3001 this afternoon [source: {S}/305]"
DB = f"- Database: queries are fast [source: {S}/301]"
RUNTIME = f"- Runtime: GC freezes 400 ms [source: {S}/302]"
LB = f"- LB: ruled out [source: {S}/303]"
SCHEMA = f"- Schema changes ship in their own PR [source: {S}/200]"

BASE = {
    "MEMORY.md": f"# Memory\n\n- Team uses bun, not npm [source: {S}/100]\n\n## Index\n- [[findings]]\n- [[notes]]\n",
    "findings.md": f"# Findings\n\n{DB}\n{DEV}\n",
    "notes.md": f"# Notes\n\n{SCHEMA}\n",
}

CASES = {
    1: "A and B each append one bullet to the end of findings.md",
    2: "Same, with `findings.md merge=union` in .gitattributes",
    3: "A and B edit different files",
    4: "A (dreaming) deletes an entry; B never touched it",
    5: "A deletes an entry; B edits that line",
    6: "A deletes an entry; B writes the same fact into a new file",
}

EXPECTED = {
    "plain": {
        1: "CONFLICT",
        2: "clean, both kept",
        3: "clean",
        4: "clean, stays deleted",
        5: "CONFLICT",
        6: "clean, fact is back",
    },
    "driver": {
        1: "clean, both kept",
        2: "clean, both kept",
        3: "clean",
        4: "clean, stays deleted",
        5: "CONFLICT on that entry only",
        6: "clean, fact is back",
    },
    "sync": {
        1: "synced, both kept",
        2: "synced, both kept",
        3: "synced",
        4: "synced, stays deleted",
        5: "conflict on that entry only, resolved",
        6: "synced, fact is back (flagged)",
    },
}


def _edit_a(case: int, a: Path) -> None:
    if case in (1, 2, 3):
        append(a, "findings.md", RUNTIME)
    else:
        replace_line(a, "findings.md", DEV, None)


def _edit_b(case: int, b: Path) -> None:
    if case in (1, 2):
        append(b, "findings.md", LB)
    elif case in (3, 4):
        append(b, "notes.md", LB)
    elif case == 5:
        replace_line(b, "findings.md", DEV, DEV_EDITED)
    else:
        (b / "ports.md").write_text(f"# Ports\n\n{DEV_AGAIN}\n")


def _setup(server, tmp_path: Path, case: int, driver: bool) -> tuple[Path, Path]:
    files = dict(BASE)
    attrs = []
    if case == 2:
        attrs.append("findings.md merge=union")
    if driver:
        attrs.append("*.md merge=amr")
    if attrs:
        files[".gitattributes"] = "\n".join(attrs) + "\n"
    url = server.create("memory", files, work=tmp_path)
    a = clone(url, tmp_path / "a", name="A", driver=driver)
    b = clone(url, tmp_path / "b", name="B", driver=driver)
    # A and B commit as themselves (two sessions of two people or agents): a fact one forgot and
    # the other wrote again is a resurrection (AMR030), one's own re-adding would not be
    _edit_a(case, a)
    git(a, "add", "-A")
    git(a, "commit", "-q", "-m", "A: session", env={"GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.test"})
    git(a, "push", "-q", "origin", "main")
    _edit_b(case, b)
    git(b, "add", "-A")
    git(b, "commit", "-q", "-m", "B: session", env={"GIT_AUTHOR_NAME": "B", "GIT_AUTHOR_EMAIL": "b@example.test"})
    return a, b


def _content_outcome(case: int, b: Path) -> str:
    findings = (b / "findings.md").read_text()
    if case in (1, 2):
        assert findings.count(LB) == 1 and findings.count(RUNTIME) == 1
        return "both kept"
    if case == 4:
        assert DEV not in findings and LB in (b / "notes.md").read_text()
        return "stays deleted"
    if case == 6:
        assert DEV not in findings and DEV_AGAIN in (b / "ports.md").read_text()
        return "fact is back"
    assert RUNTIME in findings and LB in (b / "notes.md").read_text()
    return ""


def _git_pull(case: int, b: Path) -> str:
    rejected = git(b, "push", "origin", "main", check=False)
    assert rejected.returncode != 0 and "rejected" in rejected.stderr  # B is behind, whatever it touched
    res = git(b, "pull", "--no-rebase", "--no-edit", "origin", "main", check=False)
    if res.returncode != 0:
        assert "CONFLICT" in res.stdout + res.stderr
        text = (b / "findings.md").read_text()
        if text.count("<<<<<<<") == 1 and case == 5:
            inside = text.split("<<<<<<<")[1].split(">>>>>>>")[0]
            if DB not in inside and DEV in inside and DEV_EDITED in inside and DB in text:
                return "CONFLICT on that entry only"
        return "CONFLICT"
    more = _content_outcome(case, b)
    return "clean" + (f", {more}" if more else "")


def _amr_sync(case: int, a: Path, b: Path, server) -> str:
    res = sync(b)
    if case == 5:
        assert res.status == "conflict", res.message
        pending = pending_merge(b)
        assert pending is not None and [f.path for f in pending.files] == ["findings.md"]
        (conflict,) = pending.files[0].conflicts
        assert (conflict.kind, conflict.ours, conflict.base, conflict.theirs) == ("entry", (DEV_EDITED,), (DEV,), ())
        assert conflict.entry == "Dev server was on port 3001 this afternoon"
        assert git(b, "status", "--porcelain").stdout == ""  # stopped clean: nothing half-merged
        done = resolve(b, {"findings.md": {0: "ours"}})
        assert done.status == "synced", done.message
        served = server.read("memory", "findings.md")
        assert DEV_EDITED in served and DEV not in served and "<<<<<<<" not in served
        assert sync(a).status == "synced" and DEV_EDITED in (a / "findings.md").read_text()
        return "conflict on that entry only, resolved"
    assert res.status == "synced" and res.pushed, res.message
    assert server.tip("memory") == res.head
    more = _content_outcome(case, b)
    if case == 6:
        assert res.resurrected == (("ports.md", "dev server was on port 3001 this afternoon"),)
        more += " (flagged)"
    return "synced" + (f", {more}" if more else "")


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("mode", sorted(EXPECTED))
def test_six_cases(git_server, tmp_path, mode, case):  # noqa: F811
    a, b = _setup(git_server, tmp_path, case, driver=mode != "plain")
    if mode == "sync":
        outcome = _amr_sync(case, a, b, git_server)
    else:
        outcome = _git_pull(case, b)
    assert outcome == EXPECTED[mode][case]


def test_docs_table_is_the_measured_one():
    doc = (Path(__file__).resolve().parent.parent / "docs" / "sync.md").read_text()
    for case, what in CASES.items():
        row = f"| {case}. {what} | {EXPECTED['plain'][case]} | {EXPECTED['driver'][case]} | {EXPECTED['sync'][case]} |"
        assert row in doc, row
