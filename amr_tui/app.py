"""The amr Textual app. ``make_app()`` is shared by the command line and the tests."""

from __future__ import annotations

import datetime as _dt
import gc
import importlib
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, overload, runtime_checkable

from textual import events, work
from textual.app import App

from amr_tui.core.textsafety import make_visible
from amr_tui.screens.main.screen import MainScreen, Place
from amr_tui.services.config import Config, load_config, save_settings
from amr_tui.services.workspace import Mount, opening, set_formats
from amr_tui.widgets.actions import all_actions, bindings
from amr_tui.widgets.entry_view import EntryView
from amr_tui.widgets.focus_return import FocusReturn, taken_soon
from amr_tui.widgets.safe import notify_text
from amr_tui.widgets.textual_private import FrameWatchingApp, run_binding_now
from amr_tui.widgets.type_ahead import esc_and_key, type_ahead

if TYPE_CHECKING:
    from textual.command import Provider
    from textual.screen import Screen

    from amr_tui.screens.finder import FinderResult
    from amr_tui.screens.main.peek import Lookahead
    from amr_tui.services.session.session import Session

Answer = TypeVar("Answer")

# Other screens, providers and services are imported where first used: the first frame only
# needs the main screen's widgets, and every module kept off that path is start-up time saved
# (tests/test_startup_path.py).

#: The app's actions bound on the main screen ("app.sync", ...) that wait for its session.
_AFTER_SESSION = frozenset(a.action.removeprefix("app.") for a in all_actions() if a.needs_session)


def _memory_provider() -> type[Provider]:
    from amr_tui.screens.palette import MemoryProvider  # palette: not on the first frame's path

    return MemoryProvider


def _actions_provider() -> type[Provider]:
    from amr_tui.screens.palette import ActionsProvider  # palette: not on the first frame's path

    return ActionsProvider


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


class AmrApp(FrameWatchingApp[int]):
    TITLE = "amr"
    SUB_TITLE = "Agent Memory Repos"
    CSS_PATH = [str(styles_dir() / "app.tcss")]  # the main screen's layout (and what all screens share)
    LATER_CSS_PATH = [str(styles_dir() / "screens.tcss")]  # the other screens': not parsed for the first frame
    COMMANDS = App.COMMANDS | {_memory_provider, _actions_provider}
    BINDINGS = bindings("app")
    DEFAULT_CSS = """
    /* The look of what every screen shares: side titles, dialogs, the modal screens. */
    .side-title {
        background: $panel;
        color: $text-muted;
        text-style: bold;
    }
    ModalScreen {
        background: $background 60%;
        &:ansi {
            background: $background 60%;  /* as in any theme (Textual's own is transparent) */
        }
    }
    /* Over a dialog, notifications come in at the top: at the bottom right they covered its buttons. */
    ModalScreen ToastRack {
        dock: top;
        align: right top;
        margin-bottom: 0;
    }
    .dialog-box {
        background: $surface;
        border: thick $primary;
    }
    .editing-box {  /* a whole file to edit: the conflict view, the file editor */
        background: $surface;
        border: thick $warning;
    }
    .dialog-title {
        text-style: bold;
    }
    .dialog-help {
        color: $text-muted;
    }
    .dialog-buttons Button {
        margin-left: 1;
    }
    """

    def __init__(
        self,
        mounts: list[Mount],
        config: Config | None = None,
        *,
        poll_interval: float = 1.0,
        problems: list[str] | None = None,
        today: _dt.date | None = None,
        open_at: tuple[str, str, int] | None = None,
        create_at: Path | None = None,
    ) -> None:
        super().__init__()
        self.create_at = create_at  # a folder named that holds no memory: the welcome screen offers it
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
        self._session_started = False  # the first main screen is made (see get_default_screen)
        self.focus_return: FocusReturn | None = None  # the focus given back after each dialog (on_mount)

    def first_frame_painted(self) -> None:
        """Start-up is over: keep what it made out of every later collection, and collect again."""
        if self.gc_paused:
            self.gc_paused = False
            gc.freeze()
            gc.enable()

    async def on_event(self, event: events.Event) -> None:
        # Every key and paste goes through the type-ahead line (widgets/type_ahead.py): handed
        # on in the order typed, each once the one before it is done with and nothing it started
        # is still on its way.
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            if not self.screen_stack:
                return  # the app is closing: a key typed ahead has nothing left to go to
            split = esc_and_key(event) if isinstance(event, events.Key) else None
            if split is not None and isinstance(event, events.Key) and event.key not in self.active_bindings:
                for key in split:  # Esc and the letter read as one alt+letter: each in its turn
                    await self.on_event(key)
                return
            line = type_ahead(self)
            if line.waits(event):
                return
            sent_to = self.focused or self.screen
            try:
                await self._read_typed(event)
            finally:
                line.handled(event, sent_to)
            return
        await super().on_event(event)

    async def _read_typed(self, event: events.Key | events.Paste) -> None:
        # A key read while the entry view has the focus runs its binding now. Textual forwards
        # the key to the view, which takes no keys itself: the binding runs only once the key has
        # bubbled back up, several hops later.
        if (
            isinstance(event, events.Key)
            and event.key != "escape"  # the screen's own handler comes before the bindings
            and isinstance(self.focused, EntryView)
            and await run_binding_now(self, event.key)
        ):
            return
        await super().on_event(event)

    if TYPE_CHECKING:

        @overload
        async def push_screen_wait(self, screen: Screen[Answer], *, mode: str | None = None) -> Answer: ...

        @overload
        async def push_screen_wait(self, screen: str, *, mode: str | None = None) -> Any: ...

    async def push_screen_wait(self, screen: Screen[Answer] | str, *, mode: str | None = None) -> Answer | Any:
        """Textual's, and the keys typed right after the answer wait until the flow that asked
        has taken it (``widgets/focus_return.py``): they go where the flow puts the focus."""
        answer = self.focus_return.awaited(screen) if self.focus_return and not isinstance(screen, str) else None
        try:
            return await super().push_screen_wait(screen, mode=mode)
        finally:
            if answer is not None:
                taken_soon(answer)

    def get_default_screen(self) -> Screen[Any]:
        # The main screen is the app's first screen when repos are mounted, composed with the app
        # itself. Pushed from on_mount instead, Textual's start-up batch waits for its whole mount,
        # and the frame the screen renders meanwhile is dropped and rendered again.
        if self.mounts and not self._session_started:
            self._session_started = True
            return self._main_screen_for(self.mounts)
        return super().get_default_screen()

    def needs_later_css(self, screen: Screen[Any]) -> bool:
        # screens.tcss lays out every screen but the main one: its first frame does not parse it.
        return not isinstance(screen, MainScreen)

    def on_mount(self) -> None:
        self.focus_return = FocusReturn(self)
        if self.config.theme and self.config.theme in self.available_themes:
            self.theme = self.config.theme
        self.theme_changed_signal.subscribe(self, self._theme_picked)
        if self.config.keys:
            self.set_keymap(self.config.keys)
        for problem in self.problems:
            notify_text(self, problem, severity="warning", timeout=8)
        if not self.mounts:
            # Imported here: the welcome screen is for when nothing is mounted.
            from amr_tui.screens.welcome_flow import welcome

            self.run_worker(
                welcome(self, self.config.merge_driver, self.start_session, where=self.create_at), group="flow:welcome"
            )
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
        return MainScreen(mounts, self.poll_interval, first=first, host=self)

    def session_ready(self, session: Session | None) -> None:
        """Called by the main screen once its session exists (before indexing is finished)."""
        self.session = session

    def action_help(self) -> None:
        # Imported here: the help screen is not needed for the first frame.
        from amr_tui.screens.help import HelpScreen, collect_bindings, screen_title

        if isinstance(self.screen, HelpScreen):
            return
        groups = collect_bindings(self, self.screen)
        if getattr(self.screen, "HELP_QUERY_SYNTAX", False):  # the screens where one finds (/)
            from amr_tui.core.search.query import SYNTAX  # search syntax: not on the first frame's path

            groups.append(("Find (/): what to type", list(SYNTAX)))
        self.push_screen(HelpScreen(groups, screen_title(self.screen)))

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

    # ------------------------------------------------- sync, share, history, dreams, activity
    # Bound to keys on the main screen ("app.sync", ...); each runs its flow (screens/flows/) as
    # one worker on the repo of the file the main screen shows.
    def _main_session(self) -> tuple[MainScreen, Session] | None:
        main = next((s for s in reversed(self.screen_stack) if isinstance(s, MainScreen)), None)
        if main is None or main.session is None:
            return None
        return main, main.session

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _AFTER_SESSION and self._main_session() is None:
            return None  # shown, greyed out, until the main screen's session exists
        return True

    def _run(self, module: str, flow: str, *args: object, exclusive: bool = False) -> None:
        """Run ``flow`` of screens/flows/``module``.py; the module (with its screens) is imported then."""
        found = self._main_session()
        if found is not None:
            run = getattr(importlib.import_module(f"amr_tui.screens.flows.{module}"), flow)
            self.run_worker(run(self, *found, *args), group=f"flow:{flow}", exclusive=exclusive)

    def action_sync(self) -> None:
        self._run("sync", "sync", self.config.merge_driver, exclusive=True)

    def action_share(self) -> None:
        self._run("share", "share")

    def action_file_history(self) -> None:
        self._run("history", "file_history")

    def action_entry_timeline(self) -> None:
        self._run("history", "entry_timeline")

    def action_forgotten(self) -> None:
        self._run("history", "forgotten")

    def action_forget_entry(self) -> None:
        self._run("history", "forget_entry")

    def action_review_dreams(self) -> None:
        self._run("dreams", "review_dreams", self.poll_interval)

    def action_trim(self) -> None:
        """A dreaming run that brings the shown repo's MEMORY.md under its load budget, to review."""
        self._run("dreams", "review_dreams", self.poll_interval, True)

    def action_activity(self) -> None:
        """Review what others committed to the shown repo since the user last reviewed it."""
        self._run("activity", "activity")

    def action_stale(self) -> None:
        """The Stale? queue: facts whose evidence no longer holds in the code they cite."""
        self._run("stale", "stale", self.config, self.today)

    def action_link_graph(self) -> None:
        """The link graph of the shown file's repo, centred on the file."""
        self._run("links", "link_graph")

    def action_tags(self) -> None:
        """Every tag of the mounted repos, with their counts."""
        self._run("links", "tags")


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
    found = opening(
        list(paths or []), read_only=set(read_only or ()) | cfg.read_only, config_repos=cfg.repos, open_at=open_at
    )
    problems = ([f"Config not read: {cfg.error}"] if cfg.error else []) + found.problems
    return AmrApp(
        found.mounts,
        cfg,
        poll_interval=poll_interval,
        problems=problems,
        today=today,
        open_at=found.first,
        create_at=found.bare[0] if found.bare else None,
    )
