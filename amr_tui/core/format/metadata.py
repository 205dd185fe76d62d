"""Reading and writing the trailing ``[key: value; key: value]`` metadata of an entry.

The rules (decided in docs/format.md):

* Only bracket groups at the very end of the entry count, after trailing whitespace.
* A group is metadata when its first item is ``key: value``; otherwise (``[draft]``) it is
  part of the text.
* Several trailing metadata groups are read left to right as one list (AMR006).
* An item without ``key:`` after a metadata item is the rest of the previous value that
  held an unescaped ``;`` (AMR007); it is joined back with ``;``.
* A group right after ``]`` (a Markdown reference link ``[text][ref]``) or ``!`` is not
  metadata; right after ``]]`` (a wiki link) or another metadata group (``[a: 1][b: 2]``) it is.
* Values are kept exactly as written (trimmed); ``%3B %5B %5D`` stay encoded.
* Trimming removes ASCII whitespace only (space, tab, VT, FF, CR: ``model.WHITESPACE``).
* A ``[key: ...`` group that could not be read is reported (AMR026) with the reason: a ``[``
  or ``]`` inside a value, or a ``]`` or ``!`` right before it (``[t][source: x]`` reads as a
  Markdown reference link). One with only bracket groups after it (``[source: x] [[a]]``,
  NOT_LAST) is misplaced metadata: core.format.rules reports it as AMR031, with a fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from sys import intern

from amr_tui.core.format.links import code_spans, link_spans
from amr_tui.core.model import WHITESPACE, MetaItem

_WS = "[ \\t\\v\\f\\r]*"
KEY_RE = re.compile(_WS + r"([A-Za-z][A-Za-z0-9_.-]*)" + _WS + ":(?!/)")
# KEY_RE, then the value trimmed of WHITESPACE (group 2), for a whole ";"-separated piece.
_KEY_VALUE_RE = re.compile(
    _WS + r"([A-Za-z][A-Za-z0-9_.-]*)" + _WS + ":(?!/)" + _WS + r"((?:.*[^ \t\v\f\r])?)" + _WS + r"\Z", re.S
)
# One item: KEY_RE, then the rest of its ";"-separated piece (group 2, still to be trimmed).
_ITEM_RE = re.compile(_WS + r"([A-Za-z][A-Za-z0-9_.-]*)" + _WS + ":(?!/)" + _WS + r"([^;]*)")
_LOOKS_LIKE_META = re.compile(r"\[" + _WS + r"[A-Za-z][A-Za-z0-9_.-]*" + _WS + ":(?!/)")
_ONLY_GROUPS = re.compile(
    r"(?:[ \t\v\f\r]*!?\[[^\[\]]*\]|[ \t\v\f\r]*\[\[[^\[\]]*\]\]|[ \t\v\f\r]*\([^()]*\))+[ \t\v\f\r]*"
)

# Why a metadata-looking group was not read (MetaParse.unparsable_reason).
VALUE_BRACKETS = "value"  # "[source: https://x/[1]]": a bracket inside a value
NOT_LAST = "not_last"  # "[source: x] [[a]]": something after the metadata
AFTER_BRACKET = "after_bracket"  # "[t][source: x]": a reference link
AFTER_BANG = "after_bang"  # "![source: x]": an image

ESCAPES = {";": "%3B", "[": "%5B", "]": "%5D"}


@dataclass(slots=True)
class MetaParse:
    items: list[MetaItem]
    meta_start: int  # offset in the content where the metadata starts; len(content) if none
    groups: list[tuple[int, int]]  # (start, end) offsets of each metadata group, in order
    joined_items: list[tuple[int, int]]  # (start, end) of items that were joined (unescaped ";")
    empty_items: list[tuple[int, int]]  # (start, end) of empty items (";;" or a trailing ";")
    trailing_non_meta: tuple[int, int] | None  # a trailing "[draft]"-like group
    unparsable: bool  # a "[key: ..." group that cannot be read as trailing metadata
    unparsable_reason: str = ""  # VALUE_BRACKETS, NOT_LAST, AFTER_BRACKET or AFTER_BANG
    unparsable_at: int = 0  # offset of its "["


def parse_group(
    inner: str, offset: int, base: int = 0
) -> tuple[list[MetaItem], list[tuple[int, int]], list[tuple[int, int]]] | None:
    """Parse the inside of one bracket group; ``offset`` is the position of ``inner[0]``.

    The group is read as ``;``-separated pieces: a piece ``key: value`` is an item; a blank
    piece is an empty item; any other piece is the rest of the previous value (an unescaped
    ``;``), joined back. Items' ``start``/``end`` are positions plus ``base``; joined and empty
    spans are not shifted. ``None`` when the first piece is not ``key: value``.
    """
    m = _ITEM_RE.match(inner)
    if m is None:
        return None
    items: list[MetaItem] = []
    joined: list[tuple[int, int]] = []
    empty: list[tuple[int, int]] = []
    size = len(inner)
    at = base + offset
    pos = 0  # where the current piece starts
    while True:
        if m is not None:  # "key: value" up to the next ";" or the end
            raw = m.group(2)
            value = raw.rstrip(WHITESPACE)
            if value:
                end = m.start(2) + len(value)
            else:  # "key:" with nothing after it: the item ends after the last non-blank
                end = len(inner[: m.end(2)].rstrip(WHITESPACE))
            # keys and short values (dates, levels) repeat across entries: keep one copy of each
            items.append(
                MetaItem(intern(m.group(1)), intern(value) if len(value) <= 16 else value, at + m.start(1), at + end)
            )
            stop = m.end()
        else:  # a piece that is not "key: value": blank, or the rest of the previous value
            stop = inner.find(";", pos)
            if stop == -1:
                stop = size
            piece = inner[pos:stop]
            if piece.strip(WHITESPACE) == "":
                empty.append((offset + pos, offset + stop))
            else:
                prev = items[-1]
                rest = piece.rstrip(WHITESPACE)
                end = pos + len(rest)
                items[-1] = MetaItem(prev.key, (prev.value + ";" + rest).strip(WHITESPACE), prev.start, at + end)
                joined.append((offset + pos - 1, offset + end))
        if stop >= size:
            return items, joined, empty
        pos = stop + 1  # past the ";"
        m = _ITEM_RE.match(inner, pos)


def read_group(inner: str) -> list[MetaItem] | None:
    """The items of one bracket group's inside (no brackets), or None when it is not metadata
    (its first item is not ``key: value``). Item positions are offsets in ``inner``."""
    parsed = parse_group(inner, 0)
    return None if parsed is None else parsed[0]


def _group_at_end(content: str, pos: int) -> tuple[int, str] | None:
    """The group ``[...]`` (no brackets inside) that ends just before ``pos``: (start, inside)."""
    if pos <= 0 or content[pos - 1] != "]":
        return None
    start = content.rfind("[", 0, pos - 1)
    if start == -1 or "]" in content[start + 1 : pos - 1]:
        return None
    return start, content[start + 1 : pos - 1]


def _rstrip_at(content: str, pos: int) -> int:
    return len((content if pos == len(content) else content[:pos]).rstrip(WHITESPACE))


def parse_metadata(content: str, *, base: int = 0) -> MetaParse:
    """Split the trailing metadata off an entry's content (the text after the bullet).

    Offsets are positions in ``content``; the items' ``start``/``end`` have ``base`` added (the
    parser passes the content's offset in the line, so items carry line positions).
    """
    body_end = len(content.rstrip(WHITESPACE))
    if not body_end or content[body_end - 1] != "]":
        return MetaParse([], len(content), [], [], [], None, False)
    # The common shape, "text [key: value; key: value]", read directly; anything else below.
    start = content.rfind("[", 0, body_end - 1)
    if start > 0 and content[start - 1] in WHITESPACE and "]" not in content[start + 1 : body_end - 1]:
        parsed = parse_group(content[start + 1 : body_end - 1], start + 1, base)
        if parsed is not None:
            text_end = len(content[:start].rstrip(WHITESPACE))
            if not text_end or content[text_end - 1] != "]":
                return MetaParse(parsed[0], start, [(start, body_end)], parsed[1], parsed[2], None, False)
    pos = body_end
    groups: list[tuple[int, int]] = []
    group_items: list[list[MetaItem]] = []
    joined: list[tuple[int, int]] = []
    empty: list[tuple[int, int]] = []
    trailing_non_meta: tuple[int, int] | None = None
    reason, reason_at = "", 0
    while pos > 0:
        found = _group_at_end(content, pos)
        if found is None:
            break
        start, inner = found
        prefix = content[start - 1] if start > 0 else ""
        if prefix == "!" or (
            prefix == "]" and not content.startswith("]]", start - 2) and not _meta_before(content, start)
        ):
            if parse_group(inner, start + 1) is not None:
                reason = AFTER_BANG if prefix == "!" else AFTER_BRACKET
                reason_at = start
            break
        parsed = parse_group(inner, start + 1, base)
        if parsed is None:
            if not groups and inner.strip(WHITESPACE):
                trailing_non_meta = (start, pos)
            break
        items, j, e = parsed
        groups.append((start, pos))
        group_items.append(items)
        joined.extend(j)
        empty.extend(e)
        pos = _rstrip_at(content, start)
    groups.reverse()
    group_items.reverse()
    items = group_items[0] if len(group_items) == 1 else [item for chunk in group_items for item in chunk]
    meta_start = groups[0][0] if groups else len(content)
    if not reason:
        reason, reason_at = _stranded(content, _rstrip_at(content, meta_start))
    return MetaParse(items, meta_start, groups, joined, empty, trailing_non_meta, bool(reason), reason, reason_at)


def _meta_before(content: str, pos: int) -> bool:
    """A metadata group ends at ``pos``: ``[a: 1][b: 2]`` is two groups, not a reference link."""
    found = _group_at_end(content, pos)
    return found is not None and parse_group(found[1], 0) is not None


def _stranded(content: str, text_end: int) -> tuple[str, int]:
    """A ``[key: ...`` group in the text part that was meant as metadata but is not read.

    Looks at the rightmost ``[key:`` outside inline code and ``[[links]]``, when the text part
    ends with ``]``: its brackets never close, or close at the very end around nested brackets,
    or are followed by stray ``]`` (VALUE_BRACKETS); or only bracket groups follow it (NOT_LAST).
    Prose after it (``[note: x] and more``) is just text.
    """
    if text_end == 0 or content[text_end - 1] != "]":
        return "", 0
    text = content[:text_end]
    skip = code_spans(text) + link_spans(text) if ("`" in text or "[[" in text) else []
    found = [m for m in _LOOKS_LIKE_META.finditer(text) if not any(a <= m.start() < b for a, b in skip)]
    if not found:
        return "", 0
    at = found[-1].start()
    depth, close = 0, -1
    for i in range(at, text_end):
        ch = text[i]
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                close = i
                break
    if close == -1 or close == text_end - 1:
        return VALUE_BRACKETS, at
    rest = text[close + 1 :]
    if rest.strip("]" + WHITESPACE) == "":
        return VALUE_BRACKETS, at
    if _ONLY_GROUPS.fullmatch(rest):
        return NOT_LAST, at
    return "", 0


def escape_value(value: str) -> str:
    """Escape ``;``, ``[`` and ``]`` so a value can sit inside metadata brackets."""
    return "".join(ESCAPES.get(ch, ch) for ch in value)


def format_metadata(items: list[tuple[str, str]]) -> str:
    """``[key: value; key: value]`` or ``""`` for no items. Values are escaped."""
    if not items:
        return ""
    return "[" + "; ".join(f"{k}: {escape_value(v)}" for k, v in items) + "]"
