"""The write gate: every change amr makes to a memory repo goes through this module.

Callers (the editor's entry edits and file operations, forget and restore, undo, dream accepts,
the conflict views, ``lint --fix``, ``U``, the agent interface) say, per file, the bytes their
change was *based on* and the bytes they *want*. This module checks the mount may be written,
hands the change to the git half (:mod:`amr_tui.git.gate`: a three-way merge onto what is
committed, a commit that holds only this change, a compare-and-swap ref update, work-tree files
brought forward without losing anyone's bytes), re-reads the files it wrote into the session,
and says which files still hold someone else's uncommitted edit, which :func:`commit_foreign`
commits on request as a commit of its own.

The doors, one per kind of write; nothing outside this module and ``amr_tui.git`` commits,
moves a ref or writes a repo's files (``tests/test_write_doors.py``):

* :func:`write`: a change of files, for a session (any :class:`WriteTarget`; :class:`RepoTarget`
  is one repo without a session, for the command line);
* :func:`commit`: the same change for a repo a service holds without a session (dream accept
  and undo, ``.gitattributes``, ``lint --fix``);
* :func:`write_worktree`: a change applied to the files only, committing nothing
  (``lint --fix --no-commit``, ``merge-driver install --no-commit``);
* :func:`write_merge` and :func:`advance`: sync's merge commit, and moving a branch to a ready
  commit (sync's fast-forward and merge; :func:`fast_forward`, a whole dreaming run accepted),
  its files brought forward by the same merging steps; :func:`push`, sync's push;
* :func:`set_ref`, :func:`record`, :func:`create_branch`: refs that are not the checked-out
  branch (dreaming runs, their decision records, the agent interface's inbox branch);
* :func:`seed`: commits that build a repo or a branch nobody has checked out (``amr init``, the
  demo, the built-in dream's steps), by compare-and-swap, refusing any file that is not as
  expected; :func:`publish_share`: the new repos of a pairing session;
* :func:`put_back`: the file ``$EDITOR`` left, back as it was (a credential declined).

Each door that changes a checked-out branch keeps the write's intent in the write journal
(:func:`journal`, in the user data folder) while it changes the work tree, and first repairs a
write a killed process left half done (:func:`recover`; the app's and ``amr mcp``'s start do too).

It sits below the session: it takes any :class:`WriteTarget` (the app's ``Session`` is one) and
imports nothing from ``amr_tui.services`` but the workspace.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from platformdirs import user_data_path

from amr_tui.core.format.links import unsafe_reason
from amr_tui.core.merge.three_way import merge3
from amr_tui.core.paths import has_md_suffix
from amr_tui.core.textsafety import make_visible
from amr_tui.git import GitRepo
from amr_tui.git import dreamrefs as _refs
from amr_tui.git import gate as _gate
from amr_tui.git import merging as _merging
from amr_tui.git import remote as _remote
from amr_tui.git import rewrite as _rewrite
from amr_tui.git.gate import Change, ForeignConflictError, GateResult
from amr_tui.git.indexlock import IndexLock
from amr_tui.git.journal import Journal
from amr_tui.git.worktree import atomic_write, read_file_or_none, remove_file
from amr_tui.services.workspace import Mount, read_bytes

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


class _NoRereads:
    def reload_files(self, repo: str, paths: list[str], committed: str | None = None) -> None:
        """Nothing holds the files: nothing to re-read."""


@dataclass(frozen=True)
class RepoTarget:
    """One repo written without a session (the command line): a :class:`WriteTarget` that has
    nothing to re-read after a write."""

    root: Mount
    repo: GitRepo | None
    refusals: Mapping[str, str] = field(default_factory=dict)
    watch: Rereads = field(default_factory=_NoRereads)

    @classmethod
    def of(cls, mount: Mount, git: GitRepo | None = None) -> RepoTarget:
        return cls(mount, git if git is not None else GitRepo(mount.root))

    def mount(self, repo: str) -> Mount:
        return self.root

    def git(self, repo: str) -> GitRepo | None:
        return self.repo


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
    repaired: tuple[str, ...] = ()  # what amr repaired first: a write a killed process left half done


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
    repaired = _repair_first(git)
    result = commit(git, changes, message, trailers=trailers, env=env, branch=branch)
    if reload and branch is None:
        paths = [ch.path for ch in changes] + [p for r in repaired for p in r.files]
        session.watch.reload_files(repo, list(dict.fromkeys(paths)), result.head if result.committed else None)
    notes = tuple(r.describe() for r in repaired)
    if not result.committed:
        return Saved(
            repo, shown, result.head, "No change: it was already there", line, False, result.foreign, (), notes
        )
    return Saved(repo, shown, result.head, message, line, True, result.foreign, result.merged, notes)


# ------------------------------------------------------------------ the write journal
_repairs: list[str] = []  # what the doors repaired before a write, for the command line to print
_repairs_lock = threading.Lock()


def journal() -> Journal:
    """Where writes keep their intent while they change a work tree: the user data folder (never
    the repo, nor its git dir), one file per repo, only while a write runs."""
    return Journal(user_data_path("amr", appauthor=False) / "writes")


def recover(git: GitRepo, *, timeout: float | None = None) -> list[str]:
    """Repair the write a killed process left half done in ``git``'s work tree (finished when its
    commit landed, else taken back out of the files); the sentences that say what was done.
    Nothing is written, and [] returned, when no write was left half done."""
    return [r.describe() for r in _recover(git, timeout)]


def _recover(git: GitRepo, timeout: float | None = None) -> list[_gate.Repair]:
    found = _gate.repair(git, journal(), timeout=timeout)
    return [found] if found is not None else []


def _repair_first(git: GitRepo) -> list[_gate.Repair]:
    """Before a write: repair what a killed write left (kept for :func:`take_repairs`)."""
    done = _recover(git)
    if done:
        with _repairs_lock:
            _repairs.extend(r.describe() for r in done)
    return done


def take_repairs() -> list[str]:
    """What the doors repaired before their writes since the last call, controls made visible
    (the command line prints them; the app and ``amr mcp`` say what their start repaired)."""
    with _repairs_lock:
        out = [make_visible(note) for note in _repairs]
        _repairs.clear()
    return out


# ------------------------------------------------------------------ the doors without a session
def commit(
    git: GitRepo,
    changes: Sequence[Change],
    message: str,
    *,
    trailers: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    branch: str | None = None,
) -> GateResult:
    """Commit ``changes`` through the gate (see :func:`amr_tui.git.gate.commit_files`), keeping
    the write's intent in the journal while it changes the work tree."""
    if not changes:
        raise EditRefused("nothing to write")
    _repair_first(git)
    return git.write_files(list(changes), with_trailers(message, *trailers), env=env, branch=branch, journal=journal())


def write_worktree(root: str | os.PathLike[str], changes: Sequence[Change], git: GitRepo | None = None) -> list[str]:
    """Apply each change to the file as it is now, committing nothing (bytes written since the
    change's base was read stay); the files written. Raises ForeignConflictError for a file
    changed in the same place (that file is left as it was)."""
    return _gate.apply_in_worktree(root, changes, git)


def write_merge(git: GitRepo, tree: str, parents: Sequence[str], message: str) -> str:
    """The commit object of a merge (sync): ``tree`` with these parents. No ref moves; the
    branch moves to it through :func:`advance`."""
    return _merging.commit_tree(git, tree, list(parents), message)


def advance(
    git: GitRepo, branch: str, old: str | None, new: str, message: str, *, held: IndexLock | None = None
) -> None:
    """Move ``branch`` from ``old`` to the ready commit ``new`` by compare-and-swap (sync's
    fast-forward and merge), each work-tree file and index entry brought forward by merging when
    the branch is checked out (see :func:`amr_tui.git.merging.advance_branch`). ``held``: the
    ``index.lock`` of a retry loop (``gate.cas_attempts``)."""
    if held is None:  # (holding index.lock, a repair would wait for this very process)
        _repair_first(git)
    _merging.advance_branch(git, branch, old, new, message, held=held, journal=journal())


def push(git: GitRepo, remote: str, branch: str, commit: str) -> _remote.PushResult:
    """Push ``commit`` to ``branch`` on ``remote`` (a fast-forward or nothing, never forced) and
    move the remote-tracking ref to it (sync)."""
    return _remote.push(git, remote, branch, commit)


def fast_forward(git: GitRepo, branch: str, new: str, expected: str) -> None:
    """Move ``branch`` from ``expected`` to its descendant ``new`` (a whole dreaming run accepted)."""
    _repair_first(git)
    _refs.fast_forward(git, branch, new, expected, journal=journal())


def _not_checked_out(git: GitRepo, ref: str) -> None:
    branch = git.current_branch()
    if branch is not None and ref == f"refs/heads/{branch}":
        raise EditRefused(f"{branch} is checked out: amr moves it only through the write gate")


def set_ref(git: GitRepo, ref: str, new: str | None, old: str | None, message: str = "amr") -> None:
    """Move, create (``old`` None) or delete (``new`` None) a ref that is not the checked-out
    branch, by compare-and-swap (dreaming runs and their decision records)."""
    _not_checked_out(git, ref)
    _refs.set_ref(git, ref, new, old, message)


def record(git: GitRepo, tree_of: str, parents: Sequence[str], message: str) -> str:
    """A commit object with the tree of the commit ``tree_of`` and these parents (a dreaming
    run's decision record); no ref moves."""
    return _refs.make_commit(git, tree_of, parents, message)


def create_branch(git: GitRepo, name: str, start: str) -> None:
    """A new branch at ``start`` (a dreaming run, the agent interface's inbox); never one that exists."""
    git.create_branch(name, start)


def seed(
    git: GitRepo,
    files: Mapping[str, bytes | None],
    message: str,
    expected_head: str | None,
    branch: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
) -> str:
    """A commit of ``files`` on ``expected_head`` (None: the first commit) for a repo amr is
    building (``amr init``, its adoption of a folder, ``amr track``, the demo) or a branch nobody
    has checked out (the built-in dream's steps): compare-and-swap, and a work-tree file or index
    entry that holds anything but the expected or the new version is refused, never overwritten
    (see :func:`amr_tui.git.commit.commit_changes`)."""
    return git.commit_changes(files, message, expected_head, branch, env=env)


def publish_share(
    source: GitRepo,
    dest: str | os.PathLike[str],
    *,
    paths: Sequence[str] | None,
    branch: str,
    progress: Callable[[int, int], None] | None = None,
    keep_messages: bool = False,
) -> None:
    """Create the new repo ``dest`` (it must not exist, or be empty) holding ``source``'s history
    (``paths`` None: all of it, else only those files and folders). ``source`` is only read."""
    if paths is None:
        _rewrite.copy_branch(source, "HEAD", dest, branch=branch)
    else:
        _rewrite.rewrite_history(
            source, "HEAD", paths, dest, branch=branch, progress=progress, keep_messages=keep_messages
        )


def put_back(root: Path, rel: str, left: bytes, original: bytes) -> bool:
    """Write ``original`` back over the file if it still holds ``left`` (what ``$EDITOR`` left);
    False, and nothing written, when the file changed again meanwhile."""
    if read_bytes(root, rel) != left:
        return False
    atomic_write(root, rel, original)
    return True


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
    "RepoTarget",
    "Saved",
    "WriteTarget",
    "advance",
    "check_writable",
    "commit",
    "commit_foreign",
    "create_branch",
    "fast_forward",
    "foreign_changes",
    "journal",
    "publish_share",
    "push",
    "put_back",
    "record",
    "recover",
    "seed",
    "set_ref",
    "take_repairs",
    "write",
    "write_merge",
    "write_worktree",
]
