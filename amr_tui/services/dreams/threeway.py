"""The three-way side of a dream review: main as it is now against the run's result (pure).

A run's entry changes are worked out from its *base* (main when it started) to its tip: that is
what accepting replays, and what a change id names. Main may have moved since. The review shows
main *now* on the left, so three diffs meet here, all over the files the run changes:

* ``run``: base -> tip, the run's changes (their ids are what the reviewer decides on);
* ``main``: base -> main now, what main did meanwhile;
* ``now``: main now -> tip, what the reviewer sees side by side.

:func:`main_changed` names the run's changes whose entries main changed too (reworded, moved,
dropped, merged since the run started): accepting one never overwrites main's version
silently (the replay keeps main's line and adds the run's, the screen asks first);
:func:`main_versions` gives main's line of each such entry, for an accept that replaces it.
:func:`rows_now` is ``align(now, path)`` with each row's change id put back to the run's change
it shows, so deciding on a row decides on the run's change; rows that show only what main did
carry no change id. :func:`emptied_files` names the files an accept would leave without entries.
"""

from __future__ import annotations

from collections.abc import Mapping

from amr_tui.core.diff.align import Row, align
from amr_tui.core.diff.entries import EntryChange, EntryDiff, EntryRef
from amr_tui.core.format.parser import parse
from amr_tui.core.paths import MEMORY_FILE

Ref = tuple[str, int]  # (path, line)


def _what_main_did(change: EntryChange) -> str:
    kind = change.kind.value
    if change.new is None:
        return "main dropped it"
    if kind == "moved":
        return f"main moved it to {change.new.where}"
    if kind == "merged":
        return f"main merged it into {change.new.where}: {change.new.text}"
    return f"main now reads: {change.new.text}"


def _main_changes(run: EntryDiff, main: EntryDiff) -> dict[str, EntryChange]:
    """Run change id -> main's change of the same entry since the run started."""
    touched: dict[Ref, EntryChange] = {}
    for c in main.changes:
        for o in c.old:
            touched.setdefault((o.path, o.line), c)
    out: dict[str, EntryChange] = {}
    for rc in run.changes:
        mc = next((touched[(o.path, o.line)] for o in rc.old if (o.path, o.line) in touched), None)
        if mc is not None:
            out[rc.id] = mc
    return out


def main_changed(run: EntryDiff, main: EntryDiff) -> dict[str, str]:
    """Run change id -> what main did to the same entry since the run started (only those main touched)."""
    return {cid: _what_main_did(mc) for cid, mc in _main_changes(run, main).items()}


def main_versions(run: EntryDiff, main: EntryDiff) -> dict[str, EntryRef]:
    """Run change id -> main's version now of the entry it changes, where main still has one
    (reworded, moved or merged since the run started; not where main dropped it)."""
    return {cid: mc.new for cid, mc in _main_changes(run, main).items() if mc.new is not None}


def change_map(run: EntryDiff, main: EntryDiff, now: EntryDiff) -> dict[str, str]:
    """``now``'s change ids (main now -> tip) -> the run's change ids (base -> tip) they show."""
    by_new: dict[Ref, str] = {}
    by_old: dict[Ref, str] = {}
    for rc in run.changes:
        if rc.new is not None:
            by_new[(rc.new.path, rc.new.line)] = rc.id
        for o in rc.old:
            by_old.setdefault((o.path, o.line), rc.id)
    # an entry of main now -> the base entry it comes from (unchanged or changed by main)
    base_of: dict[Ref, Ref] = {}
    for c in [*main.changes, *main.unchanged]:
        if c.new is not None and c.old:
            base_of[(c.new.path, c.new.line)] = (c.old[0].path, c.old[0].line)
    out: dict[str, str] = {}
    for c in [*now.changes, *now.unchanged]:
        rid = by_new.get((c.new.path, c.new.line)) if c.new is not None else None
        if rid is None:
            for o in c.old:
                # a file main did not change since the base: its lines are the base's
                same = None if o.path in main.changed_paths else (o.path, o.line)
                base = base_of.get((o.path, o.line), same)
                if base is not None and base in by_old:
                    rid = by_old[base]
                    break
        if rid is not None:
            out[c.id] = rid
    return out


def rows_now(now: EntryDiff, mapping: Mapping[str, str], path: str) -> list[Row]:
    """``path`` side by side, main now on the left, the run's tip on the right; each row's change
    is the run's change it shows, or None (and plain context) when it shows only what main did."""
    out: list[Row] = []
    for row in align(now, path):
        if row.change is None:
            out.append(row)
            continue
        rid = mapping.get(row.change)
        if rid is None:
            kind = "context" if row.kind not in ("removed", "added") else row.kind
            out.append(Row(row.old_line, row.new_line, row.old_text, row.new_text, kind, None))
        else:
            out.append(Row(row.old_line, row.new_line, row.old_text, row.new_text, row.kind, rid))
    return out


def emptied_files(changes: Mapping[str, bytes | None]) -> list[str]:
    """The Markdown files (not MEMORY.md) that ``changes`` leave with no entry: a heading, at most."""
    out: list[str] = []
    for path, data in sorted(changes.items()):
        if data is None or not path.endswith(".md") or path == MEMORY_FILE:
            continue
        if not parse(data, path, check=False).entries:
            out.append(path)
    return out
