"""The finder's past (ctrl+r) for the main screen: the session's repos' past as one search index,
and what a past result opens (the forgotten facts on it, or the timeline of its wording of today)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import App

from amr_tui.widgets.safe import notify_text

if TYPE_CHECKING:
    from amr_tui.services.history.past import PastEntry, PastIndex
    from amr_tui.services.session.session import Session

NO_GIT = "no history (not a git repo)"


def past_loader(session: Session) -> Callable[[], PastIndex | str]:
    """What the finder runs in a worker to search the past: the index of every repo with git
    (each repo's walk and index stay cached in its history service), or why there is none."""

    def load() -> PastIndex | str:
        repos = [name for name in session.names if session.git(name) is not None]
        if not repos:
            return NO_GIT
        if len(repos) == 1:
            return session.history(repos[0]).past_index()
        # Imported here: the past's index is built only when the finder's toggle asks for it.
        from amr_tui.services.history.past import PastIndex

        return PastIndex([e for name in repos for e in session.history(name).past()])

    return load


async def open_past(
    app: App[Any],
    session: Session,
    entry: PastEntry,
    go_to: Callable[[str, str, int], None],
    *,
    poll_interval: float = 1.0,
) -> bool | None:
    """A deleted fact: the forgotten facts with it highlighted (restore it there); a reworded one:
    the timeline of its wording of today; a deleted fact that is back: where it is now.

    Awaited in a flow (a worker): whether the forgotten facts changed the repo (a restore)."""
    # Imported here: the history screens are not needed for the first frame.
    from amr_tui.screens.forgotten import ForgottenScreen
    from amr_tui.screens.history import TimelineScreen  # history screens: not on the first frame's path

    service = session.history(entry.repo)
    if entry.kind == "deleted" and entry.forgotten_id is not None:
        read_only = session.mount(entry.repo).read_only
        facts = ForgottenScreen(
            service, entry.repo, read_only, highlight=entry.forgotten_id, poll_interval=poll_interval
        )
        return await app.push_screen_wait(facts)
    if entry.kind == "reworded" and entry.now is not None:
        path, line = entry.now
        app.push_screen(TimelineScreen(service, entry.repo, path, line, entry.new_text or entry.text))
    elif entry.now is not None:
        go_to(entry.repo, *entry.now)
    else:
        notify_text(app, "Its wording of today is not in the repo any more.", severity="warning")
    return None
