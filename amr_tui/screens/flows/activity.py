"""The activity review flow: what others committed to the shown repo since the user last reviewed it."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from amr_tui.screens.activity import ActivityScreen
from amr_tui.screens.flows.common import read_again, shown_repo
from amr_tui.widgets.safe import notify_text

if TYPE_CHECKING:
    from textual.app import App

    from amr_tui.screens.main.screen import MainScreen
    from amr_tui.services.session.session import Session


async def activity(app: App[int], main: MainScreen, session: Session) -> None:
    """Review what others committed to the shown repo since the user last reviewed it."""
    repo = shown_repo(main, session)
    if repo is None or session.git(repo) is None:
        notify_text(app, "The activity review needs a git repo.", severity="warning")
        return
    service = await asyncio.to_thread(session.activity, repo)  # the first use reads the repo
    screen = ActivityScreen(service, repo, session.mount(repo).read_only, poll_interval=main.poll_interval)
    changed = await app.push_screen_wait(screen)
    read_again(main, changed)
    main.count_unreviewed()  # the mark may have moved: the tree's count follows
