"""A real edit conflict: the user's version and the agent's side by side; choose or edit."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static, TextArea

from amr_tui.core.merge.resolution import EDITED, OURS, THEIRS, ConflictChoice
from amr_tui.core.textsafety import find_controls, make_visible
from amr_tui.git.errors import ConflictError
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.safe import notify_text, word_diff


def _show(data: bytes | None) -> str:
    if data is None:
        return "(file deleted)"
    return "\n".join(make_visible(ln.rstrip("\r")) for ln in data.decode("utf-8", "replace").split("\n"))


def _shown_differently(*sides: bytes | None) -> bool:
    """True when the TextArea shows stand-ins for some bytes, so its text is not the file's."""
    for data in sides:
        try:
            text = (data or b"").decode("utf-8")
        except UnicodeDecodeError:
            return True
        if find_controls(text.replace("\r\n", "\n").replace("\n", "")):
            return True
    return False


class ConflictScreen(ModalScreen[ConflictChoice | None]):
    """Dismisses with the user's choice (mine or theirs for the conflicting entries, or the
    edited result), or None to leave it. What a choice means as bytes is core.resolution's."""

    HELP_TITLE = "Edit conflict"

    AUTO_FOCUS = "#conflict-merged"  # the pane one can type in (the sides are read-only)

    BINDINGS = bindings("conflict")

    def __init__(self, conflict: ConflictError, *, repo: str = "") -> None:
        """``conflict``: the save's refusal, with the user's, the base's and the other version."""
        super().__init__()
        self.path, self.ours, self.base = conflict.path, conflict.ours, conflict.base
        self.theirs, self.merged = conflict.theirs, conflict.merged
        self.repo = repo

    def unsaved_edits(self) -> list[str]:
        """The app asks before quitting: the user's edit is not saved while this is open."""
        name = f"{self.repo}/{self.path}" if self.repo else self.path
        return [f"{name}: your edit, in the conflict view (not saved)"]

    def compose(self) -> ComposeResult:
        with Vertical(classes="editing-box", id="conflict-box"):
            yield Static(
                make_visible(f"Your edit of {self.path} conflicts with a change committed meanwhile."),
                id="conflict-title",
                markup=False,
            )
            with Horizontal(id="conflict-sides"):
                with Vertical():
                    yield Static("Yours", classes="side-title", markup=False)
                    yield TextArea(_show(self.ours), read_only=True, id="conflict-ours", language="markdown")
                with Vertical():
                    yield Static("Theirs (committed)", classes="side-title", markup=False)
                    yield TextArea(_show(self.theirs), read_only=True, id="conflict-theirs", language="markdown")
            yield Static("What differs, word by word (yours - / theirs +)", classes="side-title", markup=False)
            yield Static(
                word_diff(_show(self.ours), _show(self.theirs), "bold reverse $error", "bold reverse $success"),
                id="conflict-words",
            )
            yield Static(
                "Result (edit it, then save). Keep mine / theirs decide only the entries between markers: "
                "other changes on both sides are kept",
                classes="side-title",
                markup=False,
            )
            yield TextArea(_show(self.merged), id="conflict-merged", language="markdown")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Keep mine (ctrl+o)", id="ours")
                yield Button("Keep theirs (ctrl+t)", id="theirs")
                yield Button("Save edited result (ctrl+s)", variant="primary", id="merged")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        result = self.query_one("#conflict-merged", TextArea)
        marker = next((k for k, line in enumerate(result.text.split("\n")) if line.startswith("<<<<<<<")), None)
        if marker is not None:
            result.move_cursor((marker, 0), center=True)  # at the first conflict

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        getattr(self, f"action_{event.button.id}")()

    def action_ours(self) -> None:
        self.dismiss(ConflictChoice(OURS))

    def action_theirs(self) -> None:
        self.dismiss(ConflictChoice(THEIRS))

    def action_merged(self) -> None:
        text = self.query_one("#conflict-merged", TextArea).text
        if "<<<<<<<" in text or ">>>>>>>" in text:
            notify_text(self.app, "Remove the conflict markers first.", severity="warning")
            return
        if _shown_differently(self.ours, self.theirs, self.merged):
            notify_text(
                self.app,
                "This file holds control characters or bytes that are not UTF-8, shown here as "
                "stand-ins: keep mine or theirs, then fix it with $EDITOR.",
                severity="warning",
            )
            return
        if b"\r\n" in (self.merged or self.ours or self.theirs or b""):  # keep the file's CRLF
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        self.dismiss(ConflictChoice(EDITED, text.encode("utf-8")))

    def action_cancel(self) -> None:
        self.dismiss(None)
