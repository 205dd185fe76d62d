"""The main screen: file tree, the open file, and the side panel. Navigation and live updates.

Editing actions live in screens.main_edit (a mixin) so each file stays readable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Header, Static, Tree

from amr_tui.core.format.links import LinkState, link_text_for
from amr_tui.core.textsafety import make_visible
from amr_tui.screens.main.editing import EditingMixin
from amr_tui.screens.main.history import HistoryMixin
from amr_tui.screens.main.sync import SyncMixin
from amr_tui.services.workspace import MEMORY_FILE, Mount
from amr_tui.widgets.entry_editor import EntryEditor
from amr_tui.widgets.entry_view import EntryView
from amr_tui.widgets.file_tree import FileRef, MemoryTree
from amr_tui.widgets.safe import content
from amr_tui.widgets.side_panel import SidePanel

if TYPE_CHECKING:
    from amr_tui.screens.finder import FinderResult
    from amr_tui.services.session.state import Change, OpenFile, Session
    from amr_tui.widgets.code_view import CodeView

# Only what the first frame needs is imported above: the session (git, parser, search index),
# dialogs, the finder and TextArea are imported where they are first used, so the screen paints
# before any of that is loaded. Actions that need the session wait for it (check_action).
_BEFORE_SESSION = frozenset({"toggle_side", "toggle_tree", "focus", "quit_app", "help", "command_palette"})


@dataclass(frozen=True, slots=True)
class Place:
    repo: str
    path: str
    line: int


class MainScreen(EditingMixin, HistoryMixin, SyncMixin, Screen[None]):
    BINDINGS = [
        Binding("slash", "find", "Find", id="main.find"),
        Binding("e", "edit_entry", "Edit", id="main.edit"),
        Binding("o", "new_entry('below')", "New below", id="main.new_below"),
        Binding("O", "new_entry('above')", "New above", show=False, id="main.new_above"),
        Binding("d", "delete_entry", "Delete", show=False, id="main.delete"),
        Binding("t", "stamp_added", "Stamp added: today", show=False, id="main.stamp"),
        Binding("m", "move_entry", "Move", show=False, id="main.move"),
        Binding("E", "edit_file", "Edit file", show=False, id="main.edit_file"),
        Binding("ctrl+e", "external_editor", "$EDITOR", show=False, id="main.external"),
        Binding("n", "new_file", "New file", show=False, id="main.new_file"),
        Binding("R", "rename_file", "Rename file", show=False, id="main.rename"),
        Binding("D", "delete_file", "Delete file", show=False, id="main.delete_file"),
        Binding("c", "capture", "Capture", show=False, id="main.capture"),
        Binding("left_square_bracket,alt+left", "back", "Back", show=False, id="main.back"),
        Binding("right_square_bracket,alt+right", "forward", "Forward", show=False, id="main.forward"),
        Binding("M", "memory", "MEMORY.md", show=False, id="main.memory"),
        Binding("r", "toggle_raw", "Raw lines", show=False, id="main.raw"),
        Binding("s", "toggle_side", "Side panel", show=False, id="main.side"),
        Binding("b", "toggle_tree", "File tree", show=False, id="main.tree"),
        Binding("ctrl+r", "reload", "Reload", show=False, id="main.reload"),
        Binding("h", "file_history", "History", id="main.history"),
        Binding("H", "entry_timeline", "Fact history", show=False, id="main.timeline"),
        Binding("F", "forgotten", "Forgotten facts", show=False, id="main.forgotten"),
        Binding("x", "forget_entry", "Forget", show=False, id="main.forget"),
        Binding("U", "commit_foreign", "Commit others' changes", show=False, id="main.commit_foreign"),
        Binding("V", "review_dreams", "Dreams", id="main.dreams"),
        Binding("S", "sync", "Sync", show=False, id="main.sync"),
        Binding("P", "share", "Share for pairing", show=False, id="main.share"),
        Binding("1", "focus('tree')", "Tree", show=False, id="main.focus_tree"),
        Binding("2", "focus('view')", "Entries", show=False, id="main.focus_view"),
        Binding("3", "focus('backlinks')", "Backlinks", show=False, id="main.focus_backlinks"),
        Binding("4", "focus('outgoing')", "Links", show=False, id="main.focus_outgoing"),
    ]

    current: reactive[OpenFile | None] = reactive(None, init=False)
    indexing: reactive[bool] = reactive(True)  # not `loading`: that is Widget.loading (a spinner over the screen)

    class Loaded(Message):
        pass

    class SessionReady(Message):
        pass

    class Indexed(Message):  # searchable; the lint and the repo badges follow (then Loaded)
        pass

    class Progress(Message):
        def __init__(self, done: int, total: int) -> None:
            self.done, self.total = done, total
            super().__init__()

    class Polled(Message):
        def __init__(self, changes: list[Change], *, done: bool = True, badges: bool = False) -> None:
            self.changes, self.done, self.badges = changes, done, badges
            super().__init__()

    class Opened(Message):
        def __init__(self, of: OpenFile, line: int, keep_cursor: bool, record: bool, ticket: int = 0) -> None:
            self.of, self.line, self.keep_cursor, self.record, self.ticket = of, line, keep_cursor, record, ticket
            super().__init__()

    def __init__(self, mounts: list[Mount], poll_interval: float = 1.0) -> None:
        super().__init__()
        self.mounts = mounts
        self.session: Session | None = None  # built by the load worker
        self.poll_interval = poll_interval
        self.history: list[Place] = []
        self.future: list[Place] = []
        self.drafts: dict[tuple[str, str], tuple[object, str]] = {}
        self._polling = False
        self._first_opened = False  # MEMORY.md was asked for (at Indexed, or at Loaded)
        self._open_ticket = 0  # bumped by every open_place; only the latest one's file is shown
        self._wanted: Place | None = None  # the place the latest open_place asked for

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="panes"):
            yield MemoryTree(id="tree")
            with Vertical(id="center"):
                yield Static("", id="file-title")
                yield EntryView(id="view")
                yield Static("", id="file-message", markup=False)
                yield EntryEditor(id="editor")
            yield SidePanel(id="side")
        yield Static("", id="status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#editor", EntryEditor).display = False
        self.query_one("#file-message").display = False
        if getattr(self.app, "today", None):
            self.view.today = self.app.today
        self.set_status("Loading memory…")
        self.call_after_refresh(self._first_frame_painted)  # paint the first frame before the heavy work
        self.set_interval(self.poll_interval, self._tick, name="poll")

    def _first_frame_painted(self) -> None:
        starting = getattr(self.app, "first_frame_painted", None)
        if starting is not None:
            starting()  # before the load worker: it pauses the collector itself and restores what it found
        self.load_session()

    # ------------------------------------------------------------ workers
    @work(thread=True, exclusive=True, group="load")
    def load_session(self) -> None:
        from amr_tui.services.session.state import Session

        try:
            self.session = Session(self.mounts)
        except Exception as exc:  # a session that cannot start is a message, not a crash
            self.app.call_from_thread(self.app.notify, make_visible(f"Could not open the memory: {exc}"),
                                      severity="error", markup=False)
            return
        self.post_message(self.SessionReady())
        self.session.load(progress=lambda d, t: self.post_message(self.Progress(d, t)),
                          indexed=lambda: self.post_message(self.Indexed()))
        self.post_message(self.Loaded())

    def on_main_screen_session_ready(self, _: SessionReady) -> None:
        self.app.session_ready(self.session)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.session is None and action not in _BEFORE_SESSION:
            return None  # shown, greyed out, until the session exists (a fraction of a second)
        return True

    def on_main_screen_progress(self, message: Progress) -> None:
        self.set_status(f"Indexing {message.done}/{message.total} files…")

    def on_main_screen_indexed(self, _: Indexed) -> None:
        self.set_status(f"Search ready: {len(self.session.index)} items. Checking the format…")
        self._open_first()

    def on_main_screen_loaded(self, _: Loaded) -> None:
        self.indexing = False
        self.refresh_tree()
        total = len(self.session.index)
        self.set_status(f"{len(self.session.names)} repo{'s' if len(self.session.names) != 1 else ''} mounted, {total} items indexed.")
        cur = self.current
        if cur is not None:  # opened at Indexed, before the tree had its files
            self.call_after_refresh(self.query_one(MemoryTree).select_file, cur.repo, cur.path)  # once its lines exist
            if cur.doc is not None:  # its lint marks arrived with Loaded
                self.view.set_marks(self.session.marks(cur.repo, cur.path))
                self.refresh_side()
        self._open_first()
        self.check_history()

    def _open_first(self) -> None:
        # Once only: Loaded may arrive while the open asked for at Indexed is still in flight, and a
        # second open would put back the cursor the user has moved meanwhile.
        if self.current is None and not self._first_opened and self.session.names:
            self._first_opened = True
            self.open_place(Place(self.session.names[0], MEMORY_FILE, 0))

    @work(thread=True, exclusive=True, group="history-lint")
    def check_history(self) -> None:
        """AMR030 (resurrected facts) needs the whole history: found in the background, then marked."""
        found = 0
        for name in self.session.names:
            try:
                found += self.session.check_history(name)
            except Exception:  # history is a bonus; a repo git refuses is already reported
                continue
        if found:
            self.post_message(self.Polled([], done=False, badges=True))
            self.app.call_from_thread(self.app.notify, f"{found} entr{'ies' if found != 1 else 'y'} bring back a fact "
                                      "that was deleted on purpose (AMR030).", title="Resurrected facts", severity="warning")
            self.app.call_from_thread(self.action_reload)

    def _tick(self) -> None:
        if not self.indexing and not self._polling:
            self._polling = True
            self.poll()

    @work(thread=True, exclusive=True, group="poll")
    def poll(self) -> None:
        """Re-index what changed (no git), show it, then re-read the badges of repos that changed."""
        badges: list[str] = []
        try:
            changes = self.session.poll()
            if changes:
                self.post_message(self.Polled(changes, done=False))
            badges = self.session.refresh_stale_info()
        except Exception as exc:  # polling must never bring the app down
            self.app.call_from_thread(self.app.notify, make_visible(f"Could not check for changes: {exc}"), severity="warning", markup=False)
            changes = []
        self.post_message(self.Polled([], done=True, badges=bool(badges)))

    def on_main_screen_polled(self, message: Polled) -> None:
        if message.done:
            self._polling = False
        if message.badges:
            self.refresh_tree()
        if not message.changes:
            return
        self.refresh_tree()
        cur = self.current
        for change in message.changes:
            self.app.notify(make_visible(change.describe()), title="Memory changed", markup=False, timeout=4)
            if cur and change.repo == cur.repo and (cur.path in change.changed or cur.path in change.removed or change.head_moved):
                self.open_place(Place(cur.repo, cur.path, self.view.cursor_line), keep_cursor=True, record=False)

    @work(thread=True, group="open")
    def _open_worker(self, place: Place, keep_cursor: bool, record: bool, ticket: int) -> None:
        try:
            of = self.session.open(place.repo, place.path)
        except Exception as exc:  # an unreadable file is a message, not a crash
            self.app.call_from_thread(self._open_failed, ticket, make_visible(f"Cannot open {place.path}: {exc}"))
            return
        self.post_message(self.Opened(of, place.line, keep_cursor, record, ticket))

    def _open_failed(self, ticket: int, text: str) -> None:
        if ticket == self._open_ticket:
            self._wanted = None  # nothing is on its way: a reload reads the file on screen
        self.app.notify(text, severity="error", markup=False)

    # --------------------------------------------------------- navigation
    def _code_view(self, create: bool) -> CodeView | None:
        """The viewer of non-Markdown files, mounted the first time one is opened."""
        found = self.query("#code")
        if found or not create:
            return found.first() if found else None
        from amr_tui.widgets.code_view import CodeView

        code = CodeView(id="code")
        self.query_one("#center").mount(code, after=self.view)
        return code

    @property
    def view(self) -> EntryView:
        return self.query_one("#view", EntryView)

    @property
    def editor(self) -> EntryEditor:
        return self.query_one("#editor", EntryEditor)

    def set_status(self, text: str) -> None:
        self.query_one("#status", Static).update(content(text))

    def open_place(self, place: Place, *, keep_cursor: bool = False, record: bool = True) -> None:
        # Opens run in workers and may finish out of order (a big file after a small one): only
        # the last one asked for is shown, and a reload meanwhile reloads that one.
        self._open_ticket += 1
        self._wanted = place
        self._open_worker(place, keep_cursor, record, self._open_ticket)

    def on_main_screen_opened(self, message: Opened) -> None:
        if message.ticket != self._open_ticket:
            return  # a later open was asked for: it shows its own file
        of = message.of
        prev = self.current
        if message.record and prev is not None and (prev.repo, prev.path) != (of.repo, of.path):
            self.history.append(Place(prev.repo, prev.path, self.view.cursor_line))
            self.future.clear()
        self.current = of
        self.show_file(of, message.line, message.keep_cursor)

    def show_file(self, of: OpenFile, line: int, keep_cursor: bool) -> None:
        title = f"{of.repo} / {of.path}"
        if of.read_only:
            title += f"   (read-only: {of.read_only})"
        self.query_one("#file-title", Static).update(content(title))
        self.sub_title = make_visible(f"{of.repo}/{of.path}")
        view, msg = self.view, self.query_one("#file-message", Static)
        markdown = of.doc is not None and of.path.lower().endswith((".md", ".markdown"))
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
            view.set_document(of.doc, self.session.link_states(of.repo, of.doc), self.session.marks(of.repo, of.path),
                              keep_cursor=keep_cursor)
            if line and not keep_cursor:
                view.go_to_line(line)
            if not self.editor.display:
                view.focus()
            self.refresh_side()
        else:
            code.show_bytes(of.data, of.path, line)
            code.focus()
            self.query_one(SidePanel).show_links(self.session.backlinks(of.repo, of.path), [])
        if not keep_cursor:  # a reload (an agent's commit, ctrl+r) leaves the tree's cursor where the user put it
            self.query_one(MemoryTree).select_file(of.repo, of.path)

    def refresh_side(self) -> None:
        of = self.current
        if of is None or of.doc is None:
            return
        view = self.view
        line = view.cursor_line
        text = of.doc.lines[line - 1].text if 1 <= line <= len(of.doc.lines) else ""
        diags = [d for d in self.session.diagnostics(of.repo, of.path) if d.line == line]
        side = self.query_one(SidePanel)
        side.show_entry(view.entry, text, diags)
        side.show_links(self.session.backlinks(of.repo, of.path), self.session.outgoing(of.repo, of.doc))

    def on_entry_view_cursor_moved(self, message: EntryView.CursorMoved) -> None:
        of = self.current
        if of is None or of.doc is None:
            return
        line = message.line
        text = of.doc.lines[line - 1].text if 1 <= line <= len(of.doc.lines) else ""
        diags = [d for d in self.session.diagnostics(of.repo, of.path) if d.line == line]
        self.query_one(SidePanel).show_entry(message.entry, text, diags)

    def refresh_tree(self) -> None:
        tree = self.query_one(MemoryTree)
        for name in self.session.names:
            info = self.session.info(name)
            problems = {}
            for path in self.session.files(name):
                diags = self.session.diagnostics(name, path)
                errors = sum(1 for d in diags if d.severity.value == "error")
                if errors:
                    problems[path] = f"\u25cf{errors}"
            tree.set_repo(info, self.session.files(name), problems)

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        data = event.node.data
        if isinstance(data, FileRef) and data.path and not data.path.endswith("/"):
            cur = self.current
            if cur is None or (cur.repo, cur.path) != (data.repo, data.path):
                self.leave_file(lambda: self.open_place(Place(data.repo, data.path, 0)))

    def on_entry_view_link_activated(self, message: EntryView.LinkActivated) -> None:
        self.follow_link(message.link)

    def follow_link(self, link) -> None:
        of = self.current
        if of is None:
            return
        state, path, suggestion = self.session.resolve_link(of.repo, link)
        if state is LinkState.OK and path:
            self.leave_file(lambda: self.open_place(Place(of.repo, path, 0)))
        elif state is LinkState.ESCAPES:
            self.app.notify(make_visible(f"[[{link.target}]] leaves the memory root; amr never opens it."), severity="error", markup=False)
        elif state is LinkState.EMPTY:
            self.app.notify("Empty link.", severity="warning")
        else:
            hint = f" Did you mean [[{suggestion}]]?" if suggestion else ""
            target = link.target if link.target.lower().endswith(".md") or "." in link.target.rsplit("/", 1)[-1] else link.target + ".md"

            def create(yes: bool | None) -> None:
                if yes:
                    self.create_file_at(of.repo, target)

            if of.read_only or self.session.mount(of.repo).read_only:
                self.app.notify(make_visible(f"[[{link.target}]] names no file.{hint}"), severity="warning", markup=False)
                return
            from amr_tui.screens.dialogs import ConfirmScreen

            self.app.push_screen(ConfirmScreen("Missing file", make_visible(f"[[{link.target}]] names no file in {of.repo}.{hint}") +
                                               "\n\n" + make_visible(f"Create {target}?"), "Create"), create)

    def on_entry_view_source_activated(self, message: EntryView.SourceActivated) -> None:
        url = message.url.replace("%3B", ";").replace("%5B", "[").replace("%5D", "]")
        if not url.lower().startswith(("http://", "https://")):
            self.app.notify(make_visible(f"Not a web link, not opened: {url}"), severity="warning", markup=False)
            return

        def go(yes: bool | None) -> None:
            if yes:
                import webbrowser

                self.app.notify("Opening in your browser…")
                self.run_worker(lambda: webbrowser.open(url), thread=True, group="browser")

        from amr_tui.screens.dialogs import ConfirmScreen

        self.app.push_screen(ConfirmScreen("Open source?", f"Open this link in your web browser?\n\n{make_visible(url)}", "Open"), go)

    def on_side_panel_open(self, message: SidePanel.Open) -> None:
        of = self.current
        if of is None:
            return
        target = message.target
        if target.link is not None:
            self.follow_link(target.link)
        elif target.path:
            self.leave_file(lambda: self.open_place(Place(of.repo, target.path, target.line)))

    def action_find(self) -> None:
        def chosen(result: FinderResult | None) -> None:
            if result is not None:
                self.leave_file(lambda: self.open_place(Place(result.repo, result.path, result.line)))

        from amr_tui.screens.finder import FinderScreen

        self.app.push_screen(FinderScreen(self.session.search_session()), chosen)

    def action_back(self) -> None:
        if not self.history or self.current is None:
            self.app.bell()
            return
        place = self.history.pop()
        self.future.append(Place(self.current.repo, self.current.path, self.view.cursor_line))
        self.leave_file(lambda: self.open_place(place, record=False))

    def action_forward(self) -> None:
        if not self.future or self.current is None:
            self.app.bell()
            return
        place = self.future.pop()
        self.history.append(Place(self.current.repo, self.current.path, self.view.cursor_line))
        self.leave_file(lambda: self.open_place(place, record=False))

    def action_memory(self) -> None:
        repo = self.current.repo if self.current else (self.session.names[0] if self.session.names else None)
        if repo:
            self.leave_file(lambda: self.open_place(Place(repo, MEMORY_FILE, 0)))

    def action_toggle_raw(self) -> None:
        self.view.raw = not self.view.raw
        self.app.notify("Showing lines as written" if self.view.raw else "Showing entries with metadata chips")

    side_hidden: reactive[bool | None] = reactive(None)  # None: decided by the terminal width

    def on_resize(self, event) -> None:
        if self.side_hidden is None:
            self.set_class(event.size.width < 110, "-no-side")

    def action_toggle_side(self) -> None:
        hidden = not self.has_class("-no-side")
        self.side_hidden = hidden
        self.set_class(hidden, "-no-side")

    def action_toggle_tree(self) -> None:
        self.toggle_class("-no-tree")

    def action_reload(self) -> None:
        cur, wanted = self.current, self._wanted
        if wanted is not None and cur is not None and (wanted.repo, wanted.path) != (cur.repo, cur.path):
            self.open_place(wanted, record=False)  # still opening: read that file again instead
        elif cur is not None:
            self.open_place(Place(cur.repo, cur.path, self.view.cursor_line), keep_cursor=True, record=False)

    def action_focus(self, which: str) -> None:
        target = {"tree": "#tree", "view": "#view", "backlinks": "#backlinks", "outgoing": "#outgoing"}[which]
        widget = self.query_one(target)
        if widget.display:
            widget.focus()

    def link_for(self, path: str) -> str:
        return f"[[{link_text_for(path)}]]"
