"""The amr Textual app. ``make_app()`` is shared by the command line and the tests."""

from __future__ import annotations

import datetime as _dt
import gc
from importlib import resources
from pathlib import Path

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from textual.app import App
from textual.binding import Binding

from amr_tui.services.config import Config, config_path, load_config
from amr_tui.services.workspace import Mount, discover, looks_like_memory_root

if TYPE_CHECKING:
    from textual.command import Provider
    from textual.screen import Screen

    from amr_tui.screens.finder import FinderResult

# Screens, providers and services are imported where first used: the first frame only needs the
# main screen's widgets, and every module kept off that path is start-up time saved.


def _memory_provider() -> type[Provider]:
    from amr_tui.screens.palette import MemoryProvider

    return MemoryProvider


def _actions_provider() -> type[Provider]:
    from amr_tui.screens.palette import ActionsProvider

    return ActionsProvider


def styles_dir() -> Path:
    """The TCSS folder: inside the installed package, or the source tree's top-level styles/."""
    packaged = resources.files("amr_tui") / "styles"
    if packaged.is_dir():
        return Path(str(packaged))
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

    def __init__(self, mounts: list[Mount], config: Config | None = None, *, poll_interval: float = 1.0,
                 problems: list[str] | None = None, today: _dt.date | None = None) -> None:
        super().__init__()
        self.today = today  # fixed in tests and screenshots so ages like "2mo" do not drift
        self.mounts = mounts
        self.config = config or Config()
        self.poll_interval = poll_interval
        self.problems = problems or []
        self.session = None
        self._quit_question: Screen | None = None  # the "Quit and discard…?" dialog while it is open
        self.gc_paused = False  # set by `amr` (cli/app_cmd.py) when it paused the collector for start-up

    def first_frame_painted(self) -> None:
        """Start-up is over: keep what it made out of every later collection, and collect again."""
        if self.gc_paused:
            self.gc_paused = False
            gc.freeze()
            gc.enable()

    def on_mount(self) -> None:
        if self.config.theme and self.config.theme in self.available_themes:
            self.theme = self.config.theme
        if self.config.keys:
            self.set_keymap(self.config.keys)
        for problem in self.problems:
            self.notify(problem, severity="warning", markup=False, timeout=8)
        if self.mounts:
            self.start_session(self.mounts)
        else:
            from amr_tui.screens.welcome import WelcomeScreen

            self.push_screen(WelcomeScreen(str(config_path())), self._welcome_done)
            self.call_after_refresh(self.first_frame_painted)

    def start_session(self, mounts: list[Mount]) -> None:
        """Show the main screen now; it builds the session (git, index) in its load worker."""
        from amr_tui.screens.main.screen import MainScreen

        self.session = None
        self.push_screen(MainScreen(mounts, self.poll_interval))

    def session_ready(self, session: object) -> None:
        """Called by the main screen once its session exists (before indexing is finished)."""
        self.session = session

    def _welcome_done(self, choice: str | None) -> None:
        if choice == "init":
            from amr_tui.screens.dialogs import PromptScreen

            self.push_screen(PromptScreen("Create a memory repo at", value=str(Path("~/agent-memory").expanduser()),
                                          help_text="git init, MEMORY.md with an ## Index, one commit (as the agent skill does)."),
                             self._init_done)
            return
        if choice != "demo":
            self.exit(0)
            return
        import tempfile

        from amr_tui.services.demo import build_demo

        dest = Path(tempfile.mkdtemp(prefix="amr-demo-"))
        repos = build_demo(dest)
        self.start_session(discover(repos))

    def _init_done(self, value: str | None) -> None:
        from amr_tui.services.init import InitError, init_memory_repo
        from amr_tui.screens.welcome import WelcomeScreen

        if not value:
            self.push_screen(WelcomeScreen(str(config_path())), self._welcome_done)
            return
        try:
            root = init_memory_repo(Path(value).expanduser())
        except InitError as exc:
            self.notify(str(exc), title="Not created", severity="error", markup=False, timeout=10)
            self.push_screen(WelcomeScreen(str(config_path())), self._welcome_done)
            return
        self.start_session(discover([root.path]))

    def action_help(self) -> None:
        from amr_tui.screens.help import HelpScreen, collect_bindings

        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(collect_bindings(self, self.screen)))

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
        from amr_tui.core.textsafety import make_visible
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

        self._quit_question = ConfirmScreen(f"Quit and discard {n} unsaved edit{'s' if n != 1 else ''}?",
                                            f"{listing}\n\nKeep editing goes back with the text as it is.", "Discard", "Keep editing")
        self.push_screen(self._quit_question, answer)

    def action_quit_app(self) -> None:
        self.request_quit()

    async def action_quit(self) -> None:
        """Textual binds ctrl+q (a priority binding) and the palette's Quit to this: ask first too."""
        self.request_quit()

    def open_result(self, result: FinderResult) -> None:
        from amr_tui.screens.main.screen import MainScreen, Place

        screen = self.screen
        if isinstance(screen, MainScreen):
            screen.leave_file(lambda: screen.open_place(Place(result.repo, result.path, result.line)))


def make_app(paths: list[Path] | None = None, *, read_only: set[str] | None = None, config: Config | None = None,
             poll_interval: float = 1.0, today: _dt.date | None = None) -> AmrApp:
    """Build the app for these paths, else the current folder if it is a memory repo, else the config's repos."""
    cfg = config if config is not None else load_config()
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
    return AmrApp(mounts, cfg, poll_interval=poll_interval, problems=problems, today=today)
