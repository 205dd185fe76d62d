"""Small modal dialogs: confirm, ask for a line of text, choose one of several."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from amr_tui.widgets.actions import bindings
from amr_tui.widgets.link_complete import LinkCompletion, Source
from amr_tui.widgets.lists import FilterList
from amr_tui.widgets.safe import SafeInput, content, content_lines

UNSAVED_ENTRY = "Your changes to this entry are not saved."  # the body of discarding an entry's edit


class _HoldsText:
    """A dialog that unsaved text (``holds``, its prompt gone) waits on: the quit question names it."""

    holds: str | None

    def unsaved_edits(self) -> list[str]:
        return [self.holds] if self.holds else []


def discard_question(title: str, body: str) -> ConfirmScreen:
    """The question before what is not saved is thrown away: Discard, or Keep editing."""
    return ConfirmScreen(title, body, "Discard", "Keep editing")


class ConfirmScreen(ModalScreen[bool], _HoldsText):
    HELP_TITLE = "Question"
    BINDINGS = bindings("confirm")

    def __init__(self, title: str, body: str, yes: str = "Yes", no: str = "No", *, holds: str | None = None) -> None:
        """``holds``: unsaved text waiting on the answer (its prompt is gone), for the quit question."""
        super().__init__(classes="dialog")
        self.title_text, self.body, self.yes, self.no = title, body, yes, no
        self.holds = holds

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(content(self.title_text), classes="dialog-title")
            yield Static(content_lines(self.body), classes="dialog-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button(content(f"{self.yes} (y)"), variant="primary", id="yes")
                yield Button(content(f"{self.no} (n)"), id="no")

    def on_mount(self) -> None:
        for button in self.query("#no"):
            button.focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class PromptScreen(ModalScreen[str | None]):
    HELP_TITLE = "Prompt"
    BINDINGS = bindings("prompt")

    def __init__(
        self, title: str, value: str = "", placeholder: str = "", help_text: str = "", *, holds: str | None = None
    ) -> None:
        """``holds``: unsaved text waiting on the answer (its prompt is gone), for the quit question."""
        super().__init__(classes="dialog")
        self.title_text, self.value, self.placeholder, self.help_text = title, value, placeholder, help_text
        self.holds = holds

    def unsaved_edits(self) -> list[str]:
        return [self.holds] if self.holds else []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(content(self.title_text), classes="dialog-title")
            yield SafeInput(value=self.value, placeholder=self.placeholder, id="prompt-input")
            if self.help_text:
                yield Static(content_lines(self.help_text), classes="dialog-help")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def action_submit(self) -> None:
        self.dismiss(self.query_one(Input).value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TextPromptScreen(PromptScreen):
    """A prompt for text the user writes (a fact to capture): esc asks before dropping what was
    typed, and the app's quit question lists it (``unsaved_edits``, the HoldsUnsavedText protocol
    of ``AmrApp.request_quit``). With a ``link_source``, ``[[`` opens the link completion list
    (``widgets.link_complete``), which answers tab, up, down, and enter and esc while it is open."""

    BINDINGS = bindings("text_prompt")

    HELP_TITLE = "Writing text"

    def __init__(
        self,
        title: str,
        value: str = "",
        placeholder: str = "",
        help_text: str = "",
        *,
        what: str = "the text you are writing",
        edits_value: bool = False,
        link_source: Source | None = None,
    ) -> None:
        """``edits_value``: ``value`` is text being edited (an entry), so only a change of it is
        unsaved (clearing it too); otherwise any text in the prompt is (a capture given back)."""
        super().__init__(title, value, placeholder, help_text)
        self.what = what
        self.edits_value = edits_value
        self.link_source = link_source
        self.completion: LinkCompletion | None = None

    def on_mount(self) -> None:
        inp = self.query_one(Input)
        if self.link_source is not None:
            self.completion = LinkCompletion(inp, self.link_source)
            self.mount(self.completion)
        inp.focus()

    @on(Input.Changed, "#prompt-input")
    def _complete(self) -> None:
        if self.completion is not None:
            self.completion.changed()

    def action_complete(self, what: str) -> None:
        if self.completion is not None:
            self.completion.key(what, lambda: None)

    def action_submit(self) -> None:
        if self.completion is not None:
            self.completion.key("accept", super().action_submit)
            return
        super().action_submit()

    def _typed(self) -> str | None:
        try:
            return self.query_one(Input).value
        except Exception:  # not composed (yet, or any more): nothing typed
            return None

    def _holds_text(self) -> bool:
        typed = self._typed()
        if typed is None:
            return False
        return typed != self.value if self.edits_value else bool(typed.strip())

    def unsaved_edits(self) -> list[str]:
        return [self.what] if self._holds_text() else []

    def action_cancel(self) -> None:
        if self.completion is not None:
            self.completion.key("close", self.cancel)
            return
        self.cancel()

    def cancel(self) -> None:
        if not self._holds_text():
            self.dismiss(None)
            return
        self.run_worker(self.discard(), group="flow:discard-typed")

    async def discard(self) -> None:
        unsaved = f"{self.what[:1].upper()}{self.what[1:]} is not saved."
        if await self.app.push_screen_wait(discard_question("Discard what you typed?", unsaved)):
            self.dismiss(None)
        else:
            self.query_one(Input).focus()


class ChoiceScreen(ModalScreen[str | None], _HoldsText):
    HELP_TITLE = "Choice"
    BINDINGS = bindings("choice")

    def __init__(self, title: str, choices: list[tuple[str, str]], *, body: str = "", holds: str | None = None) -> None:
        """choices: (id, label); ``body``: what the choice is about, above the choices (it
        scrolls when long); ``holds``: unsaved text waiting on the choice, for the quit question."""
        super().__init__(classes="dialog")
        self.title_text = title
        self.choices = choices
        self.body = body
        self.holds = holds

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(content(self.title_text), classes="dialog-title")
            if self.body:
                with VerticalScroll(classes="dialog-body choice-body"):
                    yield Static(content_lines(self.body))
            yield FilterList(*[Option(content(label), id=cid) for cid, label in self.choices], id="choice-list")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
