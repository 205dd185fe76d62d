"""Ask before saving text that looks like a credential (AMR016), wherever text is saved from: the
entry editor, capture, whole-file editing, $EDITOR.

The safe path is the easy one, as GitHub's push protection does it: Enter saves the text with
each credential replaced by a placeholder (``<redacted: AWS access key>``: every credential of
the new lines, only the value after a key word, a whole private key block); saving the
credential as written takes typing the word ``save``; esc goes back to the text. Whatever is
chosen, no commit message ever holds a credential (the write gate redacts every message).
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from amr_tui.core.secrets import redact_new_lines, secrets_on_new_lines
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.safe import SafeInput, content, content_lines, notify_text

AS_IS_WORD = "save"
PLACEHOLDER, AS_IS = "placeholder", "as-is"


def new_secrets(before: str, after: str) -> list[str]:
    """Kinds of credential-looking text on lines of ``after`` that ``before`` did not have (a key
    block counts when any of its lines is new)."""
    return sorted({m.kind for m in secrets_on_new_lines(before, after)})


def listed(kinds: list[str]) -> str:
    """``an AWS access key and an AWS secret access key``."""
    named = [f"{'an' if k[:1] in 'AEIOU' else 'a'} {k}" for k in kinds]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


class SecretScreen(ModalScreen[str | None]):
    """``PLACEHOLDER`` (Enter), ``AS_IS`` (the word typed, then Enter) or None (esc)."""

    HELP_TITLE = "Credential question"

    BINDINGS = bindings("secret")

    def __init__(self, kinds: list[str], *, no: str = "keep editing", holds: str | None = None) -> None:
        super().__init__(classes="dialog")
        self.kinds = kinds
        self.no = no
        self.holds = holds

    def unsaved_edits(self) -> list[str]:
        return [self.holds] if self.holds else []

    def compose(self) -> ComposeResult:
        what = listed(self.kinds)
        with Vertical(classes="dialog-box"):
            yield Static(content("This looks like a credential"), classes="dialog-title")
            yield Static(
                content_lines(
                    f"The text holds what looks like {what}. Memory must not hold credentials: agents load it "
                    "at every session start, it is committed, and git history keeps it after any later edit.\n\n"
                    f"Enter: save it with a placeholder instead (<redacted: {self.kinds[0]}>).\n"
                    f"Type {AS_IS_WORD} and Enter: save the credential as written.\n"
                    f"Esc: {self.no}."
                ),
                classes="dialog-body",
            )
            yield SafeInput(placeholder=f"Enter for a placeholder, or type {AS_IS_WORD}", id="secret-word")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def action_submit(self) -> None:
        typed = self.query_one(Input).value.strip().lower()
        if not typed:
            self.dismiss(PLACEHOLDER)
        elif typed == AS_IS_WORD:
            self.dismiss(AS_IS)
        else:
            self.query_one(Input).value = ""
            notify_text(self.app, f"Type {AS_IS_WORD} to keep the credential, or leave it empty for a placeholder.")

    def action_cancel(self) -> None:
        self.dismiss(None)


async def secret_answer(
    app: App[Any], before: str, after: str, *, no: str = "keep editing", holds: str | None = None
) -> str | None:
    """The text to save, asked in a flow (a worker: ``push_screen_wait``) when ``after`` adds a
    credential: with the credentials of the new lines replaced by placeholders (the default), or
    as written (a typed word); None on esc. No credential added: ``after``, asking nothing.
    ``holds``: the unsaved text waiting on the question when no screen under it holds it any
    more (the quit question lists it)."""
    kinds = new_secrets(before, after)
    if not kinds:
        return after
    choice = await app.push_screen_wait(SecretScreen(kinds, no=no, holds=holds))
    if choice == PLACEHOLDER:
        return redact_new_lines(before, after)
    if choice == AS_IS:
        return after
    return None
