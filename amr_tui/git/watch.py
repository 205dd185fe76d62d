"""A cheap fingerprint of a repo's git state, for pollers that must not run git every second.

``state_signature`` stats the handful of files git rewrites when HEAD moves, the index
changes, refs are packed or fetched, or an operation (merge, rebase, ...) starts or ends.
Equal signatures mean ``git status`` would answer as before for the index and HEAD; work-tree
edits are the caller's to notice (it stats the files it shows). ``watch_signature`` is the same
for a list that shows refs (dreaming runs, the activity since the review mark, forgotten facts).
Reading a few small files under ``.git`` is all it does: no git process, no lock, nothing written.
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


def _refs_under(common: Path, ref: str) -> list[tuple[str, bytes, tuple[int, int, int] | None]]:
    """``(name, content, stat)`` of the loose ref file ``ref``, or of every one under the folder
    ``ref`` (refs/heads/dreams): a ref made, moved or deleted changes the list."""
    if not ref.startswith("refs/") or ".." in ref.split("/"):
        return []
    top = common / ref
    out: list[tuple[str, bytes, tuple[int, int, int] | None]] = []
    todo = [top]
    while todo:
        path = todo.pop()
        try:
            if path.is_dir() and not path.is_symlink():
                todo.extend(sorted(path.iterdir(), reverse=True))
                continue
            with open(path, "rb") as fh:
                oid = fh.read(_MAX_HEAD_BYTES)
        except OSError:
            continue
        out.append((path.relative_to(common).as_posix(), oid, _stat(path)))
    return out


def watch_signature(
    repo: RepoHandle, *, head: bool = True, refs: tuple[str, ...] = (), files: tuple[str, ...] = ()
) -> tuple[object, ...]:
    """A signature that changes whenever HEAD moves (``head``), a ref under ``refs`` (folders or
    single refs, e.g. ``refs/heads/dreams``) is made, moved or deleted (loose files, and
    packed-refs), or one of ``files`` in the git dir changes: what a list showing those follows.
    A few stats and small reads under ``.git``; no git process, nothing written."""
    common = common_dir(repo.git_dir)
    return (
        head_signature(repo) if head else None,
        tuple(tuple(_refs_under(common, ref)) for ref in refs),
        _stat(common / "packed-refs") if refs else None,
        tuple(_stat(repo.git_dir / name) for name in files),
    )
