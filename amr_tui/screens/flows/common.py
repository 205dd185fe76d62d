"""What the flows share: the repo the main screen shows, and reading a repo again after a flow."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from amr_tui.screens.main.screen import MainScreen
    from amr_tui.services.session.session import Session


def shown_repo(main: MainScreen, session: Session) -> str | None:
    """The repo of the file the main screen shows, else the first one mounted."""
    current = main.current
    return current.repo if current else (session.names[0] if session.names else None)


def read_again(main: MainScreen, changed: bool | None) -> None:
    """A pushed screen is done: when it changed the repo, the main screen reads it again."""
    if changed:
        main.action_reload()
        main.refresh_tree()
