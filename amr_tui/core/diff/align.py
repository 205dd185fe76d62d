"""Side-by-side rows and per-file summaries of an entry diff (pure).

``align(diff, path)`` pairs the lines of the old and new version of one file so that an entry and
its counterpart share a row; ``file_summaries(diff)`` counts the changes touching each file;
``applied_ids(diff, files)`` says which changes main already has.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass

from amr_tui.core.diff.entries import EntryChange, EntryDiff
from amr_tui.core.format.parser import parse


@dataclass(frozen=True, slots=True)
class FileSummary:
    path: str
    status: str  # "added", "deleted", "modified", "unchanged"
    counts: dict[str, int]  # change kind -> number of changes touching this file
    changes: tuple[str, ...]  # ids of the changes touching this file


# ---------------------------------------------------------------------------------------------
# Side-by-side alignment and per-file summaries


@dataclass(frozen=True, slots=True)
class Row:
    old_line: int | None
    new_line: int | None
    old_text: str | None
    new_text: str | None
    kind: str  # a ChangeKind value for entry lines; "context", "removed", "added" for other lines
    change: str | None = None  # the change id, for entry lines


def _line_roles(
    diff: EntryDiff, path: str
) -> tuple[dict[int, tuple[str, EntryChange]], dict[int, tuple[str, EntryChange]]]:
    old_roles: dict[int, tuple[str, EntryChange]] = {}
    new_roles: dict[int, tuple[str, EntryChange]] = {}
    for c in [*diff.changes, *diff.unchanged]:
        paired_here = c.new is not None and c.new.path == path and any(o.path == path for o in c.old)
        for o in c.old:
            if o.path == path:
                paired = paired_here and o is next(x for x in c.old if x.path == path)
                old_roles[o.line] = (c.id if paired else f"old:{o.line}", c)
        if c.new is not None and c.new.path == path:
            new_roles[c.new.line] = (c.id if paired_here else f"new:{c.new.line}", c)
    return old_roles, new_roles


def align(diff: EntryDiff, path: str) -> list[Row]:
    """Rows for a side-by-side view of ``path``: old on the left, new on the right.

    An entry paired with one in the same file (unchanged, metadata, reworded, merged) shares a
    row with it; everything else gets a row of its own with its change kind. Other lines are
    matched as text ("context") or shown as "removed" / "added".
    """
    old_doc, new_doc = diff.old_docs.get(path), diff.new_docs.get(path)
    old_lines = old_doc.lines if old_doc else []
    new_lines = new_doc.lines if new_doc else []
    old_roles, new_roles = _line_roles(diff, path)
    old_keys = [("E", old_roles[ln.number][0]) if ln.number in old_roles else ("T", ln.text) for ln in old_lines]
    new_keys = [("E", new_roles[ln.number][0]) if ln.number in new_roles else ("T", ln.text) for ln in new_lines]
    rows: list[Row] = []

    def old_row(k: int) -> Row:
        ln = old_lines[k]
        role = old_roles.get(ln.number)
        kind = role[1].kind.value if role else "removed"
        return Row(ln.number, None, ln.text, None, kind, role[1].id if role else None)

    def new_row(k: int) -> Row:
        ln = new_lines[k]
        role = new_roles.get(ln.number)
        kind = role[1].kind.value if role else "added"
        return Row(None, ln.number, None, ln.text, kind, role[1].id if role else None)

    matcher = difflib.SequenceMatcher(None, old_keys, new_keys, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            for a, b in zip(range(a0, a1), range(b0, b1), strict=True):  # an "equal" run: as long on both sides
                role = old_roles.get(old_lines[a].number)
                kind = role[1].kind.value if role else "context"
                rows.append(
                    Row(
                        old_lines[a].number,
                        new_lines[b].number,
                        old_lines[a].text,
                        new_lines[b].text,
                        kind,
                        role[1].id if role else None,
                    )
                )
            continue
        rows.extend(old_row(a) for a in range(a0, a1))
        rows.extend(new_row(b) for b in range(b0, b1))
    return rows


def file_summaries(diff: EntryDiff) -> list[FileSummary]:
    """One summary per changed file, in path order."""
    out: list[FileSummary] = []
    for path in diff.changed_paths:
        if path in diff.old_paths and path in diff.new_paths:
            status = "modified"
        elif path in diff.new_paths:
            status = "added"
        else:
            status = "deleted"
        counts: dict[str, int] = {}
        ids: list[str] = []
        for c in diff.changes:
            if path in c.paths:
                counts[c.kind.value] = counts.get(c.kind.value, 0) + 1
                ids.append(c.id)
        out.append(FileSummary(path, status, counts, tuple(ids)))
    return out


def entry_line_counts(diff: EntryDiff) -> tuple[int, int]:
    """(entry lines added, entry lines removed): lines not present verbatim on the other side."""
    changed = set(diff.changed_paths)
    added = sum(
        1
        for c in diff.changes
        if c.new is not None and c.new.path in changed and all(o.raw != c.new.raw for o in c.old)
    )
    removed = sum(1 for c in diff.changes for o in c.old if c.new is None or o.raw != c.new.raw)
    return added, removed


def applied_ids(diff: EntryDiff, files: Mapping[str, bytes | None]) -> set[str]:
    """Ids of the changes main (``files``: path -> bytes) already reads as they leave it.

    The rule of ``core.dreams.apply.applied`` (old lines gone, the new line present), with each
    file's lines read once for all the changes instead of once per change.
    """
    texts: dict[str, set[str]] = {}

    def lines_of(path: str) -> set[str]:
        if path not in texts:
            data = files.get(path)
            texts[path] = {ln.text for ln in parse(data, path, check=False).lines} if data is not None else set()
        return texts[path]

    done: set[str] = set()
    for c in diff.changes:
        if c.new is not None and c.new.raw not in lines_of(c.new.path):
            continue
        if all(
            c.new is not None and o.raw == c.new.raw and o.path == c.new.path or o.raw not in lines_of(o.path)
            for o in c.old
        ):
            done.add(c.id)
    return done
