"""Shown when amr starts with nothing to mount."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Center, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Static

from amr_tui.core.textsafety import make_visible
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.footer import Footer
from amr_tui.widgets.safe import content_lines

if TYPE_CHECKING:
    from amr_tui.services.discovery import Found

TEXT = """amr shows and edits Agent Memory Repos: git repos of Markdown facts that coding agents write.

No memory repo here. Start with one of these:

  amr demo          build two example repos (alice and bob) with agent history and a pending dream
  amr init PATH     create a memory repo the way the agent skill does
  amr PATH...       open memory repos, or a folder that holds several

Repos listed in your config file open automatically:"""


class WelcomeScreen(Screen[str | None]):
    HELP_TITLE = "Welcome"
    # Keys with a modifier: letters typed here as if into a search (or a path) must act on nothing.
    BINDINGS = bindings("welcome")
    DEFAULT_CSS = """
    #welcome-box {
        border: thick $primary;
    }
    #welcome-title {
        text-style: bold;
        color: $accent;
    }
    #welcome-box Button {
        margin-top: 1;
    }
    """

    @dataclass
    class Discovered(Message):
        """The agent memory found on this machine (``services.discovery``)."""

        found: list[Found]
        """Each folder, with its agent and format."""

    def __init__(self, config_path: str) -> None:
        super().__init__()
        self.config_path = config_path
        self.found: list[Found] = []

    def on_mount(self) -> None:
        self._discover()

    @work(thread=True, exclusive=True, group="welcome-discover")
    def _discover(self) -> None:
        from amr_tui.services.config import load_config  # in the worker: the welcome screen paints first
        from amr_tui.services.discovery import discover_memory  # in the worker: the welcome screen paints first

        try:
            found = discover_memory(configured=load_config().repos)
        except Exception:  # a home folder amr cannot read: nothing found, nothing to say
            found = []
        self.post_message(self.Discovered(found))

    def on_welcome_screen_discovered(self, message: Discovered) -> None:
        self.found = message.found
        if not self.found:
            return
        lines = [f"  {f.path}  ({f.agent}, {'git' if f.git else 'no history'})" for f in self.found[:8]]
        more = [f"  ... and {len(self.found) - 8} more"] if len(self.found) > 8 else []
        # one folder a line: each line made visible on its own (a path may hold a line break)
        self.query_one("#welcome-found", Static).update(
            content_lines(
                "\n".join(
                    make_visible(line)
                    for line in ["Agent memory found on this machine (ctrl+o opens it all):", *lines, *more]
                )
            )
        )

    def action_open_found(self) -> None:
        if self.found:
            self.dismiss("open\0" + "\0".join(str(f.path) for f in self.found))

    def compose(self) -> ComposeResult:
        with Center():
            with Vertical(id="welcome-box"):
                yield Static("amr", id="welcome-title", markup=False)
                yield Static(TEXT, markup=False)
                yield Static(f"  {self.config_path}", markup=False, id="welcome-config")
                yield Static("", id="welcome-found")
                yield Button("Open the demo (ctrl+d)", id="demo", variant="primary")
                yield Button("Create a memory repo (ctrl+n)", id="init")
                yield Button("Quit (esc)", id="quit")
        yield Footer()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id if event.button.id in ("demo", "init") else None)

    def action_choose(self, what: str | None) -> None:
        self.dismiss(what)
