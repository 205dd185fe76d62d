"""The main screen's features that open a screen of their own: sync, share, history, forgetting,
the dream review and the activity review.

Each is an async flow run as one worker (``AmrApp`` binds the keys and starts it): it checks what
the feature needs, runs git off the UI thread (``asyncio.to_thread``), asks its questions in turn
with ``push_screen_wait``, and when the feature changed the repo tells the main screen to read it
again. Nothing here touches a widget but through the screens' own methods.
"""

from __future__ import annotations

import asyncio
import tempfile
from typing import TYPE_CHECKING, cast

from amr_tui.core.textsafety import make_visible
from amr_tui.widgets.safe import notify_text

if TYPE_CHECKING:
    import datetime as _dt

    from textual.app import App
    from textual.notifications import SeverityLevel

    from amr_tui.screens.main.screen import MainScreen
    from amr_tui.services.config import Config
    from amr_tui.services.history.service import HistoryService
    from amr_tui.services.session.session import OpenFile, Session
    from amr_tui.services.sync.run import SyncProgress, SyncResult

# Lazy imports: each flow imports its screen and services when it starts, so that the editor's first
# frame loads none of them (tests/test_startup_path.py).


def shown_repo(main: MainScreen, session: Session) -> str | None:
    """The repo of the file the main screen shows, else the first one mounted."""
    current = main.current
    return current.repo if current else (session.names[0] if session.names else None)


def read_again(main: MainScreen, changed: bool | None) -> None:
    """A pushed screen is done: when it changed the repo, the main screen reads it again."""
    if changed:
        main.action_reload()
        main.refresh_tree()


# ------------------------------------------------------------------ sync
async def sync(app: App[int], main: MainScreen, session: Session, merge_driver: bool) -> None:
    """Sync the shown repo; a sync stopped on a conflict opens the conflict view, and what it
    resolved is reported as a sync."""
    from amr_tui.services.sync.run import sync as run_sync

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
        from amr_tui.screens.sync_conflict import SyncConflictScreen  # only when a sync stops

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


# ------------------------------------------------------------------ share
async def share(app: App[int], main: MainScreen, session: Session) -> None:
    from amr_tui.screens.share import ShareScreen

    await app.push_screen_wait(ShareScreen(session, tempfile.mkdtemp(prefix="amr-share-")))


# ------------------------------------------------------------------ history
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
    from amr_tui.screens.history import FileHistoryScreen

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
    from amr_tui.screens.history import TimelineScreen

    await app.push_screen_wait(TimelineScreen(service, of.repo, of.path, entry.line, entry.text))


async def forgotten(app: App[int], main: MainScreen, session: Session) -> None:
    found = await _history(app, main, session)
    if found is None:
        return
    of, service = found
    from amr_tui.screens.forgotten import ForgottenScreen

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
    from amr_tui.core.format.edit import summarise
    from amr_tui.screens.dialogs import ChoiceScreen, PromptScreen
    from amr_tui.services.history.forgotten import SECRET_IN_HISTORY, forget

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


# ------------------------------------------------------------------ the Stale? queue
async def stale(app: App[int], main: MainScreen, session: Session, config: Config, today: _dt.date | None) -> None:
    """Facts whose evidence no longer holds in the code, and facts not verified lately: confirm,
    edit, supersede or forget each; enter opens one on the main screen."""
    from amr_tui.screens.stale import StaleScreen

    session.verifying.config = config
    screen = StaleScreen(session, session.names, today=today)
    changed = await app.push_screen_wait(screen)
    for repo, oid in screen.written:
        session.note_written(repo, oid)  # z undoes them as any other write
    read_again(main, changed)
    if screen.go_to is not None:
        from amr_tui.screens.main.place import Place

        repo, path, line = screen.go_to
        main.leave_file(lambda: main.open_place(Place(repo, path, line)))


# ------------------------------------------------------------------ dreams and activity
async def review_dreams(
    app: App[int], main: MainScreen, session: Session, poll_interval: float, trim: bool = False
) -> None:
    """The pending dreaming runs (V); ``trim`` (T, "Trim to budget"): first a run that brings the
    shown repo's MEMORY.md under its agent's load budget, then its repo's runs to review."""
    repos = [r for r in session.names if session.git(r) is not None]
    if not repos:
        notify_text(app, "No git repo mounted.", severity="warning")
        return
    from amr_tui.screens.dreams.screen import DreamListScreen

    session.verifying.config = main.host.config  # "Dream now": [dream] agent, the code entries cite
    if trim:
        from functools import partial

        from amr_tui.git.errors import AmrGitError
        from amr_tui.services.budgets import profile_of
        from amr_tui.services.dreams.make import trim_dream
        from amr_tui.services.dreams.model import DreamError
        from amr_tui.services.workspace import style_of

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


async def activity(app: App[int], main: MainScreen, session: Session) -> None:
    """Review what others committed to the shown repo since the user last reviewed it."""
    repo = shown_repo(main, session)
    if repo is None or session.git(repo) is None:
        notify_text(app, "The activity review needs a git repo.", severity="warning")
        return
    from amr_tui.screens.activity import ActivityScreen

    service = await asyncio.to_thread(session.activity, repo)  # the first use reads the repo
    screen = ActivityScreen(service, repo, session.mount(repo).read_only, poll_interval=main.poll_interval)
    changed = await app.push_screen_wait(screen)
    read_again(main, changed)
    main.count_unreviewed()  # the mark may have moved: the tree's count follows


# ------------------------------------------------------------------ links and tags
async def link_graph(app: App[int], main: MainScreen, session: Session) -> None:
    """The link graph of the shown file's repo, centred on it (``screens/graph.py``); the file
    picked there opens on the main screen."""
    from amr_tui.screens.graph import GraphScreen

    repo = shown_repo(main, session)
    if repo is None:
        return
    current = main.current
    centre = current.path if current is not None and current.repo == repo else None
    picked = await app.push_screen_wait(GraphScreen(repo, centre, lambda: session.link_graph(repo)))
    if picked is not None:
        main.go_to(picked.repo, picked.path, 0)


async def tags(app: App[int], main: MainScreen, session: Session) -> None:
    """The tags view (``screens/tags.py``): a tag's entries open in the finder (``tag:NAME``); a
    tag renamed is rewritten in every file of its repo in one commit, as a save."""
    from amr_tui.screens.dialogs import PromptScreen
    from amr_tui.screens.tags import TagsScreen
    from amr_tui.services.session.tags import rename_tag_in_repo, tag_counts

    writable = {r for r in session.names if not session.mount(r).read_only}
    picked = await app.push_screen_wait(TagsScreen(lambda: tag_counts(session), writable))
    if picked is None:
        return
    if picked.action == "open":
        main.action_find(f"tag:{picked.tag} repo:{picked.repo}")
        return
    new = await app.push_screen_wait(
        PromptScreen(
            make_visible(f"Rename #{picked.tag} in {picked.repo}"),
            value=picked.tag,
            help_text="Every #tag, [tags: ...] and front matter tags: in the repo's files, nested tags too, in one commit.",
        )
    )
    if not new or new.strip().lstrip("#") == picked.tag:
        return
    repo, old = picked.repo, picked.tag
    await main.save(lambda: rename_tag_in_repo(session, repo, old, new)[0])
