"""Saving: one save is one async flow, ``save``, that reads top to bottom.

It begins (one save at a time: a second one meanwhile is refused), runs the write in a thread
(the job, one commit through the write gate), and says how it went. A save that is not made
asks what it needs and tries again: a git identity (the name and email are set in that repo
only), or, when a commit made meanwhile does not merge with it, the conflict view (the choice
made there is saved in turn, as a change of the committed version). It returns what the save
did, or None when it was not made, so the flow that asked for it gives the user's text back.

The main screen loads this module at its first save (it imports git, the session and the
dialogs, which the first frame does without), runs it (``MainScreen.save``, awaited by a flow
that asks first; ``MainScreen.save_soon``, begun at once by a key) and shows each step
(``SaveHost``); the edit actions (editing.py) make the jobs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from textual.worker import Worker, WorkerFailed

from amr_tui.core.textsafety import make_visible
from amr_tui.git.errors import ConflictError, DirtyFileError, NoIdentityError
from amr_tui.screens.conflict import ConflictScreen
from amr_tui.screens.dialogs import PromptScreen
from amr_tui.services.session import editing
from amr_tui.services.session.session import OpenFile, Session
from amr_tui.widgets.safe import notify_text

if TYPE_CHECKING:
    from textual.app import App

    from amr_tui.services.writegate import Saved

#: One save: runs in a thread, makes one commit (or none) through the write gate, says what it did.
SaveJob = Callable[[], "Saved"]


class SaveHost(Protocol):
    """What a save needs of the screen it runs on (the main screen)."""

    @property
    def app(self) -> App[Any]: ...

    @property
    def loaded(self) -> Session: ...

    @property
    def current(self) -> OpenFile | None: ...

    @property
    def is_attached(self) -> bool: ...

    def run_worker(
        self, work: SaveJob, *, group: str = ..., exit_on_error: bool = ..., thread: bool = ...
    ) -> Worker[Saved]: ...

    def save_begins(self) -> bool:
        """False (and says so) while another save runs; else shows this one begun."""
        ...

    def save_made(self, saved: Saved) -> None:
        """Say what the save did and show the file as saved."""
        ...

    def save_not_made(self, error: BaseException) -> None:
        """Say why not; the next save may begin, and the entry editor takes keys again."""
        ...


async def save(
    screen: SaveHost, job: SaveJob, of: OpenFile | None = None, *, gives_back: bool = False, begun: bool = False
) -> Saved | None:
    """Save ``job`` and show how it went; what it did, or None when it was not made.

    ``of``: the version of the file the save is based on (without it, a conflict is a failure
    like any other). ``gives_back``: the caller gives the user's text back in its editor when
    this returns None (the questions asked meanwhile say that text waits on them). ``begun``:
    ``save_begins`` was called already (``MainScreen.save_soon``)."""
    while True:
        if not begun and not screen.save_begins():
            return None
        begun = False
        try:
            saved = await screen.run_worker(job, thread=True, group="save", exit_on_error=False).wait()
        except WorkerFailed as failed:  # every failure is said, never a crash
            error = failed.error
        else:
            if not screen.is_attached:  # the app quit while the job ran: nothing to show, nothing to ask
                raise asyncio.CancelledError
            screen.save_made(saved)
            return saved
        if not screen.is_attached:
            raise asyncio.CancelledError
        screen.save_not_made(error)
        if isinstance(error, ConflictError) and of is not None:
            resolved = await resolve(screen, of.repo, error, gives_back)
            if resolved is None:
                return None
            job, of = resolved
        elif isinstance(error, NoIdentityError):
            if not await ask_identity(screen, error, gives_back):
                return None
        elif isinstance(error, DirtyFileError):
            notify_text(
                screen.app,
                f"{error} Your text is still in the editor.",
                title="Someone else's uncommitted change",
                severity="error",
                timeout=10,
            )
            return None
        else:
            notify_text(screen.app, str(error), title="Not saved", severity="error", timeout=8)
            return None


async def resolve(
    screen: SaveHost, repo: str, error: ConflictError, gives_back: bool
) -> tuple[SaveJob, OpenFile] | None:
    """Show both sides of the conflict; the save of the choice made there (and the version it is
    based on), or None when it is left unresolved."""
    choice = await screen.app.push_screen_wait(ConflictScreen(error, repo=repo))
    if choice is None:
        notify_text(
            screen.app,
            "Conflict left unresolved; nothing was saved."
            + (" Your text is back in the editor." if gives_back else ""),
            severity="warning",
        )
        return None
    # Based on the committed version the conflict showed ("theirs"): the gate merges in what was
    # committed since, and a new conflict shows this view again.
    session = screen.loaded
    return (
        lambda: editing.resolve_conflict(session, repo, error, choice),
        OpenFile(repo, error.path, error.theirs, None, error.head),
    )


async def ask_identity(screen: SaveHost, error: NoIdentityError, gives_back: bool) -> bool:
    """Ask for the name and email git needs in the repo ``error`` names and set them there (in
    that repo's own config); True when they are set and the save may run again."""
    session = screen.loaded
    target = next(
        (name for name in session.names if _same_dir(Path(session.mount(name).root), Path(error.where))),
        screen.current.repo if screen.current else None,
    )
    value = await screen.app.push_screen_wait(
        PromptScreen(
            f"Git needs a name and email to commit in {make_visible(target or 'this repo')}",
            placeholder="Your Name <you@example.com>",
            help_text="Saved in this repo's own config (never your global config).",
            holds="the text waiting on this save" if gives_back else None,
        )
    )
    if not value or target is None or "<" not in value:
        if value:
            notify_text(screen.app, "Write it as: Name <email>", severity="warning")
        return False
    name, email = value.split("<", 1)
    git = session.git(target)
    if git is None:
        return False
    git.set_local_identity(name.strip(), email.strip(" >"))
    notify_text(screen.app, f"Identity set for {target} only.")
    return True


def _same_dir(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
