"""The reverse of one entry change, on the files as they are now (pure: bytes in, bytes out).

An entry change of the activity goes from ``old`` entries (in the version it started from) to a
``new`` one. Reverting it on the current files removes the new line, where it is still written
exactly that way, and writes each old line back: where the new line was when it is the same
file, else after the line that preceded it in the old version (``core.dreams.apply`` places
lines the same way when a dream's change is accepted). A change whose new line was changed
again since, or whose old lines are all back already, is refused: nothing would be reverted
but a guess.
"""

from __future__ import annotations

from collections.abc import Mapping

from amr_tui.core.diff.entries import ChangeKind, EntryChange
from amr_tui.core.dreams.apply import apply_change
from amr_tui.core.format.parser import parse
from amr_tui.services.activity.model import ActivityError


def _lines(data: bytes | None, path: str) -> set[str]:
    return {ln.text for ln in parse(data, path).lines} if data is not None else set()


def revert_entry(
    change: EntryChange, now: Mapping[str, bytes | None], before: Mapping[str, bytes | None]
) -> dict[str, bytes | None]:
    """The files ``change`` touches after undoing it: ``now`` holds the current bytes of every
    path of the change (None: no such file), ``before`` the bytes of the old entries' files in
    the version the change started from (for placing the lines that come back)."""
    new = change.new
    if new is not None and new.raw not in _lines(now.get(new.path), new.path):
        raise ActivityError(
            f"{new.path}: the entry {new.text[:60]!r} was changed again since; revert it by hand (or the whole commit)"
        )
    back = [o for o in change.old if not (new is not None and o.path == new.path and o.raw == new.raw)]
    if new is None and all(o.raw in _lines(now.get(o.path), o.path) for o in back):
        raise ActivityError("the entry is already back: nothing to revert")
    current: dict[str, bytes | None] = {p: now.get(p) for p in change.paths}
    steps: list[EntryChange] = []
    first = change.old[0] if change.old else None
    steps.append(EntryChange(change.id, ChangeKind.REWORDED, (new,) if new else (), first))
    steps += [EntryChange(change.id, ChangeKind.NEW, (), o) for o in change.old[1:]]
    for step in steps:
        tip = {step.new.path: before.get(step.new.path)} if step.new is not None else {}
        current.update(apply_change(current, step, tip))
    out = {p: d for p, d in current.items() if d != now.get(p)}
    if not out:
        raise ActivityError("the files already read as before this change: nothing to revert")
    return out
