"""What sync remembers (``.git/amr/sync.json``) and how a stopped merge is described.

The state file holds the last sync time, the last attempt and its outcome, since when the remote
has been unreachable, and the merge that stopped on a conflict (``pending``: the two commits;
everything else is recomputed from them, deterministically). It lives inside the git directory,
so it is never committed, never cloned and never shared. Written atomically.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from amr_tui.core.format.parser import is_markdown
from amr_tui.core.lint.facts import normalise_text
from amr_tui.core.merge.parts import Conflict
from amr_tui.core.merge.three_way import MergeResult, entry_facts, merge3
from amr_tui.git import GitRepo
from amr_tui.git.merging import ConflictedPath
from amr_tui.services.history.service import HistoryService

STATE_DIR = "amr"
STATE_FILE = "sync.json"
MAX_FILE_BYTES = 8 * 1024 * 1024
_SPECIAL_MODES = ("120000", "160000")


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def state_path(repo: GitRepo) -> Path:
    return repo.git_dir / STATE_DIR / STATE_FILE


def load_state(repo: GitRepo) -> dict[str, Any]:
    try:
        data = json.loads(state_path(repo).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_state(repo: GitRepo, state: dict[str, Any]) -> None:
    path = state_path(repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{STATE_FILE}.{secrets.token_hex(4)}")
    tmp.write_text(json.dumps({"version": 1, **state}, indent=2, sort_keys=True), "utf-8")
    os.replace(tmp, path)


def update_state(repo: GitRepo, **changes: object) -> dict[str, Any]:
    state = load_state(repo)
    state.pop("version", None)
    state.update(changes)
    save_state(repo, state)
    return state


@dataclass(frozen=True)
class SyncState:
    """For the tree: when this repo last synced, how the last attempt ended, ahead/behind."""

    last_sync: str | None = None
    last_attempt: str | None = None
    last_status: str | None = None
    last_message: str = ""
    offline_since: str | None = None
    pending: bool = False
    ahead: int | None = None
    behind: int | None = None
    upstream: str | None = None  # what ahead/behind count against ("origin/main"), when they are known
    note: str = ""  # why they are not known ("no remote", "origin/main not fetched yet")


# ---------------------------------------------------------------------------------------------
# Conflicted files


@dataclass(frozen=True)
class FileConflict:
    """One file a merge could not finish, with its conflicts in order.

    ``base``/``ours``/``theirs`` are the file's bytes on each side (None: absent there).
    ``result`` is amr's merge of the three (its ``conflicts`` are what the resolution view shows;
    ``result.resolve(choices)`` previews a resolution). ``whole_file`` is True for a file amr
    cannot merge line by line (binary, symlink, submodule, too large): its one conflict takes
    ``"ours"``, ``"theirs"`` or ``"base"`` only.
    """

    path: str
    base: bytes | None = field(repr=False)
    ours: bytes | None = field(repr=False)
    theirs: bytes | None = field(repr=False)
    result: MergeResult | None = field(repr=False)
    whole_file: bool = False
    messages: tuple[str, ...] = ()

    @property
    def conflicts(self) -> tuple[Conflict, ...]:
        if self.result is None:
            return (Conflict(0, "file", "this file cannot be merged line by line", (), (), ()),)
        return self.result.conflicts

    def resolved_bytes(self, choices: Mapping[int, object]) -> bytes | None:
        """The file after the choices (None: the file is deleted). Raises ValueError when a
        conflict has no choice."""
        missing = [c.index for c in self.conflicts if c.index not in choices]
        if missing:
            raise ValueError(f"{self.path}: conflicts {missing} have no choice")
        if self.result is None:
            pick = choices[0]
            if pick not in ("ours", "theirs", "base"):
                raise ValueError(f"{self.path} can only take ours, theirs or base")
            return {"ours": self.ours, "theirs": self.theirs, "base": self.base}[pick]  # type: ignore[index]
        data = self.result.resolve(choices)  # type: ignore[arg-type]
        if not data and (self.ours is None or self.theirs is None):
            return None  # deleted on one side, and nothing of the other side's was kept
        return data

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "whole_file": self.whole_file,
            "absent": [
                side
                for side, data in (("base", self.base), ("ours", self.ours), ("theirs", self.theirs))
                if data is None
            ],
            "conflicts": [c.to_json() for c in self.conflicts],
        }


def _blob(repo: GitRepo, stage: tuple[str, str] | None) -> bytes | None:
    if stage is None:
        return None
    res = repo.runner.run(["cat-file", "blob", stage[1]])
    return res.stdout


def describe_path(repo: GitRepo, cp: ConflictedPath) -> FileConflict:
    """amr's own merge of a path git could not merge (content, modify/delete, add/add)."""
    stages = {n: cp.stages.get(n) for n in (1, 2, 3)}
    special = any(s is not None and s[0] in _SPECIAL_MODES for s in stages.values())
    base, ours, theirs = (None if special else _blob(repo, stages[n]) for n in (1, 2, 3))
    too_big = any(d is not None and len(d) > MAX_FILE_BYTES for d in (base, ours, theirs))
    binary = any(d is not None and b"\0" in d for d in (base, ours, theirs))
    if special or too_big or binary:
        return FileConflict(cp.path, base, ours, theirs, None, True, cp.messages)
    labels = ("ours", "base", "theirs")
    result = merge3(base, ours or b"", theirs or b"", cp.path, labels=labels)
    return FileConflict(cp.path, base, ours, theirs, result, False, cp.messages)


# ---------------------------------------------------------------------------------------------
# Resurrected facts (the seed's case 6)


def resurrected_facts(repo: GitRepo, ours: str, theirs: str, merged: str | None = None) -> list[tuple[str, str]]:
    """``(path, fact)``: facts one side deleted that the other side added (anywhere) since their
    merge base. A stale session re-learning a deleted fact merges cleanly; this flags it.

    With ``merged`` (the merge commit), each is kept only where lint's AMR030 calls its line in
    ``merged`` a resurrection (``services.history``: forgotten, then written again by someone
    else), so sync says "resurrected" exactly where lint and the app do."""
    base = repo.merge_base(ours, theirs)
    if base is None:
        return []
    found: list[tuple[str, str]] = []
    for deleter, adder in ((theirs, ours), (ours, theirs)):
        deleted = _facts_delta(repo, base, deleter)[1]
        if not deleted:
            continue
        added = _facts_delta(repo, base, adder)[0]
        for path, fact in added:
            if fact in deleted:
                found.append((path, fact))
    if found and merged is not None:
        service = HistoryService(repo.root)
        try:
            # the deletions since the merge base only: the walk of the whole history would cost
            # a sync minutes on a long one
            at = service.resurrected_at(merged, {p for p, _ in found}, since=base)
            risen = {(r.path, normalise_text(r.text)) for r in at}
        finally:
            service.close()
        found = [f for f in found if f in risen]
    return sorted(set(found))


def _facts_delta(repo: GitRepo, base: str, side: str) -> tuple[list[tuple[str, str]], set[str]]:
    added: list[tuple[str, str]] = []
    removed: set[str] = set()
    for _status, path in repo.changed_paths(base, side):
        if not is_markdown(path):
            continue
        old = repo.read_blob_or_none(base, path) or b""
        new = repo.read_blob_or_none(side, path) or b""
        if len(old) > MAX_FILE_BYTES or len(new) > MAX_FILE_BYTES:
            continue
        before, after = entry_facts(old, path), entry_facts(new, path)
        b_set, a_set = set(before), set(after)
        added.extend((path, f) for f in after if f not in b_set)
        removed.update(f for f in before if f not in a_set)
    # A fact moved from one file to another on the same side is neither added nor removed.
    moved = {f for _, f in added} & removed
    return [(p, f) for p, f in added if f not in moved], removed - moved
