"""Sync's merge: amr's driver run in this process gives what git running ``amr merge-driver``
gives, and a sync that has to merge pushes the merge before its own branch takes it.

Real git throughout; the "other clone" and the agents are plain git.
"""

from __future__ import annotations

import pytest

from amr_tui.git import GitRepo
from amr_tui.git.mergedriver import amr_driver_command
from amr_tui.git.merging import merge_commits
from amr_tui.services.sync.run import sync
from tests.synchelpers import append, clone, commit_all, git, git_server  # noqa: F401

START = {
    "MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n",
    "notes.md": "# Notes\n\n- one [source: s/1]\n- two [source: s/2]\n- three [source: s/3]\n",
    "plain.txt": "alpha\nbeta\ngamma\n",
    ".gitattributes": "*.md merge=amr\n",
}


def _branches(make_repo, ours: dict[str, str | None], theirs: dict[str, str | None]) -> tuple[GitRepo, str, str]:
    root = make_repo("memory", START)
    git(root, "config", "user.name", "T")
    git(root, "config", "user.email", "t@example.test")

    def commit(files: dict[str, str | None], msg: str) -> str:
        for rel, text in files.items():
            if text is None:
                git(root, "rm", "-q", rel)
            else:
                (root / rel).write_text(text)
                git(root, "add", rel)
        git(root, "commit", "-q", "-m", msg)
        return git(root, "rev-parse", "HEAD").stdout.strip()

    git(root, "checkout", "-q", "-b", "theirs")
    t = commit(theirs, "theirs")
    git(root, "checkout", "-q", "main")
    o = commit(ours, "ours")
    return GitRepo(root), o, t


CASES = {
    "both append": (
        {"notes.md": START["notes.md"] + "- ours [source: s/o]\n"},
        {"notes.md": START["notes.md"] + "- theirs [source: s/t]\n"},
    ),
    "one entry edited both ways": (
        {"notes.md": START["notes.md"].replace("two", "two ours")},
        {"notes.md": START["notes.md"].replace("two", "two theirs")},
    ),
    "edit and delete elsewhere": (
        {"notes.md": START["notes.md"].replace("- one [source: s/1]\n", "")},
        {"notes.md": START["notes.md"].replace("three", "three, longer")},
    ),
    "add/add": ({"new.md": "# New\n\n- from ours\n"}, {"new.md": "# New\n\n- from theirs\n"}),
    "text file": ({"plain.txt": "zero\nalpha\nbeta\ngamma\n"}, {"plain.txt": "alpha\nbeta\ngamma\ndelta\n"}),
    "modify/delete": ({"notes.md": START["notes.md"] + "- ours\n"}, {"notes.md": None}),
    "rename and edit": (
        {"notes.md": START["notes.md"] + "- ours [source: s/o]\n"},
        {"notes.md": None, "renamed.md": START["notes.md"] + "- theirs [source: s/t]\n"},
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_in_process_merge_is_what_git_running_the_driver_gives(make_repo, case: str) -> None:
    repo, ours, theirs = _branches(make_repo, *CASES[case])
    fast = merge_commits(repo, ours, theirs)
    slow = merge_commits(repo, ours, theirs, amr_command=amr_driver_command())  # git runs `amr merge-driver`
    assert fast.tree == slow.tree
    assert [(c.path, c.stages) for c in fast.conflicts] == [(c.path, c.stages) for c in slow.conflicts]


def test_a_criss_cross_merge_still_runs_the_driver_for_its_virtual_base(make_repo) -> None:
    repo, ours, theirs = _branches(make_repo, *CASES["both append"])
    root = repo.root
    # Merge each way, then add one more line on each side: two merge bases.
    git(root, "checkout", "-q", "theirs")
    git(root, "merge", "-q", "--no-edit", "-s", "ours", ours)
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-edit", "-s", "ours", theirs)
    append(root, "notes.md", "- ours again [source: s/o2]")
    o2 = commit_all(root, "ours 2")
    git(root, "checkout", "-q", "theirs")
    append(root, "notes.md", "- theirs again [source: s/t2]")
    t2 = commit_all(root, "theirs 2")
    git(root, "checkout", "-q", "main")
    assert len(git(root, "merge-base", "--all", o2, t2).stdout.split()) == 2
    fast = merge_commits(repo, o2, t2)
    slow = merge_commits(repo, o2, t2, amr_command=amr_driver_command())
    assert fast.tree == slow.tree and len(fast.conflicts) == len(slow.conflicts)


BASE = {
    "MEMORY.md": "# Memory\n\n## Index\n- [[findings]]\n",
    "findings.md": "# Findings\n\n- Database: queries are fast [source: s/1]\n",
    ".gitattributes": "*.md merge=amr\n",
}


def test_a_merging_sync_pushes_the_merge_and_then_takes_an_agent_commit_made_meanwhile(git_server, tmp_path):  # noqa: F811
    url = git_server.create("memory", BASE, work=tmp_path)
    a = clone(url, tmp_path / "a", name="A", driver=True)
    b = clone(url, tmp_path / "b", name="B", driver=True)
    append(a, "findings.md", "- from A [source: s/a]")
    commit_all(a, "A")
    git(a, "push", "-q", "origin", "main")
    append(b, "findings.md", "- from B [source: s/b]")
    mine = commit_all(b, "B")
    fired = []

    def progress(ev):
        if ev.stage == "push" and not fired:  # an agent in clone b commits while the merge is pushed
            fired.append(ev)
            append(b, "findings.md", "- agent in B, meanwhile [source: s/m]")
            commit_all(b, "agent in B")

    res = sync(b, progress=progress, backoff=0.01)
    assert fired and res.status == "synced" and res.pushed, res
    served = git_server.read("memory", "findings.md")
    assert "- from A" in served and "- from B" in served and "meanwhile" not in served
    assert git_server.reachable("memory", mine)
    head = git(b, "show", "HEAD:findings.md").stdout
    assert "- from A" in head and "- from B" in head and "- agent in B, meanwhile" in head
    assert git(b, "status", "--porcelain").stdout == ""
    assert sync(b).status == "synced" and "meanwhile" in git_server.read("memory", "findings.md")


@pytest.mark.slow
def test_a_merging_sync_that_keeps_losing_the_push_race_goes_round_again_at_once(git_server, tmp_path):  # noqa: F811
    url = git_server.create("memory", BASE, work=tmp_path)
    a = clone(url, tmp_path / "a", name="A", driver=True)
    b = clone(url, tmp_path / "b", name="B", driver=True)
    append(a, "findings.md", "- from A 0 [source: s/a0]")
    commit_all(a, "A 0")
    git(a, "push", "-q", "origin", "main")
    append(b, "findings.md", "- from B [source: s/b]")
    mine = commit_all(b, "B")
    lost = []

    def progress(ev):  # clone a pushes between b's fetch and b's push of its merge, four times
        if ev.stage == "push" and "merge" in ev.message and len(lost) < 4:
            lost.append(ev.attempt)
            append(a, "findings.md", f"- from A {len(lost)} [source: s/a{len(lost)}]")
            commit_all(a, f"A {len(lost)}")
            git(a, "push", "-q", "origin", "main")

    res = sync(b, progress=progress, attempts=3, backoff=0.01)
    assert lost == [1, 2, 3, 4]
    assert res.status == "synced" and res.pushed and res.attempts == 5, res
    served = git_server.read("memory", "findings.md")
    assert all(f"- from A {i} " in served for i in range(5)) and "- from B" in served
    assert git_server.reachable("memory", mine)
    assert git(b, "status", "--porcelain").stdout == ""
