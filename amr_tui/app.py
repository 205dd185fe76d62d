"""The amr Textual app. ``make_app()`` is shared by the command line and the tests."""

from __future__ import annotations

import datetime as _dt
import gc
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.notifications import SeverityLevel

from amr_tui.core.textsafety import make_visible
from amr_tui.screens.main.screen import MainScreen, Place
from amr_tui.services.config import Config, config_path, load_config, save_settings
from amr_tui.services.workspace import Mount, discover, looks_like_memory_root, set_formats
from amr_tui.widgets.entry_view import EntryView
from amr_tui.widgets.safe import notify_text

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.command import Provider
    from textual.screen import Screen

    from amr_tui.screens.finder import FinderResult
    from amr_tui.screens.main.peek import Lookahead
    from amr_tui.services.history.forgotten import Forgotten
    from amr_tui.services.history.provenance import HistoryService
    from amr_tui.services.session.state import OpenFile, Session
    from amr_tui.services.sync.run import SyncProgress, SyncResult

# Other screens, providers and services are imported where first used: the first frame only
# needs the main screen's widgets, and every module kept off that path is start-up time saved
# (tests/test_startup_path.py).

#: The app's actions bound on the main screen ("app.sync", ...): they wait for its session.
_AFTER_SESSION = frozenset(
    {"sync", "share", "file_history", "entry_timeline", "forgotten", "forget_entry", "review_dreams", "activity"}
)


def _memory_provider() -> type[Provider]:
    from amr_tui.screens.palette import MemoryProvider

    return MemoryProvider


def _actions_provider() -> type[Provider]:
    from amr_tui.screens.palette import ActionsProvider

    return ActionsProvider


@dataclass
class SyncProgressed(Message):
    """A sync running in the background has got a step further."""

    text: str
    """The step, prefixed with the repo's name."""


@dataclass
class Synced(Message):
    """A sync is over (or a stopped sync was resolved)."""

    repo: str
    """The repo that was synced."""
    result: SyncResult | None
    """What the sync did; None when it raised (``error``)."""
    error: Exception | None
    """What went wrong that the sync could not report itself, or None."""


@dataclass
class Forgot(Message):
    """Forgetting an entry is done."""

    repo: str
    """The repo the entry was forgotten in."""
    done: Forgotten | None
    """What was forgotten and the commit that removed it; None when it failed."""
    error: Exception | None
    """Why the entry was not forgotten, or None."""


def styles_dir() -> Path:
    """The TCSS folder: inside the installed package, or the source tree's top-level styles/."""
    packaged = Path(__file__).resolve().parent / "styles"  # not importlib.resources: 5 ms of start-up
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "styles"


@runtime_checkable
class HoldsUnsavedText(Protocol):
    """A screen with an editor: lists what it holds that is not saved (empty when nothing is)."""

    def unsaved_edits(self) -> list[str]: ...


class AmrApp(App[int]):
    TITLE = "amr"
    SUB_TITLE = "Agent Memory Repos"
    CSS_PATH = [str(styles_dir() / "app.tcss")]
    COMMANDS = App.COMMANDS | {_memory_provider, _actions_provider}
    BINDINGS = [
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("ctrl+p", "command_palette", "Palette", id="app.palette"),
        Binding("q", "quit_app", "Quit", id="app.quit"),
    ]

    def __init__(
        self,
        mounts: list[Mount],
        config: Config | None = None,
        *,
        poll_interval: float = 1.0,
        problems: list[str] | None = None,
        today: _dt.date | None = None,
        open_at: tuple[str, str, int] | None = None,
    ) -> None:
        super().__init__()
        self.open_at = open_at  # (repo, path, line) the main screen opens first, instead of MEMORY.md
        self.today = today  # fixed in tests and screenshots so ages like "2mo" do not drift
        self.mounts = mounts
        self.config = config or Config()
        self.poll_interval = poll_interval
        self.problems = problems or []
        self.session: Session | None = None
        self._quit_question: Screen[bool] | None = None  # the "Quit and discard…?" dialog while it is open
        self.gc_paused = False  # set by `amr` (cli/app_cmd.py) when it paused the collector for start-up
        self.load_hold: threading.Event | None = None  # tests: the main screen's load waits on it after the first frame
        self.lookahead: Lookahead | None = None  # the first look at the mounts, read while Textual starts
        if mounts:
            # Imported here: the parser it loads is not needed by the welcome screen.
            from amr_tui.screens.main.peek import Lookahead as _Lookahead

            self.lookahead = _Lookahead(mounts, open_at)
        self._settings_lock = threading.Lock()  # guards _unsaved_settings
        self._settings_write_lock = threading.Lock()  # one config write at a time
        self._unsaved_settings: dict[str, str | int] = {}
        self._frame_written = False  # see after_first_frame
        self._after_frame: list[Callable[[], object]] = []
        self._session_started = False  # the first main screen is made (see get_default_screen)

    def after_first_frame(self, callback: Callable[[], object]) -> bool:
        """Call ``callback`` once the first frame is written to the terminal; False (and no call)
        when it was written already or nothing is (headless): then the caller goes on itself."""
        if self._frame_written or self.is_headless:
            return False
        self._after_frame.append(callback)
        return True

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        # Textual writes each frame here (pinned Textual); the first written one releases what waits on it.
        super()._display(screen, renderable)
        written = renderable is not None and self._running and not self._batch_count and self._driver is not None
        if written and not self._frame_written:
            self._frame_written = True
            waiting, self._after_frame = self._after_frame, []
            for callback in waiting:
                self.call_next(callback)

    def first_frame_painted(self) -> None:
        """Start-up is over: keep what it made out of every later collection, and collect again."""
        if self.gc_paused:
            self.gc_paused = False
            gc.freeze()
            gc.enable()

    async def on_event(self, event: events.Event) -> None:
        # A key read while the entry view has the focus runs its binding now. Textual forwards
        # the key to the view, which takes no keys itself: the binding runs only once the key has
        # bubbled back up, by which time the keys after it in the same read were forwarded to the
        # view too: "1 Down Down Down" moved the view's cursor, not the tree's it had focused.
        if (
            isinstance(event, events.Key)
            and not event.is_forwarded
            and event.key != "escape"  # the screen's own handler comes before the bindings
            and isinstance(self.focused, EntryView)
            and (await self._check_bindings(event.key, priority=True) or await self._check_bindings(event.key))
        ):
            return
        await super().on_event(event)

    def get_default_screen(self) -> Screen[Any]:
        # The main screen is the app's first screen when repos are mounted, composed with the app
        # itself. Pushed from on_mount instead, Textual's start-up batch waits for its whole mount,
        # and the frame the screen renders meanwhile is dropped and rendered again.
        if self.mounts and not self._session_started:
            self._session_started = True
            return self._main_screen_for(self.mounts)
        return super().get_default_screen()

    def on_mount(self) -> None:
        if self.config.theme and self.config.theme in self.available_themes:
            self.theme = self.config.theme
        self.theme_changed_signal.subscribe(self, self._theme_picked)
        if self.config.keys:
            self.set_keymap(self.config.keys)
        for problem in self.problems:
            notify_text(self, problem, severity="warning", timeout=8)
        if not self.mounts:
            # Imported here: the welcome screen is for when nothing is mounted.
            from amr_tui.screens.welcome import WelcomeScreen

            self.push_screen(WelcomeScreen(str(config_path())), self._welcome_done)
            self.call_after_refresh(self.first_frame_painted)

    # ------------------------------------------------------------ settings kept in the config
    def _theme_picked(self, theme: object) -> None:
        name = getattr(theme, "name", None)
        if isinstance(name, str) and name != self.config.theme:
            self.config.theme = name
            self.save_setting(theme=name)

    def save_setting(self, **values: str | int) -> None:
        """Keep a setting (a theme picked, the tree's width) in the config file, off the UI thread;
        only the latest value of each is written, the file's other keys kept as they are."""
        with self._settings_lock:
            self._unsaved_settings.update(values)
        self._save_settings()

    @work(thread=True, group="config-save")
    def _save_settings(self) -> None:
        with self._settings_write_lock:
            with self._settings_lock:
                values, self._unsaved_settings = self._unsaved_settings, {}
            if not values or self.config.path is None:
                return
            error = save_settings(self.config.path, **values)
        if error:
            self.call_from_thread(notify_text, self, error, title="Settings not saved", severity="warning")

    def start_session(self, mounts: list[Mount]) -> None:
        """Show the main screen now; it builds the session (git, index) in its load worker."""
        self._session_started = True
        self.push_screen(self._main_screen_for(mounts))

    def _main_screen_for(self, mounts: list[Mount]) -> MainScreen:
        self.session = None
        first, self.open_at = self.open_at, None  # the command line's file: at start only
        return MainScreen(mounts, self.poll_interval, first=first)

    def session_ready(self, session: Session | None) -> None:
        """Called by the main screen once its session exists (before indexing is finished)."""
        self.session = session

    def _welcome_done(self, choice: str | None) -> None:
        if choice is not None and choice.startswith("open\0"):
            self.start_session(discover([Path(p) for p in choice.split("\0")[1:]]))
            return
        if choice == "init":
            # Imported here: only the welcome screen needs the dialogs.
            from amr_tui.screens.dialogs import PromptScreen

            self.push_screen(
                PromptScreen(
                    "Create a memory repo at",
                    value=str(Path.cwd()),
                    help_text="The current folder (empty, or a git repo of notes, which is adopted), or another "
                    "one, such as ~/agent-memory. git init, MEMORY.md with an ## Index, one commit (as the "
                    "agent skill does). You see what will be written before anything is.",
                ),
                self._init_asked,
            )
            return
        if choice != "demo":
            self.exit(0)
            return
        # Imported here: the demo is built only when the welcome screen asks for it.
        import tempfile

        from amr_tui.services.demo import build_demo

        dest = Path(tempfile.mkdtemp(prefix="amr-demo-"))
        repos = build_demo(dest)
        self.start_session(discover(repos))

    def _init_asked(self, value: str | None) -> None:
        """The folder typed: say exactly what will be written there, and write it only on yes."""
        from amr_tui.screens.dialogs import ConfirmScreen
        from amr_tui.screens.welcome import WelcomeScreen
        from amr_tui.services.init import InitError, preview_init

        if not value:
            self.push_screen(WelcomeScreen(str(config_path())), self._welcome_done)
            return
        try:
            shown = preview_init(Path(value).expanduser(), merge_driver=self.config.merge_driver)
        except InitError as exc:
            notify_text(self, str(exc), title="Not created", severity="error", timeout=10)
            self.push_screen(WelcomeScreen(str(config_path())), self._welcome_done)
            return

        def answer(yes: bool | None) -> None:
            self._init_done(value if yes else None)

        self.push_screen(ConfirmScreen("Create this memory repo?", shown, "Create", "Cancel"), answer)

    def _init_done(self, value: str | None, identity: tuple[str, str] | None = None) -> None:
        # Imported here: only the welcome screen creates a memory repo.
        from amr_tui.screens.welcome import WelcomeScreen
        from amr_tui.services.init import InitError, InitNoIdentityError, init_memory_repo

        if not value:
            self.push_screen(WelcomeScreen(str(config_path())), self._welcome_done)
            return
        try:
            root = init_memory_repo(Path(value).expanduser(), identity=identity, merge_driver=self.config.merge_driver)
        except InitNoIdentityError as exc:
            if identity is None:  # as the main screen does: ask, and keep it in this repo only
                self._ask_init_identity(value, exc.where)
                return
            notify_text(self, str(exc), title="Not created", severity="error", timeout=10)
            self.push_screen(WelcomeScreen(str(config_path())), self._welcome_done)
            return
        except InitError as exc:
            notify_text(self, str(exc), title="Not created", severity="error", timeout=10)
            self.push_screen(WelcomeScreen(str(config_path())), self._welcome_done)
            return
        self.start_session(discover([root.path]))

    def _ask_init_identity(self, value: str, where: str) -> None:
        """No git identity: ask for one for the new repo only (its own config, never the global one)."""
        from amr_tui.screens.dialogs import PromptScreen

        def got(answer: str | None) -> None:
            if answer and "<" in answer:
                name, email = answer.split("<", 1)
                self._init_done(value, (name.strip(), email.strip(" >")))
                return
            if answer:
                notify_text(self, "Write it as: Name <email>", severity="warning")
            self._init_done(None)

        self.push_screen(
            PromptScreen(
                f"Git needs a name and email to commit in {make_visible(where)}",
                placeholder="Your Name <you@example.com>",
                help_text="Saved in this repo's own config (never your global config).",
            ),
            got,
        )

    def action_help(self) -> None:
        # Imported here: the help screen is not needed for the first frame.
        from amr_tui.screens.help import HelpScreen, collect_bindings

        if isinstance(self.screen, HelpScreen):
            return
        from amr_tui.core.search.query import SYNTAX

        groups = collect_bindings(self, self.screen)
        groups.append(("Find (/): what to type", list(SYNTAX)))
        self.push_screen(HelpScreen(groups))

    # ------------------------------------------------------------ quitting
    # Every way out comes here: ``q`` (quit_app), Textual's own ctrl+q binding and the palette's
    # "Quit" (both run App.action_quit, overridden below). Unsaved text is never dropped without asking.
    def unsaved_edits(self) -> list[str]:
        """What the screens on the stack hold that is not saved, one description per edit."""
        found: list[str] = []
        for screen in self.screen_stack:  # the screens under a dialog count too
            if isinstance(screen, HoldsUnsavedText):
                found += screen.unsaved_edits()
        return found

    def request_quit(self) -> None:
        """Quit now, or ask first when some screen holds unsaved text."""
        edits = self.unsaved_edits()
        if not edits:
            self.exit(0)
            return
        # Imported here: the dialogs are not needed for the first frame.
        from amr_tui.screens.dialogs import ConfirmScreen

        if self._quit_question is not None and self._quit_question in self.screen_stack:
            return  # already asking (ctrl+q pressed again)
        n = len(edits)
        listing = "\n".join(make_visible(f"\u2022 {e}") for e in edits[:8])
        if n > 8:
            listing += f"\n\u2026 and {n - 8} more"

        def answer(discard: bool | None) -> None:
            self._quit_question = None
            if discard:
                self.exit(0)

        self._quit_question = ConfirmScreen(
            f"Quit and discard {n} unsaved edit{'s' if n != 1 else ''}?",
            f"{listing}\n\nKeep editing goes back with the text as it is.",
            "Discard",
            "Keep editing",
        )
        self.push_screen(self._quit_question, answer)

    def action_quit_app(self) -> None:
        self.request_quit()

    async def action_quit(self) -> None:
        """Textual binds ctrl+q (a priority binding) and the palette's Quit to this: ask first too."""
        self.request_quit()

    def open_result(self, result: FinderResult) -> None:
        screen = self.screen
        if isinstance(screen, MainScreen):
            screen.leave_file(lambda: screen.open_place(Place(result.repo, result.path, result.line)))

    # ------------------------------------------------- sync, history, dreams
    # The app's actions, bound to keys on the main screen: each acts on the repo of the file the
    # main screen shows, pushes its own screen, and tells the main screen to read what changed.
    def _main(self) -> MainScreen | None:
        return next((s for s in reversed(self.screen_stack) if isinstance(s, MainScreen)), None)

    def _main_session(self) -> tuple[MainScreen, Session] | None:
        main = self._main()
        if main is None or main.session is None:
            return None
        return main, main.session

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _AFTER_SESSION and self._main_session() is None:
            return None  # shown, greyed out, until the main screen's session exists
        return True

    def _repo_shown(self, main: MainScreen, session: Session) -> str | None:
        """The repo of the file the main screen shows, else the first one mounted."""
        current = main.current
        return current.repo if current else (session.names[0] if session.names else None)

    def _after_change(self, changed: bool | None) -> None:
        """A pushed screen is done: when it changed the repo, the main screen reads it again."""
        main = self._main()
        if changed and main is not None:
            main.action_reload()
            main.refresh_tree()

    def action_sync(self) -> None:
        found = self._main_session()
        if found is None:
            return
        main, session = found
        repo = self._repo_shown(main, session)
        if repo is None or session.git(repo) is None:
            notify_text(self, "Sync needs a git repo.", severity="warning")
            return
        if session.mount(repo).read_only:
            notify_text(self, f"{repo} is read-only: no sync.", severity="error")
            return
        main.set_status(make_visible(f"Syncing {repo}…"))
        self._sync_worker(session, repo)

    @work(thread=True, exclusive=True, group="sync")
    def _sync_worker(self, session: Session, repo: str) -> None:
        # Imported in the worker: sync brings git.
        from amr_tui.services.sync.run import sync

        root = session.mount(repo).root

        def progress(step: SyncProgress) -> None:
            self.post_message(SyncProgressed(f"{repo}: {step.message}"))

        try:
            result = sync(root, progress=progress, merge_driver=self.config.merge_driver)
        except Exception as exc:  # sync reports its own failures; this is for the unexpected
            self.post_message(Synced(repo, None, exc))
            return
        self.post_message(Synced(repo, result, None))

    def on_sync_progressed(self, message: SyncProgressed) -> None:
        main = self._main()
        if main is not None:
            main.set_status(make_visible(message.text))

    def on_synced(self, message: Synced) -> None:
        result = message.result
        if message.error is not None or result is None:
            notify_text(self, str(message.error), title="Sync failed", severity="error")
            return
        found = self._main_session()
        if found is not None:
            found[0].set_status(make_visible(f"{message.repo}: {result.message}"))
        severity: SeverityLevel = (
            "information" if result.ok else "warning" if result.status in ("offline", "conflict") else "error"
        )
        notify_text(self, result.message, title=f"Sync: {result.status}", severity=severity)
        for path, fact in result.resurrected:
            notify_text(
                self,
                f"{path}: brings back a deleted fact: {fact}",
                title="Resurrected fact",
                severity="warning",
                timeout=10,
            )
        if found is not None:
            main, session = found
            session.poll()
            session.refresh_info(message.repo)  # ahead/behind and last sync changed
            main.refresh_tree()
            main.action_reload()
        if result.pending is not None:
            # Imported here: the sync conflict view is needed only when a sync stops on a conflict.
            from amr_tui.screens.sync_conflict import SyncConflictScreen

            repo = message.repo

            def resolved(res: object) -> None:
                self._after_resolve(repo, res)

            self.push_screen(SyncConflictScreen(result.pending, repo), resolved)

    def _after_resolve(self, repo: str, result: object) -> None:
        if result is None:
            notify_text(
                self, "Conflicts left for later: the repo is unchanged; sync again to resolve.", severity="warning"
            )
            return
        self.post_message(
            Synced(repo, cast("SyncResult", result), None)
        )  # the conflict view gives back resolve()'s result

    def action_share(self) -> None:
        found = self._main_session()
        if found is None:
            return
        # Imported here: the share screen is not needed for the first frame.
        import tempfile

        from amr_tui.screens.share import ShareScreen

        self.push_screen(ShareScreen(found[1], tempfile.mkdtemp(prefix="amr-share-")))

    def _history_service(self) -> tuple[OpenFile, HistoryService] | None:
        """The file the main screen shows and its repo's history, or None (and says why)."""
        found = self._main_session()
        if found is None:
            return None
        main, session = found
        of = main.current
        if of is None:
            return None
        if session.git(of.repo) is None:
            notify_text(self, "History needs a git repo.", severity="warning")
            return None
        try:
            return of, session.history(of.repo)
        except Exception as exc:  # a repo git refuses: say so
            notify_text(self, str(exc), title="History", severity="error")
            return None

    def action_file_history(self) -> None:
        found = self._history_service()
        if found is None:
            return
        of, service = found
        # Imported here: the history screens are not needed for the first frame.
        from amr_tui.screens.history import FileHistoryScreen

        self.push_screen(FileHistoryScreen(service, of.repo, of.path))

    def action_entry_timeline(self) -> None:
        found, main = self._history_service(), self._main()
        if found is None or main is None or found[0].doc is None:
            return
        of, service = found
        assert of.doc is not None
        entry = of.doc.entry_at(main.view.cursor_line)
        if entry is None:
            notify_text(self, "Put the cursor on an entry to see its history.", severity="warning")
            return
        # Imported here: the history screens are not needed for the first frame.
        from amr_tui.screens.history import TimelineScreen

        self.push_screen(TimelineScreen(service, of.repo, of.path, entry.line, entry.text))

    def action_forgotten(self) -> None:
        found, main = self._history_service(), self._main_session()
        if found is None or main is None:
            return
        of, service = found
        # Imported here: the forgotten facts' screen is not needed for the first frame.
        from amr_tui.screens.forgotten import ForgottenScreen

        session = main[1]
        screen = ForgottenScreen(service, of.repo, session.mount(of.repo).read_only)

        def done(changed: bool | None) -> None:
            for oid in screen.written:
                session.note_written(of.repo, oid)  # z undoes a restore as any other write
            self._after_change(changed)

        self.push_screen(screen, done)

    def action_forget_entry(self) -> None:
        main = self._main()
        if main is None:
            return
        writable = main.edits().writable_entry()
        if writable is None:
            return
        of, entry = writable
        found = self._history_service()
        if found is None:
            return
        service = found[1]
        # Imported here: the dialogs are not needed for the first frame.
        from amr_tui.screens.dialogs import ChoiceScreen, PromptScreen

        def with_mode(mode: str | None) -> None:
            if mode is None:
                return

            def with_reason(reason: str | None) -> None:
                if reason is None:
                    return
                raw = of.doc.lines[entry.line - 1].text if of.doc is not None else None
                self._forget(service, of.repo, of.path, entry.line, raw, reason.strip() or None, mode == "redact")

            self.push_screen(
                PromptScreen("Why forget it? (optional)", placeholder="e.g. the user asked; out of date"), with_reason
            )

        self.push_screen(
            ChoiceScreen(
                f"Forget: {entry.text[:70]}",
                [
                    ("keep", "Forget it and record a tombstone (agents will not bring it back)"),
                    ("redact", "Forget and redact: the tombstone keeps only a digest of the text"),
                ],
            ),
            with_mode,
        )

    @work(thread=True, group="forget")
    def _forget(
        self,
        service: HistoryService,
        repo: str,
        path: str,
        line: int,
        raw: str | None,
        reason: str | None,
        redact: bool,
    ) -> None:
        try:
            self.post_message(Forgot(repo, service.forget(path, line, raw=raw, reason=reason, redact=redact), None))
        except Exception as exc:
            self.post_message(Forgot(repo, None, exc))

    def on_forgot(self, message: Forgot) -> None:
        from amr_tui.core.format.edit import summarise
        from amr_tui.services.history.forgotten import SECRET_IN_HISTORY

        done = message.done
        if message.error is not None or done is None:
            notify_text(self, str(message.error), title="Not forgotten", severity="error")
            return
        what = "an entry (redacted)" if done.secret else f'"{summarise(done.text)}"'
        text = f"Forgot {what} from {done.path}, with a tombstone ({done.oid[:8]})."
        if done.secret:
            text += " " + SECRET_IN_HISTORY
        notify_text(self, text, title="Committed", timeout=12 if done.secret else 5)
        found = self._main_session()
        if found is not None:
            found[1].note_written(message.repo, done.oid)  # z undoes it
        self._after_change(True)

    def action_review_dreams(self) -> None:
        found = self._main_session()
        if found is None:
            return
        session = found[1]
        repos = [r for r in session.names if session.git(r) is not None]
        if not repos:
            notify_text(self, "No git repo mounted.", severity="warning")
            return
        # Imported here: the dream review is not needed for the first frame.
        from amr_tui.screens.review.screen import DreamListScreen

        self.push_screen(DreamListScreen(session, repos, poll_interval=self.poll_interval), self._after_change)

    def action_activity(self) -> None:
        """Review what others committed to the shown repo since the user last reviewed it."""
        found = self._main_session()
        if found is None:
            return
        main, session = found
        repo = self._repo_shown(main, session)
        if repo is None or session.git(repo) is None:
            notify_text(self, "The activity review needs a git repo.", severity="warning")
            return
        from amr_tui.screens.activity import ActivityScreen  # not needed for the first frame

        def done(changed: bool | None) -> None:
            self._after_change(changed)
            main.count_unreviewed()  # the mark may have moved: the tree's count follows

        self.push_screen(ActivityScreen(session.activity(repo), repo, session.mount(repo).read_only), done)


def make_app(
    paths: list[Path] | None = None,
    *,
    read_only: set[str] | None = None,
    config: Config | None = None,
    poll_interval: float = 1.0,
    today: _dt.date | None = None,
    open_at: tuple[Path, int] | None = None,
) -> AmrApp:
    """Build the app for these paths, else the current folder if it is a memory repo, else the config's repos.

    ``open_at``: a file of a mounted repo and a line (0: the top) to open first, not MEMORY.md."""
    cfg = config if config is not None else load_config()
    set_formats(cfg.formats)
    problems: list[str] = []
    if cfg.error:
        problems.append(f"Config not read: {cfg.error}")
    ro = set(read_only or set()) | cfg.read_only
    candidates = list(paths or [])
    if not candidates:
        cwd = Path.cwd()
        if looks_like_memory_root(cwd):
            candidates = [cwd]
        else:
            candidates = [p for p in cfg.repos if p.exists()]
            problems += [f"Config names a repo that is not there: {p}" for p in cfg.repos if not p.exists()]
    mounts: list[Mount] = []
    for path in candidates:
        try:
            mounts.extend(discover([path], ro))
        except FileNotFoundError as exc:
            problems.append(str(exc))
    first: tuple[str, str, int] | None = None
    if open_at is not None:
        target = open_at[0].expanduser().resolve()
        mount = next((m for m in mounts if target.is_relative_to(m.root.resolve())), None)
        if mount is None:
            problems.append(f"{open_at[0]} is not in a mounted repo; not opened")
        else:
            first = (mount.name, target.relative_to(mount.root.resolve()).as_posix(), open_at[1])
    return AmrApp(mounts, cfg, poll_interval=poll_interval, problems=problems, today=today, open_at=first)
