"""The Stale? queue flow."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING

from amr_tui.screens.flows.common import read_again
from amr_tui.screens.main.place import Place
from amr_tui.screens.stale import StaleScreen

if TYPE_CHECKING:
    from textual.app import App

    from amr_tui.screens.main.screen import MainScreen
    from amr_tui.services.config import Config
    from amr_tui.services.session.session import Session


async def stale(app: App[int], main: MainScreen, session: Session, config: Config, today: _dt.date | None) -> None:
    """Facts whose evidence no longer holds in the code, and facts not verified lately: confirm,
    edit, supersede or forget each; enter opens one on the main screen."""
    session.verifying.config = config
    screen = StaleScreen(session, session.names, today=today)
    changed = await app.push_screen_wait(screen)
    for repo, oid in screen.written:
        session.note_written(repo, oid)  # z undoes them as any other write
    read_again(main, changed)
    if screen.go_to is not None:
        repo, path, line = screen.go_to
        main.leave_file(lambda: main.open_place(Place(repo, path, line)))
