"""$EDITOR (ctrl+e) on a file too large for the editor to load: the file's screen offers it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App, SuspendNotSupported

from amr_tui.services.session.external import run_editor_unread
from amr_tui.services.session.session import OpenFile, Session
from amr_tui.widgets.safe import notify_text


def edit_unread(app: App[Any], session: Session, of: OpenFile, reload: Callable[[], None]) -> None:
    """Hand ``of`` (an OpenFile not loaded: too large) to $EDITOR, then ``reload`` the file's screen.

    amr neither reads nor commits the file (it stays out of memory, as lint and the history walks
    keep it), and says so when the editor changed it: the changes stay on disk, for git."""
    mount = session.mount(of.repo)
    refused = session.refusal_note(of.repo) or ("the repo is mounted read-only" if mount.read_only else "")
    if refused:
        notify_text(app, f"Read-only: {refused}. Nothing was changed.", severity="error")
        return
    try:
        with app.suspend():
            changed, error = run_editor_unread(mount.root, of.path)
    except SuspendNotSupported:  # headless (tests): nothing to hand the terminal back from
        changed, error = run_editor_unread(mount.root, of.path)
    if error:
        notify_text(app, error, severity="error")
    elif changed:
        notify_text(
            app,
            f"Not committed: {of.repo}/{of.path} is too large for amr to read or commit. Your "
            "$EDITOR changes stay on disk (git diff shows them); commit them with git.",
            title="$EDITOR changes kept on disk",
            severity="warning",
            timeout=12,
        )
    reload()
