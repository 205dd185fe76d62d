"""History and provenance of a memory repo: file history, entry timelines, blame, forgotten facts
(deleted entries and tombstones), forget and restore, and the searchable past.

Inside, imports go one way: :mod:`.forgotten` (the deletion log, forget and restore, on any
``HistorySource``) <- :mod:`.past` (deleted and reworded entries, ``PastIndex``) <-
:mod:`.provenance` (``HistoryService``). It may import the workspace (and
``amr_tui.git``, ``amr_tui.core``); dreams, the session and the CLI's lint import it.

Names load on first use (``amr_tui.core.lazy``, as core's faces do): importing one module of
the package loads only it and what it imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lazy import face

if TYPE_CHECKING:  # the names as a type checker reads them; at run time the map below is used
    from amr_tui.services.history.forgotten import (
        MOVED_TRAILER,
        DeletionLog,
        ForgottenFact,
        HistorySource,
        forget,
        restore,
    )
    from amr_tui.services.history.past import PastEntry, PastIndex
    from amr_tui.services.history.provenance import (
        FileVersion,
        HistoryCursor,
        HistoryItem,
        HistoryPage,
        HistoryService,
        Timeline,
        TimelineEvent,
        resurrections,
    )

__all__ = [
    "MOVED_TRAILER",
    "DeletionLog",
    "FileVersion",
    "ForgottenFact",
    "HistoryCursor",
    "HistoryItem",
    "HistoryPage",
    "HistoryService",
    "HistorySource",
    "PastEntry",
    "PastIndex",
    "Timeline",
    "TimelineEvent",
    "forget",
    "restore",
    "resurrections",
]

__getattr__, __dir__ = face(
    __name__,
    {
        "forgotten": ("MOVED_TRAILER", "DeletionLog", "ForgottenFact", "HistorySource", "forget", "restore"),
        "past": ("PastEntry", "PastIndex"),
        "provenance": (
            "FileVersion",
            "HistoryCursor",
            "HistoryItem",
            "HistoryPage",
            "HistoryService",
            "Timeline",
            "TimelineEvent",
            "resurrections",
        ),
    },
)
