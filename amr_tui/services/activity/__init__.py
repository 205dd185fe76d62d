"""Activity review: what others (agents, other people) committed to a repo since the user last
reviewed it, entry by entry, with a per-repo "reviewed up to" mark kept inside the git dir
(``.git/amr/reviewed.json``, never in the work tree), and reverting one entry change or a whole
commit as a new commit through the write gate (docs/activity.md).

Inside, imports go one way: :mod:`.model` (records, the mark file) <- :mod:`.revert` (the
reverse of one entry change, on bytes) <- :mod:`.service` (``ActivityService``). It may import
the workspace and the write gate (and ``amr_tui.git``, ``amr_tui.core``); the session imports
it, never the other way round.

Names load on first use (``amr_tui.core.lazy``, as core's faces do): importing one module of
the package loads only it and what it imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lazy import face

if TYPE_CHECKING:  # the names as a type checker reads them; at run time the map below is used
    from amr_tui.services.activity.model import (
        REVIEWED_FILE,
        Activity,
        ActivityChange,
        ActivityCommit,
        ActivityError,
    )
    from amr_tui.services.activity.revert import revert_entry
    from amr_tui.services.activity.service import ActivityService, OneRepo

__all__ = [
    "REVIEWED_FILE",
    "Activity",
    "ActivityChange",
    "ActivityCommit",
    "ActivityError",
    "ActivityService",
    "OneRepo",
    "revert_entry",
]

__getattr__, __dir__ = face(
    __name__,
    {
        "model": ("REVIEWED_FILE", "Activity", "ActivityChange", "ActivityCommit", "ActivityError"),
        "revert": ("revert_entry",),
        "service": ("ActivityService", "OneRepo"),
    },
)
