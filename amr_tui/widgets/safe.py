"""The one safe path from repo text to the screen (field notes 1-4).

Every string that comes from a memory repo (entries, file names, commit messages, author
names, git's stderr) reaches a widget through these functions: controls and bidi overrides
are made visible, and nothing is ever parsed as markup or gets a click action.
"""

from __future__ import annotations

from rich.text import Text
from textual.content import Content

from amr_tui.core.textsafety import make_visible


def clean(text: str) -> str:
    return make_visible(text)


def content(text: str, style: str = "") -> Content:
    """A Content for Static, Label, Option, Button: never markup."""
    cleaned = make_visible(text)
    return Content.styled(cleaned, style) if style else Content(cleaned)


def rich_text(text: str, style: str = "") -> Text:
    """A rich Text for Tree labels and DataTable cells: never markup."""
    return Text(make_visible(text), style=style, no_wrap=True, end="")


def assemble(*parts: str | tuple[str, str]) -> Content:
    """Join (text, style) pairs; every text is cleaned, styles are ours."""
    pieces: list[Content] = []
    for part in parts:
        if isinstance(part, tuple):
            pieces.append(content(part[0], part[1]))
        else:
            pieces.append(content(part))
    return Content.assemble(*pieces)


def notify_text(text: str) -> str:
    """For App.notify(..., markup=False): controls made visible."""
    return make_visible(text)
