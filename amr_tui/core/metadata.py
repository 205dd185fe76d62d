"""Reading and writing the trailing ``[key: value; key: value]`` metadata of an entry.

The rules (decided in docs/format.md):

* Only bracket groups at the very end of the entry count, after trailing whitespace.
* A group is metadata when its first item is ``key: value``; otherwise (``[draft]``) it is
  part of the text.
* Several trailing metadata groups are read left to right as one list (AMR006).
* An item without ``key:`` after a metadata item is the rest of the previous value that
  held an unescaped ``;`` (AMR007); it is joined back with ``;``.
* A group right after ``]`` (a Markdown reference link ``[text][ref]``) or ``!`` is not
  metadata; right after ``]]`` (a wiki link) it is.
* Values are kept exactly as written (trimmed); ``%3B %5B %5D`` stay encoded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from amr_tui.core.model import MetaItem

KEY_RE = re.compile(r"\s*([A-Za-z][A-Za-z0-9_.-]*)\s*:(?!/)")
_GROUP_AT_END = re.compile(r"\[([^\[\]]*)\]$")
_LOOKS_LIKE_META = re.compile(r"\[\s*[A-Za-z][A-Za-z0-9_.-]*\s*:(?!/)")

ESCAPES = {";": "%3B", "[": "%5B", "]": "%5D"}


@dataclass(slots=True)
class MetaParse:
    items: list[MetaItem]
    meta_start: int  # offset in the content where the metadata starts; len(content) if none
    groups: list[tuple[int, int]]  # (start, end) offsets of each metadata group, in order
    joined_items: list[tuple[int, int]]  # (start, end) of items that were joined (unescaped ";")
    empty_items: list[tuple[int, int]]  # (start, end) of empty items (";;" or a trailing ";")
    trailing_non_meta: tuple[int, int] | None  # a trailing "[draft]"-like group
    unparsable: bool  # ends with "]" and looks like metadata but cannot be read


def _parse_group(inner: str, offset: int) -> tuple[list[MetaItem], list[tuple[int, int]], list[tuple[int, int]]] | None:
    """Parse the inside of one bracket group; ``offset`` is the position of ``inner[0]``."""
    parts: list[tuple[int, str]] = []
    pos = 0
    for piece in inner.split(";"):
        parts.append((pos, piece))
        pos += len(piece) + 1
    first = KEY_RE.match(parts[0][1])
    if first is None:
        return None
    items: list[MetaItem] = []
    joined: list[tuple[int, int]] = []
    empty: list[tuple[int, int]] = []
    for start, piece in parts:
        m = KEY_RE.match(piece)
        if m is not None:
            key = m.group(1)
            raw_value = piece[m.end():]
            value = raw_value.strip()
            key_start = offset + start + m.start(1)
            end = offset + start + len(piece.rstrip())
            items.append(MetaItem(key, value, key_start, end))
        elif piece.strip() == "":
            empty.append((offset + start, offset + start + len(piece)))
        else:
            prev = items[-1]
            value = prev.value + ";" + piece.rstrip()
            end = offset + start + len(piece.rstrip())
            items[-1] = MetaItem(prev.key, value.strip(), prev.start, end)
            joined.append((offset + start - 1, end))
    return items, joined, empty


def parse_metadata(content: str) -> MetaParse:
    """Split the trailing metadata off an entry's content (the text after the bullet)."""
    body_end = len(content.rstrip())
    pos = body_end
    groups: list[tuple[int, int]] = []
    group_items: list[list[MetaItem]] = []
    joined: list[tuple[int, int]] = []
    empty: list[tuple[int, int]] = []
    trailing_non_meta: tuple[int, int] | None = None
    refused = False  # a trailing group was seen but is a link, an image or plain text
    while pos > 0:
        head = content[:pos]
        m = _GROUP_AT_END.search(head)
        if m is None:
            break
        start = m.start()
        if start > 0 and head[start - 1] == "!":
            refused = True
            break
        if start > 0 and head[start - 1] == "]" and not head[:start].endswith("]]"):
            refused = True
            break
        parsed = _parse_group(m.group(1), start + 1)
        if parsed is None:
            refused = True
            if not groups and m.group(1).strip():
                trailing_non_meta = (start, m.end())
            break
        items, j, e = parsed
        groups.insert(0, (start, m.end()))
        group_items.insert(0, items)
        joined.extend(j)
        empty.extend(e)
        pos = len(head[:start].rstrip())
    items = [item for chunk in group_items for item in chunk]
    meta_start = groups[0][0] if groups else len(content)
    unparsable = False
    if not groups and not refused and body_end and content[body_end - 1] == "]":
        unparsable = _LOOKS_LIKE_META.search(content) is not None
    return MetaParse(items, meta_start, groups, joined, empty, trailing_non_meta, unparsable)


def escape_value(value: str) -> str:
    """Escape ``;``, ``[`` and ``]`` so a value can sit inside metadata brackets."""
    return "".join(ESCAPES.get(ch, ch) for ch in value)


def format_metadata(items: list[tuple[str, str]]) -> str:
    """``[key: value; key: value]`` or ``""`` for no items. Values are escaped."""
    if not items:
        return ""
    return "[" + "; ".join(f"{k}: {escape_value(v)}" for k, v in items) + "]"


def format_entry(text: str, items: list[tuple[str, str]] | None = None, *, marker: str = "-", indent: str = "") -> str:
    """The canonical one-line form of an entry (no end of line)."""
    text = " ".join(text.split())
    meta = format_metadata(items or [])
    body = f"{text} {meta}" if text and meta else (text or meta)
    return f"{indent}{marker} {body}".rstrip() if body else f"{indent}{marker}"
