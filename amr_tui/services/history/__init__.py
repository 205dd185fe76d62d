"""History and provenance of a memory repo: file history, entry timelines, blame, forgotten facts
(deleted entries and tombstones), forget and restore.

Inside, imports go one way: :mod:`.forgotten` (the deletion log, forget and restore, on any
``HistorySource``) <- :mod:`.provenance` (``HistoryService``). It may import the workspace (and
``amr_tui.git``, ``amr_tui.core``); dreams, the session and the CLI's lint import it.
"""

from amr_tui.services.history.forgotten import DeletionLog, ForgottenFact, HistorySource, forget, restore
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
    "DeletionLog",
    "FileVersion",
    "ForgottenFact",
    "HistoryCursor",
    "HistoryItem",
    "HistoryPage",
    "HistoryService",
    "HistorySource",
    "Timeline",
    "TimelineEvent",
    "forget",
    "restore",
    "resurrections",
]
