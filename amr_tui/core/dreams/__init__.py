"""Dreaming, the pure part: amr's built-in clean-up pass over a snapshot (``clean.dream``) and
the replay of a reviewed run's accepted entry changes onto the current files (``apply``).

Names load on first use (``core.lazy``): importing one module of the package loads only it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lazy import face

if TYPE_CHECKING:  # the names as a type checker reads them; at run time the map below is used
    from amr_tui.core.dreams.apply import EditError, applied, apply_change
    from amr_tui.core.dreams.clean import DreamResult, DreamStep, dream, follow_renames

__all__ = [
    "DreamResult",
    "DreamStep",
    "EditError",
    "applied",
    "apply_change",
    "dream",
    "follow_renames",
]

__getattr__, __dir__ = face(
    __name__,
    {
        "apply": ("EditError", "applied", "apply_change"),
        "clean": ("DreamResult", "DreamStep", "dream", "follow_renames"),
    },
)
