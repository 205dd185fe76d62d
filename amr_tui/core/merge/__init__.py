"""amr's three-way merge of memory files, entry by entry, and the resolution of its conflicts. Pure.

Modules, bottom up: ``linediff`` (line hunks), ``parts`` (the conflict model, rendering, one
entry line merged), ``three_way`` (``merge3``), ``resolution`` (a conflict's choice applied).

Names load on first use (``core.lazy``): importing one module of the package loads only it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lazy import face

if TYPE_CHECKING:  # the names as a type checker reads them; at run time the map below is used
    from amr_tui.core.merge.linediff import Hunk, diff_hunks
    from amr_tui.core.merge.parts import (
        ADDED_BOTH,
        BASE,
        BOTH,
        CHOICES,
        DELETED_OURS,
        DELETED_THEIRS,
        EDITED_BOTH,
        OURS,
        THEIRS,
        Choice,
        Conflict,
        ConflictPiece,
        MergeResult,
        merge_metadata,
    )
    from amr_tui.core.merge.resolution import EDITED, ConflictChoice, resolved_bytes
    from amr_tui.core.merge.three_way import entry_facts, merge3

__all__ = [
    "ADDED_BOTH",
    "BASE",
    "BOTH",
    "CHOICES",
    "Choice",
    "Conflict",
    "ConflictChoice",
    "ConflictPiece",
    "DELETED_OURS",
    "DELETED_THEIRS",
    "EDITED",
    "EDITED_BOTH",
    "Hunk",
    "MergeResult",
    "OURS",
    "THEIRS",
    "diff_hunks",
    "entry_facts",
    "merge3",
    "merge_metadata",
    "resolved_bytes",
]

__getattr__, __dir__ = face(
    __name__,
    {
        "linediff": ("Hunk", "diff_hunks"),
        "parts": (
            "ADDED_BOTH",
            "BASE",
            "BOTH",
            "CHOICES",
            "Choice",
            "Conflict",
            "ConflictPiece",
            "DELETED_OURS",
            "DELETED_THEIRS",
            "EDITED_BOTH",
            "OURS",
            "THEIRS",
            "MergeResult",
            "merge_metadata",
        ),
        "resolution": ("EDITED", "ConflictChoice", "resolved_bytes"),
        "three_way": ("entry_facts", "merge3"),
    },
)
