"""How one line of a memory file is shown: pieces of (text, component) plus clickable spots.

No Textual here beyond plain data, so the entry view can build it for 10,000 lines
cheaply; every text piece has been made visible (controls replaced) already.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from rich.cells import cell_len

from amr_tui.core.format.links import LinkState
from amr_tui.core.inbox import age_text
from amr_tui.core.model import Entry, Line, LineKind, Link
from amr_tui.core.scope import SCOPE_KEY
from amr_tui.core.textsafety import make_visible
from amr_tui.widgets.safe import shorten

if TYPE_CHECKING:  # the parser is not needed to draw: kept off the first frame's imports
    from amr_tui.core.format.parser import Document

#: A piece longer than this (a 1 MB entry) shows its start and how much more there is: wrapping
#: and drawing the whole of it took tens of seconds. The file's bytes are untouched.
MAX_PIECE = 10_000


@dataclass(frozen=True, slots=True)
class Hotspot:
    start: int  # cell offset in the line's display
    end: int
    kind: str  # "link" or "source"
    index: int  # index into the line's links (kind=link) or metadata (kind=source)


@dataclass(slots=True)
class LineDisplay:
    pieces: list[tuple[str, str]]  # (text, component class without the widget prefix)
    hotspots: list[Hotspot]
    cells: int


def age(added: str, today: _dt.date) -> str | None:
    try:
        day = _dt.date.fromisoformat(added)
    except ValueError:
        return None
    days = (today - day).days
    return "future" if days < 0 else age_text(days)


_PLAIN_URL = re.compile(
    r"(?i:https?)://([^/?#\[\]\s\x00-\x1f\x7f]+)([^?#\[\]\s\x00-\x1f\x7f]*)[^\[\]\s\x00-\x1f\x7f]*\Z"
)


def short_source(value: str) -> str:
    """``host/last/two`` of an http(s) source, else its first 40 characters.

    Plain URLs (no whitespace, controls or brackets) are read by one regex: ``urlsplit`` was
    40% of the time to lay out a 10,000-entry file. Anything else goes through ``urlsplit``.
    """
    m = _PLAIN_URL.match(value)
    if m is not None:
        netloc, path = m.group(1), m.group(2)
    else:
        try:
            parts = urlsplit(value)
        except ValueError:
            return value[:40]
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return value[:40]
        netloc, path = parts.netloc, parts.path
    tail = path.rstrip("/").rsplit("/", 2)
    path = "/".join(p for p in tail[-2:] if p)
    return f"{netloc}/{path}" if path else netloc


class _Builder:
    def __init__(self) -> None:
        self.pieces: list[tuple[str, str]] = []
        self.hotspots: list[Hotspot] = []
        self.cells = 0

    def add(self, text: str, comp: str) -> tuple[int, int]:
        text = make_visible(shorten(text, MAX_PIECE)).expandtabs(4)
        start = self.cells
        if text:
            self.pieces.append((text, comp))
            self.cells += len(text) if text.isascii() else cell_len(text)  # printable ASCII: one cell each
        return start, self.cells

    def done(self) -> LineDisplay:
        return LineDisplay(self.pieces, self.hotspots, self.cells)


def links_by_line(doc: Document) -> dict[int, list[tuple[int, Link]]]:
    out: dict[int, list[tuple[int, Link]]] = {}
    for i, link in enumerate(doc.links):
        out.setdefault(link.line, []).append((i, link))
    return out


def build_line(
    line: Line,
    entry: Entry | None,
    line_links: list[tuple[int, Link]],
    link_states: dict[tuple[int, int], LinkState],
    *,
    raw: bool,
    today: _dt.date,
) -> LineDisplay:
    b = _Builder()
    text = line.text
    if line.kind is LineKind.HEADING:
        b.add(text, "heading")
        return b.done()
    if line.kind in (LineKind.CODE, LineKind.HTML, LineKind.FRONT_MATTER):
        b.add(text, "code")
        return b.done()
    if entry is None or raw:
        comp = "quote" if line.kind is LineKind.QUOTE else "text"
        _add_with_links(b, line.number, text, 0, len(text), line_links, link_states, comp)
        return b.done()
    b.add(entry.indent, "text")
    b.add("\u2022 " if entry.depth == 0 else "\u25e6 ", "bullet")
    end = entry.meta_start
    body_start = entry.content_start
    _add_with_links(b, line.number, text, body_start, end, line_links, link_states, "text")
    if entry.meta_start < len(text.rstrip()) and not entry.metadata:
        b.add(text[end:], "text")
    for i, item in enumerate(entry.metadata):
        key = item.key.lower()
        b.add("  ", "text")
        if key == "source":
            start, stop = b.add("\u2197 " + short_source(item.value), "source")
            b.hotspots.append(Hotspot(start, stop, "source", i))
        elif key == "added":
            when = age(item.value, today)
            b.add(f"+{item.value}" + (f" ({when})" if when else ""), "added")
        elif key == SCOPE_KEY:  # where the fact holds: a chip, as source and added are
            b.add(f"\u25ce {item.value}", "scope")
        else:
            b.add(f"{item.key}: ", "meta-key")
            b.add(item.value, "meta-value")
    return b.done()


def _add_with_links(
    b: _Builder,
    number: int,
    text: str,
    start: int,
    end: int,
    line_links: list[tuple[int, Link]],
    link_states: dict[tuple[int, int], LinkState],
    comp: str,
) -> None:
    pos = start
    for idx, link in line_links:
        if not start <= link.start < end:
            continue
        b.add(text[pos : link.start], comp)
        state = link_states.get((number, link.start), LinkState.BROKEN)
        style = "link" if state is LinkState.OK else "link-broken"
        s, e = b.add(text[link.start : link.end], style)
        b.hotspots.append(Hotspot(s, e, "link", idx))
        pos = link.end
    b.add(text[pos:end].rstrip() if end >= len(text) else text[pos:end], comp)
