"""Finishing a sync that stopped on conflicts: describe them, apply the chosen resolutions.

The resolution view (and ``amr sync --resolve``) works on a :class:`PendingMerge`:
``pending.files`` lists each file with its conflicts in order; each conflict has ``ours``,
``base`` and ``theirs`` lines. A choice per conflict is ``"ours"``, ``"theirs"``, ``"base"``,
``"both"`` or a list of lines (an edit). :func:`preview` shows a file with the choices applied;
:func:`resolve` commits the merge (two parents: our tip then, and theirs), moves the branch and
work tree to it (compare-and-swap; if an agent committed meanwhile, that commit is merged in
too), then syncs again to push it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from amr_tui.core.diff.entries import entry_of_line
from amr_tui.core.lint.contradictions import contradiction
from amr_tui.core.merge.parts import BOTH, Choice
from amr_tui.git import GitRepo
from amr_tui.git.errors import AmrGitError, RefMovedError
from amr_tui.git.gate import cas_attempts
from amr_tui.git.merging import WorktreeBusyError, merge_commits, tree_with_files
from amr_tui.services import writegate
from amr_tui.services.sync.run import (
    CONFLICT,
    ERROR,
    PendingMerge,
    Progress,
    SyncResult,
    integrate,
    repo_lock,
    sync,
)
from amr_tui.services.sync.state import describe_path, load_state, now_iso, update_state

RESOLVE_ATTEMPTS = 5  # rounds of integrate (each its own compare-and-swap attempts) before giving up

Choices = Mapping[str, Mapping[int, Choice]]  # path -> conflict index -> choice


def pending_merge(root: str | os.PathLike[str]) -> PendingMerge | None:
    """The merge the last sync stopped on, recomputed from its two commits (None: nothing pending,
    or the commits are gone)."""
    repo = GitRepo(root)
    rec = load_state(repo).get("pending")
    if not isinstance(rec, dict):
        return None
    ours, theirs = str(rec.get("ours", "")), str(rec.get("theirs", ""))
    if repo.resolve(ours) is None or repo.resolve(theirs) is None:
        return None
    tm = merge_commits(repo, ours, theirs)
    files = tuple(
        f
        for f in (describe_path(repo, cp) for cp in tm.conflicts)
        if f.whole_file or f.result is None or not f.result.clean
    )
    if not files:
        return None
    return PendingMerge(
        repo.root, str(rec.get("remote", "origin")), str(rec.get("branch", "")), ours, theirs, tm.tree, files
    )


def all_choice(pending: PendingMerge, choice: str) -> dict[str, dict[int, Choice]]:
    """The same choice for every conflict (``"both"`` keeps every side's lines: nothing is lost).
    Whole files take ``"ours"`` for ``"both"``... unless ours deleted it: then ``"theirs"``."""
    out: dict[str, dict[int, Choice]] = {}
    for f in pending.files:
        if f.whole_file:
            pick = choice if choice != BOTH else ("ours" if f.ours is not None else "theirs")
            out[f.path] = {0: pick}
        else:
            out[f.path] = {c.index: choice for c in f.conflicts}
    return out


@dataclass(frozen=True, slots=True)
class KeptBoth:
    """Two sides of a conflict kept with "both" that may contradict each other: the same entry
    but for a value (AMR033, ``core.lint.contradictions``)."""

    path: str
    index: int  # the conflict
    ours: str  # the entry's text on our side
    theirs: str
    ours_values: tuple[str, ...]
    theirs_values: tuple[str, ...]

    def describe(self) -> str:
        values = f"{' '.join(self.ours_values)} vs {' '.join(self.theirs_values)}"
        return (
            f'{self.path}: keeping both makes a possible contradiction (AMR033, {values}): "{self.ours}" (mine) '
            f'and "{self.theirs}" (theirs)'
        )

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "conflict": self.index,
            "ours": self.ours,
            "theirs": self.theirs,
            "ours_values": list(self.ours_values),
            "theirs_values": list(self.theirs_values),
        }


def kept_both(pending: PendingMerge, choices: Choices) -> list[KeptBoth]:
    """The conflicts resolved "both" whose two sides state the same entry but for a value: the
    pair the resolution writes, which lint would then call a possible contradiction."""
    out: list[KeptBoth] = []
    for f in pending.files:
        for c in f.conflicts:
            if f.whole_file or choices.get(f.path, {}).get(c.index) != BOTH:
                continue
            ours = [e.text for e in map(entry_of_line, c.ours) if e is not None and not e.links_only]
            theirs = [e.text for e in map(entry_of_line, c.theirs) if e is not None and not e.links_only]
            for a in ours:
                for b in theirs:
                    found = contradiction(a, b)
                    if found is not None:
                        out.append(KeptBoth(f.path, c.index, a, b, found.a_values, found.b_values))
    return out


def preview(pending: PendingMerge, path: str, choices: Mapping[int, Choice]) -> bytes | None:
    """One file with these choices applied (unchosen conflicts keep their markers)."""
    for f in pending.files:
        if f.path == path:
            if f.result is None:
                pick = choices.get(0)
                return {"ours": f.ours, "theirs": f.theirs, "base": f.base}.get(str(pick), f.ours)
            return f.result.resolve(choices)
    raise KeyError(path)


def resolve(
    root: str | os.PathLike[str],
    choices: Choices,
    *,
    push_after: bool = True,
    progress: Progress | None = None,
    pending: PendingMerge | None = None,
) -> SyncResult:
    """Commit the pending merge with ``choices`` for every conflict, then sync (push).

    Raises ValueError when a conflict has no choice or a choice is invalid; returns a
    ``"conflict"`` result when an agent's newer commit conflicts with the resolution.
    """
    repo = GitRepo(root)
    pending = pending or pending_merge(root)
    if pending is None:
        raise ValueError("nothing to resolve: no sync is waiting on a conflict")
    changes: dict[str, bytes | None] = {}
    for f in pending.files:
        changes[f.path] = f.resolved_bytes(choices.get(f.path, {}))
    with repo_lock(repo):
        tree = tree_with_files(repo, pending.tree, changes)
        label = f"{pending.remote}/{pending.branch}"
        merge = writegate.write_merge(
            repo,
            tree,
            [pending.ours, pending.theirs],
            f"Merge {label} into {pending.branch} (amr sync, conflicts resolved)",
        )
        for _held in cas_attempts(repo, max_attempts=RESOLVE_ATTEMPTS, escalate=False):  # integrate escalates
            try:
                outcome, head, again, _risen, _auto = integrate(repo, pending.branch, merge, "the resolved merge")
                break
            except (RefMovedError, WorktreeBusyError):
                continue
        else:
            return SyncResult(ERROR, "the branch kept moving; try resolving again", Path(repo.root))
        if outcome == "conflict":
            assert again is not None
            update_state(
                repo,
                pending={
                    "ours": again.ours,
                    "theirs": again.theirs,
                    "remote": pending.remote,
                    "branch": pending.branch,
                    "recorded": now_iso(),
                    "paths": [f.path for f in again.files],
                },
            )
            fresh = PendingMerge(
                repo.root, pending.remote, pending.branch, again.ours, again.theirs, again.tree, again.files
            )
            return SyncResult(
                CONFLICT,
                "a newer local commit conflicts with the resolution",
                repo.root,
                pending.remote,
                pending.branch,
                head,
                pending=fresh,
            )
        update_state(repo, pending=None)
    if not push_after:
        return SyncResult("synced", "resolved (not pushed)", repo.root, pending.remote, pending.branch, head)
    try:
        return sync(root, remote=pending.remote, branch=pending.branch, progress=progress)
    except AmrGitError as exc:  # pragma: no cover - sync reports its own errors
        return SyncResult(ERROR, str(exc), repo.root)
