"""The main screen's start-up, apart from its navigation: the first useful frame, then the
session, each step shown as it lands.

1. ``start`` (the screen mounting): the first look (screens/main/peek.py: every repo's files in
   one walk, the first file parsed) is shown at once when the app's lookahead has it, else the
   ``peek`` worker reads it and posts ``Peeked``. The tree's rows and the first file are the
   first frame.
2. What waits for that frame to be written (``after_paint``: the rest of the tree, the load) runs
   once it is (``painted``).
3. The ``load`` worker builds the session (the files listed, no git, nothing parsed) and posts
   ``SessionMade`` carrying it: the screen's session is assigned on the UI thread, by that
   message's handler, which then shows the tree and opens the first file. The worker waits
   until that file is painted (``first_shown``, at most ``FIRST_SHOWN_WAIT_S``) so the parse
   does not take the interpreter from that paint, then reads the badges, indexes every file
   (``Progress``, ``Indexed``), lints the repos (``Loaded``) and writes the caches.

Two ``threading.Event`` cross threads here, each set on the UI thread: ``session_made`` (an open
asked for from the first look's tree, before the session existed, waits on it in its worker) and
``first_shown`` (the load worker waits on it). ``Loader`` is not a widget and knows the screen
only as a Textual screen: it runs its workers on it and posts its messages to it, and the
screen's handlers (``on_loader_*``) show each step; the first look's own rows it shows itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.widgets import Static

from amr_tui.core.textsafety import plural
from amr_tui.screens.main.host import MainHost
from amr_tui.services.workspace import Mount
from amr_tui.widgets.entry_view import EntryView
from amr_tui.widgets.file_tree import BareBadge, MemoryTree
from amr_tui.widgets.safe import content, notify_text

if TYPE_CHECKING:
    from textual.screen import Screen

    from amr_tui.screens.main.peek import FirstLook
    from amr_tui.services.session.session import Session

# The load worker starts parsing once the tree and the first file are painted (the first useful
# frame), so the parse does not take the GIL from that paint; at the latest after this long.
FIRST_SHOWN_WAIT_S = 3.0
FIRST_PAINT_WAIT_S = 0.5  # after this the work queued for after the first frame runs, painted or not
FIRST_LOOK_WAIT_S = 0.1  # how long the mounting main screen waits for the first look (else: the peek worker)


class Loader:
    """The start-up of ``screen`` (the main screen): the first frame, then its session, built
    from ``mounts`` (``first``: the file to open first, else the first repo's MEMORY.md); ``say``
    puts a line in the screen's status."""

    @dataclass
    class Peeked(Message):
        """The first look, before the session: every repo's files (one walk) and the first file parsed."""

        look: FirstLook | None
        """What was read (None: the look failed; the session will tell)."""

    @dataclass
    class SessionMade(Message):
        """The session exists and every repo's files are listed (nothing parsed yet): the handler
        makes it the screen's; the tree's rows and the first file are shown, and actions may run."""

        session: Session
        """The session the load worker built."""

    @dataclass
    class Progress(Message):
        """Indexing has got this far."""

        done: int
        """Files indexed so far."""
        total: int
        """Files to index."""

    @dataclass
    class Indexed(Message):
        """Search is ready; the repo-wide lint follows (then Loaded)."""

    @dataclass
    class Loaded(Message):
        """The session is loaded: every repo indexed and linted, the badges read."""

    @dataclass
    class BadgesRead(Message):
        """Every repo's badges (ahead/behind, last sync, problems) were read: redraw the tree."""

    def __init__(
        self,
        screen: Screen[Any],
        host: MainHost,
        mounts: list[Mount],
        first: tuple[str, str, int] | None,
        say: Callable[[str], None],
    ) -> None:
        self.screen, self.host, self.mounts, self.first, self.say = screen, host, mounts, first, say
        self.before_paint: list[Callable[[], object]] | None = []
        """What waits for the first frame to be painted (the rest of the tree, the load); None
        once it is painted."""
        self.first_shown = threading.Event()
        """The tree and the first file are painted: the load worker goes on."""
        self.session_made = threading.Event()
        """The session is the screen's: opens asked for before it (from the first look's tree) wait on it."""
        self.peeked: tuple[str, str] | None = None
        """The file the first look showed (repo, path)."""
        self.first_opened = False
        """The first file (MEMORY.md) was asked for, when the session was made or at Loaded (the
        screen's ``open_first``)."""

    # ------------------------------------------------------- the first frame
    def start(self) -> None:
        """The screen is mounting: show the first look now if the app's lookahead has it (else
        the peek worker reads it); the load waits for the first frame to be written."""
        self.say("Loading memory…")
        # The tree's rows and the first file, before the session (git, index, lint) is built: read
        # by the app's lookahead while Textual started (then this first frame shows them), or by
        # the peek worker.
        ahead = self.host.lookahead
        # Nearly done more often than not (a large repo's walk, on a busy machine): a moment's wait
        # (the thread has the interpreter to itself meanwhile) makes this first frame the useful one.
        look = ahead.wait(FIRST_LOOK_WAIT_S) if ahead is not None and ahead.mounts == self.mounts else None
        if look is not None:
            self.show_look(look)
            self.after_paint(self.load)
        else:
            self.screen.run_worker(self.peek, name="peek", group="peek", exclusive=True, thread=True)
        # before the load worker: it pauses the collector itself and restores what it found
        self.after_paint(self.host.first_frame_painted)

    def after_paint(self, callback: Callable[..., object], *args: object) -> None:
        """Run ``callback`` once the app's first frame is written to the terminal (afterwards, or
        headless: after the next refresh). ``call_after_refresh`` from a mounting screen runs at
        the next idle, before anything is written (the first frame goes out when the app lays the
        screen out for the terminal's size), and work queued that way (the rest of the tree, the
        session's load) held the first frame back by its own length."""
        if self.before_paint is None:
            self.screen.call_after_refresh(callback, *args)
        else:
            self.before_paint.append(partial(callback, *args))

    def resumed(self) -> None:
        """The screen is shown (its first time: the first frame is on its way)."""
        if self.before_paint is None:
            return
        if not self.host.after_first_frame(self.painted):  # headless, or written already
            self.screen.call_after_refresh(self.painted)
        else:  # and should the frame never be written, the load goes on anyway
            self.screen.set_timer(FIRST_PAINT_WAIT_S, self.painted)

    def painted(self) -> None:
        """The first frame is painted: what waited for it runs, once."""
        queued, self.before_paint = self.before_paint or [], None
        for callback in queued:
            callback()

    def peek(self) -> None:
        """In a worker: the first look (screens/main/peek.py), one walk of each repo and the first file parsed."""
        from amr_tui.screens.main.peek import first_look  # parser: in this worker, not before the first frame

        look = None
        try:
            ahead = self.host.lookahead
            if ahead is not None and ahead.mounts == self.mounts:
                look = ahead.wait(5.0)  # under way since the app was built
            else:
                look = first_look(self.mounts, self.first)
        finally:  # a failed look leaves it to the session
            self.screen.post_message(self.Peeked(look))

    def peeked_look(self, look: FirstLook | None) -> None:
        """``Peeked`` handled: the look is shown (unless the session was quicker), the load follows."""
        if look is not None and not self.session_made.is_set():
            self.show_look(look)
        self.after_paint(self.load)  # once the first useful frame is painted

    def show_look(self, look: FirstLook) -> None:
        """The tree's rows (bare badges) and the first file's entries, from the first look."""
        from amr_tui.screens.main.peek import FIRST_ROWS  # loaded: it made the look

        screen = self.screen
        tree = screen.query_one(MemoryTree)
        for mount in self.mounts:
            # A screenful first (laying out thousands of rows is most of a large repo's first frame),
            # every row once that frame is painted.
            rows = look.first_rows.get(mount.name) if look.first_rows is not None else None
            tree.set_repo(
                BareBadge(mount.name, read_only=mount.read_only),
                rows if rows is not None else look.files.get(mount.name, []),
                rows=FIRST_ROWS,
            )
        self.after_paint(self.whole_look_tree, look)
        total = sum(len(f) for f in look.files.values())
        self.say(f"Listed {plural(total, 'file')}; reading them…" if look.complete else "Listing files…")
        if look.repo is not None and look.doc is not None and look.states is not None:
            screen.query_one("#file-title", Static).update(content(f"{look.repo} / {look.path}"))
            view = screen.query_one("#view", EntryView)
            view.set_document(look.doc, look.states, {})
            view.focus()
            # Once laid out: a cursor placed before the tree has its height scrolls its first row away.
            self.after_paint(tree.select_file, look.repo, look.path)
            first = self.first
            if first is not None and first[:2] == (look.repo, look.path) and first[2]:
                self.after_paint(view.go_to_line, first[2])  # `amr FILE:LINE`
            self.peeked = (look.repo, look.path)

    def whole_look_tree(self, look: FirstLook) -> None:
        # After a bounded look (a large repo) the session's walk, right after this frame, brings
        # the whole tree: a second walk here only competed with it (and the load waited for it).
        if not self.session_made.is_set() and look.complete:  # else the session's tree is up already
            tree = self.screen.query_one(MemoryTree)
            for mount in self.mounts:
                tree.set_repo(BareBadge(mount.name, read_only=mount.read_only), look.files.get(mount.name, []))

    # ---------------------------------------------------------- the session
    def load(self) -> None:
        self.screen.run_worker(self.load_session, name="load_session", group="load", exclusive=True, thread=True)

    def load_session(self) -> None:
        """In a worker: the session, step by step, each step shown as it lands: the files listed
        (the tree's rows; the first file opens), the repo badges (git status), the search index
        (parsing every file the caches do not hold, with progress), then the repo-wide lint;
        last, the caches are written when files were read that they did not hold."""
        # Imported in the worker: the session brings git, the parser and the search index.
        from amr_tui.services.session.session import Session

        screen = self.screen
        try:
            session = Session(self.mounts)
            session.scan()
        except Exception as exc:  # a session that cannot start is a message, not a crash
            screen.app.call_from_thread(notify_text, screen.app, f"Could not open the memory: {exc}", severity="error")
            return
        screen.post_message(self.SessionMade(session))
        self.first_shown.wait(FIRST_SHOWN_WAIT_S)
        hold = self.host.load_hold  # tests hold the load here
        if hold is not None:
            hold.wait(60)
        session.refresh_badges()
        screen.post_message(self.BadgesRead())

        def progress(done: int, total: int) -> None:
            screen.post_message(self.Progress(done, total))

        session.index_files(progress)
        screen.post_message(self.Indexed())
        session.lint_all()
        screen.post_message(self.Loaded())
        session.save_caches()  # the next start (and `amr search`, `amr lint`) reads only what changes
