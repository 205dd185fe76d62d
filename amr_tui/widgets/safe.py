"""The one safe path from repo text to the screen.

Every string that comes from a memory repo (entries, file names, commit messages, author
names, git's stderr) reaches a widget through these functions: controls and bidi overrides
are made visible, and nothing is ever parsed as markup or gets a click action.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.app import App
from textual.content import Content
from textual.notifications import SeverityLevel

from amr_tui.core.textsafety import BIDI, SEPARATORS, make_visible
from amr_tui.widgets.textual_private import ShownInput

_ONE_CELL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f" + BIDI + SEPARATORS + "\ud800-\udfff]")


#: Longest repo text one widget shows. Wrapping a 1 MB entry in a Static (the side panel, a
#: confirm dialog) froze the app for seconds; nobody reads past this in a panel anyway.
MAX_SHOWN = 4000


def shorten(text: str, limit: int = MAX_SHOWN) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\u2026 ({len(text) - limit:,} more characters)"


def clean(text: str) -> str:
    return make_visible(shorten(text))


def content(text: str, style: str = "") -> Content:
    """A Content for Static, Label, Option, Button: never markup."""
    cleaned = make_visible(shorten(text))
    return Content.styled(cleaned, style) if style else Content(cleaned)


def content_lines(text: str, style: str = "") -> Content:
    """Several lines (a dialog's body): the caller's line breaks kept, each line cleaned as by
    ``content``. Repo text holding a line break of its own must be made visible by the caller
    (``make_visible``) before it is joined into ``text``."""
    return Content("\n").join(content(line, style) for line in text.split("\n"))


def rich_text(text: str, style: str = "") -> Text:
    """A rich Text for Tree labels and DataTable cells: never markup."""
    return Text(make_visible(shorten(text)), style=style, no_wrap=True, end="")


def word_diff(old: str, new: str, removed: str, added: str, *, limit: int = 12) -> Content:
    """The lines that differ between two texts, each pair as "- old" / "+ new" with the words
    taken out or put in styled ``removed`` / ``added`` (``core.diff.words``); text made visible."""
    from amr_tui.core.diff.words import changed_lines, word_changes  # word diff: not on the first frame's path

    lines: list[Content] = []
    for before, after in changed_lines(old, new, limit):
        a, b = make_visible(before), make_visible(after)
        out_spans, in_spans = word_changes(a, b)
        for sign, text, spans, style in (("- ", a, out_spans, removed), ("+ ", b, in_spans, added)):
            if not text.strip():
                continue
            parts = [Content(sign)]
            at = 0
            for start, end in spans:
                parts += [Content(text[at:start]), Content.styled(text[start:end], style)]
                at = end
            parts.append(Content(text[at:]))
            lines.append(Content.assemble(*parts))
    return Content("\n").join(lines) if lines else Content("(no line differs)")


def assemble(*parts: str | tuple[str, str]) -> Content:
    """Join (text, style) pairs; every text is cleaned, styles are ours."""
    pieces: list[Content] = []
    for part in parts:
        if isinstance(part, tuple):
            pieces.append(content(part[0], part[1]))
        else:
            pieces.append(content(part))
    return Content.assemble(*pieces)


def notify_text(
    app: App[Any],
    text: str | Sequence[str],
    *,
    title: str = "",
    severity: SeverityLevel = "information",
    timeout: float | None = None,
) -> None:
    """Show ``text`` (which may hold repo text) as a notification, like ``App.notify``.

    The one way a screen or widget notifies: ``App.notify`` parses its message as markup by
    default, so a file name like ``[@click=app.quit]`` would become a link. Here the message
    and title are never markup, and every control character and bidi override (a line break
    too) is shown as a visible stand-in. Several lines: pass them as a sequence; each is
    cleaned on its own and the line breaks between them are kept. ``timeout=None`` is the
    app's default, as in ``App.notify``.
    """
    lines = [text] if isinstance(text, str) else text
    message = "\n".join(make_visible(shorten(line)) for line in lines)
    app.notify(message, title=make_visible(title), severity=severity, timeout=timeout, markup=False)


def _one_cell(m: re.Match[str]) -> str:
    code = ord(m.group(0))
    if code < 0x20:
        return chr(0x2400 + code)  # control pictures: ␛ for ESC
    return "\u2421" if code == 0x7F else "\ufffd"


def visible_same_length(text: str) -> str:
    """Like :func:`make_visible` but one one-cell stand-in per character, so offsets still match."""
    return text if text.isprintable() else _ONE_CELL.sub(_one_cell, text)


class SafeInput(ShownInput):
    """An Input whose value may hold repo text (a file name, an entry) with escape sequences.

    Textual's Input draws its value as is, escape sequences included. This one draws every
    control character and bidi override as a one-cell stand-in; the value itself is untouched,
    and cursor and mouse positions are computed on the same stand-ins so they line up.
    """

    BINDINGS = []  # Input's own keys still apply (bindings merge over the classes); ? lists none

    def shown(self, value: str) -> str:
        return visible_same_length(value)
