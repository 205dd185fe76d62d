"""Entry-level differences between two versions of a repo: what was merged, reworded, moved,
dropped, added or resurrected, how two versions line up side by side, and how to say it. Pure.

Modules, bottom up: ``similarity`` (when two texts are the same fact), ``entries``
(``diff_entries``), ``align`` (rows of a side-by-side view; its function is ``align.align``,
not named here because the module has the same name), ``text`` (summaries and JSON).

Names load on first use (``core.lazy``): importing one module of the package loads only it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lazy import face

if TYPE_CHECKING:  # the names as a type checker reads them; at run time the map below is used
    from amr_tui.core.diff.align import FileSummary, Row, applied_ids, entry_line_counts, file_summaries
    from amr_tui.core.diff.entries import (
        ChangeKind,
        EntryChange,
        EntryDiff,
        EntryRef,
        diff_entries,
        entry_of_line,
        mark_forgotten,
    )
    from amr_tui.core.diff.similarity import (
        SAME_FACT_MIN_CHARS,
        SAME_FACT_THRESHOLD,
        SameFactIndex,
        best_pairs,
        contained_score,
        reword_score,
        same_fact,
        text_digest,
    )
    from amr_tui.core.diff.text import describe, diff_json, summary_lines

__all__ = [
    "ChangeKind",
    "EntryChange",
    "EntryDiff",
    "EntryRef",
    "FileSummary",
    "Row",
    "SAME_FACT_MIN_CHARS",
    "SAME_FACT_THRESHOLD",
    "SameFactIndex",
    "applied_ids",
    "best_pairs",
    "contained_score",
    "describe",
    "diff_entries",
    "diff_json",
    "entry_line_counts",
    "entry_of_line",
    "file_summaries",
    "mark_forgotten",
    "reword_score",
    "same_fact",
    "summary_lines",
    "text_digest",
]

__getattr__, __dir__ = face(
    __name__,
    {
        "align": ("FileSummary", "Row", "applied_ids", "entry_line_counts", "file_summaries"),
        "entries": (
            "ChangeKind",
            "EntryChange",
            "EntryDiff",
            "EntryRef",
            "diff_entries",
            "entry_of_line",
            "mark_forgotten",
        ),
        "similarity": (
            "SAME_FACT_MIN_CHARS",
            "SAME_FACT_THRESHOLD",
            "SameFactIndex",
            "best_pairs",
            "contained_score",
            "reword_score",
            "same_fact",
            "text_digest",
        ),
        "text": ("describe", "diff_json", "summary_lines"),
    },
)
