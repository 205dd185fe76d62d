"""Compare-and-swap commits and the editor's save, using plumbing only.

No hooks run (plumbing runs none, and ``core.hooksPath=/dev/null`` covers ``reference-transaction``),
no ``git add -A``, and no file other than the ones named is touched.

Order of one ``commit_changes`` call (see :func:`commit_changes`):

1. refuse early: operation in progress, detached HEAD, missing identity, branch already moved
   (``RefMovedError`` before anything is written), someone else's uncommitted edit;
2. write the blobs (``hash-object -w --no-filters``) and build the tree in a throwaway
   ``GIT_INDEX_FILE`` seeded from ``expected_head``; ``commit-tree -p expected_head``;
3. if the branch is checked out: write the work-tree files atomically, then stage the same blobs in
   the real index (retrying ``index.lock``). Doing this *before* the ref moves means the user's text
   is on disk before anything else happens, and an agent that runs plain ``git commit`` in the same
   work tree at any moment commits our version of the file instead of silently reverting it;
4. ``update-ref refs/heads/<branch> NEW OLD``: the compare-and-swap. If the ref moved, the files
   and index entries written in step 3 are put back to what the *new* branch tip holds (only where
   they still hold what amr wrote) and ``RefMovedError`` is raised, so the caller can merge and
   retry from a clean state. An agent's commit is never overwritten: a ref only ever moves from
   the exact commit the new one was built on.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from amr_tui.git.errors import (
    ConflictError,
    DetachedHeadError,
    DirtyFileError,
    GitError,
    LockedError,
    NoIdentityError,
    OperationInProgressError,
    RefMovedError,
)
from amr_tui.git.worktree import (
    UnsafePathError,
    atomic_write,
    normalize_rel,
    read_file_or_none,
    remove_file,
)

if TYPE_CHECKING:
    from amr_tui.git.repo import GitRepo

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


def _object_format(repo: GitRepo) -> str:
    fmt = getattr(repo, "_object_format", None)
    if fmt is None:
        fmt = repo.runner.text(["rev-parse", "--show-object-format"]).strip() or "sha1"
        repo._object_format = fmt
    return fmt


def _index_info(records: list[tuple[str, str, str]], zero: str) -> bytes:
    """``update-index -z --index-info`` input; mode "0" removes the path."""
    out = bytearray()
    for mode, oid, path in records:
        if mode == "0":
            out += f"0 {zero}\t".encode()
        else:
            out += f"{mode} {oid}\t".encode()
        out += path.encode("utf-8", "surrogateescape") + b"\0"
    return bytes(out)


def _preflight(repo: GitRepo, branch: str | None, env: Mapping[str, str] | None) -> tuple[str, bool]:
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
    repo: GitRepo,
    changes: Mapping[str, bytes | None],
    message: str,
    expected_head: str | None,
    branch: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    check_worktree: bool = True,
    allow_empty: bool = False,
    rollback: bool = True,
    _checked: tuple[str, bool] | None = None,
) -> str:
    """Commit ``changes`` (path -> new bytes, or None to delete) on top of ``expected_head``.

    ``branch`` defaults to the checked-out branch; the work tree and real index are updated only
    when the branch is checked out. ``expected_head`` None means the branch must not exist yet
    (first commit). Returns the new commit's oid, or ``expected_head`` when the changes leave the
    tree as it was (unless ``allow_empty``). ``env`` is passed to ``commit-tree`` (author,
    committer, dates).

    When the compare-and-swap is lost and ``rollback`` is true, the files and index entries this
    call wrote are put back to the branch tip (see :func:`restore_to_tip`) before RefMovedError.

    Raises RefMovedError (``.current`` is the branch's new tip), DirtyFileError (when
    ``check_worktree`` and a file or index entry holds something that is neither the
    ``expected_head`` version nor the new content), OperationInProgressError, DetachedHeadError,
    NoIdentityError, LockedError, UnsafePathError, GitError.
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
    if _checked is None:
        branch, on_worktree = _preflight(repo, branch, env)
        repo.check_branch_name(branch)
    else:
        branch, on_worktree = _checked
    ref = f"refs/heads/{branch}"
    current = repo.resolve(ref)
    if current != expected_head:
        raise RefMovedError(1, "", ["update-ref", ref], ref=ref, expected=expected_head, current=current)

    fmt = _object_format(repo)
    zero = "0" * (64 if fmt == "sha256" else 40)
    entries = repo.tree_entries(expected_head, list(norm)) if expected_head else {}
    for rel, (mode, _oid) in entries.items():
        if mode not in _REGULAR_MODES:
            raise UnsafePathError(f"{rel} is not a regular file in git (mode {mode}); amr will not change it")
    head_oids = {rel: entries[rel][1] if rel in entries else None for rel in norm}
    new_oids = {rel: (blob_oid(data, fmt) if data is not None else None) for rel, data in norm.items()}

    before: dict[str, bytes | None] = {}
    if on_worktree:
        for rel in norm:
            before[rel] = read_file_or_none(repo.root, rel, max_bytes=None)
            if not check_worktree:
                continue
            ok_oids = {head_oids[rel], new_oids[rel]}
            cur = before[rel]
            if (blob_oid(cur, fmt) if cur is not None else None) not in ok_oids:
                raise DirtyFileError(rel)
            idx = repo.index_entry(rel)
            if (idx[1] if idx and idx[2] == 0 else (None if idx is None else "unmerged")) not in ok_oids:
                raise DirtyFileError(rel)

    # 1. Blobs.
    records: list[tuple[str, str, str]] = []
    for rel, data in norm.items():
        if data is None:
            records.append(("0", zero, rel))
            continue
        oid = repo.runner.text(["hash-object", "-w", "--no-filters", "--stdin"], input=data, write=True).strip()
        if oid != new_oids[rel]:
            raise GitError(0, f"unexpected blob id {oid}", ["hash-object"])
        records.append((entries[rel][0] if rel in entries else "100644", oid, rel))

    # 2. Work tree, then the real index: as early as possible, so an agent's plain `git commit`
    #    from here on carries the new content rather than reverting it.
    if on_worktree:
        _write_worktree(repo, norm, before)
        repo.runner.run(["update-index", "-z", "--index-info"], input=_index_info(records, zero), write=True)

    unchanged = all(new_oids[rel] == head_oids[rel] for rel in norm)
    if unchanged and expected_head and not allow_empty:
        return expected_head

    # 3. Tree (in a throwaway index) and commit.
    with tempfile.TemporaryDirectory(prefix="amr-index-") as tmp:
        idx_env = {**(env or {}), "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        if expected_head:
            repo.runner.run(["read-tree", expected_head], env=idx_env, write=True)
        repo.runner.run(["update-index", "-z", "--index-info"], input=_index_info(records, zero),
                        env=idx_env, write=True)
        tree = repo.runner.text(["write-tree"], env=idx_env, write=True).strip()
    parents = ["-p", expected_head] if expected_head else []
    new = repo.runner.text(
        ["commit-tree", "--no-gpg-sign", *parents, tree], input=text.encode(), env=env, write=True
    ).strip()

    # 4. Compare-and-swap.
    subject = text.splitlines()[0][:200]
    try:
        repo.runner.run(
            ["update-ref", "-m", f"amr: {subject}", ref, new, expected_head or zero], write=True
        )
    except LockedError:
        raise
    except GitError as exc:
        now = repo.resolve(ref)
        if now == expected_head:
            raise
        if on_worktree and rollback:
            restore_to_tip(repo, branch, {rel: {data} for rel, data in norm.items()})
        raise RefMovedError(exc.returncode, exc.stderr, exc.argv, ref=ref, expected=expected_head,
                            current=now) from None
    return new


def _write_worktree(repo: GitRepo, norm: Mapping[str, bytes | None], before: Mapping[str, bytes | None]) -> None:
    for rel, data in norm.items():
        if data is None:
            remove_file(repo.root, rel)
        elif before.get(rel) != data:
            atomic_write(repo.root, rel, data)


def restore_to_tip(repo: GitRepo, branch: str, written: Mapping[str, set[bytes | None]]) -> None:
    """Best effort after a lost compare-and-swap: make each touched work-tree file and index entry
    match the branch tip again, but only where it still holds something amr wrote.

    ``written`` maps a path to every content amr wrote there (None = deleted). The tip is read
    again after each pass: an agent's plain ``git commit`` may have swept amr's staged content
    into its own commit meanwhile, and then that content is what the tip holds.
    """
    ref = f"refs/heads/{branch}"
    fmt = _object_format(repo)
    zero = "0" * (64 if fmt == "sha256" else 40)
    ours = {rel: set(v) for rel, v in written.items()}
    for _ in range(5):
        tip = repo.resolve(ref)
        entries = repo.tree_entries(tip, list(ours)) if tip else {}
        records: list[tuple[str, str, str]] = []
        for rel, mine in ours.items():
            tip_data = repo.read_blob_or_none(tip, rel) if rel in entries else None
            cur = read_file_or_none(repo.root, rel, max_bytes=None)
            if cur in mine and cur != tip_data:
                if tip_data is None:
                    remove_file(repo.root, rel)
                else:
                    atomic_write(repo.root, rel, tip_data)
                mine.add(tip_data)
            idx = repo.index_entry(rel)
            idx_oid = idx[1] if idx and idx[2] == 0 else None
            tip_oid = entries[rel][1] if rel in entries else None
            mine_oids = {blob_oid(x, fmt) if x is not None else None for x in mine}
            if idx_oid in mine_oids and idx_oid != tip_oid:
                records.append(entries[rel] + (rel,) if rel in entries else ("0", zero, rel))
        if records:
            repo.runner.run(["update-index", "-z", "--index-info"], input=_index_info(records, zero), write=True)
        if repo.resolve(ref) == tip:
            return


def _three_way(
    repo: GitRepo, rel: str, ours: bytes | None, base: bytes | None, theirs: bytes | None, head: str | None
) -> bytes | None:
    """Merge the user's version with HEAD's; raise ConflictError when it does not merge."""
    def conflict(merged: bytes | None) -> ConflictError:
        return ConflictError(rel, ours=ours, base=base, theirs=theirs, merged=merged, head=head)

    if theirs == base or theirs == ours:
        return ours
    if ours == base:
        return theirs
    if ours is None or theirs is None:
        raise conflict(None)  # delete on one side, edit on the other
    try:
        merged, conflicted = repo.merge_file(ours, base or b"", theirs)
    except GitError:
        raise conflict(None) from None
    if conflicted:
        raise conflict(merged)
    return merged


def save_file(
    repo: GitRepo,
    path: str,
    new_bytes: bytes | None,
    base_bytes: bytes | None,
    base_head: str | None,
    message: str,
    *,
    env: Mapping[str, str] | None = None,
    max_attempts: int = 25,
) -> str:
    """Save the editor's ``new_bytes`` for ``path`` (None deletes it) and commit it.

    ``base_bytes`` is what the user started editing from (None for a new file) and ``base_head``
    the commit HEAD was at then. If HEAD has not moved, ``new_bytes`` is committed directly;
    otherwise HEAD's version is merged three-way (base -> ours, base -> theirs) and the result is
    committed on top of the current HEAD with compare-and-swap, retrying when another writer wins
    the race. Returns the new HEAD oid.

    Raises ConflictError (nothing saved; carries ours/base/theirs/merged), DirtyFileError (the
    work-tree file or its index entry holds an edit that is neither the user's base, HEAD's
    version nor the new text), OperationInProgressError, DetachedHeadError, NoIdentityError,
    LockedError (the text is then on disk but not committed), RefMovedError after
    ``max_attempts`` lost races.
    """
    rel = normalize_rel(path)
    if new_bytes is not None:
        new_bytes = bytes(new_bytes)
    checked = _preflight(repo, None, env)
    fmt = _object_format(repo)
    written: set[bytes | None] = set()  # contents earlier attempts left in the work tree/index
    last_error: RefMovedError | None = None
    try:
        for _attempt in range(max_attempts):
            head = repo.head()
            theirs = repo.read_blob_or_none(head, rel) if head else None
            allowed = {base_bytes, theirs, new_bytes} | written
            cur = read_file_or_none(repo.root, rel, max_bytes=None)
            if cur not in allowed:
                raise DirtyFileError(rel)
            idx = repo.index_entry(rel)
            if idx is not None and idx[2] != 0:
                raise DirtyFileError(rel)
            allowed_oids = {blob_oid(x, fmt) if x is not None else None for x in allowed}
            if (idx[1] if idx else None) not in allowed_oids:
                raise DirtyFileError(rel)
            if head == base_head:
                result = new_bytes
            else:
                result = _three_way(repo, rel, new_bytes, base_bytes, theirs, head)
            try:
                # No rollback between attempts: an agent may already have committed what was
                # staged, and the next attempt merges against whatever the tip now holds.
                return commit_changes(repo, {rel: result}, message, head, None, env=env,
                                      check_worktree=False, rollback=False, _checked=checked)
            except RefMovedError as exc:
                last_error = exc
                written.add(result)
                continue
    except (ConflictError, RefMovedError):
        if written:
            restore_to_tip(repo, checked[0], {rel: written})
        raise
    assert last_error is not None
    if written:
        restore_to_tip(repo, checked[0], {rel: written})
    raise last_error
