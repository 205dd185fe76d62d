"""The main screen: file tree, the open file, and the side panel. Navigation and live updates.

The screen is made of parts that own their state: its start-up (the first frame, then the
session) is a ``Loader`` (loading.py) whose messages the screen shows, where back and forward
lead is a ``History[Place]`` (core.navigation), a save is one async flow (saving.py's ``save``)
whose steps the screen shows (``save_begins``, ``save_made``, ``save_not_made``), and the edit
actions are an ``EditActions`` controller (editing.py). Sync, history and dreams are the app's
actions (app.py).
"""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Header, Input, Static, Tree

from amr_tui.core.format.links import LinkState
from amr_tui.core.model import Entry, LineKind, Link
from amr_tui.core.navigation import History
from amr_tui.core.paths import entry_file, is_markdown, with_md_suffix
from amr_tui.core.scope import SCOPE_KEY, parse_scope, repo_for
from amr_tui.core.textsafety import make_visible, plural
from amr_tui.screens.main.host import MainHost, NoHost
from amr_tui.screens.main.loading import Loader
from amr_tui.screens.main.past import open_past, past_loader
from amr_tui.screens.main.place import Place
from amr_tui.screens.main.state import Opens, Polls
from amr_tui.services.config import TREE_WIDTH
from amr_tui.services.workspace import MEMORY_FILE, Mount
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.entry_editor import EditTarget, EntryEditor
from amr_tui.widgets.entry_view import EntryView
from amr_tui.widgets.file_tree import BareBadge, FileRef, MemoryTree, folder_marks, pending_text
from amr_tui.widgets.footer import Footer
from amr_tui.widgets.safe import content, notify_text
from amr_tui.widgets.side_panel import SidePanel
from amr_tui.widgets.type_ahead import hold

if TYPE_CHECKING:
    from amr_tui.screens.finder import FinderScreen
    from amr_tui.screens.main.editing import EditActions
    from amr_tui.screens.main.saving import SaveJob
    from amr_tui.services.session.session import Change, OpenFile, Session
    from amr_tui.services.session.watch import RepoInfo
    from amr_tui.services.writegate import Saved
    from amr_tui.widgets.code_view import CodeView

__all__ = ["MainScreen", "Place"]

# Only what the first frame needs is imported above: the session (git, parser, search index),
# the edit actions, dialogs, the finder and TextArea are imported where they are first used, so
# the screen paints before any of that is loaded (tests/test_startup_path.py). Actions that need
# the session wait for it (check_action).
_BEFORE_SESSION = frozenset(
    {"toggle_side", "toggle_tree", "tree_width", "focus", "quit_app", "help", "command_palette"}
)
_PROSE = (LineKind.TEXT, LineKind.CONTINUATION, LineKind.QUOTE)  # lines that state facts in prose formats


class MainScreen(Screen[None]):
    HELP_TITLE = "Main screen"
    HELP_QUERY_SYNTAX = True  # ? lists what one types into the finder
    BINDINGS = bindings("main")
    DEFAULT_CSS = """
    #tree {
        border-right: vkey $panel-lighten-1;
        background: $surface;
    }
    #file-title {
        background: $panel;
        color: $text;
        text-style: bold;
    }
    MainScreen.-read-only #file-title {
        color: $warning;
    }
    #file-message {
        color: $text-muted;
    }
    #status {
        background: $panel;
        color: $text-muted;
    }
    #side {
        border-left: vkey $panel-lighten-1;
        background: $surface;
    }
    """

    current: reactive[OpenFile | None] = reactive(None, init=False)
    indexing: reactive[bool] = reactive(True)  # not `loading`: that is Widget.loading (a spinner over the screen)
    side_hidden: reactive[bool | None] = reactive(None)  # None: decided by the terminal width

    @dataclass
    class Polled(Message):
        """A poll for changes (or part of one) is done."""

        changes: list[Change]
        """What changed in the repos since the last poll (agents' commits, edits on disk)."""
        done: bool = True
        """The poll is over: the next one may start."""
        badges: bool = False
        """The repo badges (ahead/behind, last sync, problems) changed: redraw the tree."""

    @dataclass
    class Opened(Message):
        """A file asked for by ``open_place`` has been read."""

        of: OpenFile
        """The file as read."""
        line: int
        """The line to put the cursor on (0: the top)."""
        keep_cursor: bool
        """A reload: the cursors stay where the user put them."""
        record: bool
        """Leaving the file shown goes into the back history."""
        ticket: int = 0
        """Which open this is: only the latest one asked for is shown."""

    def __init__(
        self,
        mounts: list[Mount],
        poll_interval: float = 1.0,
        first: tuple[str, str, int] | None = None,
        *,
        host: MainHost | None = None,
    ) -> None:
        super().__init__()
        self.host: MainHost = host or NoHost()  # the app: settings, the first look, the first frame
        self.first = first  # (repo, path, line) to open first instead of the first repo's MEMORY.md
        self.mounts = mounts
        self.session: Session | None = None  # built by the load worker, made the screen's by on_loader_session_made
        self.standing: dict[str, str] = {}  # the status line's standing notes (say_standing)
        self.poll_interval = poll_interval
        self.places: History[Place] = History()  # where back and forward lead
        self.drafts: dict[tuple[str, str], tuple[EditTarget, str]] = {}
        self.save_running = False  # a save has begun and is not reported yet (saving.py)
        self.foreign_repo: str | None = None  # the repo the last save left others' changes in (U commits them)
        self._edit_actions: EditActions | None = None  # loaded at the first edit
        self.loader = Loader(self, self.host, mounts, first, self.set_status)  # the first frame, then the session
        self.pending_said: tuple[int, str | None] = (0, None)  # what the status line last said waits for review
        self.opens = Opens()  # which open is the latest, and an edit key waiting for it
        self.polls = Polls()  # one poll at a time, and when one re-checks history
        # The entry editor, hidden until an edit starts, is mounted once the first frame is
        # painted (_mount_editor): its input, its CSS and Input's are no part of that frame. Made
        # here, so that what asks whether an edit is open (the editor's display, target, saving)
        # always has it to ask; an edit starts only once the session exists, after that frame.
        self._editor = EntryEditor(id="editor", leave_to="#view")
        self._editor.display = False

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="panes"):
            yield MemoryTree(id="tree")
            with Vertical(id="center"):
                yield Static("", id="file-title")
                yield EntryView(id="view")
                yield Static("", id="file-message", markup=False)
                # the entry editor comes here once the first frame is painted (_mount_editor)
            yield SidePanel(id="side")
        yield Static("", id="status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        width = self.host.config.tree_width
        if width:
            self.query_one(MemoryTree).styles.width = width
        self.query_one("#file-message").display = False
        if self.host.today:
            self.view.today = self.host.today
            self.query_one(MemoryTree).today = self.host.today
        self.loader.after_paint(self._mount_editor)  # before the load: it is there when the session is
        self.loader.start()
        self.set_interval(self.poll_interval, self._tick, name="poll")

    def _mount_editor(self) -> None:
        for center in self.query("#center"):  # none once the screen is torn down
            center.mount(self._editor, after="#file-message")

    def on_screen_resume(self) -> None:
        self.loader.resumed()

    @property
    def loaded(self) -> Session:
        """The session, for what runs once it exists (check_action holds the rest back)."""
        assert self.session is not None, "the session is built by the load worker first"
        return self.session

    # ----------------------------------------------- the load (loading.py)
    def on_loader_peeked(self, message: Loader.Peeked) -> None:
        self.loader.peeked_look(message.look)

    def on_loader_session_made(self, message: Loader.SessionMade) -> None:
        """The session is the screen's from now on (assigned here, on the UI thread): the tree and
        the first file."""
        self.session = session = message.session
        self.loader.session_made.set()
        self.host.session_ready(session)
        for note in session.repairs:  # a write a killed amr left half done, finished or taken back
            notify_text(self.app, note, title="Repaired", severity="warning", timeout=20)
        self.refresh_bindings()
        total = sum(len(session.files(name)) for name in session.names)
        self.set_status(f"Listed {plural(total, 'file')}; reading them…")
        self.refresh_tree()
        self.open_first()
        if self.current is None and not self.loader.first_opened:
            self.loader.first_shown.set()  # nothing to open: the load goes on

    def on_loader_badges_read(self, _: Loader.BadgesRead) -> None:
        self.refresh_tree()

    def on_loader_progress(self, message: Loader.Progress) -> None:
        entries = len(self.loaded.index)
        self.set_status(
            f"Indexing {message.done:,} of {message.total:,} files ({entries:,} entries so far); "
            "search covers what is read, lint marks follow…"
        )

    def on_loader_indexed(self, _: Loader.Indexed) -> None:
        session = self.loaded
        files = sum(len(session.files(name)) for name in session.names)
        away = f" ({session.parsed_away:,} parsed by worker processes)" if session.parsed_away else ""
        self.set_status(
            f"Search ready: {plural(len(session.index), 'entry', 'entries')} in {plural(files, 'file')}{away}. Linting…"
        )

    def on_loader_loaded(self, _: Loader.Loaded) -> None:
        session = self.loaded
        self.indexing = False
        self.refresh_tree()
        total = len(session.index)
        self.set_status(
            f"{len(session.names)} repo{'s' if len(session.names) != 1 else ''} mounted, {total} items indexed."
        )
        cur = self.current
        if cur is not None:
            self.call_after_refresh(self.query_one(MemoryTree).select_file, cur.repo, cur.path)  # once its lines exist
            if cur.doc is not None:  # its repo-wide lint marks arrived with Loaded
                self.view.set_marks(session.marks(cur.repo, cur.path))
                self.refresh_side()
        self.open_first()
        self.check_history()
        self.count_unreviewed()
        self.check_stale()
        if self.host.config.merge_driver:
            self.tell_missing_merge_driver()

    def open_first(self) -> None:
        # Once only: Loaded may arrive while the open asked for when the session was made is still
        # in flight, and a second open would put back the cursor the user has moved meanwhile.
        session = self.loaded
        if self.current is None and not self.loader.first_opened and self.opens.wanted is None and session.names:
            self.loader.first_opened = True
            first = self.first if self.first is not None and self.first[0] in session.names else None
            place = Place(*first) if first else Place(session.names[0], entry_file(session.files(session.names[0])), 0)
            # The first look showed it already: read again with its HEAD, the cursor left where it is.
            self.open_place(place, keep_cursor=self.loader.peeked == (place.repo, place.path))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.session is None and action not in _BEFORE_SESSION:
            return None  # shown, greyed out, until the session exists (a fraction of a second)
        return True

    @dataclass
    class DriverMissing(Message):
        """These repos' clones have no amr merge driver configured (each is told once)."""

        repos: list[str]

    @work(thread=True, exclusive=True, group="merge-driver")
    def tell_missing_merge_driver(self) -> None:
        from amr_tui.services.sync.gitattrs import tell_missing_driver_once  # git: not on the first frame's path

        session = self.loaded
        missing = [
            name
            for name in session.names
            if session.git(name) is not None
            and not session.mount(name).read_only
            and tell_missing_driver_once(session.mount(name).root)
        ]
        if missing:
            self.post_message(self.DriverMissing(missing))

    def on_main_screen_driver_missing(self, message: DriverMissing) -> None:
        notify_text(
            self.app,
            f"{', '.join(message.repos)}: this clone has no amr merge driver, so a plain git pull merges "
            "memory files line by line. S (sync) installs it, or run `amr merge-driver install`.",
            title="Merge driver",
            timeout=10,
        )

    @work(thread=True, exclusive=True, group="unreviewed")
    def count_unreviewed(self) -> None:
        """The tree's unreviewed counts (``services.activity``: an entry diff per repo), read once
        the load is done and again after an activity review; the tree is redrawn if they changed."""
        session = self.loaded
        session.watch.count_unreviewed = True
        for name in session.names:
            session.watch.mark_info_stale(name)
        if session.watch.refresh_stale_info():
            self.post_message(self.Polled([], done=False, badges=True))

    @work(thread=True, exclusive=True, group="history-lint")
    def check_history(self) -> None:
        """AMR030 (resurrected facts) needs the whole history: found in the background, then marked."""
        session = self.loaded
        found = 0
        for name in session.names:
            try:
                found += session.check_history(name)
            except Exception:  # history is a bonus; a repo git refuses is already reported
                continue
        self.polls.history_checked = True
        if found:
            self._tell_resurrected(found)

    def _tell_resurrected(self, found: int) -> None:
        """In a worker: the marks are redrawn and the person told (AMR030)."""
        self.post_message(self.Polled([], done=False, badges=True))
        self.app.call_from_thread(
            notify_text,
            self.app,
            f"{found} entr{'ies bring' if found != 1 else 'y brings'} back a fact that was deleted on purpose "
            "(AMR030).",
            title="Resurrected facts",
            severity="warning",
        )
        self.app.call_from_thread(self.action_reload)

    def _recheck_history(self, session: Session, repos: set[str]) -> tuple[int, bool]:
        """In the poll worker: an agent may have written a forgotten fact again; the history walk
        is cached per HEAD, so only what changed since is read. Returns how many more there are,
        and whether any repo's resurrections changed."""
        more = 0
        changed = False
        for name in repos:
            before = list(session.repos[name].history_findings)
            try:
                more += max(0, session.check_history(name) - len(before))
            except Exception:  # history is a bonus, as at start-up
                continue
            changed = changed or session.repos[name].history_findings != before
        return more, changed

    def _tick(self) -> None:
        if not self.indexing and not self.polls.running:
            self.polls.running = True
            self.poll()

    @work(thread=True, exclusive=True, group="poll")
    def poll(self) -> None:
        """Re-index what changed (no git), show it, then re-read the badges of repos that changed."""
        session = self.loaded
        badges: list[str] = []
        try:
            changes = session.watch.poll()
            # A change is shown with its resurrections (AMR030) already found, so the tree, the
            # entry's marks and the side panel say it at once; a burst of commits is re-checked
            # at most every HISTORY_RECHECK_SECONDS, and the last of it is never left unchecked
            # (nor amr's own writes: an undo puts a fact back, a delete takes one away).
            more, marks = 0, False
            stale = {name for name, state in session.repos.items() if state.history_stale}
            if stale and self.polls.history_due(time.monotonic()):
                more, marks = self._recheck_history(session, stale)
            if changes:
                self.post_message(self.Polled(changes, done=False))
            if more:
                self._tell_resurrected(more)
            elif marks and not changes:  # found on a later poll: the marks are redrawn now
                self.post_message(self.Polled([], done=False, badges=True))
                self.app.call_from_thread(self.action_reload)
            badges = session.watch.refresh_stale_info()
        except Exception as exc:  # polling must never bring the app down
            self.app.call_from_thread(notify_text, self.app, f"Could not check for changes: {exc}", severity="warning")
        self.post_message(self.Polled([], done=True, badges=bool(badges)))

    def on_main_screen_polled(self, message: Polled) -> None:
        if message.done:
            self.polls.running = False
        if message.badges:
            self.refresh_tree()
        if not message.changes:
            return
        self.refresh_tree()
        cur = self.current
        for change in message.changes:
            notify_text(self.app, change.describe(), title="Memory changed", timeout=4)
            if (
                cur
                and change.repo == cur.repo
                and (cur.path in change.changed or cur.path in change.removed or change.head_moved)
            ):
                self.open_place(Place(cur.repo, cur.path, self.view.cursor_line), keep_cursor=True, record=False)

    @work(thread=True, group="open")
    def _open_worker(self, place: Place, keep_cursor: bool, record: bool, ticket: int) -> None:
        self.loader.session_made.wait(60)  # asked for from the first look's tree, before the session exists
        try:
            of = self.loaded.open(place.repo, place.path)
        except Exception as exc:  # an unreadable file is a message, not a crash
            self.app.call_from_thread(self._open_failed, ticket, f"Cannot open {place.path}: {exc}")
            return
        self.post_message(self.Opened(of, place.line, keep_cursor, record, ticket))

    def _open_failed(self, ticket: int, text: str) -> None:
        self.loader.first_shown.set()
        notify_text(self.app, text, severity="error")
        if self.opens.is_latest(ticket):
            self.opens.wanted = None  # nothing is on its way: a reload reads the file on screen
            self._shown(ticket)

    # ------------------------------------------------------------- saving
    async def save(
        self, job: SaveJob, of: OpenFile | None = None, *, gives_back: bool = False, begun: bool = False
    ) -> Saved | None:
        """One save (saving.py's ``save``), from a flow: what it did, or None when it was not made."""
        # Imported here: a save brings git, the session and the dialogs, which the first frame
        # does without (tests/test_startup_path.py).
        from amr_tui.screens.main.saving import save

        return await save(self, job, of, gives_back=gives_back, begun=begun)

    def save_soon(self, job: SaveJob, of: OpenFile | None = None) -> None:
        """A save asked for by a key with no question before it: begun now (keys typed after it
        wait for it), the rest run as the flow ``flow:save``."""
        if self.save_begins():
            self.run_worker(self.save(job, of, begun=True), group="flow:save")

    def save_begins(self) -> bool:
        """A save begins: False (and says so) while the last one is still being committed. The
        entry editor, if it is the one saving, stays on screen saying so but takes no keys, and
        keys typed from now on wait for the save to be shown (an edit key then edits the file as
        saved)."""
        if self.save_running:  # a save pressed twice runs once
            notify_text(self.app, "Still saving the last change…", severity="warning", timeout=2)
            self.editor.give_back()
            return False
        self.save_running = True
        self.set_status("Saving…")
        if self.editor.display and self.editor.target is not None:
            self.focus_off_editor()
            self.editor.saving = True
        self.hold_keys("a save")
        return True

    def save_made(self, saved: Saved) -> None:
        """The save is made (or there was nothing to commit): say so, and show the file as saved."""
        self.save_running = False
        if self.editor.saving:
            self.close_editor()
        self.set_status(make_visible(saved.message) + (f"  ({saved.head[:8]})" if saved.head else ""))
        title = "Committed" if saved.committed and saved.head else ("Saved" if not saved.head else "Nothing to commit")
        note = [saved.message]
        if saved.merged:
            note.append("Merged with a change committed meanwhile: " + ", ".join(saved.merged))
        notify_text(self.app, note, title=title, timeout=4)
        for repair in saved.repaired:  # another amr's write, killed half way, repaired before this one
            notify_text(self.app, repair, title="Repaired", severity="warning", timeout=20)
        if saved.foreign:
            self.foreign_repo = saved.repo
            notify_text(
                self.app,
                ", ".join(saved.foreign) + " also holds uncommitted changes that were not made in amr. "
                "They were left out of this commit and are still in the file. Press U to commit them as a "
                "commit of their own.",
                title="Others' uncommitted changes kept",
                severity="warning",
                timeout=10,
            )
        self.refresh_tree()
        self.open_place(Place(saved.repo, saved.path, saved.line), record=False)

    def save_not_made(self, error: BaseException) -> None:
        """The save was not made: the next one may begin, the entry editor takes keys again."""
        self.save_running = False
        self.editor_back()
        self.set_status(make_visible(f"Not saved: {error}"))

    def editor_back(self) -> None:
        """A save was not made (or the entry was not sent: empty, kept to be fixed): the entry
        editor (if it was saving) takes keys again, with the text as typed, and an edit key
        pressed meanwhile is dropped (the editor it would open is the one still open)."""
        self.opens.deferred = None
        self.editor.give_back()

    def focus_off_editor(self) -> None:
        """The focus to the view now, if it is in the entry editor: a widget hidden or disabled
        keeps the focus until the next refresh, and took the keys typed meanwhile."""
        if self.focused is not None and self.editor in self.focused.ancestors_with_self:
            self.set_focus(self.view)

    def close_editor(self) -> None:
        """Hide the entry editor, the focus going to the view at once."""
        self.focus_off_editor()
        self.editor.close()
        self.view.editing = False

    def when_shown(self, action: Callable[[], None]) -> None:
        """Run ``action`` (an edit key) now, or once the save on its way is made and the file it
        reopens is shown: e or o pressed right after enter edits the file as saved, never the
        version before, and is never lost. The same holds for a file still opening (a click in
        the tree, an agent's change being reloaded). The last such key wins."""
        if self.save_running or self.editor.saving or self.opens.on_its_way:
            self.opens.deferred = action
            return
        action()

    def _shown(self, ticket: int) -> None:
        """The open with ``ticket`` is on screen (or failed): a deferred edit key runs now."""
        self.opens.shown = ticket
        action, self.opens.deferred = self.opens.deferred, None
        if action is not None:
            if self.save_running or self.editor.saving:
                self.opens.deferred = action
            else:
                action()

    # ------------------------------------------------------------ editing
    def edits(self) -> EditActions:
        """The edit actions, loaded at the first edit."""
        if self._edit_actions is None:
            # Imported here: the edit actions bring git, the parser and the dialogs, which the
            # first frame does without (tests/test_startup_path.py).
            from amr_tui.screens.main.editing import EditActions

            self._edit_actions = EditActions(self, self.loaded)
        return self._edit_actions

    def _unsaved_entry_value(self) -> str | None:
        """The entry editor's text when it is open and differs from what it started with."""
        editor = self.editor
        if not editor.display or editor.target is None:
            return None
        value = editor.query_one(Input).value
        return value if value != editor.target.original else None

    def entry_edit_pending(self) -> bool:
        """True (and says so) when an entry edit is unsaved: another write would close the editor."""
        if self.editor.saving:  # sent to be saved: the next write waits for it
            notify_text(self.app, "Still saving the last change…", severity="warning", timeout=2)
            return True
        if self._unsaved_entry_value() is None:
            return False
        notify_text(
            self.app, "Finish the entry you are editing first: enter saves it, esc discards it.", severity="warning"
        )
        self.editor.query_one(Input).focus()
        return True

    def unsaved_edits(self) -> list[str]:
        """The entry being edited (when changed) and every kept draft: what quitting would lose."""
        try:
            value = self._unsaved_entry_value()
        except Exception:  # not composed (yet, or any more): nothing typed
            return []
        edits = []
        target = self.editor.target
        if value is not None and target is not None:
            what = (
                f"line {target.line}: the entry you are editing"
                if target.mode == "edit"
                else "the new entry you are writing"
            )
            edits.append(f"{target.repo}/{target.path}, {what}")
        for (repo, path), (kept, _value) in self.drafts.items():
            line = f", line {kept.line}" if kept.mode == "edit" else ""
            edits.append(f"{repo}/{path}{line}: a draft kept when you left the file")
        return edits

    def leave_file(self, then: Callable[[], None]) -> None:
        """Navigate away; an unsaved entry edit is kept as a draft and comes back with the file."""
        editor = self.editor
        if editor.display and editor.target is not None:
            value = editor.query_one(Input).value
            if value != editor.target.original:
                self.drafts[(editor.target.repo, editor.target.path)] = (editor.target, value)
                notify_text(
                    self.app,
                    f"Unsaved edit of {editor.target.repo}/{editor.target.path} kept as a draft; "
                    "press e in that file to resume. Quitting asks first.",
                    timeout=5,
                )
            self.close_editor()
        then()

    def create_file_at(self, repo: str, path: str) -> None:
        self.edits().create_file_at(repo, path)

    def action_edit_entry(self) -> None:
        self.when_shown(lambda: self.edits().edit_entry())

    def action_new_entry(self, where: str) -> None:
        self.when_shown(lambda: self.edits().new_entry(where))

    def action_delete_entry(self) -> None:
        self.edits().delete_entry()

    def action_stamp_added(self) -> None:
        self.edits().stamp_added()

    def action_undo(self) -> None:
        self.edits().undo_last()

    def action_move_entry(self) -> None:
        self.edits().move_entry()

    def action_edit_file(self) -> None:
        self.edits().edit_file()

    def action_external_editor(self) -> None:
        self.edits().external_editor()

    def action_new_file(self) -> None:
        self.edits().new_file()

    def action_rename_file(self) -> None:
        self.edits().rename_file()

    def action_delete_file(self) -> None:
        self.edits().delete_file()

    def action_capture(self) -> None:
        self.edits().capture()

    def action_commit_foreign(self) -> None:
        self.edits().commit_foreign()

    def on_entry_editor_submitted(self, message: EntryEditor.Submitted) -> None:
        self.edits().submitted(message)

    def on_entry_editor_cancelled(self, message: EntryEditor.Cancelled) -> None:
        self.edits().cancelled(message)

    # --------------------------------------------------------- navigation
    def _code_view(self, create: bool) -> CodeView | None:
        """The viewer of non-Markdown files, mounted the first time one is opened."""
        found = self.query("#code")
        if found or not create:
            return found.first() if found else None  # type: ignore[return-value]
        # Imported here: the code view is a TextArea, which the first frame does without.
        from amr_tui.widgets.code_view import CodeView

        code = CodeView(id="code")
        self.query_one("#center").mount(code, after=self.view)
        return code

    @property
    def view(self) -> EntryView:
        return self.query_one("#view", EntryView)

    @property
    def editor(self) -> EntryEditor:
        return self._editor

    def set_status(self, text: str) -> None:
        """The status line says ``text`` (a flow that outlives the screen, at quit, says nothing)."""
        for status in self.query("#status").results(Static):  # none once the screen is torn down
            status.update(content(text))

    def open_place(self, place: Place, *, keep_cursor: bool = False, record: bool = True) -> None:
        # Opens run in workers and may finish out of order (a big file after a small one): only
        # the last one asked for is shown, and a reload meanwhile reloads that one.
        self._open_worker(place, keep_cursor, record, self.opens.ask(place))
        self.hold_keys("a file opening")

    def hold_keys(self, why: str) -> None:
        """Keys typed from now on wait (widgets/type_ahead.py) until no save and no open is on
        its way: the keys after ``e`` pressed right after a save go to the editor it opens."""
        hold(self.app, why, lambda: not (self.save_running or self.editor.saving or self.opens.on_its_way), 10.0)

    def on_main_screen_opened(self, message: Opened) -> None:
        if not self.opens.is_latest(message.ticket):
            return  # a later open was asked for: it shows its own file
        of = message.of
        prev = self.current
        if message.record and prev is not None and (prev.repo, prev.path) != (of.repo, of.path):
            self.places.record(Place(prev.repo, prev.path, self.view.cursor_line))
        self.current = of
        self.show_file(of, message.line, message.keep_cursor)
        if not self.loader.first_shown.is_set():
            self.call_after_refresh(self.loader.first_shown.set)  # painted: the load worker goes on
        self._shown(message.ticket)

    def show_file(self, of: OpenFile, line: int, keep_cursor: bool) -> None:
        session = self.loaded
        budget = session.file_cut(of, self.host.today)
        # A file the repo's agent loads at session start: its gauge (the path, then how much of
        # each limit it takes) in place of the path.
        title = f"{of.repo} / {budget.gauge if budget is not None else of.path}"
        if of.read_only:  # why it is read-only comes first; the gauge's numbers after it
            title = f"{of.repo} / {of.path}   (read-only: {of.read_only})"
            if budget is not None:
                title += "   " + budget.gauge[len(of.path) + 1 :]
        self.query_one("#file-title", Static).update(content(title))
        self.sub_title = make_visible(f"{of.repo}/{of.path}")
        view, msg = self.view, self.query_one("#file-message", Static)
        markdown = of.doc is not None and is_markdown(of.path)
        view.display = markdown
        code = self._code_view(create=of.data is not None and not markdown)
        if code is not None:
            code.display = of.data is not None and not markdown
        msg.display = of.data is None
        self.set_class(of.read_only is not None, "-read-only")
        if of.data is None:
            msg.update(content(of.message or "Nothing to show."))
            return
        if markdown and of.doc is not None:
            cut: tuple[int | None, str] = (None, "")
            if budget is not None and budget.line is not None:
                cut = (budget.line, f"\u25b2 {budget.profile.verb('load')} these at start \u00b7 not these \u25bc")
            view.set_document(
                of.doc,
                session.link_states(of.repo, of.doc),
                session.marks(of.repo, of.path),
                keep_cursor=keep_cursor,
                cut=cut,
            )
            if line and not keep_cursor:
                view.go_to_line(line)
            if not self.editor.display:
                view.focus()
            self.refresh_side()
        elif code is not None:
            code.show_bytes(of.data, of.path, line)
            code.focus()
            self.query_one(SidePanel).show_links(session.backlinks(of.repo, of.path), [])
        if not keep_cursor:  # a reload (an agent's commit, ctrl+r) leaves the tree's cursor where the user put it
            self.query_one(MemoryTree).select_file(of.repo, of.path)

    def refresh_side(self) -> None:
        of = self.current
        if of is None or of.doc is None:
            return
        session = self.loaded
        view = self.view
        line = view.cursor_line
        text = of.doc.lines[line - 1].text if 1 <= line <= len(of.doc.lines) else ""
        diags = [d for d in session.diagnostics(of.repo, of.path) if d.line == line]
        side = self.query_one(SidePanel)
        side.show_entry(view.entry, text, diags, belongs=self._belongs(of.repo, view.entry))
        side.show_checks(self._checks(of, line, view.entry, text))
        side.show_links(session.backlinks(of.repo, of.path), session.outgoing(of.repo, of.doc))

    def on_entry_view_cursor_moved(self, message: EntryView.CursorMoved) -> None:
        of = self.current
        if of is None or of.doc is None:
            return
        line = message.line
        text = of.doc.lines[line - 1].text if 1 <= line <= len(of.doc.lines) else ""
        diags = [d for d in self.loaded.diagnostics(of.repo, of.path) if d.line == line]
        self.query_one(SidePanel).show_entry(message.entry, text, diags, belongs=self._belongs(of.repo, message.entry))
        self.query_one(SidePanel).show_checks(self._checks(of, line, message.entry, text))

    def _checks(self, of: OpenFile, line: int, entry: Entry | None, text: str) -> list[tuple[str, str]]:
        """The side panel's "is it still true?" lines for the fact at ``line`` (an entry, or a
        line of prose in a format that writes prose)."""
        session = self.loaded
        state = session.repos.get(of.repo)
        prose = of.doc is not None and 1 <= line <= len(of.doc.lines) and of.doc.lines[line - 1].kind in _PROSE
        if entry is None and (state is None or state.style == "amr" or not prose):
            return []
        fact = entry.text if entry is not None else text.strip()
        return session.verifying.panel(of.repo, of.path, line, fact, entry, self.host.today or _dt.date.today())

    @work(thread=True, exclusive=True, group="stale")
    def check_stale(self) -> None:
        """After the load: the agents' reads of each repo, then each repo that has code to check
        against judged (cached per code HEAD), for the side panel and the finder's is:stale."""
        session = self.loaded
        session.verifying.config = self.host.config
        stale = 0
        for name in session.names:
            session.verifying.usage(name)
            if session.verifying.sources(name):
                try:
                    stale += len(session.verifying.run(name, today=self.host.today).stale)
                except Exception:  # the code repo cannot be read: the Stale? queue says why
                    continue
        self.post_message(self.StaleChecked(stale))

    @dataclass
    class StaleChecked(Message):
        """The repos were judged against their code (in the background)."""

        stale: int
        """How many facts' evidence no longer holds."""

    def on_main_screen_stale_checked(self, message: StaleChecked) -> None:
        if self.current is not None and self.current.doc is not None:
            self.refresh_side()
        if message.stale:
            self.say_standing(
                "stale", f"{plural(message.stale, 'fact')} may be stale: their evidence no longer holds (v lists them)"
            )

    def _belongs(self, repo: str, entry: Entry | None) -> str | None:
        """The mounted repo an entry's ``project:`` scope names, when it is not ``repo`` (m moves it)."""
        values = entry.meta(SCOPE_KEY) if entry is not None else []
        scope = parse_scope(values[0]) if values else None
        if scope is None or isinstance(scope, str):
            return None
        session = self.loaded
        return repo_for(scope, [r for r in session.names if not session.mount(r).read_only], repo)

    def refresh_tree(self) -> None:
        session = self.loaded
        tree = self.query_one(MemoryTree)
        for name in session.names:
            info = session.badge(name)  # a bare badge until git status was read: no git on the UI thread
            problems: dict[str, str | Text] = {}
            broken: set[str] = set()
            orphans: set[str] = set()
            for path in session.files(name):
                diags = session.diagnostics(name, path)
                errors = sum(1 for d in diags if d.severity.value == "error")
                mark = Text(f"\u25cf{errors}", "red") if errors else Text()
                if any(d.code == "AMR013" for d in diags):  # no link reaches it from MEMORY.md
                    mark.append((" " if mark else "") + "orphan", "yellow")
                    orphans.add(path)
                if any(d.code == "AMR010" for d in diags):  # a [[link]] in it names no file
                    mark.append((" " if mark else "") + "broken", "yellow")
                    broken.add(path)
                if any(d.code == "AMR030" for d in diags):  # it brings back a forgotten fact
                    mark.append((" " if mark else "") + "resurrected", "yellow")
                if mark:
                    problems[path] = mark
            problems.update(folder_marks(broken, orphans))  # a folder counts what is under it
            tree.set_repo(info, session.files(name), problems)
        self._say_pending([session.badge(name) for name in session.names])

    def _say_pending(self, badges: list[BareBadge | RepoInfo]) -> None:
        """The status line says what waits for review across the repos, and the age of the oldest,
        each time that changes (``3 pending · oldest 9d``): a queue nobody looks at rots."""
        count = sum(b.pending for b in badges)
        first = min((b.oldest for b in badges if b.pending and b.oldest), default=None)
        said = (count, first)
        if said == self.pending_said:
            return
        self.pending_said = said
        text = pending_text(BareBadge("", pending=count, oldest=first), self.host.today) if count else ""
        self.say_standing(
            "pending",
            f"{text} for review: A reviews agents' commits, V the runs; `amr inbox` lists them all" if text else "",
        )

    def say_standing(self, key: str, text: str) -> None:
        """A standing note of the status line (what waits for review, what may be stale): each
        says its own part, so the later one never hides the other (``text`` "" drops the part)."""
        self.standing[key] = text
        said = " \u00b7 ".join(t for t in self.standing.values() if t)
        if said:
            self.set_status(said)

    def on_tree_node_selected(self, event: Tree.NodeSelected[object]) -> None:
        data = event.node.data
        if isinstance(data, FileRef) and data.path and not data.path.endswith("/"):
            cur = self.current
            if cur is None or (cur.repo, cur.path) != (data.repo, data.path):
                place = Place(data.repo, data.path, 0)
                self.leave_file(lambda: self.open_place(place))

    def on_entry_view_link_activated(self, message: EntryView.LinkActivated) -> None:
        self.follow_link(message.link)

    def follow_link(self, link: Link) -> None:
        of = self.current
        if of is None:
            return
        session = self.loaded
        state, path, suggestion = session.resolve_link(of.repo, link, of.path)
        if state is LinkState.OK and path:
            line = session.link_line(of.repo, path, link)  # [[file#Heading]]: that heading's line
            if line is None:
                notify_text(self.app, f"{link.written}: {path} has no such heading.", severity="warning")
            if path == of.path:  # [[#Heading]]: a heading of this file
                if line:
                    self.places.record(Place(of.repo, of.path, self.view.cursor_line))
                    self.view.go_to_line(line)
                return
            place = Place(of.repo, path, line or 0)
            self.leave_file(lambda: self.open_place(place))
        elif state is LinkState.ESCAPES:
            notify_text(self.app, f"[[{link.target}]] leaves the memory root; amr never opens it.", severity="error")
        elif state is LinkState.EMPTY:
            notify_text(self.app, "Empty link.", severity="warning")
        else:
            hint = f" Did you mean [[{suggestion}]]?" if suggestion else ""
            if of.read_only or session.mount(of.repo).read_only:
                notify_text(self.app, f"[[{link.target}]] names no file.{hint}", severity="warning")
                return
            self.run_worker(self.offer_missing(of.repo, link, hint), group="flow:missing-file")

    async def offer_missing(self, repo: str, link: Link, hint: str) -> None:
        """The link names no file in ``repo``: create it if the user says so."""
        # Imported here: the dialogs are not needed for the first frame.
        from amr_tui.screens.dialogs import ConfirmScreen

        target = with_md_suffix(link.target)
        if await self.app.push_screen_wait(
            ConfirmScreen(
                "Missing file",
                make_visible(f"[[{link.target}]] names no file in {repo}.{hint}")
                + "\n\n"
                + make_visible(f"Create {target}?"),
                "Create",
            )
        ):
            self.create_file_at(repo, target)

    def on_entry_view_source_activated(self, message: EntryView.SourceActivated) -> None:
        url = message.url.replace("%3B", ";").replace("%5B", "[").replace("%5D", "]")
        if not url.lower().startswith(("http://", "https://")):
            notify_text(self.app, f"Not a web link, not opened: {url}", severity="warning")
            return
        self.run_worker(self.open_source(url), group="flow:open-source")

    async def open_source(self, url: str) -> None:
        """Open ``url`` (a source's link) in the web browser if the user says so."""
        # Imported here: the dialogs are not needed for the first frame.
        from amr_tui.screens.dialogs import ConfirmScreen

        if not await self.app.push_screen_wait(
            ConfirmScreen("Open source?", f"Open this link in your web browser?\n\n{make_visible(url)}", "Open")
        ):
            return
        # Imported here: webbrowser (and the subprocess module it loads) only when a link is opened.
        import webbrowser

        notify_text(self.app, "Opening in your browser…")
        self.run_worker(lambda: webbrowser.open(url), thread=True, group="browser")

    def on_side_panel_open(self, message: SidePanel.Open) -> None:
        of = self.current
        if of is None:
            return
        target = message.target
        if target.link is not None:
            self.follow_link(target.link)
        elif target.path:
            place = Place(of.repo, target.path, target.line)
            self.leave_file(lambda: self.open_place(place))

    def action_find(self, query: str = "") -> None:
        """The finder (``query``: what it starts with, e.g. ``tag:infra`` from the tags view)."""
        # Imported here: the finder (and the search it drives) is not needed for the first frame.
        from amr_tui.screens.finder import FinderScreen

        session = self.loaded
        finder = FinderScreen(session.search_session(), query, past=past_loader(session), coverage=session.coverage)
        self.run_worker(self.find(session, finder), group="flow:find")

    async def find(self, session: Session, finder: FinderScreen) -> None:
        """The finder, then what its result opens: a place, or what a result of the past is
        (``open_past``; a restore there reads the repo again)."""
        result = await self.app.push_screen_wait(finder)
        if result is None:
            return
        if result.past is None:
            self.go_to(result.repo, result.path, result.line)
        elif await open_past(self.app, session, result.past, self.go_to, poll_interval=self.poll_interval):
            self.action_reload()
            self.refresh_tree()

    def go_to(self, repo: str, path: str, line: int) -> None:
        place = Place(repo, path, line)
        self.leave_file(lambda: self.open_place(place))

    def _here(self) -> Place | None:
        """The place shown now, with the cursor where it is (what back and forward come back to)."""
        cur = self.current
        return Place(cur.repo, cur.path, self.view.cursor_line) if cur is not None else None

    def action_back(self) -> None:
        here = self._here()
        if here is None or not self.places.can_go_back:
            self.app.bell()
            return
        place = self.places.back(here)
        if place is not None:
            self.leave_file(lambda: self.open_place(place, record=False))

    def action_forward(self) -> None:
        here = self._here()
        if here is None or not self.places.can_go_forward:
            self.app.bell()
            return
        place = self.places.forward(here)
        if place is not None:
            self.leave_file(lambda: self.open_place(place, record=False))

    def action_memory(self) -> None:
        session = self.loaded
        repo = self.current.repo if self.current else (session.names[0] if session.names else None)
        if repo:
            self.leave_file(lambda: self.open_place(Place(repo, MEMORY_FILE, 0)))

    def action_toggle_raw(self) -> None:
        self.view.raw = not self.view.raw
        notify_text(self.app, "Showing lines as written" if self.view.raw else "Showing entries with metadata chips")

    def on_resize(self, event: events.Resize) -> None:
        if self.side_hidden is None:
            self.set_class(event.size.width < 110, "-no-side")

    def action_toggle_side(self) -> None:
        hidden = not self.has_class("-no-side")
        self.side_hidden = hidden
        self.set_class(hidden, "-no-side")

    def action_toggle_tree(self) -> None:
        self.toggle_class("-no-tree")

    def action_tree_width(self, step: int) -> None:
        """Make the tree narrower or wider; the width is kept in the config (tree_width)."""
        tree = self.query_one(MemoryTree)
        width = max(TREE_WIDTH[0], min(TREE_WIDTH[1], tree.outer_size.width + step, max(self.size.width - 30, 20)))
        tree.styles.width = width
        self.host.save_setting(tree_width=width)

    def action_reload(self) -> None:
        cur, wanted = self.current, self.opens.wanted
        if wanted is not None and cur is not None and (wanted.repo, wanted.path) != (cur.repo, cur.path):
            self.open_place(wanted, record=False)  # still opening: read that file again instead
        elif cur is not None:
            self.open_place(Place(cur.repo, cur.path, self.view.cursor_line), keep_cursor=True, record=False)

    async def action_focus(self, which: str) -> None:  # the panes by name, not Screen's by selector
        target = {"tree": "#tree", "view": "#view", "backlinks": "#backlinks", "outgoing": "#outgoing"}[which]
        widget = self.query_one(target)
        if widget.display:
            self.set_focus(widget)  # now: the keys read after this one go to it (widget.focus() waits)
