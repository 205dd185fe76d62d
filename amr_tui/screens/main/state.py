"""The main screen's small state objects: where its start-up is, which open is the latest, and
when a poll re-checks history. Each says what it tracks; the screen holds one of each."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from amr_tui.screens.main.place import Place

HISTORY_RECHECK_SECONDS = 5.0  # a poll re-checks resurrections (AMR030) at most this often


@dataclass
class StartUp:
    """The first frame and the first load's steps."""

    before_paint: list[Callable[[], object]] | None = field(default_factory=list)
    """What waits for the first frame to be painted (the rest of the tree, the load); None once
    it is painted."""
    first_shown: threading.Event = field(default_factory=threading.Event)
    """The tree and the first file are painted: the load worker goes on."""
    session_made: threading.Event = field(default_factory=threading.Event)
    """The session exists: opens asked for before it (from the first look's tree) wait on it."""
    peeked: tuple[str, str] | None = None
    """The file the first look showed (repo, path)."""
    first_opened: bool = False
    """The first file (MEMORY.md) was asked for, at Indexed or at Loaded."""
    pending_said: tuple[int, str | None] = (0, None)
    """What the status line last said waits for review (count, oldest): said again when it changes."""

    def take_queued(self) -> list[Callable[[], object]]:
        """The first frame is painted: what waited for it, once."""
        queued, self.before_paint = self.before_paint or [], None
        return queued


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
