"""Whole-file editing in a TextArea with Markdown highlighting; ctrl+s saves (one commit)."""

from __future__ import annotations

import datetime as _dt

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from amr_tui.core.budget import AMR, FileCut, Profile, file_cut
from amr_tui.core.paths import MEMORY_FILE, is_markdown
from amr_tui.core.textsafety import make_visible
from amr_tui.screens.dialogs import discard_question
from amr_tui.screens.secret_check import new_secrets, secret_answer
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.cut_area import CutTextArea
from amr_tui.widgets.footer import Footer
from amr_tui.widgets.link_complete import LinkCompletion, Source


class FileEditScreen(ModalScreen[str | None]):
    """Dismisses with the new text (its credential check already answered), or None: nothing to save."""

    HELP_TITLE = "Editing a file"

    BINDINGS = bindings("file_edit")
    DEFAULT_CSS = """
    #file-edit-budget {
        color: $text-muted;
    }
    #file-edit-budget.-past-budget {
        color: $warning;
    }
    """

    def __init__(
        self,
        path: str,
        text: str,
        *,
        edited: str | None = None,
        repo: str = "",
        budget: FileCut | None = None,
        today: _dt.date | None = None,
        link_source: Source | None = None,
    ) -> None:
        """``text`` is the file as read; ``edited`` the text to start from when it is not that
        (an edit handed back after a save that did not happen). ``budget``: where the repo's agent
        stops loading the file (``services.loads.file_cut_of``); MEMORY.md without one is held
        to amr's own budget. ``link_source``: what ``[[`` completion lists (None: no completion)."""
        super().__init__()
        self.path, self.repo = path, repo
        self.original = text
        self.start_text = text if edited is None else edited
        self.profile: Profile | None = budget.profile if budget is not None else (AMR if path == MEMORY_FILE else None)
        self.today = today or _dt.date.today()
        self.link_source = link_source
        self.completion: LinkCompletion | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="editing-box", id="file-edit-box"):
            yield Static(
                make_visible(f"Editing {self.path}: ctrl+s saves and commits, esc closes"),
                id="file-edit-title",
                markup=False,
            )
            language = "markdown" if is_markdown(self.path) else None
            yield CutTextArea(
                self.start_text, language=language, id="file-edit-area", show_line_numbers=True, soft_wrap=True
            )
            if self.profile is not None:
                yield Static("", id="file-edit-budget", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        self.completion = LinkCompletion(area, self.link_source)
        self.mount(self.completion)
        area.focus()
        self._show_budget()

    @on(TextArea.Changed)
    @on(TextArea.SelectionChanged)
    def _complete(self) -> None:
        if self.completion is not None:
            self.completion.changed()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "complete":
            return self.completion is not None and self.completion.wants(str(parameters[0]))
        return True

    def action_complete(self, what: str) -> None:
        """Tab, enter, up, down and esc while the [[ completion list answers them."""
        if self.completion is None:
            return
        area = self.query_one(TextArea)

        def otherwise() -> None:  # what the key does without the list
            if what == "complete":
                self.focus_next()
            elif what == "accept":
                area.insert("\n")
            elif what == "down":
                area.action_cursor_down()
            elif what == "up":
                area.action_cursor_up()
            else:
                self.action_close()

        self.completion.key(what, otherwise)

    @on(TextArea.Changed)
    @on(TextArea.SelectionChanged)
    def _show_budget(self) -> None:
        """Where the repo's agent stops loading the file (MEMORY.md: 200 lines or 25 KB for Claude
        Code), drawn in the text as it is edited, its gauge, and whether the cursor is past it."""
        if self.profile is None:
            return
        area = self.query_one(CutTextArea)
        line = self.query_one("#file-edit-budget", Static)
        found = file_cut(self.profile, self.path, area.text.encode("utf-8", "surrogateescape"), None, self.today)
        if found is None:
            return
        area.set_cut(found.line)
        cut = found.line
        if cut is None:
            line.update(make_visible(f"{found.gauge} \u00b7 {found.says()}."))
            line.set_class(False, "-past-budget")
            return
        row = area.cursor_location[0] + 1
        past = row >= cut
        line.update(
            make_visible(
                f"{found.gauge} \u00b7 {found.says()}"
                + (f": line {row}, where the cursor is, is not read at start." if past else ".")
            )
        )
        line.set_class(past, "-past-budget")

    def unsaved_edits(self) -> list[str]:
        """The app asks before quitting while this holds text that differs from the file."""
        try:
            changed = self.query_one(TextArea).text != self.original
        except Exception:  # not composed
            return []
        name = f"{self.repo}/{self.path}" if self.repo else self.path
        return [f"{name}: your whole-file edit"] if changed else []

    def action_save(self) -> None:
        text = self.query_one(TextArea).text
        if text == self.original:
            self.dismiss(None)
            return
        if not new_secrets(self.original, text):
            self.dismiss(text)
            return
        # Asked here, not after closing: "Keep editing" comes back to this text.
        self.run_worker(self.save_secret(text), group="flow:file-edit-save")

    async def save_secret(self, text: str) -> None:
        chosen = await secret_answer(self.app, self.original, text)
        if chosen is not None:
            self.dismiss(chosen)

    def action_close(self) -> None:
        text = self.query_one(TextArea).text
        if text == self.original:
            self.dismiss(None)
            return
        self.run_worker(self.discard(), group="flow:file-edit-close")

    async def discard(self) -> None:
        unsaved = make_visible(f"Your edits to {self.path} are not saved.")
        if await self.app.push_screen_wait(discard_question("Discard changes?", unsaved)):
            self.dismiss(None)
