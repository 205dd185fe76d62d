"""The dream review flow, and "Trim to budget" before it."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING

from amr_tui.git.errors import AmrGitError
from amr_tui.screens.dreams.screen import DreamListScreen
from amr_tui.screens.flows.common import read_again, shown_repo
from amr_tui.services.budgets import profile_of
from amr_tui.services.dreams.make import trim_dream
from amr_tui.services.dreams.model import DreamError
from amr_tui.services.workspace import style_of
from amr_tui.widgets.safe import notify_text

if TYPE_CHECKING:
    from textual.app import App

    from amr_tui.screens.main.screen import MainScreen
    from amr_tui.services.session.session import Session


async def review_dreams(
    app: App[int], main: MainScreen, session: Session, poll_interval: float, trim: bool = False
) -> None:
    """The pending dreaming runs (V); ``trim`` (T, "Trim to budget"): first a run that brings the
    shown repo's MEMORY.md under its agent's load budget, then its repo's runs to review."""
    repos = [r for r in session.names if session.git(r) is not None]
    if not repos:
        notify_text(app, "No git repo mounted.", severity="warning")
        return
    session.verifying.config = main.host.config  # "Dream now": [dream] agent, the code entries cite
    if trim:
        repo = shown_repo(main, session)
        if repo is None or repo not in repos:
            notify_text(app, "Trimming makes a dreaming run to review: it needs a git repo.", severity="warning")
            return
        mount = session.mount(repo)
        profile = profile_of(mount)
        try:
            service = await asyncio.to_thread(session.dreams, repo)
            run = await asyncio.to_thread(partial(trim_dream, service, profile, style=style_of(mount)))
        except (DreamError, AmrGitError) as exc:
            notify_text(app, str(exc), title="Trim to budget", severity="error")
            return
        if run is None:
            notify_text(app, f"{repo}: MEMORY.md is within {profile.title}'s load budget; nothing to trim.")
            return
        notify_text(
            app,
            f"{repo}: a trim run waits for review ({run.id}): {run.summary}. Nothing changes until you accept it.",
            title="Trim to budget",
            timeout=10,
        )
        repos = [repo]

    changed = await app.push_screen_wait(DreamListScreen(session, repos, poll_interval=poll_interval))
    read_again(main, changed)
