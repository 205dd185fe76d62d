"""A cheap fingerprint of a repo's git state, for pollers that must not run git every second.

``state_signature`` stats the handful of files git rewrites when HEAD moves, the index
changes, refs are packed or fetched, or an operation (merge, rebase, ...) starts or ends.
Equal signatures mean ``git status`` would answer as before for the index and HEAD; work-tree
edits are the caller's to notice (it stats the files it shows). Reading a few small files
under ``.git`` is all it does: no git process, no lock, nothing written.
"""

from __future__ import annotations

import os
from pathlib import Path

from amr_tui.git.handle import RepoHandle

_OPERATION_FILES = ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "BISECT_LOG", "rebase-merge", "rebase-apply")
_MAX_HEAD_BYTES = 4096


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def common_dir(git_dir: Path) -> Path:
    """The repo's common git folder: ``git_dir`` itself, or the main one for a linked work tree."""
    try:
        text = (git_dir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return git_dir
    target = Path(text)
    return target if target.is_absolute() else (git_dir / target)


def head_signature(repo: RepoHandle) -> tuple[object, ...]:
    """Changes whenever HEAD may point at another commit (a commit, reset, checkout, pull)."""
    git_dir = repo.git_dir
    common = common_dir(git_dir)
    try:
        with open(git_dir / "HEAD", "rb") as fh:
            head = fh.read(_MAX_HEAD_BYTES)
    except OSError:
        return ("no HEAD",)
    ref_stat = None
    ref_oid = b""
    if head.startswith(b"ref: "):
        ref = head[5:].strip().decode("utf-8", "replace")
        if ref.startswith("refs/") and ".." not in ref.split("/"):
            ref_stat = _stat(common / ref)
            # The commit the ref names, too: two commits within one clock tick can leave the ref
            # file with the same mtime, size and (reused) inode as a look two commits ago.
            try:
                with open(common / ref, "rb") as fh:
                    ref_oid = fh.read(_MAX_HEAD_BYTES)
            except OSError:
                pass
    return (head, ref_oid, ref_stat, _stat(common / "packed-refs"))


def head_oid(repo: RepoHandle) -> str | None:
    """The commit HEAD names, read from its loose ref file (or a detached HEAD); None when the
    ref is packed, symbolic beyond one step, or unreadable (the caller then assumes it moved)."""
    git_dir = repo.git_dir
    try:
        with open(git_dir / "HEAD", "rb") as fh:
            head = fh.read(_MAX_HEAD_BYTES).strip()
        if head.startswith(b"ref: "):
            ref = head[5:].strip().decode("utf-8", "replace")
            if not ref.startswith("refs/") or ".." in ref.split("/"):
                return None
            with open(common_dir(git_dir) / ref, "rb") as fh:
                head = fh.read(_MAX_HEAD_BYTES).strip()
    except OSError:
        return None
    text = head.decode("ascii", "replace")
    return text if len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text) else None


def state_signature(repo: RepoHandle) -> tuple[object, ...]:
    """HEAD's signature plus the index, the last fetch and any operation in progress."""
    git_dir = repo.git_dir
    common = common_dir(git_dir)
    ops = tuple(_stat(git_dir / name) for name in _OPERATION_FILES)
    return (head_signature(repo), _stat(git_dir / "index"), _stat(common / "FETCH_HEAD"), ops)
