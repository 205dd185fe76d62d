"""Syncing a memory repo with its remote: fetch, merge with amr's driver, push (never forced);
the conflicts a merge leaves and their resolution; amr's merge driver in ``.gitattributes``.

Inside, imports go one way: :mod:`.state` (the sync record, conflicts) <- :mod:`.run` (``sync``)
<- :mod:`.resolve`; :mod:`.gitattrs` stands alone. It imports nothing else from
``amr_tui.services`` (only ``amr_tui.git``, ``amr_tui.core``); the session and the CLI import it.

Names load on first use (``amr_tui.core.lazy``, as core's faces do): importing one module of
the package loads only it and what it imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lazy import face

if TYPE_CHECKING:  # the names as a type checker reads them; at run time the map below is used
    from amr_tui.services.sync.gitattrs import (
        InstallResult,
        attributes_with_driver,
        install_merge_driver,
        lint_merge_drivers,
        undefined_merge_drivers,
    )
    from amr_tui.services.sync.resolve import all_choice, pending_merge
    from amr_tui.services.sync.run import EXIT_CODES, PendingMerge, SyncProgress, SyncResult, sync, sync_state
    from amr_tui.services.sync.state import FileConflict, SyncState, load_state, update_state

__all__ = [
    "EXIT_CODES",
    "FileConflict",
    "InstallResult",
    "PendingMerge",
    "SyncProgress",
    "SyncResult",
    "SyncState",
    "all_choice",
    "attributes_with_driver",
    "install_merge_driver",
    "lint_merge_drivers",
    "load_state",
    "pending_merge",
    "sync",
    "sync_state",
    "undefined_merge_drivers",
    "update_state",
]

__getattr__, __dir__ = face(
    __name__,
    {
        "state": ("FileConflict", "SyncState", "load_state", "update_state"),
        "run": ("EXIT_CODES", "PendingMerge", "SyncProgress", "SyncResult", "sync", "sync_state"),
        "resolve": ("all_choice", "pending_merge"),  # resolve() itself: from .resolve (the module has its name)
        "gitattrs": (
            "InstallResult",
            "attributes_with_driver",
            "install_merge_driver",
            "lint_merge_drivers",
            "undefined_merge_drivers",
        ),
    },
)
