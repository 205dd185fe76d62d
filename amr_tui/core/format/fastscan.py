"""The block structure of a plain memory file without markdown-it (a fast path).

Most memory files hold only ATX headings, top-level ``- `` bullets, paragraphs and blank
lines. For those, CommonMark's block structure is simple enough to read line by line:
a bullet line starts a list item, a paragraph line right after it (no blank line) is a lazy
continuation of that item, a heading or a blank line ends it. ``scan`` does exactly that
and returns None as soon as a line could mean anything else (indentation, quotes, fences,
HTML, other list markers, thematic breaks, setext underlines, ordered lists, reference
definitions, front matter, control whitespace); the caller then parses the file with
markdown-it. ``tests/test_parser_fastpath.py`` checks both paths agree.
"""

from __future__ import annotations

import re

from amr_tui.core.model import Line, LineKind

# Line starts that can open (or interrupt a paragraph with) a block other than a paragraph.
_SPECIAL_START = frozenset("#>`~<-*+_=| \t[0123456789")
_ORDERED = re.compile(r"\d{1,9}[.)](?:[ \t]|$)")
_HEADING = re.compile(r"(#{1,6})(?:[ \t]|$)")
_UNSAFE_CHARS = ("\v", "\f", "\x00")

ENTRY, CONTINUATION, HEADING, TEXT, BLANK = (
    LineKind.ENTRY,
    LineKind.CONTINUATION,
    LineKind.HEADING,
    LineKind.TEXT,
    LineKind.BLANK,
)

Pending = list[tuple[int, int, int, int]]  # (first line, end line, depth, parent line), 0-based


def eligible_text(text: str) -> bool:
    """False when the file holds characters the fast path does not model."""
    for ch in _UNSAFE_CHARS:
        if ch in text:
            return False
    return "\r" not in text or text.count("\r") == text.count("\r\n")  # CR only in CRLF line ends


def _special(t: str, c: str) -> bool:
    """A line starting with ``c`` (one of _SPECIAL_START) that is still plain paragraph text."""
    if c == "[":  # a reference definition "[label]: url" needs a label without "["
        return t.startswith("[[") or "]:" not in t
    if c == "`" or c == "~":  # a fence needs three; "`code`" is inline
        return not t.startswith(c * 3)
    if "0" <= c <= "9":
        return _ORDERED.match(t) is None
    return False


def scan(lines: list[Line]) -> tuple[Pending, list[tuple[int, int, str]]] | None:
    """Set every line's kind; return (list items, headings), or None when markdown-it is needed."""
    pending: Pending = []
    headings: list[tuple[int, int, str]] = []
    special = _SPECIAL_START
    para = 0  # 0: no open paragraph, 1: a paragraph, 2: an entry's paragraph
    item = -1  # index in pending of the entry whose paragraph is open
    for idx, line in enumerate(lines):
        t = line.text
        if not t:
            line.kind = BLANK
            para = 0
            continue
        c = t[0]
        if c not in special:
            if para == 2:
                line.kind = CONTINUATION
                start = pending[item][0]
                pending[item] = (start, idx + 1, 0, -1)
            else:
                line.kind = TEXT
                para = 1
            continue
        if c == "-":
            if len(t) < 3 or t[1] != " ":
                return None
            d = t[2]
            if d in special and not _special(t[2:], d):
                return None
            line.kind = ENTRY
            pending.append((idx, idx + 1, 0, -1))
            item = len(pending) - 1
            para = 2
            continue
        if c == "#":
            m = _HEADING.match(t)
            if m is not None:
                if t.rstrip(" \t").endswith("#"):
                    return None  # a closing sequence: let markdown-it decide what it cuts
                level = len(m.group(1))
                line.kind = HEADING
                headings.append((idx + 1, level, t[level:].strip()))
                para = 0
                continue
            # "#tag" or "####### x": paragraph text
        elif c == " " or c == "\t":
            if t.strip(" \t"):
                return None
            line.kind = BLANK
            para = 0
            continue
        elif not _special(t, c):
            return None
        if para == 2:
            line.kind = CONTINUATION
            pending[item] = (pending[item][0], idx + 1, 0, -1)
        else:
            line.kind = TEXT
            para = 1
    return pending, headings
