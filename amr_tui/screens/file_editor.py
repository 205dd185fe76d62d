"""Whole-file editing in a TextArea with Markdown highlighting; ctrl+s saves (one commit)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea

from amr_tui.core.textsafety import make_visible
from amr_tui.screens.dialogs import ConfirmScreen


class FileEditScreen(ModalScreen[str | None]):
    BINDINGS = [
        Binding("ctrl+s", "save", "Save and commit", id="file_edit.save"),
        Binding("escape", "close", "Close", id="file_edit.close"),
    ]

    def __init__(self, path: str, text: str) -> None:
        super().__init__()
        self.path = path
        self.original = text

    def compose(self) -> ComposeResult:
        with Vertical(id="file-edit-box"):
            yield Static(make_visible(f"Editing {self.path}: ctrl+s saves and commits, esc closes"), id="file-edit-title", markup=False)
            language = "markdown" if self.path.lower().endswith((".md", ".markdown")) else None
            yield TextArea(self.original, language=language, id="file-edit-area", show_line_numbers=True, soft_wrap=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        text = self.query_one(TextArea).text
        self.dismiss(None if text == self.original else text)

    def action_close(self) -> None:
        text = self.query_one(TextArea).text
        if text == self.original:
            self.dismiss(None)
            return

        def answer(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(ConfirmScreen("Discard changes?", f"Your edits to {self.path} are not saved.", "Discard", "Keep editing"), answer)
