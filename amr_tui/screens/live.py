"""A list that shows what git holds, read again when that changes while it is open.

The dreaming runs (V), the activity review and the forgotten facts each show refs of a repo
(run branches and decision records, HEAD and the review mark). An agent, or the user in another
shell, changes them while the list is open: ``amr dream``, ``amr dreams reject RUN``, a commit,
``amr activity --mark``. :class:`LiveList` looks at the refs' signature (each service's
``signature()``, ``git.watch.watch_signature``: a few stats, no git process) in a thread worker
at the app's poll interval, while its screen is the one shown and not busy, and has the screen
read its list again when the signature differs from the one taken when the list was read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.message import Message
from textual.screen import Screen


class LiveList:
    """``reload`` runs (on the UI thread) when ``signature()`` (run in a thread) changed since
    ``mark()`` was last called: the screen's read calls ``mark()`` just before it reads (``read``
    does both)."""

    def __init__(
        self,
        screen: Screen[Any],
        signature: Callable[[], object],
        reload: Callable[[], object],
        *,
        busy: Callable[[], bool] = lambda: False,
    ) -> None:
        self.screen = screen
        self.signature = signature
        self.reload = reload
        self.busy = busy
        self.seen: object = None  # the signature when the list was last read (None: not yet)

    def start(self, interval: float) -> None:
        """Read the list now (``reload``), then look every ``interval`` seconds (the screen's
        timer: it stops with the screen)."""
        self.reload()
        self.screen.set_interval(interval, self._tick, name="live-list")

    def mark(self) -> None:
        """In the worker that reads the list, just before it reads: what it reads is this."""
        self.seen = self._look_now()

    def read(self, loaded: Callable[[], Message], failed: Callable[[Exception], Message]) -> None:
        """The screen's read, in its worker: marks, then posts ``loaded()`` (the list, read), or
        ``failed(exc)`` when it cannot be read."""
        self.mark()
        try:
            message = loaded()
        except Exception as exc:
            message = failed(exc)
        self.screen.post_message(message)

    def _look_now(self) -> object:
        try:
            return self.signature()
        except Exception:  # a repo gone or unreadable: the read says so; nothing to follow
            return None

    def _quiet(self) -> bool:
        return self.screen.is_current and not self.busy()

    def _tick(self) -> None:
        if self.seen is not None and self._quiet():
            self.screen.run_worker(self._look, thread=True, exclusive=True, group="live-list")

    def _look(self) -> None:
        now = self._look_now()
        if now is not None and now != self.seen:
            try:
                self.screen.app.call_from_thread(self._changed)
            except RuntimeError:  # the app is closing
                pass

    def _changed(self) -> None:
        if self._quiet():
            self.seen = None  # no look until the read marks what it reads
            self.reload()
