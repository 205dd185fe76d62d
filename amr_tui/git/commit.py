"""Compare-and-swap commits and the editor's save, using plumbing only.

No hooks run (plumbing runs none, and ``core.hooksPath=/dev/null`` covers ``reference-transaction``),
no ``git add -A``, and no file other than the ones named is touched.

One ``commit_changes`` call, in order:

1. refuse early: operation in progress, detached HEAD, missing identity, branch already moved
   (``RefMovedError`` before anything is written);
2. outside any lock: write the blobs (``hash-object -w --no-filters``), build the tree in a
   throwaway ``GIT_INDEX_FILE`` seeded from ``expected_head`` and ``commit-tree -p expected_head``.
   Nothing the user sees has changed yet;
3. if the branch is checked out, take ``index.lock`` (waiting while an agent's git holds it; see
   :mod:`amr_tui.git.indexlock`) and, while holding it: check the branch still points at
   ``expected_head``; check each work-tree file and index entry holds nothing but the expected
   version, the new content or what the caller allows (else ``DirtyFileError``); write the
   work-tree files atomically (the user's text is on disk from here on); stage the new blobs in a
   copy of the index;
4. the staged index copy replaces the index (still under the lock), then
   ``update-ref refs/heads/<branch> NEW OLD``, the compare-and-swap; on success the lock is
   released and ``git status`` is clean. On failure (an agent's commit that was already past its
   index step moved the branch) the old index and the work-tree files are put back as they were
   and ``RefMovedError`` is raised; the caller merges and retries. A crash between the two steps
   leaves the user's edit staged (and a stale lock), never an index that undoes a commit.

Writes to the checked-out branch go through the write gate (:mod:`amr_tui.git.gate`), which
builds on these helpers; ``commit_changes`` stays for branches that are not checked out, the
first commit of a new repo and the demo's history.

Holding ``index.lock`` across 3-4 means an agent's ``git add``/``git commit`` in the same work tree
can neither slip its staged change under amr's check nor commit amr's half-done state; they see
a lock for a few milliseconds, as with any concurrent git process. A branch only ever moves from
the exact commit the new one was built on, so an agent's commit is never dropped.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Collection, Mapping
from pathlib import Path

from amr_tui.git.errors import (
    DetachedHeadError,
    DirtyFileError,
    GitError,
    NoIdentityError,
    OperationInProgressError,
)
from amr_tui.git.handle import RepoHandle, check_ref, swap_ref
from amr_tui.git.indexlock import IndexLock
from amr_tui.git.worktree import (
    UnsafePathError,
    atomic_write,
    normalize_rel,
    read_file_or_none,
    remove_file,
)

_REGULAR_MODES = ("100644", "100755")


def blob_oid(data: bytes, object_format: str = "sha1") -> str:
    """The object id git gives a blob with this content (no filters)."""
    h = hashlib.sha256() if object_format == "sha256" else hashlib.sha1()
    h.update(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


def _clean_message(message: str) -> str:
    if "\0" in message:
        raise ValueError("commit message contains a NUL byte")
    lines = [line.rstrip() for line in message.strip().splitlines()]
    if not lines or not lines[0]:
        raise ValueError("commit message is empty")
    return "\n".join(lines) + "\n"


def _update_index(
    repo: RepoHandle, records: list[tuple[str, str, str]], zero: str, index: str, env: Mapping[str, str] | None = None
) -> None:
    """Stages ``records`` (mode, oid, path; mode "0" removes the path) in the index file ``index``
    (``update-index -z --index-info``)."""
    out = bytearray()
    for mode, oid, path in records:
        if mode == "0":
            out += f"0 {zero}\t".encode()
        else:
            out += f"{mode} {oid}\t".encode()
        out += path.encode("utf-8", "surrogateescape") + b"\0"
    repo.runner.run(
        ["update-index", "-z", "--index-info"],
        input=bytes(out),
        env={**(env or {}), "GIT_INDEX_FILE": index},
        write=True,
    )


def _preflight(repo: RepoHandle, branch: str | None, env: Mapping[str, str] | None) -> tuple[str, bool]:
    """Common refusals. Returns ``(branch, branch_is_checked_out)``."""
    op = repo.operation_in_progress()
    if op:
        raise OperationInProgressError(op)
    checked_out = repo.current_branch()
    if branch is None:
        if checked_out is None:
            raise DetachedHeadError()
        branch = checked_out
    if repo.identity(env) is None:
        raise NoIdentityError(str(repo.root))
    return branch, branch == checked_out


def commit_changes(
    repo: RepoHandle,
    changes: Mapping[str, bytes | None],
    message: str,
    expected_head: str | None,
    branch: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    allow_in_worktree: Mapping[str, Collection[bytes | None]] | None = None,
    allow_empty: bool = False,
) -> str:
    """Commit ``changes`` (path -> new bytes, or None to delete) on top of ``expected_head``.

    ``branch`` defaults to the checked-out branch; the work tree and index are updated only when
    the branch is checked out. ``expected_head`` None means the branch must not exist yet (first
    commit). Returns the new commit's oid, or ``expected_head`` when the changes leave the tree as
    it was (unless ``allow_empty``). ``env`` is passed to ``commit-tree`` (author, committer,
    dates). A work-tree file or index entry may hold the ``expected_head`` version or the new
    content, plus whatever ``allow_in_worktree[path]`` lists; anything else is someone else's
    uncommitted edit.

    Raises RefMovedError (``.current`` is the branch's new tip; the work tree is as it was),
    DirtyFileError, OperationInProgressError, DetachedHeadError, NoIdentityError, LockedError
    (nothing was written), UnsafePathError, GitError.
    """
    norm: dict[str, bytes | None] = {}
    for path, data in changes.items():
        rel = normalize_rel(path)
        if rel in norm:
            raise ValueError(f"{rel} is named twice")
        if data is not None and not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"content for {rel} must be bytes or None")
        norm[rel] = None if data is None else bytes(data)
    if not norm and not allow_empty:
        raise ValueError("no changes to commit")
    text = _clean_message(message)
    branch, on_worktree = _preflight(repo, branch, env)
    repo.check_branch_name(branch)
    ref = f"refs/heads/{branch}"
    check_ref(repo, ref, expected_head)

    fmt = repo.object_format
    zero = repo.zero_oid()
    entries = repo.tree_entries(expected_head, list(norm)) if expected_head else {}
    for rel, (mode, _oid) in entries.items():
        if mode not in _REGULAR_MODES:
            raise UnsafePathError(f"{rel} is not a regular file in git (mode {mode}); amr will not change it")
    head_oids = {rel: entries[rel][1] if rel in entries else None for rel in norm}
    new_oids = {rel: (blob_oid(data, fmt) if data is not None else None) for rel, data in norm.items()}

    # Blobs, tree and commit: nothing visible changes yet.
    records: list[tuple[str, str, str]] = []
    for rel, data in norm.items():
        if data is None:
            records.append(("0", zero, rel))
            continue
        oid = repo.runner.text(["hash-object", "-w", "--no-filters", "--stdin"], input=data, write=True).strip()
        if oid != new_oids[rel]:
            raise GitError(0, f"unexpected blob id {oid}", ["hash-object"])
        records.append((entries[rel][0] if rel in entries else "100644", oid, rel))
    unchanged = bool(expected_head) and all(new_oids[r] == head_oids[r] for r in norm) and not allow_empty
    new = expected_head if unchanged else _make_commit(repo, records, zero, text, expected_head, env)
    assert new is not None  # unchanged implies an expected_head

    if not on_worktree:
        if not unchanged:
            _update_ref(repo, ref, new, expected_head, text)
        return new

    allowed = {rel: {data, *(allow_in_worktree or {}).get(rel, ())} for rel, data in norm.items()}
    with IndexLock(repo.git_dir, repo.runner.lock_timeout) as lock:
        check_ref(repo, ref, expected_head)
        before = _check_worktree(repo, norm, head_oids, allowed, fmt)
        _write_worktree(repo, norm, before)
        staged = lock.staged_copy()
        try:
            _update_index(repo, records, zero, str(staged))
            lock.swap_in()  # before the branch moves: a crash can leave the edit staged, never reverted
            if not unchanged:
                _update_ref(repo, ref, new, expected_head, text)
        except BaseException:
            lock.swap_back()
            _restore_worktree(repo, norm, before)
            raise
        lock.install()
    return new


def _make_commit(
    repo: RepoHandle,
    records: list[tuple[str, str, str]],
    zero: str,
    text: str,
    parent: str | None,
    env: Mapping[str, str] | None,
) -> str:
    with tempfile.TemporaryDirectory(prefix="amr-index-") as tmp:
        index = str(Path(tmp) / "index")
        idx_env = {**(env or {}), "GIT_INDEX_FILE": index}
        if parent:
            repo.runner.run(["read-tree", parent], env=idx_env, write=True)
        _update_index(repo, records, zero, index, env)
        tree = repo.runner.text(["write-tree"], env=idx_env, write=True).strip()
    parents = ["-p", parent] if parent else []
    return repo.runner.text(
        ["commit-tree", "--no-gpg-sign", *parents, tree], input=text.encode(), env=env, write=True
    ).strip()


def _update_ref(repo: RepoHandle, ref: str, new: str, expected: str | None, text: str) -> None:
    """The compare-and-swap (:func:`~amr_tui.git.handle.swap_ref`): move ``ref`` to ``new`` only if
    it still points at ``expected``; the reflog says ``amr: <subject of text>``."""
    swap_ref(repo, ref, new, expected, f"amr: {text.splitlines()[0][:200]}")


def _check_worktree(
    repo: RepoHandle,
    norm: Mapping[str, bytes | None],
    head_oids: Mapping[str, str | None],
    allowed: Mapping[str, set[bytes | None]],
    fmt: str,
) -> dict[str, bytes | None]:
    """Refuse files or index entries holding someone else's edit; return current file contents."""
    before: dict[str, bytes | None] = {}
    for rel in norm:
        ok_oids = {head_oids[rel]} | {blob_oid(x, fmt) if x is not None else None for x in allowed[rel]}
        idx = repo.index_entry(rel)
        if idx is not None and idx[2] != 0:
            raise DirtyFileError(rel)
        if (idx[1] if idx else None) not in ok_oids:
            raise DirtyFileError(rel)
        cur = read_file_or_none(repo.root, rel, max_bytes=None)
        if (blob_oid(cur, fmt) if cur is not None else None) not in ok_oids:
            raise DirtyFileError(rel)
        before[rel] = cur
    return before


def _write_worktree(repo: RepoHandle, norm: Mapping[str, bytes | None], before: Mapping[str, bytes | None]) -> None:
    for rel, data in norm.items():
        if data is None:
            remove_file(repo.root, rel)
        elif before.get(rel) != data:
            atomic_write(repo.root, rel, data)


def _restore_worktree(repo: RepoHandle, norm: Mapping[str, bytes | None], before: Mapping[str, bytes | None]) -> None:
    """Put files back as they were, where they still hold exactly what amr wrote."""
    for rel, wrote in norm.items():
        if wrote == before.get(rel):
            continue
        if read_file_or_none(repo.root, rel, max_bytes=None) != wrote:
            continue
        old = before.get(rel)
        if old is None:
            remove_file(repo.root, rel)
        else:
            atomic_write(repo.root, rel, old)
