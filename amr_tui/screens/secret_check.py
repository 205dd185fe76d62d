"""Ask before saving text that looks like a credential (AMR016), wherever text is saved from:
capture, whole-file editing, $EDITOR. (The entry editor asks through its lint errors.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App

from amr_tui.core.secrets import find_secrets
from amr_tui.screens.dialogs import ConfirmScreen


def new_secrets(before: str, after: str) -> list[str]:
    """Kinds of credential-looking text on lines of ``after`` that ``before`` did not have."""
    old = set(before.splitlines())
    return sorted({m.kind for line in after.splitlines() if line not in old for m in find_secrets(line)})


def ask_before_saving_secrets(
    app: App[Any],
    before: str,
    after: str,
    save: Callable[[], object],
    *,
    declined: Callable[[], object] | None = None,
    no: str = "Keep editing",
    holds: str | None = None,
) -> None:
    """Call ``save`` now, or after the person confirms when ``after`` adds a credential;
    ``declined`` (if given) when they say no. ``holds``: the unsaved text waiting on the
    question when no screen under it holds it any more (the quit question lists it)."""
    kinds = new_secrets(before, after)
    if not kinds:
        save()
        return

    def answer(yes: bool | None) -> None:
        if yes:
            save()
        elif declined is not None:
            declined()

    app.push_screen(
        ConfirmScreen(
            "This looks like a credential",
            f"The text holds what looks like {', '.join(kinds)}. Memory must not hold credentials: "
            f"agents load it at every session start, and it is committed and shared.\n\nSave it anyway?",
            "Save anyway",
            no,
            holds=holds,
        ),
        answer,
    )
