"""The app driver: the common steps of a Pilot test, said once.

A test builds the app with :func:`app_for`, runs it with :func:`running` (Textual's
``app.run_test()`` at one of the named sizes below) and drives it with the :class:`AppDriver`
that gives: open a file, move to an entry, edit it, save, and wait, with Textual's own waits
(``pilot.pause()``, ``app.workers.wait_for_complete()``, ``pilot.wait_for_scheduled_animations()``)
or, for what a worker thread brings in at its own pace, :func:`wait_for`. The ``app`` and
``driver`` fixtures in ``tests/conftest.py`` do the building and running for the common case;
a snapshot test, whose app pytest-textual-snapshot runs itself, drives it through
:func:`before_snapshot`.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from textual import events
from textual.app import App
from textual.notifications import Notification
from textual.worker import Worker, WorkerCancelled, WorkerState

from amr_tui.app import AmrApp, make_app
from amr_tui.screens.dialogs import ConfirmScreen
from amr_tui.screens.main.place import Place
from amr_tui.services.config import Config
from amr_tui.widgets.entry_view import EntryView

# The terminal sizes the Pilot tests run at, named once: a test's size is part of what it checks
# (what fits on a line, which rows scroll, the pictures of tests/test_snapshots.py).

#: The common case: the ``driver`` fixture, and every test with nothing to say about the size.
APP_SIZE = (140, 40)
#: The size the issues' reproductions in tmux use (help longer than the screen, cut lines).
TMUX_SIZE = (130, 38)
#: Side-by-side screens (history versions, sync conflicts, share, review) with room for both sides.
WIDE_SIZE = (150, 42)
#: The dream review's three-way view: both sides and the change list, on 40 rows.
REVIEW_SIZE = (150, 40)
#: The hostile-input visits: every panel wide and tall enough to show its payloads whole.
HOSTILE_SIZE = (170, 50)
#: Progressive start: a smaller terminal, whose first frame is the tree and MEMORY.md.
START_SIZE = (120, 36)
#: The pictures in tests/__snapshots__ (changing it redraws every one of them).
SNAPSHOT_SIZE = (130, 36)
#: A small terminal, for what the start-up path paints first.
SMALL_SIZE = (100, 30)

#: Every notification each app was given, oldest first (see :func:`notes`).
_NOTES: weakref.WeakKeyDictionary[App[Any], list[Notification]] = weakref.WeakKeyDictionary()
#: The apps built or run here whose session is not closed yet (see :func:`close_sessions`).
_BUILT: weakref.WeakSet[App[Any]] = weakref.WeakSet()


def app_for(paths: list[Path], **kw: Any) -> AmrApp:
    """The app on these memory roots, with the default configuration, recording its notifications."""
    app = make_app(paths, config=Config(), poll_interval=kw.pop("poll_interval", 0.2), **kw)
    record_notes(app)
    return app


def record_notes(app: App[Any]) -> None:
    """Keep every notification ``app`` is given (``App.notify``, which screens and widgets call
    too), so a test reads what the app said without Textual's private store."""
    notes: list[Notification] = []
    _NOTES[app] = notes
    _BUILT.add(app)
    notify = app.notify

    def recording(message: str, *, title: str = "", **kw: Any) -> None:
        notes.append(Notification(message, title, kw.get("severity", "information")))
        notify(message, title=title, **kw)

    app.notify = recording  # type: ignore[method-assign]


def notes(app: App[Any]) -> list[Notification]:
    """What the app notified since it was built (or since :func:`forget_notes`), oldest first."""
    return _NOTES[app]


def close_sessions() -> None:
    """Close the session of each app built by :func:`app_for` (or given to :func:`record_notes`)
    or run by :func:`running` that has stopped. Its history, dream and activity services each
    keep ``git cat-file`` processes running (``git/catfile.py``): a person's amr exits with its
    one app, but a test process runs hundreds, and the session's ``gc.freeze()`` keeps every
    stopped app for good, so each Pilot test left about ten processes, and their pipes, open
    until the worker ended (and each open pipe slowed every later subprocess start, which closes
    every descriptor in the child). ``tests/conftest.py`` calls this after every test."""
    for app in list(_BUILT):
        if app.is_running:
            continue
        session = getattr(app, "session", None)
        if session is not None:
            session.close()
        _BUILT.discard(app)


def forget_notes(app: App[Any]) -> None:
    """Start counting notifications afresh."""
    _NOTES[app].clear()


def said(app: App[Any], needle: str) -> bool:
    """Some notification's message holds ``needle``."""
    return any(needle in str(n.message) for n in notes(app))


async def wait_for(pilot, cond: Callable[[], object], timeout: float = 30.0, what: str = "condition"):
    """Let the app run until cond() is truthy (workers run in threads, so poll)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        await pilot.pause(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def screen_text(app: AmrApp) -> str:
    """Plain text of what is on screen now, line by line (what the terminal would get)."""
    return "\n".join("".join(seg.text for seg in strip) for strip in screen_strips(app))


def screen_strips(app: AmrApp) -> list:
    """The lines the screen's compositor sends to the terminal (Textual has no public call that
    gives them as text: ``export_screenshot`` gives SVG, where control characters, which the
    hostile-input tests look for, no longer show)."""
    return app.screen._compositor.render_strips()


def tree_files(tree) -> dict[tuple[str, str], Any]:
    """The file nodes of the memory tree by (repo, path): its leaves, walked with Textual's
    public ``TreeNode`` API (directories and repos are the nodes that expand)."""
    found: dict[tuple[str, str], Any] = {}
    stack = list(tree.root.children)
    while stack:
        node = stack.pop()
        if node.allow_expand:
            stack.extend(node.children)
        else:
            found[(node.data.repo, node.data.path)] = node
    return found


async def click_text(pilot, app: App[Any], needle: str) -> bool:
    """Click the first place ``needle`` is drawn on screen; False when it is not on screen."""
    for y, strip in enumerate(screen_strips(app)):
        line = "".join(seg.text for seg in strip)
        x = line.find(needle)
        if x != -1:
            await pilot.click(offset=(cell_len(line[:x]) + 1, y))
            return True
    return False


async def settle(pilot, seconds: float = 0.3) -> None:
    """Let the app run for ``seconds`` (for checks that something does *not* happen)."""
    await pilot.pause(seconds)
    await asyncio.sleep(0)


async def shown(pilot, app: AmrApp, *needles: str, timeout: float = 30.0) -> str:
    """Wait until every needle is on screen (rendering lags behind state under load)."""
    await wait_for(
        pilot,
        lambda: all(n in screen_text(app) for n in needles),
        timeout=timeout,
        what="on screen: " + ", ".join(repr(n) for n in needles),
    )
    return screen_text(app)


def git(root, *args: str) -> str:
    """Plain git in a test repo (set-up, and playing an agent)."""
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


#: How long a test's app may take to come to rest before it quits (``running``).
SETTLE_BEFORE_QUIT = 10.0


@contextlib.asynccontextmanager
async def running(
    app: AmrApp, size: tuple[int, int] = APP_SIZE, *, ready: bool = True, **run_test_kw: Any
) -> AsyncIterator[AppDriver]:
    """Run ``app`` under Pilot at ``size`` (``App.run_test``, given ``run_test_kw`` too:
    ``notifications=True``, ``message_hook=...``) and give its :class:`AppDriver` (the pilot is
    ``drive.pilot``); when ``ready``, once the first file is open and indexed
    (:meth:`AppDriver.ready`). ``ready=False`` is for a test that looks at the app before that,
    or at an app that never gets there (no repo: the welcome screen)."""
    _BUILT.add(app)
    async with app.run_test(size=size, **run_test_kw) as pilot:
        drive = AppDriver(pilot)
        if ready:
            await drive.ready()
        yield drive
        # A test that ends while something it started is on its way (a file the prompt made,
        # being opened) lets it come to rest first: the app then quits from a state a person
        # could quit from, not from the middle of a mount Textual's teardown cancels.
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(drive.settled(), SETTLE_BEFORE_QUIT)


#: The character a named key types (a key named by one character types it).
_CHARACTERS = {"enter": "\r", "escape": "\x1b", "tab": "\t", "space": " ", "backspace": "\x7f", "slash": "/"}
#: The key a character is named by, when it is not the character itself.
_NAMES = {" ": "space", "/": "slash"}


def burst(drive: AppDriver, *keys: str) -> None:
    """Post ``keys`` to the app at once, as the terminal driver posts the keys of one read (a
    fast typist's burst, a key macro): nothing waits between them, unlike ``pilot.press``."""
    for key in keys:
        name = _NAMES.get(key, key)
        drive.app.post_message(events.Key(name, _CHARACTERS.get(name, key if len(key) == 1 else None)))


def before_snapshot(steps: Callable[[AppDriver], Awaitable[object]]) -> Callable[[Any], Awaitable[None]]:
    """``steps`` as ``snap_compare``'s ``run_before``: pytest-textual-snapshot runs the app itself
    (at its ``terminal_size``) and hands over its pilot, which is driven here."""

    async def run_before(pilot) -> None:
        await steps(AppDriver(pilot))

    return run_before


class AppDriver:
    """The steps a person takes in the app, each pressed with keys and waited for."""

    def __init__(self, pilot) -> None:
        self.pilot = pilot
        self.app: AmrApp = pilot.app

    # -- what is there ---------------------------------------------------------------------------

    @property
    def screen(self):
        return self.app.screen

    @property
    def current(self):
        """The file open on the main screen."""
        return self.app.screen.current

    @property
    def view(self) -> EntryView:
        return self.app.screen.query_one(EntryView)

    # -- waiting ---------------------------------------------------------------------------------

    async def until(self, cond: Callable[[], object], what: str, timeout: float = 30.0):
        return await wait_for(self.pilot, cond, timeout=timeout, what=what)

    async def shown(self, *needles: str, timeout: float = 30.0) -> str:
        return await shown(self.pilot, self.app, *needles, timeout=timeout)

    async def ready(self) -> None:
        """Until the first file is open and the initial indexing is done."""
        await self.until(
            lambda: getattr(self.app.screen, "current", None) is not None and not self.app.screen.indexing,
            what="the first file open and indexed",
        )

    async def settled(self) -> None:
        """Until no worker is pending or running, the messages they posted are handled and no
        animation is due."""

        def asking() -> bool:
            """Some screen on the stack was pushed by ``push_screen_wait`` and is not answered yet."""
            return any(
                cb.future is not None and not cb.future.done()
                for screen in self.app.screen_stack
                for cb in screen._result_callbacks
            )

        def busy() -> list[Worker[Any]]:
            # A flow (``group="flow:..."``) that waits on a question it asked is idle: it goes on
            # when the test answers, which it cannot do while this waits.
            waiting = asking()
            return [
                w
                for w in self.app.workers
                if w.state in (WorkerState.PENDING, WorkerState.RUNNING)
                and not (waiting and w.state is WorkerState.RUNNING and w.group.startswith("flow:"))
            ]

        await self.pilot.pause()
        while busy():
            running = [w for w in busy() if w.state is WorkerState.RUNNING]
            if running:
                with contextlib.suppress(WorkerCancelled):
                    await self.app.workers.wait_for_complete(running)
            await self.pilot.pause()
        await self.pilot.wait_for_scheduled_animations()

    async def asked(self, title: str, timeout: float = 10.0) -> ConfirmScreen:
        """Until the app asks the question ``title``; the question."""
        await self.until(
            lambda: isinstance(self.app.screen, ConfirmScreen), timeout=timeout, what=f"the question {title!r}"
        )
        assert self.app.screen.title_text == title, self.app.screen.title_text
        return self.app.screen

    async def asked_secret(self, timeout: float = 10.0):
        """Until the app asks about a credential (``SecretScreen``); the question."""
        from amr_tui.screens.secret_check import SecretScreen

        await self.until(lambda: isinstance(self.app.screen, SecretScreen), timeout=timeout, what="the credential")
        return self.app.screen

    async def quits(self) -> None:
        await self.until(lambda: self.app.return_code == 0, timeout=10, what="the app to quit")

    # -- doing -----------------------------------------------------------------------------------

    async def press(self, *keys: str) -> None:
        await self.pilot.press(*keys)

    async def open(self, repo: str, path: str, line: int = 0) -> None:
        """Open ``repo``'s ``path`` (at ``line``) as following a link there would."""
        self.app.screen.open_place(Place(repo, path, line))
        await self.until(
            lambda: self.current and (self.current.repo, self.current.path) == (repo, path), what=f"{path} open"
        )

    async def to_line(self, number: int) -> None:
        """Put the cursor on line ``number`` of the open file with keys: g, then j until there."""
        self.view.focus()
        await self.press("g")
        for _ in self.current.doc.lines:
            if self.view.cursor_line >= number:
                break
            await self.press("j")
        assert self.view.cursor_line == number, f"the cursor stops on line {self.view.cursor_line}, not {number}"

    async def to_first_entry(self) -> None:
        """Put the cursor on the open file's first entry, with keys."""
        await self.to_line(self.current.doc.entries[0].line)

    async def edit_prompt(self, key: str = "e"):
        """Press ``key`` (an edit on a review or conflict screen); (the prompt it opens, its
        input), once the input has the focus."""
        from amr_tui.screens.dialogs import PromptScreen

        await self.press(key)
        await self.until(lambda: isinstance(self.app.screen, PromptScreen), what="the edit prompt")
        prompt, inp = self.app.screen, self.app.screen.query_one("#prompt-input")
        await self.until(lambda: inp.has_focus, what="prompt focus")
        return prompt, inp

    async def edit_first_entry(self):
        """Wait until ready, go to the first entry, press e; the entry editor's input, focused."""
        await self.ready()
        await self.to_first_entry()
        await self.press("e")
        inp = self.app.screen.query_one("#editor-input")
        await self.until(lambda: inp.has_focus, what="editor focus")
        return inp
