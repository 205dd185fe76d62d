"""The history flows: a file's history, an entry's timeline, the forgotten facts, forgetting an entry."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from amr_tui.core.format.edit import summarise
from amr_tui.screens.dialogs import ChoiceScreen, PromptScreen
from amr_tui.screens.flows.common import read_again
from amr_tui.screens.forgotten import ForgottenScreen
from amr_tui.screens.history import FileHistoryScreen, TimelineScreen
from amr_tui.services.history.forgotten import SECRET_IN_HISTORY, forget
from amr_tui.widgets.safe import notify_text

if TYPE_CHECKING:
    from textual.app import App

    from amr_tui.screens.main.screen import MainScreen
    from amr_tui.services.history.service import HistoryService
    from amr_tui.services.session.session import OpenFile, Session


async def _history(app: App[int], main: MainScreen, session: Session) -> tuple[OpenFile, HistoryService] | None:
    """The file the main screen shows and its repo's history (opened off the UI thread: the
    first use reads the repo), or None, said why."""
    of = main.current
    if of is None:
        return None
    if session.git(of.repo) is None:
        notify_text(app, "History needs a git repo.", severity="warning")
        return None
    try:
        return of, await asyncio.to_thread(session.history, of.repo)
    except Exception as exc:  # a repo git refuses: say so
        notify_text(app, str(exc), title="History", severity="error")
        return None


async def file_history(app: App[int], main: MainScreen, session: Session) -> None:
    found = await _history(app, main, session)
    if found is None:
        return
    of, service = found
    await app.push_screen_wait(FileHistoryScreen(service, of.repo, of.path))


async def entry_timeline(app: App[int], main: MainScreen, session: Session) -> None:
    found = await _history(app, main, session)
    if found is None or found[0].doc is None:
        return
    of, service = found
    assert of.doc is not None
    entry = of.doc.entry_at(main.view.cursor_line)
    if entry is None:
        notify_text(app, "Put the cursor on an entry to see its history.", severity="warning")
        return
    await app.push_screen_wait(TimelineScreen(service, of.repo, of.path, entry.line, entry.text))


async def forgotten(app: App[int], main: MainScreen, session: Session) -> None:
    found = await _history(app, main, session)
    if found is None:
        return
    of, service = found
    screen = ForgottenScreen(service, of.repo, session.mount(of.repo).read_only, poll_interval=main.poll_interval)
    changed = await app.push_screen_wait(screen)
    for oid in screen.written:
        session.note_written(of.repo, oid)  # z undoes a restore as any other write
    read_again(main, changed)


async def forget_entry(app: App[int], main: MainScreen, session: Session) -> None:
    """Forget the entry under the cursor: how (a tombstone, or redacted), why, then one commit."""
    writable = main.edits().writable_entry()
    if writable is None:
        return
    of, entry = writable
    found = await _history(app, main, session)
    if found is None:
        return
    service = found[1]
    mode = await app.push_screen_wait(
        ChoiceScreen(
            f"Forget: {entry.text[:70]}",
            [
                ("keep", "Forget it and record a tombstone (agents will not bring it back)"),
                ("redact", "Forget and redact: the tombstone keeps only a digest of the text"),
            ],
        )
    )
    if mode is None:
        return
    reason = await app.push_screen_wait(
        PromptScreen("Why forget it? (optional)", placeholder="e.g. the user asked; out of date")
    )
    if reason is None:
        return
    raw = of.doc.lines[entry.line - 1].text if of.doc is not None else None
    try:
        done = await asyncio.to_thread(
            forget,
            service,
            of.path,
            entry.line,
            raw=raw,
            reason=reason.strip() or None,
            redact=mode == "redact",
            target=session,
        )
    except Exception as exc:
        notify_text(app, str(exc), title="Not forgotten", severity="error")
        return
    what = "an entry (redacted)" if done.secret else f'"{summarise(done.text)}"'
    text = f"Forgot {what} from {done.path}, with a tombstone ({done.oid[:8]})."
    if done.secret:
        text += " " + SECRET_IN_HISTORY
    notify_text(app, text, title="Committed", timeout=12 if done.secret else 5)
    session.note_written(of.repo, done.oid)  # z undoes it
    read_again(main, True)
