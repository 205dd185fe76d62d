"""Saving, apart from the screen: a controller (not a widget) that runs each save in a thread
worker and says how it went in a message: ``Saved``, ``SaveFailed`` or ``Conflict``.

The controller holds no widgets and touches none: the screen that owns it shows what the
messages say. One save runs at a time (``saving``); the screen refuses a second one meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.dom import DOMNode
from textual.message import Message

if TYPE_CHECKING:
    from amr_tui.git.errors import ConflictError
    from amr_tui.services.session.state import OpenFile
    from amr_tui.services.writegate import Saved as SaveResult

#: One save: runs in the worker thread, makes one commit (or none) and says what it did.
SaveJob = Callable[[], "SaveResult"]


@dataclass
class Saved(Message):
    """A save is done: committed, or nothing to commit."""

    result: SaveResult
    """What the save did: the repo, the file and line to show, the commit and its message."""


@dataclass
class SaveFailed(Message):
    """A save was not made (a conflict is a ``Conflict`` instead)."""

    error: Exception
    """Why: a refusal, someone else's uncommitted change, a missing git identity, ..."""
    job: SaveJob
    """The save that failed, to run again once the cause is fixed (the identity is set)."""
    of: OpenFile | None
    """The version of the file the save was based on, if any."""
    back: Callable[[], None] | None
    """Gives the user's text back in its editor when that editor is gone, or None."""


@dataclass
class Conflict(Message):
    """A save met a change committed meanwhile that does not merge with it."""

    error: ConflictError
    """Both sides and their base, as the conflict view shows them."""
    of: OpenFile
    """The version of the file the save was based on."""
    back: Callable[[], None] | None
    """Gives the user's text back in its editor if the conflict is left unresolved, or None."""


class SaveController:
    """Runs saves for ``host`` (the screen that shows them), one at a time, in thread workers."""

    def __init__(self, host: DOMNode) -> None:
        self._host = host
        self.saving = False
        """A save is running: its message has not been handled yet (``settle`` ends it)."""

    def start(self, job: SaveJob, of: OpenFile | None = None, back: Callable[[], None] | None = None) -> bool:
        """Run ``job`` in a thread; False (and nothing runs) while another save is running."""
        if self.saving:
            return False
        self.saving = True
        _save_worker(self._host, job, of, back)
        return True

    def settle(self) -> None:
        """The host has handled the last save's message: the next save may start."""
        self.saving = False


@work(thread=True, group="save")
def _save_worker(host: DOMNode, job: SaveJob, of: OpenFile | None, back: Callable[[], None] | None) -> None:
    """The save, in a thread: every failure becomes a message, never a crash."""
    # Imported here, in the worker: git is loaded by the session by now, and keeping it out of
    # this module keeps it off the main screen's first frame (tests/test_startup_path.py).
    from amr_tui.git.errors import ConflictError

    try:
        result = job()
    except ConflictError as exc:
        host.post_message(Conflict(exc, of, back) if of is not None else SaveFailed(exc, job, of, back))
        return
    except Exception as exc:  # every failure becomes a notification, never a crash
        host.post_message(SaveFailed(exc, job, of, back))
        return
    host.post_message(Saved(result))
