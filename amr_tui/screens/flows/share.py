"""The share flow: the share screen, on a fresh temporary folder."""

from __future__ import annotations

import tempfile
from typing import TYPE_CHECKING

from amr_tui.screens.share import ShareScreen

if TYPE_CHECKING:
    from textual.app import App

    from amr_tui.screens.main.screen import MainScreen
    from amr_tui.services.session.session import Session


async def share(app: App[int], main: MainScreen, session: Session) -> None:
    await app.push_screen_wait(ShareScreen(session, tempfile.mkdtemp(prefix="amr-share-")))
