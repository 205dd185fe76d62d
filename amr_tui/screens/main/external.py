"""$EDITOR (ctrl+e) on a file too large for the editor to load: the file's screen offers it."""

from __future__ import annotations

from textual.app import SuspendNotSupported

from amr_tui.core.textsafety import make_visible


def edit_unread(screen, of) -> None:
    """Hand ``of`` (an OpenFile not loaded: too large) to $EDITOR, on the main ``screen``.

    amr neither reads nor commits the file (it stays out of memory, as lint and the history walks
    keep it), and says so when the editor changed it: the changes stay on disk, for git."""
    from amr_tui.services.session.external import run_editor_unread

    app, session = screen.app, screen.session
    mount = session.mount(of.repo)
    refused = session.refusal_note(of.repo) or ("the repo is mounted read-only" if mount.read_only else "")
    if refused:
        app.notify(make_visible(f"Read-only: {refused}. Nothing was changed."), severity="error", markup=False)
        return
    try:
        with app.suspend():
            changed, error = run_editor_unread(mount.root, of.path)
    except SuspendNotSupported:  # headless (tests): nothing to hand the terminal back from
        changed, error = run_editor_unread(mount.root, of.path)
    if error:
        app.notify(make_visible(error), severity="error", markup=False)
    elif changed:
        app.notify(make_visible(f"Not committed: {of.repo}/{of.path} is too large for amr to read or commit. Your "
                                "$EDITOR changes stay on disk (git diff shows them); commit them with git."),
                   title="$EDITOR changes kept on disk", severity="warning", markup=False, timeout=12)
    screen.action_reload()
