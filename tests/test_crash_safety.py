"""Crash safety: SIGKILL during large saves leaves the old or the new bytes,
never a torn file; the next start sweeps the leftovers; a crash at either side of the branch
update never leaves an index that would undo a commit.

The full run is ``python scripts/kill_saves.py --kills 200`` (about a minute and a half); CI
runs a shorter one with the same checks.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from amr_tui.git import GitRepo
from amr_tui.git.gate import Change
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import discover
from tests.hostilehelpers import git, init_repo

_spec = importlib.util.spec_from_file_location("kill_saves", Path(__file__).parent.parent / "scripts" / "kill_saves.py")
kill_saves = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kill_saves)


@pytest.mark.slow
def test_sigkill_during_large_saves(tmp_path: Path) -> None:
    stats = kill_saves.run_kills(kills=15, mb=3, seed=7, base=tmp_path)
    assert stats["kills"] == 15
    bad = ("torn", "missing", "head_torn", "not_swept", "index_reverts_commit", "fsck_errors")
    assert not any(stats[key] for key in bad), (stats["events"], {key: stats[key] for key in bad}, stats)


def test_next_start_sweeps_old_leftovers_and_keeps_fresh_ones(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "memory", {"MEMORY.md": "# M\n", "notes/a.md": "- a\n"})
    old = [
        root / "notes" / ".amr-tmp-a.md-0123456789ab",
        root / ".amr-tmp-MEMORY.md-ffffffffffff",
        root / ".git" / "amr-index-0123456789ab",
        root / ".git" / "amr-index-old-0123456789ab",
    ]
    fresh = root / "notes" / ".amr-tmp-a.md-aaaaaaaaaaaa"  # another amr process may be writing it now
    for p in [*old, fresh]:
        p.write_bytes(b"half a save")
    for p in old:
        os.utime(p, (time.time() - 3600, time.time() - 3600))
    lock = root / ".git" / "index.lock"
    lock.write_bytes(b"")  # a save may be under way: nothing is swept, and a lock never is
    Session(discover([root])).load()
    assert all(p.exists() for p in old) and lock.exists()
    lock.unlink()
    s = Session(discover([root]))
    s.load()
    assert [p for p in old if p.exists()] == []
    assert fresh.exists()
    assert ".amr-tmp-a.md-aaaaaaaaaaaa" not in " ".join(s.files("memory"))


def _crash(script: str, *args: str) -> None:
    """Run ``script`` in a process that kills itself (exit 9) at the point it names."""
    res = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)},
    )
    assert res.returncode == 9, res.stderr


def _person_removes_the_stale_lock(root: Path) -> None:
    lock = root / ".git" / "index.lock"
    assert lock.exists()  # stale: reported by amr, never deleted by it
    lock.unlink()  # the person does


CRASH = """
import os, sys
from amr_tui.git import GitRepo, gate, indexlock
where = sys.argv[1]
if where == "before-ref":
    gate._update_ref = lambda *a, **k: os._exit(9)
else:
    indexlock.IndexLock.install = lambda self: os._exit(9)
r = GitRepo(sys.argv[2])
head = r.head()
r.write_files([gate.Change("notes.md", b"- a fact\\n", b"- the user's edit\\n", head)], "user edit")
"""


@pytest.mark.parametrize("where", ["before-ref", "after-ref"])
def test_crash_next_to_the_ref_update_never_stages_a_revert(tmp_path: Path, where: str) -> None:
    root = init_repo(tmp_path / "memory", {"MEMORY.md": "# M\n", "notes.md": "- a fact\n"})
    head = git(root, "rev-parse", "HEAD").strip()
    _crash(CRASH, where, str(root))
    assert (root / "notes.md").read_bytes() == b"- the user's edit\n"
    _person_removes_the_stale_lock(root)
    staged = git(root, "cat-file", "blob", ":notes.md")
    assert staged == "- the user's edit\n"  # never the old text staged over a new commit
    moved = git(root, "rev-parse", "HEAD").strip() != head
    assert moved == (where == "after-ref")
    if not moved:  # the edit is staged, not lost: an agent's commit would carry it, amr saves it
        r = GitRepo(root)
        r.write_files([Change("notes.md", b"- the user's edit\n", b"- the user's edit, again\n", r.head())], "again")
        assert r.status().is_clean and r.read_blob_or_none("HEAD", "notes.md") == b"- the user's edit, again\n"
    else:
        assert GitRepo(root).status().is_clean


SYNC_CRASH = """
import os, sys
from amr_tui.git import GitRepo, gate, indexlock, merging
where, root, old, new = sys.argv[1:5]
if where == "before-ref":
    merging._cas = gate._update_ref = lambda *a, **k: os._exit(9)
else:
    indexlock.IndexLock.install = lambda self: os._exit(9)
merging.advance_branch(GitRepo(root), "main", old, new, "merge origin/main")
"""


@pytest.mark.parametrize("where", ["before-ref", "after-ref"])
def test_sync_crash_next_to_the_ref_update_never_stages_a_revert(tmp_path: Path, where: str) -> None:
    """Sync moves the branch to a merge commit: a crash on either side of the ref update leaves
    the merged text staged (or committed), never the old text staged over the new commit."""
    root = init_repo(tmp_path / "memory", {"MEMORY.md": "# M\n", "notes.md": "- a fact\n"})
    old = git(root, "rev-parse", "HEAD").strip()
    blob = (
        subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=root,
            input=b"- a fact\n- the agent's fact\n",
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    tree = (
        subprocess.run(
            ["git", "mktree"],
            cwd=root,
            capture_output=True,
            check=True,
            input=(git(root, "ls-tree", "HEAD", "MEMORY.md") + f"100644 blob {blob}\tnotes.md\n").encode(),
        )
        .stdout.decode()
        .strip()
    )
    new = git(root, "commit-tree", tree, "-p", old, "-m", "the agent's fact").strip()
    _crash(SYNC_CRASH, where, str(root), old, new)
    assert (root / "notes.md").read_bytes() == b"- a fact\n- the agent's fact\n"
    _person_removes_the_stale_lock(root)
    assert git(root, "cat-file", "blob", ":notes.md") == "- a fact\n- the agent's fact\n"
    moved = git(root, "rev-parse", "HEAD").strip() == new
    assert moved == (where == "after-ref")
    assert GitRepo(root).status().is_clean == moved  # not moved: the merge staged, as if by hand
