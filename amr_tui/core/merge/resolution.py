"""What a choice in the edit-conflict view means, as the bytes to write. Pure: no I/O.

A save conflicts when the user's change (``base -> ours``) and a commit made since (``base ->
theirs``) touch the same entries. "Keep mine" and "Keep theirs" decide those entries only: the
result is the three-way merge of the two, with every conflict taken from the chosen side, so a
fact the agent committed elsewhere in the file stays, and so does every other change the user
made. Lines that were in ``base`` but are not committed (someone's uncommitted edit the user saw)
are not in ``theirs``, so they are not in the result either: the write gate, given the result
as a change based on ``theirs``, leaves them in the work tree and out of the commit.
"""

from __future__ import annotations

from dataclasses import dataclass

from amr_tui.core.merge.parts import OURS, THEIRS
from amr_tui.core.merge.three_way import merge3

EDITED = "edited"


@dataclass(frozen=True, slots=True)
class ConflictChoice:
    """What the user chose: ``OURS`` or ``THEIRS`` for the conflicting entries, or ``EDITED``
    with ``text``, the result they wrote themselves (a version of ``theirs``, changed)."""

    side: str
    text: bytes | None = None

    def __post_init__(self) -> None:
        if self.side not in (OURS, THEIRS, EDITED):
            raise ValueError(f"unknown conflict choice {self.side!r}")


def resolved_bytes(
    path: str, base: bytes | None, ours: bytes | None, theirs: bytes | None, choice: ConflictChoice
) -> bytes | None:
    """The file as ``choice`` resolves the conflict between ``ours`` and ``theirs`` (both from
    ``base``); None deletes the file. A side that deleted the file, or was deleted by the other,
    is taken whole: there are no entries to pick between."""
    if choice.side == EDITED:
        return choice.text
    if ours is None or theirs is None:
        return ours if choice.side == OURS else theirs
    result = merge3(base, ours, theirs, path, labels=("yours", "base", "theirs"))
    return result.resolve({c.index: choice.side for c in result.conflicts})


__all__ = ["EDITED", "OURS", "THEIRS", "ConflictChoice", "resolved_bytes"]
