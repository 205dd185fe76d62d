"""The main screen's features that open a screen of their own: sync, share, history, forgetting,
the Stale? queue, the dream review, the activity review, links and tags: one module each here.

Each is an async flow run as one worker (``AmrApp`` binds the keys and starts it): it checks what
the feature needs, runs git off the UI thread (``asyncio.to_thread``), asks its questions in turn
with ``push_screen_wait``, and when the feature changed the repo tells the main screen to read it
again. Nothing here touches a widget but through the screens' own methods.

A flow's module imports its screen and services at its top, and ``AmrApp`` imports the module
when the flow starts (``importlib``), so that the editor's first frame loads none of them
(tests/test_startup_path.py). This package itself holds only what the flows share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from amr_tui.screens.main.screen import MainScreen
    from amr_tui.services.session.state import Session


def shown_repo(main: MainScreen, session: Session) -> str | None:
    """The repo of the file the main screen shows, else the first one mounted."""
    current = main.current
    return current.repo if current else (session.names[0] if session.names else None)


def read_again(main: MainScreen, changed: bool | None) -> None:
    """A pushed screen is done: when it changed the repo, the main screen reads it again."""
    if changed:
        main.action_reload()
        main.refresh_tree()
