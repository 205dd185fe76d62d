"""The dream review's "Edit, then accept": the entry a run proposes, edited with the main
editor's field and checks before it is accepted.

:class:`EntryEditScreen` shows the entry editor (``widgets/entry_editor.py``) over the review: the
field holds the entry's text only (its marker kept apart, as in the main editor), the core's rules
check it as it is typed, ``[[links]]`` are looked up among main's files and the run's, and ctrl+t
dates it. Enter asks first, as a save does: about a credential the text adds (a placeholder is the
default), and about a line that breaks the format, which a dream accept does not take (``amr
dreams accept --edit`` refuses it too): the text comes back to be fixed. The screen dismisses with
the whole line as written (marker and text), or None when the edit is given up (esc asks first
when the text changed, and the app's quit question lists it)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from amr_tui.core.format.edit import check_line
from amr_tui.core.model import Diagnostic, Link, Severity
from amr_tui.core.textsafety import make_visible
from amr_tui.screens.dialogs import UNSAVED_ENTRY, ConfirmScreen, discard_question
from amr_tui.screens.secret_check import new_secrets, secret_answer
from amr_tui.widgets.entry_editor import EditTarget, EntryEditor
from amr_tui.widgets.safe import content
from amr_tui.widgets.type_ahead import hold

HELP = "Enter accepts the entry as written \u00b7 esc goes back to the review \u00b7 ctrl+t adds added: today"


def split_line(raw: str, path: str) -> tuple[str, str]:
    """(indent and marker, the text after them) of an entry line, as the main editor splits it."""
    entry, _ = check_line(raw, path)
    if entry is None:
        return "- ", raw.strip()
    prefix = raw[: entry.content_start]
    if entry.marker and not prefix.endswith((" ", "\t")):
        prefix += " "
    return prefix, raw[entry.content_start :]


class EntryEditScreen(ModalScreen[str | None]):
    """An entry of a dreaming run, edited before it is accepted (see the module)."""

    HELP_TITLE = "Editing a dream entry"

    def __init__(
        self,
        repo: str,
        path: str,
        raw: str,
        *,
        title: str,
        edited: str | None = None,
        link_ok: Callable[[Link], bool] | None = None,
    ) -> None:
        """``raw``: the run's line; ``edited``: the line as the reviewer wrote it before (the
        field starts from it); ``link_ok``: whether a link names a file (None: not checked)."""
        super().__init__(classes="dialog")
        self.repo, self.path, self.raw = repo, path, raw
        self.title_text = title
        self.prefix, self.original = split_line(raw, path)
        self.start_text = split_line(edited, path)[1] if edited else self.original
        self.link_ok = link_ok

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="entry-edit-box"):
            yield Static(content(self.title_text), classes="dialog-title")
            yield EntryEditor(id="review-editor")
            yield Static(content(HELP), classes="dialog-help")

    def on_mount(self) -> None:
        editor = self.query_one(EntryEditor)
        editor.link_ok = self.link_ok
        where = make_visible(f"{self.repo}/{self.path}: the entry the run writes")
        editor.start(EditTarget(self.repo, self.path, 0, "edit", self.prefix, self.start_text), where)

    @property
    def editor(self) -> EntryEditor:
        return self.query_one(EntryEditor)

    def _typed(self) -> str | None:
        try:
            return self.query_one(Input).value
        except Exception:  # not composed (yet, or any more): nothing typed
            return None

    def unsaved_edits(self) -> list[str]:
        """The app's quit question lists the edit while its text differs from what it started from."""
        typed = self._typed()
        changed = typed is not None and typed != self.start_text
        return [f"{self.repo}/{self.path}: the dream entry you are editing"] if changed else []

    # -- enter -------------------------------------------------------------------------------------

    @on(EntryEditor.Submitted)
    def _submitted(self, message: EntryEditor.Submitted) -> None:
        message.stop()
        line = message.line_text
        errors = [d for d in message.diagnostics if d.severity is Severity.ERROR]
        if not line[len(self.prefix) :].strip():
            self.editor.give_back()
            return
        if new_secrets(self.raw, line) or errors:
            self._ask_first(self._accept_asked(line))
        else:
            self.dismiss(line)

    def _ask_first(self, flow: Coroutine[Any, Any, None]) -> None:
        """As the main editor does: the field takes keys again first (the question finds the focus
        there and gives it back), and keys typed until the question is up wait for it."""
        self.editor.give_back()
        worker = self.run_worker(flow, group="flow:review-edit-check")
        hold(self.app, "the entry's question on its way", lambda: self.app.screen is not self or worker.is_finished, 10)

    async def _accept_asked(self, line: str) -> None:
        """The credential question, then the format's: the line accepted, or the text given back."""
        if new_secrets(self.raw, line):
            answer = await secret_answer(self.app, self.raw, line)
            if answer is None:
                return  # esc: keep editing
            line = answer
        errors = self._errors(line)
        if errors:
            findings = "\n".join(make_visible(f"{d.code} {d.message}") for d in errors[:5])
            if await self.app.push_screen_wait(
                ConfirmScreen(
                    "This entry breaks the format",
                    f"{findings}\n\nA dream accept writes only an entry that keeps the format (amr dreams "
                    "accept --edit refuses this one too). Fix it, or give the edit up: the run's entry stays "
                    "as it was, undecided.",
                    "Give the edit up",
                    "Keep editing",
                )
            ):
                self.dismiss(None)
            return
        self.dismiss(line)

    def _errors(self, line: str) -> list[Diagnostic]:
        _, diags = check_line(line, self.path, self.link_ok)
        return [d for d in diags if d.severity is Severity.ERROR]

    # -- esc ---------------------------------------------------------------------------------------

    @on(EntryEditor.Cancelled)
    def _cancelled(self, message: EntryEditor.Cancelled) -> None:
        message.stop()
        if not message.changed:
            self.dismiss(None)
        else:
            self.run_worker(self._discard(), group="flow:review-edit-discard")

    async def _discard(self) -> None:
        if await self.app.push_screen_wait(discard_question("Discard this edit?", UNSAVED_ENTRY)):
            self.dismiss(None)
