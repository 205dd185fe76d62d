"""The agent interface: what an agent may read and write in the mounted memory repos, and how.

``amr mcp`` (``cli/mcp_cmd.py``) serves it over the Model Context Protocol. Inside, imports go
one way: :mod:`.model` (the plain results) <- :mod:`.lines` (pure helpers: the entry lines a
write is made of, finding an entry again by its hash) <- :mod:`.memory` (``AgentMemory``). It may import
the session, the write gate, history and dreams (and ``amr_tui.git``, ``amr_tui.core``).

Names load on first use (``amr_tui.core.lazy``, as core's faces do).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lazy import face

if TYPE_CHECKING:  # the names as a type checker reads them; at run time the map below is used
    from amr_tui.services.agent.lines import INBOX_FILE
    from amr_tui.services.agent.memory import AgentError, AgentMemory, Writer
    from amr_tui.services.agent.model import (
        DiagnosticOut,
        EntryOut,
        FileRead,
        HistoryResult,
        IndexTarget,
        LoadedRepo,
        LoadResult,
        SearchResult,
        SearchResults,
        Status,
        TimelineEventOut,
        WriteResult,
        entry_hash,
    )

__all__ = [
    "INBOX_FILE",
    "AgentError",
    "AgentMemory",
    "DiagnosticOut",
    "EntryOut",
    "FileRead",
    "HistoryResult",
    "IndexTarget",
    "LoadResult",
    "LoadedRepo",
    "SearchResult",
    "SearchResults",
    "Status",
    "TimelineEventOut",
    "WriteResult",
    "Writer",
    "entry_hash",
]

__getattr__, __dir__ = face(
    __name__,
    {
        "lines": ("INBOX_FILE",),
        "memory": ("AgentError", "AgentMemory", "Writer"),
        "model": (
            "DiagnosticOut",
            "EntryOut",
            "FileRead",
            "HistoryResult",
            "IndexTarget",
            "LoadResult",
            "LoadedRepo",
            "SearchResult",
            "SearchResults",
            "Status",
            "TimelineEventOut",
            "WriteResult",
            "entry_hash",
        ),
    },
)
