"""How the review screens word things (the dream review and the activity review share it): ages,
one line per entry change, one line per file."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, cast

from textual.content import Content

from amr_tui.core.dreams.apply import EditError, as_edited
from amr_tui.widgets.safe import content

if TYPE_CHECKING:
    from amr_tui.core.diff.entries import EntryChange
    from amr_tui.services.dreams.model import ChangedFile, FileReview


def age(dt: _dt.datetime | None) -> str:
    if dt is None:
        return ""
    days = (_dt.datetime.now(dt.tzinfo) - dt).days
    return "today" if days <= 0 else f"{days}d ago"


def describe_change(change: EntryChange, edited: str | None = None) -> Content:
    """One line per entry change: what kind, and what became what. ``edited``: the entry line as
    the reviewer wrote it, shown in place of the run's (marked "(edited)")."""
    if edited is not None:
        try:
            change = as_edited(change, edited)
        except EditError:  # not one entry line: shown as the run has it (the accept refuses it)
            edited = None
    kind = change.kind.value
    style = {"resurrected": "$error bold", "dropped": "$warning", "new": "$success", "merged": "$accent"}.get(kind, "")
    parts = [content(f"{kind:<12}", style or "bold")]
    olds = [o.text for o in change.old]
    new = change.new.text if change.new else None
    if kind == "merged":
        parts.append(content(" + ".join(olds) + f"  \u2192  {new}"))
        parts.append(
            content(
                "  (sources kept)" if change.sources_kept else f"  (LOST sources: {', '.join(change.lost_sources)})",
                "$text-muted" if change.sources_kept else "$error",
            )
        )
    elif kind == "moved" and change.new is not None:
        src = change.old[0].path if change.old else "?"
        parts.append(content(f"{new}  ({src} \u2192 {change.new.path})"))
    elif kind in ("reworded", "metadata"):
        parts.append(content(f"{olds[0] if olds else ''}  \u2192  {new}"))
    elif kind == "dropped":
        parts.append(content(olds[0] if olds else ""))
    else:
        parts.append(content(new or (olds[0] if olds else "")))
    if edited is not None:
        parts.append(content("  (edited)", "$accent bold"))
    if change.resurrects:
        parts.append(content(f"  \u26a0 resurrects a forgotten fact: {change.resurrects}", "$error"))
    return Content.assemble(*parts)


def file_line(f: ChangedFile | FileReview) -> Content:
    """A file of the run: a ``FileReview`` with its entry-change counts, or (first, before the
    entries are read) a ``ChangedFile`` with git's line counts."""
    mark = content("\u2713 " if f.viewed else "  ", "$success")
    counts: dict[str, int] | None = getattr(f, "counts", None)  # only a FileReview has counts
    if counts is not None:
        what = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        # the gap ends the path's run: SVG renderers drop a run's leading spaces
        return Content.assemble(mark, content(f.path + "  ", "bold"), content(f"{f.status}; {what}", "$text-muted"))
    counted = cast("ChangedFile", f).lines
    lines = "binary" if counted is None else f"+{counted[0]} \u2212{counted[1]} lines"
    return Content.assemble(
        mark, content(f.path + "  ", "bold"), content(f"{f.status}; {lines}; entries\u2026", "$text-muted")
    )
