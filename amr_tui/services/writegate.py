"""The write gate: every change amr makes to a mounted memory repo goes through :func:`write`.

Callers (the editor's entry edits and file operations, forget and restore, dream accepts, the
conflict views, ``lint --fix``, the agent interface) say, per file, the bytes their change was
*based on* and the bytes they *want*. This module checks the mount may be written, hands the
change to the git half (:mod:`amr_tui.git.gate`: a three-way merge onto what is committed, a
commit that holds only this change, a compare-and-swap ref update, work-tree files brought
forward without losing anyone's bytes), re-reads the files it wrote into the session, and says
which files still hold someone else's uncommitted edit, which :func:`commit_foreign` commits on
request as a commit of its own.

It sits below the session: it takes any :class:`WriteTarget` (the app's ``Session`` is one) and
imports nothing from ``amr_tui.services`` but the workspace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from amr_tui.core.format.links import unsafe_reason
from amr_tui.core.merge.three_way import merge3
from amr_tui.core.paths import has_md_suffix
from amr_tui.git import GitRepo
from amr_tui.git.gate import Change, ForeignConflictError
from amr_tui.git.worktree import atomic_write, read_file_or_none, remove_file
from amr_tui.services.workspace import Mount

TRAILER = "Edited-with: amr"
FOREIGN_TRAILER = "Committed-with: amr (changes found uncommitted in the work tree, not made in amr)"


class Rereads(Protocol):
    """Re-reads files after they were written."""

    def reload_files(self, repo: str, paths: list[str], committed: str | None = None) -> None:
        """Re-read these files after they were written (``committed``: in this commit)."""
        ...


class WriteTarget(Protocol):
    """What the gate needs from the session it writes for: its mounts, their git, and a re-read."""

    @property
    def refusals(self) -> Mapping[str, str]:
        """repo -> why git refuses it (such a repo is mounted read-only)."""
        ...

    def mount(self, repo: str) -> Mount: ...

    def git(self, repo: str) -> GitRepo | None: ...

    @property
    def watch(self) -> Rereads:
        """What re-reads the files after a write (the session's watcher)."""
        ...


class EditRefused(Exception):
    """A write amr will not make; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Saved:
    repo: str
    path: str
    head: str | None
    message: str
    line: int = 0  # where the cursor should go
    committed: bool = True  # False: nothing changed (the change was already there) or no git
    foreign: tuple[str, ...] = ()  # files that keep someone else's uncommitted edit, out of the commit
    merged: tuple[str, ...] = ()  # files where a concurrent commit was merged in


def check_writable(session: WriteTarget, repo: str, path: str) -> None:
    """Refuse read-only mounts and paths that leave the repo, with the reason."""
    mount = session.mount(repo)
    if mount.read_only:
        if session.refusals.get(repo):
            raise EditRefused(f"{session.refusals[repo]} Nothing was written.")
        raise EditRefused(f"{repo} is mounted read-only: nothing was written. Remount it without --read-only to edit.")
    why = unsafe_reason(path)
    if why:
        raise EditRefused(f"{path}: {why}")


def with_trailers(message: str, *trailers: str) -> str:
    lines = [t for t in trailers if t]
    return message.rstrip() + ("\n\n" + "\n".join(lines) if lines else "")


def write(
    session: WriteTarget,
    repo: str,
    changes: Sequence[Change],
    message: str,
    *,
    line: int = 0,
    path: str | None = None,
    trailers: Sequence[str] = (TRAILER,),
    env: Mapping[str, str] | None = None,
    reload: bool = True,
    branch: str | None = None,
) -> Saved:
    """Commit ``changes`` to ``repo`` as one commit through the gate; returns what happened.

    ``branch`` names a branch that is not checked out (the agent interface's pending review
    branch): the change is merged onto that branch's tip and only its ref moves; the work tree,
    the index and the session's files are left as they are.

    Raises EditRefused, ConflictError (nothing saved; the conflict view resolves it),
    ForeignConflictError, NoIdentityError, OperationInProgressError, DetachedHeadError, LockedError.
    """
    if not changes:
        raise EditRefused("nothing to write")
    for ch in changes:
        check_writable(session, repo, ch.path)
    shown = path or changes[0].path
    git = session.git(repo)
    if git is None:
        if branch is not None:
            raise EditRefused(f"{repo} is not a git repo: there is no branch to write to")
        return _write_without_git(session, repo, changes, message, line, shown, reload)
    result = git.write_files(list(changes), with_trailers(message, *trailers), env=env, branch=branch)
    if reload and branch is None:
        session.watch.reload_files(repo, [ch.path for ch in changes], result.head if result.committed else None)
    if not result.committed:
        return Saved(repo, shown, result.head, "No change: it was already there", line, False, result.foreign)
    return Saved(repo, shown, result.head, message, line, True, result.foreign, result.merged)


def _write_without_git(
    session: WriteTarget, repo: str, changes: Sequence[Change], message: str, line: int, shown: str, reload: bool
) -> Saved:
    """A plain folder: each file is still merged with what is on disk and written atomically."""
    root = session.mount(repo).root
    for ch in changes:
        disk = read_file_or_none(root, ch.path, max_bytes=None)
        want = ch.want
        if disk != ch.base and want is not None and disk is not None and has_md_suffix(ch.path):
            merged = merge3(ch.base, want, disk, ch.path)
            if not merged.clean:
                raise ForeignConflictError(ch.path)
            want = merged.merged
        if want is None:
            remove_file(root, ch.path)
        else:
            atomic_write(root, ch.path, want)
    if reload:
        session.watch.reload_files(repo, [ch.path for ch in changes])
    return Saved(repo, shown, None, message + " (not a git repo: saved without a commit)", line, False)


def foreign_changes(session: WriteTarget, repo: str) -> list[str]:
    """Tracked files whose work-tree copy differs from HEAD (edits nobody committed)."""
    git = session.git(repo)
    if git is None:
        return []
    return sorted(p for p in git.modified_paths() if not unsafe_reason(p))


def commit_foreign(session: WriteTarget, repo: str, paths: Sequence[str] | None = None) -> Saved:
    """Commit the uncommitted edits others left in ``paths`` (default: every modified tracked
    file) exactly as they are on disk, as a commit of their own, clearly labelled."""
    git = session.git(repo)
    if git is None:
        raise EditRefused(f"{repo} is not a git repo: there is nothing to commit")
    wanted = list(paths) if paths is not None else foreign_changes(session, repo)
    if not wanted:
        raise EditRefused("no uncommitted changes to commit")
    root = session.mount(repo).root
    head = git.head()
    changes = []
    for p in wanted:
        check_writable(session, repo, p)
        committed = git.read_blob_or_none(head, p) if head else None
        disk = read_file_or_none(root, p, max_bytes=None)
        if disk != committed:
            changes.append(Change(p, committed, disk))
    if not changes:
        raise EditRefused("those files hold no uncommitted change any more")
    names = ", ".join(ch.path for ch in changes[:5]) + (f" and {len(changes) - 5} more" if len(changes) > 5 else "")
    return write(session, repo, changes, f"Commit uncommitted changes found in {names}", trailers=(FOREIGN_TRAILER,))


__all__ = [
    "EditRefused",
    "Change",
    "Saved",
    "WriteTarget",
    "check_writable",
    "commit_foreign",
    "foreign_changes",
    "write",
]
