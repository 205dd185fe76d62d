"""Shown when amr starts with nothing to mount."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Static

TEXT = """amr shows and edits Agent Memory Repos: git repos of Markdown facts that coding agents write.

No memory repo here. Start with one of these:

  amr demo          build two example repos (alice and bob) with agent history and a pending dream
  amr init PATH     create a memory repo the way the agent skill does
  amr PATH...       open memory repos, or a folder that holds several

Repos listed in your config file open automatically:"""


class WelcomeScreen(Screen[str | None]):
    # Keys with a modifier: letters typed here as if into a search (or a path) must act on nothing.
    BINDINGS = [
        Binding("ctrl+d", "choose('demo')", "Open the demo", id="welcome.demo"),
        Binding("ctrl+n", "choose('init')", "Create a memory repo", id="welcome.init"),
        Binding("escape", "choose(None)", "Quit", id="welcome.quit"),
    ]

    def __init__(self, config_path: str) -> None:
        super().__init__()
        self.config_path = config_path

    def compose(self) -> ComposeResult:
        with Center():
            with Vertical(id="welcome-box"):
                yield Static("amr", id="welcome-title", markup=False)
                yield Static(TEXT, markup=False)
                yield Static(f"  {self.config_path}", markup=False, id="welcome-config")
                yield Button("Open the demo (ctrl+d)", id="demo", variant="primary")
                yield Button("Create a memory repo (ctrl+n)", id="init")
                yield Button("Quit (esc)", id="quit")
        yield Footer()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id if event.button.id in ("demo", "init") else None)

    def action_choose(self, what: str | None) -> None:
        self.dismiss(what)
