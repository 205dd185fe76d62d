"""The sync flow: sync the shown repo; a sync stopped on a conflict opens the conflict view."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, cast

from amr_tui.core.textsafety import make_visible
from amr_tui.screens.flows.common import shown_repo
from amr_tui.screens.sync_conflict import SyncConflictScreen
from amr_tui.services.sync.run import sync as run_sync
from amr_tui.widgets.safe import notify_text

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel

    from amr_tui.screens.main.screen import MainScreen
    from amr_tui.services.session.session import Session
    from amr_tui.services.sync.run import SyncProgress, SyncResult


async def sync(app: App[int], main: MainScreen, session: Session, merge_driver: bool) -> None:
    """Sync the shown repo; a sync stopped on a conflict opens the conflict view, and what it
    resolved is reported as a sync."""
    repo = shown_repo(main, session)
    if repo is None or session.git(repo) is None:
        notify_text(app, "Sync needs a git repo.", severity="warning")
        return
    if session.mount(repo).read_only:
        notify_text(app, f"{repo} is read-only: no sync.", severity="error")
        return
    main.set_status(make_visible(f"Syncing {repo}\u2026"))
    root = session.mount(repo).root

    def progress(step: SyncProgress) -> None:
        app.call_from_thread(main.set_status, make_visible(f"{repo}: {step.message}"))

    try:
        result = await asyncio.to_thread(run_sync, root, progress=progress, merge_driver=merge_driver)
    except Exception as exc:  # sync reports its own failures; this is for the unexpected
        notify_text(app, str(exc), title="Sync failed", severity="error")
        return
    while True:
        await asyncio.to_thread(_read_after_sync, session, repo)
        _report(app, main, repo, result)
        if result.pending is None:
            return
        resolved = await app.push_screen_wait(SyncConflictScreen(result.pending, repo))
        if resolved is None:
            notify_text(
                app, "Conflicts left for later: the repo is unchanged; sync again to resolve.", severity="warning"
            )
            return
        result = cast("SyncResult", resolved)  # the conflict view gives back resolve()'s result


def _read_after_sync(session: Session, repo: str) -> None:
    session.watch.poll()
    session.watch.refresh_info(repo)  # ahead/behind and last sync changed


def _report(app: App[int], main: MainScreen, repo: str, result: SyncResult) -> None:
    main.set_status(make_visible(f"{repo}: {result.message}"))
    severity: SeverityLevel = (
        "information" if result.ok else "warning" if result.status in ("offline", "conflict") else "error"
    )
    notify_text(app, result.message, title=f"Sync: {result.status}", severity=severity)
    for path, fact in result.resurrected:
        notify_text(
            app, f"{path}: brings back a deleted fact: {fact}", title="Resurrected fact", severity="warning", timeout=10
        )
    main.refresh_tree()
    main.action_reload()
