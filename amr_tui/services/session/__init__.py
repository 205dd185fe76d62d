"""The app's session: the mounted repos as the app sees them (files, documents, links, lint marks,
the search index, repo badges), the edits it makes, and the user's $EDITOR.

``Session`` (:mod:`.state`, with the poll of :mod:`.watch`) is thread-safe and never touches a
widget; :mod:`.editing` turns an edit into bytes for the write gate; :mod:`.external` runs
$EDITOR; :mod:`.fs` is the face of the safe file access in ``amr_tui.git.worktree``.

It is the top of ``amr_tui.services``: it may import the workspace, the write gate, sync,
history and dreams (and ``amr_tui.git``, ``amr_tui.core``), never the CLI's batch plumbing
(``services.batch``), and nothing in services imports it but the agent interface
(``services.agent``, which serves a session to agents). The app imports it once its first
frame is up (tests/test_startup_path.py).

Names load on first use (``amr_tui.core.lazy``, as core's faces do): importing one module of
the package loads only it and what it imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lazy import face

if TYPE_CHECKING:  # the names as a type checker reads them; at run time the map below is used
    from amr_tui.services.session.external import put_back, run_editor, run_editor_unread
    from amr_tui.services.session.state import Backlink, LockedSearch, OpenFile, Session
    from amr_tui.services.session.watch import Change, RepoInfo, RepoState, WatchMixin

__all__ = [
    "Backlink",
    "Change",
    "LockedSearch",
    "OpenFile",
    "RepoInfo",
    "RepoState",
    "Session",
    "WatchMixin",
    "put_back",
    "run_editor",
    "run_editor_unread",
]

__getattr__, __dir__ = face(
    __name__,
    {
        "state": ("Backlink", "LockedSearch", "OpenFile", "Session"),
        "watch": ("Change", "RepoInfo", "RepoState", "WatchMixin"),
        "external": ("put_back", "run_editor", "run_editor_unread"),
    },
)
