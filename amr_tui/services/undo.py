"""Undo amr's last write: a new commit, through the write gate, that puts back what it changed.

Never a reset, a revert of someone else's commit or a force-move: the branch only moves forward,
and what anyone committed since stays. An undo is the write's own change run backwards (the
files as the write left them -> as they were before it), merged onto HEAD as every amr write is,
with the lines the write added named (``gate.Change.named``): when someone changed or removed
them since, the undo is refused and says so, and nothing is written.

Which write: in the app, the newest one this session made that is not undone yet (``z`` again
goes one further back); on the command line (``amr undo``), the newest commit amr made on the
branch (its trailers say so: ``Edited-with: amr``, ``Forgotten-with: amr``, ``Restored-from:``)
that is not undone yet. An undo commit carries ``Undoes: <oid>``; undoing an undo is a write
like any other only when asked for by its commit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from amr_tui.core.format.edit import summarise
from amr_tui.core.format.parser import parse
from amr_tui.core.textsafety import make_visible
from amr_tui.git import history as gh
from amr_tui.git.errors import ConflictError, EntryGoneError
from amr_tui.git.gate import Change
from amr_tui.services import writegate
from amr_tui.services.writegate import EditRefused, Saved, WriteTarget

UNDOES = "Undoes"
_AMR_MADE = re.compile(r"^(?:Edited-with: amr|Forgotten-with: amr|Restored-from: )", re.MULTILINE)
_UNDOES = re.compile(rf"^{UNDOES}: ([0-9a-f]{{7,64}})\s*$", re.MULTILINE)
LOOK_BACK = 200  # commits looked at for amr's last write


class NothingToUndo(EditRefused):
    """No write of amr's is left to undo here."""


@dataclass(frozen=True, slots=True)
class Undoable:
    oid: str
    subject: str


def last_amr_write(target: WriteTarget, repo: str, among: Iterable[str] | None = None) -> Undoable:
    """The newest commit on the branch that amr made (or, with ``among``, one of those commits)
    and that no later undo names. Raises NothingToUndo."""
    git = target.git(repo)
    if git is None:
        raise NothingToUndo(f"{repo} is not a git repo: amr's writes there have no commit to undo")
    wanted = set(among) if among is not None else None
    undone: set[str] = set()
    for e in gh.log_entries(git, "HEAD", limit=LOOK_BACK, body=True, first_parent=True):
        named = [m.group(1) for m in _UNDOES.finditer(e.body)]
        undone.update(named)
        if named or any(e.oid.startswith(u) for u in undone):
            continue  # an undo, or a write undone later: z goes one write further back
        if wanted is not None and e.oid not in wanted:
            continue
        if wanted is None and not _AMR_MADE.search(e.body):
            continue
        if len(e.parents) != 1:
            continue
        return Undoable(e.oid, e.info.subject)
    raise NothingToUndo(f"nothing of amr's to undo in {repo} (in the last {LOOK_BACK} commits)")


def undo_newest(target: WriteTarget, written: list[tuple[str, str]]) -> Saved:
    """Undo the newest of ``written`` ((repo, commit) amr made, oldest first: a session's) that is
    neither an undo itself nor undone since. Raises NothingToUndo, or EditRefused from :func:`undo`."""
    state: dict[str, tuple[set[str], set[str]]] = {}
    for repo, oid in reversed(written):
        if repo not in state:
            state[repo] = _undo_state(target, repo)
        undone, undos = state[repo]
        if oid in undos or oid in undone:
            continue
        return undo(target, repo, oid)
    raise NothingToUndo("Nothing to undo: every write of this session is undone already.")


def _undo_state(target: WriteTarget, repo: str) -> tuple[set[str], set[str]]:
    """(commits an undo names, the undo commits) among the branch's last ``LOOK_BACK``."""
    git = target.git(repo)
    undone: set[str] = set()
    undos: set[str] = set()
    if git is None:
        return undone, undos
    for e in gh.log_entries(git, "HEAD", limit=LOOK_BACK, body=True, first_parent=True):
        named = [m.group(1) for m in _UNDOES.finditer(e.body)]
        if named:
            undos.add(e.oid)
            undone.update(named)
    return undone, undos


def undo(target: WriteTarget, repo: str, oid: str) -> Saved:
    """One commit that takes ``oid``'s change back out of the files as they are now.

    Raises EditRefused (with the reason) when someone changed the same entries since: nothing
    is written then."""
    git = target.git(repo)
    if git is None:
        raise NothingToUndo(f"{repo} is not a git repo")
    entries = gh.log_entries(git, oid, limit=1)
    if not entries or len(entries[0].parents) != 1:
        raise EditRefused(f"{oid[:8]} is not a commit amr can undo (a merge, or not in {repo})")
    info, parent = entries[0].info, entries[0].parents[0]
    changes = []
    for tc in gh.tree_changes(git, parent, oid):
        after = git.read_blob_or_none(oid, tc.path)
        before = git.read_blob_or_none(parent, tc.path)
        added = _added_lines(tc.path, before, after)
        changes.append(Change(tc.path, after, before, oid, added))
    if not changes:
        raise EditRefused(f"{oid[:8]} changed no file: nothing to undo")
    subject = make_visible(summarise(info.subject, 120))
    try:
        saved = writegate.write(
            target,
            repo,
            changes,
            f'Undo "{subject}"',
            trailers=(writegate.TRAILER, f"{UNDOES}: {oid}"),
        )
    except (ConflictError, EntryGoneError) as exc:
        raise EditRefused(
            f"Not undone: {exc.path} was changed since by someone else where {oid[:8]} wrote; nothing was "
            "written. Look at the file's history (h) and change it by hand."
        ) from None
    if not saved.committed:
        raise EditRefused(f"Nothing to undo: the files already read as before {oid[:8]}")
    return saved


def _added_lines(path: str, before: bytes | None, after: bytes | None) -> tuple[str, ...]:
    """The non-blank lines ``after`` holds that ``before`` did not (what the write added)."""
    if after is None:
        return ()
    had = {ln.text for ln in parse(before, path).lines} if before is not None else set()
    return tuple(dict.fromkeys(ln.text for ln in parse(after, path).lines if ln.text.strip() and ln.text not in had))


__all__ = ["NothingToUndo", "UNDOES", "Undoable", "last_amr_write", "undo", "undo_newest"]
