"""One-line entry editor, validated as you type by the core's own rules."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Static

from amr_tui.core.model import Diagnostic, Severity
from amr_tui.widgets.safe import SafeInput, content


@dataclass(frozen=True, slots=True)
class EditTarget:
    repo: str
    path: str
    line: int  # the line being replaced, or the line to insert after (mode insert)
    mode: str  # "edit", "below", "above"
    prefix: str  # indent and marker, e.g. "- " or "  * "
    original: str  # the text of the input when editing started
    base: object = None  # the OpenFile the edit started from: its bytes are the merge base of the save


def diagnostics_content(diags: list[Diagnostic]) -> Content:
    if not diags:
        return content("\u2713 valid entry", "$success")
    parts = []
    for d in diags[:3]:
        style = {"error": "$error", "warning": "$warning"}.get(d.severity.value, "$text-muted")
        parts.append(content(f"{d.code} {d.message}", style))
    if len(diags) > 3:
        parts.append(content(f"(+{len(diags) - 3} more)", "$text-muted"))
    return Content("  ").join(parts)


class EntryEditor(Vertical):
    """Shown under the entry view while an entry is being written."""

    HELP_TITLE = "Editing an entry"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel edit", id="editor.cancel"),
        Binding("ctrl+t", "stamp_date", "Add today's date", id="editor.date"),
    ]

    has_errors: reactive[bool] = reactive(False)

    @dataclass
    class Submitted(Message):
        """Enter in the editor: the entry as written, to be saved."""

        target: EditTarget
        """Where the entry goes (the line replaced, or the line it goes below or above)."""
        line_text: str
        """The whole line: the target's indent and marker, then the text typed."""
        diagnostics: list[Diagnostic]
        """What the core's rules found in ``line_text`` as it was submitted."""

    @dataclass
    class Cancelled(Message):
        """Escape in the editor: nothing is saved."""

        target: EditTarget
        """The edit given up."""
        changed: bool
        """Whether the text differs from what the edit started with (then the screen asks first)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.target: EditTarget | None = None
        self.diagnostics: list[Diagnostic] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="editor-title", markup=False)
        # The cursor starts at the end of the entry with nothing selected: a key adds to the fact.
        yield SafeInput(
            id="editor-input", placeholder="fact [source: https://...; added: YYYY-MM-DD]", select_on_focus=False
        )
        yield Static("", id="editor-diagnostics")

    def start(self, target: EditTarget, where: str) -> None:
        self.target = target
        self.query_one("#editor-title", Static).update(content(where))
        inp = self.query_one(Input)
        inp.value = target.original
        inp.cursor_position = len(target.original)
        self.display = True
        inp.focus()
        self._validate(target.original)

    def line_text(self) -> str:
        assert self.target is not None
        return self.target.prefix + self.query_one(Input).value.strip()

    @on(Input.Changed, "#editor-input")
    def _changed(self, event: Input.Changed) -> None:
        self._validate(event.value)

    def _validate(self, value: str) -> None:
        from amr_tui.core.format.edit import check_line  # lazy: the parser stays off the first frame's imports

        if self.target is None:
            return
        _, diags = check_line(self.target.prefix + value.strip(), self.target.path)
        self.diagnostics = diags
        self.has_errors = any(d.severity is Severity.ERROR for d in diags)
        self.query_one("#editor-diagnostics", Static).update(diagnostics_content(diags))

    def watch_has_errors(self, value: bool) -> None:
        self.set_class(value, "-invalid")

    @on(Input.Submitted, "#editor-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.target is not None:
            self.post_message(self.Submitted(self.target, self.line_text(), list(self.diagnostics)))

    def action_cancel(self) -> None:
        if self.target is not None:
            changed = self.query_one(Input).value != self.target.original
            self.post_message(self.Cancelled(self.target, changed))

    def action_stamp_date(self) -> None:
        """Add (or refresh) added: today in the metadata brackets."""
        # lazy: the parser stays off the first frame's imports
        from amr_tui.core.format.edit import check_line, set_metadata, today_iso

        if self.target is None:
            return
        inp = self.query_one(Input)
        line = self.target.prefix + inp.value
        entry, _ = check_line(line, self.target.path)
        if entry is None:
            return
        new_line = set_metadata(line, entry, "added", today_iso())
        inp.value = new_line[len(self.target.prefix) :]
        inp.cursor_position = len(inp.value)

    def close(self) -> None:
        self.target = None
        self.display = False
