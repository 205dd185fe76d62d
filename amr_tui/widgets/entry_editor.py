"""One-line entry editor, validated as you type by the core's own rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Static

from amr_tui.core.model import Diagnostic, Link, Severity
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.link_complete import LinkCompletion, Source
from amr_tui.widgets.safe import SafeInput, content
from amr_tui.widgets.type_ahead import hold


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
    BINDINGS = bindings("editor")
    DEFAULT_CSS = """
    EntryEditor {
        height: auto;
        padding: 0 1;
        background: $panel;
        border-top: tall $primary;
    }
    EntryEditor.-invalid {
        border-top: tall $error;
    }
    #editor-title {
        color: $text-muted;
    }
    """

    has_errors: reactive[bool] = reactive(False)
    saving: reactive[bool] = reactive(False)
    """Enter was pressed: the entry is being saved, and the input takes no keys until the save is
    made (the editor closes) or is not (the screen gives the input back, ``give_back``)."""

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

    def __init__(self, *, id: str | None = None, leave_to: str | None = None) -> None:
        """``leave_to``: the selector of the widget the focus goes to at enter (the entry view)."""
        super().__init__(id=id)
        self.leave_to = leave_to
        self.target: EditTarget | None = None
        self.diagnostics: list[Diagnostic] = []
        # Does a [[link]] resolve in the target's repo? Set by the screen (the session's resolver).
        self.link_ok: Callable[[Link], bool] | None = None
        # What [[ completion lists in the target's repo (thread-safe; set by the screen), and the list.
        self.link_source: Source | None = None
        self.completion: LinkCompletion | None = None
        self._where = ""

    def compose(self) -> ComposeResult:
        yield Static("", id="editor-title", markup=False)
        # The cursor starts at the end of the entry with nothing selected: a key adds to the fact.
        yield SafeInput(
            id="editor-input", placeholder="fact [source: https://...; added: YYYY-MM-DD]", select_on_focus=False
        )
        yield Static("", id="editor-diagnostics")

    def start(self, target: EditTarget, where: str) -> None:
        self.saving = False
        self.target = target
        self._where = where
        self.query_one("#editor-title", Static).update(content(where))
        inp = self.query_one(Input)
        inp.value = target.original
        inp.cursor_position = len(target.original)
        self.display = True
        if self.completion is None:
            self.completion = LinkCompletion(inp, above=True)
            self.screen.mount(self.completion)
        self.completion.source = self.link_source
        self.completion.dismissed = None
        self.completion.close()
        inp.focus()
        # The keys typed after the edit key wait for the input to have the focus.
        hold(self.app, "the entry editor opening", lambda: inp.has_focus or not self.display, 2.0)
        self._validate(target.original)

    def line_text(self) -> str:
        assert self.target is not None
        return self.target.prefix + self.query_one(Input).value.strip()

    @on(Input.Changed, "#editor-input")
    def _changed(self, event: Input.Changed) -> None:
        self._validate(event.value)
        if self.completion is not None and self.target is not None and not self.saving:
            self.completion.changed()

    def action_complete(self, what: str) -> None:
        """Tab, up and down: answered by the [[ completion list (nothing else while none is open)."""
        if self.completion is not None and self.target is not None and not self.saving:
            self.completion.key(what, lambda: None)

    def _validate(self, value: str) -> None:
        from amr_tui.core.format.edit import check_line  # lazy: the parser stays off the first frame's imports

        if self.target is None:
            return
        _, diags = check_line(self.target.prefix + value.strip(), self.target.path, self.link_ok)
        self.diagnostics = diags
        self.has_errors = any(d.severity is Severity.ERROR for d in diags)
        self.query_one("#editor-diagnostics", Static).update(diagnostics_content(diags))

    def watch_has_errors(self, value: bool) -> None:
        self.set_class(value, "-invalid")

    def watch_saving(self, value: bool) -> None:
        self.set_class(value, "-saving")
        # Disabled, the input takes no keys: one typed right after enter is a command, never text
        # of the line being committed. (The screen moves the focus off it first.)
        self.query_one(Input).disabled = value
        self.query_one("#editor-title", Static).update(content(("Saving\u2026 " if value else "") + self._where))

    def action_submit(self) -> None:
        """Enter: the highlighted [[ completion is taken while the list is open; otherwise the
        entry as typed goes to be saved (``submit``)."""
        if self.completion is not None and self.target is not None and not self.saving:
            self.completion.key("accept", self.submit)
            return
        self.submit()

    def submit(self) -> None:
        """The entry as typed goes to be saved, and the keys typed next are commands (the
        focus moves now, not at the next refresh): an edit key then waits for the save."""
        if self.target is None or self.saving:
            return
        line = self.line_text()
        from amr_tui.core.format.edit import check_line  # lazy: the parser stays off the first frame

        _, diags = check_line(line, self.target.path, self.link_ok)
        if self.leave_to is not None:
            self.screen.set_focus(self.screen.query_one(self.leave_to))
        self.saving = True
        self.post_message(self.Submitted(self.target, line, diags))

    def give_back(self) -> None:
        """The entry was not saved: the input takes keys again, with the text as typed."""
        if self.saving:
            self.saving = False
            self.screen.set_focus(self.query_one(Input))

    def action_cancel(self) -> None:
        """Esc: closes the [[ completion list while it is open (the edit stays); else cancels."""
        if self.completion is not None and self.target is not None and not self.saving:
            self.completion.key("close", self.cancel)
            return
        self.cancel()

    def cancel(self) -> None:
        if self.target is not None and not self.saving:
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
        self.saving = False
        self.target = None
        self.display = False
        if self.completion is not None:
            self.completion.close()
