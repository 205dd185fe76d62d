"""What the main screen needs from the app that shows it: one Protocol (``AmrApp`` is the host)
and a host that needs nothing, for a screen made outside an app."""

from __future__ import annotations

import datetime as _dt
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from amr_tui.services.config import Config

if TYPE_CHECKING:
    from amr_tui.screens.main.peek import Lookahead
    from amr_tui.services.session.session import Session


class MainHost(Protocol):
    """The app the main screen runs in."""

    config: Config
    """The user's settings (``tree_width``, ``merge_driver``)."""
    today: _dt.date | None
    """The day ages like "2mo" count from (fixed in tests and screenshots); None: today."""
    lookahead: Lookahead | None
    """The first look at the mounts, read while Textual started (None: the screen reads it)."""
    load_hold: threading.Event | None
    """Tests: the load waits on it after the first frame."""

    def after_first_frame(self, callback: Callable[[], object]) -> bool:
        """Call ``callback`` once the first frame is written; False when it was (or never is)."""
        ...

    def first_frame_painted(self) -> None:
        """The first useful frame is on the screen."""
        ...

    def session_ready(self, session: Session | None) -> None:
        """The screen's session exists."""
        ...

    def save_setting(self, **values: str | int) -> None:
        """Keep these settings in the config file."""
        ...


class NoHost:
    """A host that asks for nothing: the defaults, no first look, settings not kept."""

    def __init__(self) -> None:
        self.config = Config()
        self.today: _dt.date | None = None
        self.lookahead: Lookahead | None = None
        self.load_hold: threading.Event | None = None

    def after_first_frame(self, callback: Callable[[], object]) -> bool:
        return False

    def first_frame_painted(self) -> None:
        return None

    def session_ready(self, session: Session | None) -> None:
        return None

    def save_setting(self, **values: str | int) -> None:
        return None
