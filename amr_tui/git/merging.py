"""Merging two commits with amr's merge driver, and moving a branch together with its work tree.

:func:`merge_commits` runs ``git merge-tree --write-tree``: a real merge (rename detection,
criss-cross bases) that writes objects but touches neither the work tree nor the index, so an
agent working in the same clone is never disturbed and a conflict never leaves a half-merged
repository behind. ``merge=amr`` files go through amr's entry-aware driver; any other driver a
repo names gets git's own text merge (see :mod:`amr_tui.git.mergedriver`).

:func:`advance_branch` then moves the branch from the commit the merge started on to the new one,
and brings the index and work tree along (``read-tree -m -u``), all while holding ``index.lock``
the way git does: an agent's ``git add``/``git commit`` waits a moment, and a file an agent
changed but did not commit makes it refuse (:class:`WorktreeBusyError`) instead of overwriting it.
The ref update is a compare-and-swap, so a commit made meanwhile is never lost.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from amr_tui.core.merge.three_way import merge3
from amr_tui.git import history
from amr_tui.git.commit import _update_index
from amr_tui.git.errors import GitError, OperationInProgressError, RepoStateError
from amr_tui.git.gate import advance
from amr_tui.git.handle import RepoHandle, check_ref, swap_ref
from amr_tui.git.indexlock import IndexLock
from amr_tui.git.journal import Journal
from amr_tui.git.mergedriver import merge_drivers_for_merging
from amr_tui.git.overrides import AMR_MERGE_DRIVER as AMR_DRIVER
from amr_tui.git.runner import GitRunner, end_of_options
from amr_tui.git.worktree import normalize_rel


class WorktreeBusyError(RepoStateError):
    """The work tree holds uncommitted changes to files the merge would change; nothing changed."""

    def __init__(self, detail: str):
        super().__init__(
            "Files the merge would update have uncommitted changes (an agent may be writing). "
            "Nothing was changed; sync again once they are committed." + (f" git said: {detail}" if detail else "")
        )
        self.detail = detail


@dataclass(frozen=True)
class ConflictedPath:
    """A path git could not merge. ``stages``: 1 base, 2 ours, 3 theirs -> ``(mode, oid)``;
    a missing stage means the file does not exist on that side (deleted, or added on one side)."""

    path: str
    stages: dict[int, tuple[str, str]]
    messages: tuple[str, ...] = ()


@dataclass(frozen=True)
class TreeMerge:
    ours: str
    theirs: str
    tree: str
    conflicts: tuple[ConflictedPath, ...] = field(default=())

    @property
    def clean(self) -> bool:
        return not self.conflicts


def merging_runner(repo: RepoHandle, amr_command: str | None = None) -> GitRunner:
    base = repo.runner
    return GitRunner(
        base.cwd,
        env=base.env,
        config=base.config,
        merge_drivers=merge_drivers_for_merging(base, amr_command),
        timeout=base.timeout,
        lock_timeout=base.lock_timeout,
    )


merge_bases = history.merge_bases  # re-exported: the sync passes the bases it found to merge_commits


def deferred_runner(repo: RepoHandle) -> GitRunner:
    """The runner :func:`merge_commits` merges with in this process (amr's driver deferred); one
    can be made once and handed to several merges of one sync."""
    return merging_runner(repo, _DEFERRED)


def merge_commits(
    repo: RepoHandle,
    ours: str,
    theirs: str,
    *,
    amr_command: str | None = None,
    bases: list[str] | None = None,
    runner: GitRunner | None = None,
) -> TreeMerge:
    """Merge commit ``theirs`` into ``ours`` (both oids) without touching the work tree.

    With one merge base, amr's driver runs in this process (:func:`_merge_in_process`: the same
    merge on the same three blobs, without starting a Python process per file, so a sync's merge
    is quick enough to win the race with other clones' pushes); otherwise (criss-cross merges,
    whose virtual bases git builds with the driver too, or ``amr_command`` given) git runs it.
    ``bases`` (:func:`merge_bases`) and ``runner`` (:func:`deferred_runner`), when the caller
    has them, save a git call or four."""
    if amr_command is None:
        if bases is None:
            bases = merge_bases(repo, ours, theirs)
        if len(bases) == 1:
            fast = _merge_in_process(repo, ours, theirs, runner)
            if fast is not None:
                return fast
    runner = merging_runner(repo, amr_command)
    tree, conflicts = _run_merge_tree(runner, ours, theirs)
    return TreeMerge(ours, theirs, tree, conflicts)


_DEFERRED = "exit 1"  # amr's driver during an in-process merge: git leaves the three stages to amr
IN_PROCESS_MAX_BYTES = 1 << 20  # larger files are merged by the driver process, as before


def _merge_in_process(repo: RepoHandle, ours: str, theirs: str, runner: GitRunner | None = None) -> TreeMerge | None:
    """``git merge-tree`` with amr's driver deferred (it marks its files conflicted), then amr's
    merge of each such file here, exactly as ``amr merge-driver %O %A %B`` would have done it.
    None when git reported anything for those files but a plain content (or add/add) merge."""
    runner = runner or deferred_runner(repo)
    tree, conflicts = _run_merge_tree(runner, ours, theirs)
    if not conflicts:
        return TreeMerge(ours, theirs, tree)
    attrs = _merge_attributes(repo, [cp.path for cp in conflicts])
    ours_driver = [cp for cp in conflicts if attrs.get(cp.path) == AMR_DRIVER]
    if not ours_driver:
        return TreeMerge(ours, theirs, tree, conflicts)
    for cp in ours_driver:
        modes = {mode for mode, _oid in cp.stages.values()}
        plain = {
            f"Auto-merging {cp.path}",
            f"CONFLICT (content): Merge conflict in {cp.path}",
            f"CONFLICT (add/add): Merge conflict in {cp.path}",
        }
        if (
            2 not in cp.stages
            or 3 not in cp.stages
            or len(modes) != 1
            or not modes <= {"100644", "100755"}
            or not set(cp.messages) <= plain
        ):
            return None  # a rename, a mode change, a delete...: git runs the driver, as before
    blobs = _read_blobs(repo, {oid for cp in ours_driver for _mode, oid in cp.stages.values()})
    if any(len(data) > IN_PROCESS_MAX_BYTES for data in blobs.values()):
        return None  # a big file: merged in git's driver process, off this one's threads
    changes: dict[str, bytes | None] = {}
    still: set[str] = set()
    for cp in ours_driver:
        base = blobs[cp.stages[1][1]] if 1 in cp.stages else b""
        result = merge3(base, blobs[cp.stages[2][1]], blobs[cp.stages[3][1]], cp.path)
        changes[cp.path] = result.merged  # what the driver writes: the merge, markers if it conflicts
        if not result.clean:
            still.add(cp.path)
    tree = tree_with_files(repo, tree, changes)
    left = tuple(cp for cp in conflicts if cp.path in still or attrs.get(cp.path) != AMR_DRIVER)
    return TreeMerge(ours, theirs, tree, left)


def _merge_attributes(repo: RepoHandle, paths: list[str]) -> dict[str, str]:
    """path -> the value of its ``merge`` attribute (as git's merge saw it)."""
    out = repo.runner.run(["check-attr", "-z", "merge", "--", *paths]).stdout.split(b"\0")
    attrs: dict[str, str] = {}
    for i in range(0, len(out) - 2, 3):
        attrs[out[i].decode("utf-8", "surrogateescape")] = out[i + 2].decode("utf-8", "surrogateescape")
    return attrs


def _read_blobs(repo: RepoHandle, oids: set[str]) -> dict[str, bytes]:
    order = sorted(oids)
    out = repo.runner.run(["cat-file", "--batch"], input="".join(o + "\n" for o in order).encode()).stdout
    blobs: dict[str, bytes] = {}
    pos = 0
    for oid in order:
        end = out.index(b"\n", pos)
        fields = out[pos:end].split(b" ")
        if len(fields) != 3 or fields[1] != b"blob":
            raise GitError(1, "", ["cat-file", "--batch"], message=f"{oid} is not a blob")
        size = int(fields[2])
        blobs[oid] = out[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return blobs


def _run_merge_tree(runner: GitRunner, ours: str, theirs: str) -> tuple[str, tuple[ConflictedPath, ...]]:
    """``git merge-tree --write-tree`` of ``ours`` and ``theirs``: the merged tree and its conflicted paths."""
    res = runner.run(
        ["merge-tree", "--write-tree", "-z", "--allow-unrelated-histories", *end_of_options(ours, theirs)],
        ok=(0, 1),
        write=True,
    )
    tree, conflicts = _parse_merge_tree(res.stdout)
    if res.returncode == 1 and not conflicts:
        raise GitError(1, res.stderr, res.args, message="git merge-tree reported a conflict it did not name")
    return tree, conflicts


def _parse_merge_tree(out: bytes) -> tuple[str, tuple[ConflictedPath, ...]]:
    records = out.split(b"\0")
    tree = records[0].decode().strip()
    stages: dict[str, dict[int, tuple[str, str]]] = {}
    i = 1
    while i < len(records) and records[i]:
        meta, _, name = records[i].partition(b"\t")
        mode, oid, stage = meta.decode().split(" ")
        stages.setdefault(name.decode("utf-8", "surrogateescape"), {})[int(stage)] = (mode, oid)
        i += 1
    i += 1
    messages: dict[str, list[str]] = {}
    while i < len(records) and records[i]:
        try:
            count = int(records[i])
        except ValueError:
            break
        paths = [p.decode("utf-8", "surrogateescape") for p in records[i + 1 : i + 1 + count]]
        text = records[i + 2 + count].decode("utf-8", "replace") if i + 2 + count < len(records) else ""
        for p in paths:
            messages.setdefault(p, []).append(text.strip())
        i += 3 + count
    return tree, tuple(ConflictedPath(p, s, tuple(messages.get(p, ()))) for p, s in sorted(stages.items()))


def commit_tree(
    repo: RepoHandle, tree: str, parents: list[str], message: str, env: Mapping[str, str] | None = None
) -> str:
    args = ["commit-tree", "--no-gpg-sign"]
    for p in parents:
        args += ["-p", p]
    text = message.strip() + "\n"
    return repo.runner.text([*args, *end_of_options(tree)], input=text.encode(), env=env, write=True).strip()


def tree_with_files(repo: RepoHandle, tree: str, changes: Mapping[str, bytes | None]) -> str:
    """``tree`` with some files replaced (bytes) or removed (None); regular files, mode 100644
    unless the path exists with another regular mode."""
    zero = repo.zero_oid()
    existing = _tree_modes(repo, tree, list(changes))
    records: list[tuple[str, str, str]] = []
    for path, data in changes.items():
        rel = normalize_rel(path)
        if data is None:
            records.append(("0", zero, rel))
            continue
        oid = repo.runner.text(["hash-object", "-w", "--no-filters", "--stdin"], input=data, write=True).strip()
        mode = existing.get(rel, "100644")
        records.append((mode if mode in ("100644", "100755") else "100644", oid, rel))
    with tempfile.TemporaryDirectory(prefix="amr-index-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        repo.runner.run(["read-tree", *end_of_options(tree)], env=env, write=True)
        _update_index(repo, records, zero, env["GIT_INDEX_FILE"])
        return repo.runner.text(["write-tree"], env=env, write=True).strip()


def _tree_modes(repo: RepoHandle, tree: str, paths: list[str]) -> dict[str, str]:
    if not paths:
        return {}
    out = repo.runner.run(
        ["ls-tree", "-z", "--full-tree", *end_of_options(tree), "--", *[normalize_rel(p) for p in paths]]
    ).stdout
    modes: dict[str, str] = {}
    for rec in out.split(b"\0"):
        meta, _, name = rec.partition(b"\t")
        if meta:
            modes[name.decode("utf-8", "surrogateescape")] = meta.decode().split(" ")[0]
    return modes


def empty_tree(repo: RepoHandle) -> str:
    return repo.runner.text(["mktree", "-z"], input=b"", write=True).strip()


def advance_branch(
    repo: RepoHandle,
    branch: str,
    old: str | None,
    new: str,
    message: str,
    *,
    held: IndexLock | None = None,
    journal: Journal | None = None,
) -> None:
    """Move ``refs/heads/<branch>`` from ``old`` to ``new`` (compare-and-swap), updating the index
    and work tree when the branch is checked out.

    ``held``: an ``index.lock`` the caller already holds (from :func:`amr_tui.git.gate.cas_attempts`
    after lost races); the move happens under it and leaves releasing it to the caller.

    Raises RefMovedError (the branch is no longer at ``old``; nothing changed),
    WorktreeBusyError, OperationInProgressError, LockedError.
    """
    repo.check_branch_name(branch)
    ref = f"refs/heads/{branch}"
    subject = message.strip().splitlines()[0][:200] if message.strip() else "amr: sync"
    if repo.current_branch() != branch:
        check_ref(repo, ref, old)
        _cas(repo, ref, new, old, subject)
        return
    op = repo.operation_in_progress()
    if op:
        raise OperationInProgressError(op)
    files = _regular_changes(repo, old, new) if old else None
    if files is not None:
        # Through the write gate: each file is brought forward by merging, so an agent's
        # uncommitted edit stays in the work tree instead of making the sync "busy".
        advance(repo, branch, old, new, message or "amr: sync", files, held=held, journal=journal)
        return
    start = old or empty_tree(repo)
    lock_cm = contextlib.nullcontext(held) if held is not None else IndexLock(repo.git_dir, repo.runner.lock_timeout)
    with lock_cm as lock:
        assert lock is not None
        check_ref(repo, ref, old)
        staged = lock.staged_copy()
        env = {"GIT_INDEX_FILE": str(staged)}
        # An index entry staged by plumbing has no stat data: refresh it, or read-tree would call
        # an unchanged file "not uptodate". (Exit 1 only means some file really is modified.)
        repo.runner.run(["update-index", "-q", "--refresh"], env=env, write=True, ok=(0, 1))
        res = repo.runner.run(["read-tree", "-m", "-u", *end_of_options(start, new)], env=env, write=True, check=False)
        if res.returncode != 0:
            raise WorktreeBusyError(" ".join(res.stderr.strip().splitlines()[:3])[:300])
        try:
            lock.swap_in()  # before the branch moves: a crash can leave the merge staged, never reverted
            _cas(repo, ref, new, old, subject)
        except BaseException:
            _put_worktree_back(repo, lock, staged, new, start)
            lock.swap_back()
            raise
        lock.install()


def _regular_changes(repo: RepoHandle, old: str, new: str) -> dict[str, tuple[bytes | None, bytes | None]] | None:
    """path -> (bytes at old, bytes at new) for every file that differs, or None when any change
    is not a plain file (a symlink, a submodule, a mode change): git's own read-tree does those."""
    files: dict[str, tuple[bytes | None, bytes | None]] = {}
    for change in history.tree_changes(repo, old, new):
        mode_a, mode_b, name = change.old_mode, change.new_mode, change.path
        if {mode_a, mode_b} - {"000000", "100644", "100755"} or "000000" not in (mode_a, mode_b) and mode_a != mode_b:
            return None
        files[name] = (repo.read_blob_or_none(old, name), repo.read_blob_or_none(new, name))
        if len(files) > 2000:
            return None  # a huge merge: git's read-tree is faster, and refuses as before
    return files


def _put_worktree_back(repo: RepoHandle, lock: IndexLock, staged: Path, new: str, start: str) -> None:
    """The branch did not move: the work tree goes back from ``new`` to ``start``, through the
    staged index at ``new`` (or, once it was swapped in, a scratch copy: ``index.lock`` is ours)."""
    scratch = staged if staged.exists() else lock.scratch_copy()
    try:
        repo.runner.run(
            ["read-tree", "-m", "-u", *end_of_options(new, start)],
            env={"GIT_INDEX_FILE": str(scratch)},
            write=True,
            check=False,
        )
    finally:
        scratch.unlink(missing_ok=True)


def _cas(repo: RepoHandle, ref: str, new: str, old: str | None, subject: str) -> None:
    """The compare-and-swap of a sync's ref move (a module-level name: crash tests replace it)."""
    swap_ref(repo, ref, new, old, f"amr: {subject}")
