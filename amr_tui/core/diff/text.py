"""Text and JSON forms of an entry diff (what ``amr dreams show`` prints). Pure.

Text is returned as is: callers that print it to a terminal pass it through
``cli.output.safe`` (entry text and paths come from the repo and are untrusted).
"""

from __future__ import annotations

from amr_tui.core.diff.align import file_summaries
from amr_tui.core.diff.entries import ChangeKind, EntryChange, EntryDiff, EntryRef
from amr_tui.core.format.edit import summarise

KIND_ORDER = ("merged", "reworded", "moved", "metadata", "dropped", "new", "resurrected")
TEXT_WIDTH = 64


def describe(change: EntryChange, width: int = TEXT_WIDTH) -> str:
    """One line: kind, where from and to, the text, and what to watch for."""
    kind = change.kind.value
    olds = " + ".join(o.where for o in change.old)
    new = change.new.where if change.new else ""
    if change.kind is ChangeKind.NEW or change.kind is ChangeKind.RESURRECTED:
        where = new
    elif change.kind is ChangeKind.DROPPED:
        where = olds
    elif len(change.old) == 1 and change.new is not None and change.old[0].path == change.new.path:
        o = change.old[0]
        where = o.where if o.line == change.new.line else f"{o.where} -> :{change.new.line}"
    else:
        where = f"{olds} -> {new}"
    text = summarise((change.new or change.old[0]).text, width)
    notes: list[str] = []
    if change.kind is ChangeKind.MERGED:
        notes.append("sources kept" if change.sources_kept else f"LOST {len(change.lost_sources)} source(s)")
    elif change.kind in (ChangeKind.MOVED, ChangeKind.REWORDED, ChangeKind.METADATA):
        if change.kind is ChangeKind.MOVED and change.reworded:
            notes.append("reworded")
        if change.kind is not ChangeKind.METADATA and change.metadata:
            notes.append("metadata changed")
        if change.lost_sources:
            notes.append(f"LOST {len(change.lost_sources)} source(s)")
    if change.inferred_from:
        notes.append("inferred from " + ", ".join(r.where for r in change.inferred_from))
    if change.resurrects:
        notes.append("WARNING: " + change.resurrects)
    tail = f" ({'; '.join(notes)})" if notes else ""
    return f'{kind:<11} {where}  "{text}"{tail}'


def counts(diff: EntryDiff) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in diff.changes:
        if not c.links_only:
            out[c.kind.value] = out.get(c.kind.value, 0) + 1
    return {k: out[k] for k in KIND_ORDER if k in out}


def summary_line(diff: EntryDiff) -> str:
    parts = [f"{n} {k}" for k, n in counts(diff).items()]
    links = [c for c in diff.changes if c.links_only]
    if links:
        parts.append(f"{len(links)} index link change{'s' if len(links) != 1 else ''}")
    return ", ".join(parts) if parts else "no entry changes"


def summary_lines(
    diff: EntryDiff,
    width: int = TEXT_WIDTH,
    *,
    ids: bool = True,
    applied: set[str] | frozenset[str] = frozenset(),
    rejected: set[str] | frozenset[str] = frozenset(),
) -> list[str]:
    """Per file (in path order): its status, then each change whose result lands in it.

    Index lines (nothing but ``[[links]]``) are folded into one line per file. With ``ids`` each
    change ends with its id in brackets (what ``amr dreams accept --entry`` takes), followed by
    "on main" when it is in ``applied`` and "rejected" when it is in ``rejected``.
    """
    out = [f"Entries: {summary_line(diff)}"]
    changed = set(diff.changed_paths)
    for fs in file_summaries(diff):
        # a change lands in its new entry's file; one merged into an unchanged file, in its old one
        mine = [
            c
            for c in diff.changes
            if c.primary_path == fs.path or (c.primary_path not in changed and c.old and c.old[0].path == fs.path)
        ]
        out.append(f"{fs.path} ({fs.status})")
        for c in mine:
            if not c.links_only:
                notes = (", on main" if c.id in applied else "") + (", rejected" if c.id in rejected else "")
                tag = f"  [{c.id}{notes}]" if ids else ""
                out.append("  " + describe(c, width) + tag)
        links = [c for c in mine if c.links_only]
        added = [
            c.new.text
            for c in links
            if c.new is not None and c.kind is not ChangeKind.UNCHANGED and (not c.old or c.old[0].path != c.new.path)
        ]
        removed = [c.old[0].text for c in links if c.new is None]
        if added or removed:
            bits = []
            if added:
                bits.append(f"+{len(added)}: " + " ".join(added))
            if removed:
                bits.append(f"-{len(removed)}: " + " ".join(removed))
            out.append(f"  {'index':<11} " + "; ".join(bits))
        elif not mine and fs.status == "deleted":
            went = [c.new.path for c in diff.changes for o in c.old if o.path == fs.path and c.new is not None]
            if went:
                dests = ", ".join(dict.fromkeys(went))
                out.append(f"  {len(went)} entr{'y' if len(went) == 1 else 'ies'} went to {dests}")
    return out


def ref_json(ref: EntryRef) -> dict[str, object]:
    return {"path": ref.path, "line": ref.line, "text": ref.text, "raw": ref.raw, "sources": list(ref.sources)}


def change_json(change: EntryChange) -> dict[str, object]:
    return {
        "id": change.id,
        "kind": change.kind.value,
        "old": [ref_json(r) for r in change.old],
        "new": ref_json(change.new) if change.new else None,
        "score": round(change.score, 1),
        "reworded": change.reworded,
        "metadata_changed": change.metadata,
        "sources_kept": change.sources_kept,
        "lost_sources": list(change.lost_sources),
        "inferred_from": [{"path": r.path, "line": r.line} for r in change.inferred_from],
        "resurrects": change.resurrects,
        "index_link": change.links_only,
    }


def diff_json(diff: EntryDiff) -> dict[str, object]:
    return {
        "summary": summary_line(diff),
        "counts": counts(diff),
        "files": [
            {"path": f.path, "status": f.status, "counts": f.counts, "changes": list(f.changes)}
            for f in file_summaries(diff)
        ],
        "changes": [change_json(c) for c in diff.changes],
    }
