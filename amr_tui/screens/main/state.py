"""The main screen's small state objects: which open is the latest, and when a poll re-checks
history. Each says what it tracks; the screen holds one of each (its start-up: loading.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from amr_tui.screens.main.place import Place

HISTORY_RECHECK_SECONDS = 5.0  # a poll re-checks resurrections (AMR030) at most this often


@dataclass
class Opens:
    """Opens run in workers and may finish out of order (a big file after a small one): only the
    latest one asked for is shown. An edit key pressed while one is on its way waits for it."""

    asked: int = 0
    """Bumped by every open: the ticket of the latest."""
    shown: int = 0
    """The open whose file (or failure) was shown last."""
    wanted: Place | None = None
    """The place the latest open asked for, until it is shown (a reload reads that one)."""
    deferred: Callable[[], None] | None = None
    """An edit key pressed while a save or an open was on its way (the last one wins)."""

    def ask(self, place: Place) -> int:
        self.asked += 1
        self.wanted = place
        return self.asked

    def is_latest(self, ticket: int) -> bool:
        return ticket == self.asked

    @property
    def on_its_way(self) -> bool:
        return self.asked != self.shown


@dataclass
class Polls:
    """The 1-second poll: one at a time, and the history re-check it does at most every
    ``HISTORY_RECHECK_SECONDS`` once the first AMR030 walk is done."""

    running: bool = False
    history_checked: bool = False
    history_next: float = 0.0

    def history_due(self, now: float) -> bool:
        """Whether this poll re-checks history (and when the next may)."""
        if not self.history_checked or now < self.history_next:
            return False
        self.history_next = now + HISTORY_RECHECK_SECONDS
        return True
