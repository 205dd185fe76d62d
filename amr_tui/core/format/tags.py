"""Tags: ``#tag`` in the text, ``[tags: ...]`` metadata and front matter ``tags:``, read as one set.

Where a tag is read (docs/format.md, section 13):

* **In text**: ``#`` at the start of the text or after whitespace, then letters, digits, ``_``,
  ``-`` and ``/`` (a nested tag: ``#project/alpha``). It holds a letter: ``#123`` (an issue) and
  ``#2026-10`` are not tags. ``#`` and three or six hex digits (``#fff``, ``#1e90ff``), or four or
  eight holding a digit (``#fffa`` is a tag, ``#ff0a`` a colour), is a colour. Not inside inline
  code or a link (``[[note#heading]]``, ``[t](file.md#part)``); a ``#`` inside a URL never
  follows whitespace, so it is never a tag. The text read is an entry's text (never its
  metadata), and in a format that writes paragraphs each line of running text (what the search
  index holds: ``core.format.edit.searchable_lines``); headings, code and HTML are never read.
* **In metadata**: the values of an entry's ``tags`` (or ``tag``) key, split on commas and
  whitespace, a leading ``#`` dropped: ``[tags: infra, ops]``.
* **In front matter**: ``tags:`` (or ``tag:``) as a list ``[a, b]``, a comma- or space-separated
  value, or the lines ``- a`` under it. They are the file's tags: every entry of the file has them.

Tags compare without case (``#Infra`` is ``infra``); ``tag:project`` also finds ``project/alpha``.
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from amr_tui.core.format.links import code_spans, find_links
from amr_tui.core.model import LineKind, ParsedFile

__all__ = [
    "TAG_KEYS",
    "TagSpan",
    "file_tags",
    "find_tags",
    "front_matter_tags",
    "item_tags",
    "normal_tag",
    "rename_tag",
    "tag_matches",
    "tag_values",
]

#: Metadata and front matter keys that hold tags.
TAG_KEYS = ("tags", "tag")

_TAG = re.compile(r"(?<!\S)#([\w][\w/-]*)")
_HEX = re.compile(r"[0-9A-Fa-f]+")
_SPLIT = re.compile(r"[,\s]+")
_FM_KEY = re.compile(r"(tags?)[ \t]*:(.*)\Z", re.I)
_FM_ITEM = re.compile(r"[ \t]+-[ \t]+(.*)\Z|-[ \t]+(.*)\Z")


@dataclass(frozen=True, slots=True)
class TagSpan:
    start: int  # offset of the "#"
    end: int  # offset just past the tag's name
    name: str  # folded (lower case)


def _is_colour(name: str) -> bool:
    if not _HEX.fullmatch(name):
        return False
    if len(name) in (3, 6):
        return True
    return len(name) in (4, 8) and any(c.isdigit() for c in name)


def normal_tag(name: str) -> str | None:
    """The tag ``name`` names (folded, ``#`` and trailing ``/`` or ``-`` dropped), or None when it
    is no tag: empty, no letter (``123``), a colour, or a character a tag cannot hold."""
    name = name.strip().lstrip("#").rstrip("/-")
    if not name or not re.fullmatch(r"[\w][\w/-]*", name):
        return None
    if not any(c.isalpha() for c in name) or _is_colour(name):
        return None
    return name.casefold()


def find_tags(text: str) -> list[TagSpan]:
    """The ``#tags`` of a text (an entry's text, a line of running text), outside inline code
    and links."""
    if "#" not in text:
        return []
    blocked: list[tuple[int, int]] = []
    if "`" in text:
        blocked += code_spans(text)
    if "[" in text:
        blocked += [(lk.start, lk.end) for lk in find_links(text, 0, "")]
    out: list[TagSpan] = []
    for m in _TAG.finditer(text):
        if any(a <= m.start() < b for a, b in blocked):
            continue
        raw = m.group(1).rstrip("/-")
        name = normal_tag(raw)
        if name is not None:
            out.append(TagSpan(m.start(), m.start() + 1 + len(raw), name))
    return out


def tag_values(value: str) -> list[str]:
    """The tags of a metadata or front matter value: ``infra, ops``, ``#infra #ops``, ``[a, b]``."""
    value = value.strip().strip("[]")
    out: list[str] = []
    for part in _SPLIT.split(value):
        name = normal_tag(part.strip("'\""))
        if name is not None and name not in out:
            out.append(name)
    return out


def front_matter_tags(lines: Sequence[str]) -> list[str]:
    """The tags of front matter, given its lines between the ``---`` lines."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _FM_KEY.match(lines[i])
        i += 1
        if m is None:
            continue
        value = m.group(2).strip()
        if value:
            out += [t for t in tag_values(value) if t not in out]
            continue
        while i < len(lines) and (item := _FM_ITEM.match(lines[i])) is not None:  # a block list
            out += [t for t in tag_values(item.group(1) or item.group(2) or "") if t not in out]
            i += 1
    return out


def file_tags(doc: ParsedFile) -> tuple[str, ...]:
    """The tags a file's front matter gives it (every entry of the file has them)."""
    if not doc.front_matter:
        return ()
    first, last = doc.front_matter
    return tuple(front_matter_tags([ln.text for ln in doc.lines[first : last - 1]]))


def item_tags(text: str, meta: Mapping[str, Sequence[str]] | None, of_file: Iterable[str] = ()) -> set[str]:
    """Every tag of one entry (or line of running text): in its text, its ``tags`` metadata and
    its file's front matter. What ``tag:NAME`` matches, in the app, ``amr search`` and MCP."""
    found = {t.name for t in find_tags(text)}
    if meta:
        for key in TAG_KEYS:
            for value in meta.get(key, ()):
                found.update(tag_values(value))
    found.update(of_file)
    return found


def tag_matches(tag: str, wanted: str) -> bool:
    """``tag:wanted`` finds ``tag``: the same tag, or one nested in it (``project/alpha`` for ``project``)."""
    return tag == wanted or tag.startswith(wanted + "/")


# ------------------------------------------------------------------------------------- renaming


def _renamed(name: str, old: str, new: str) -> str | None:
    folded = name.casefold()
    if folded == old:
        return new
    if folded.startswith(old + "/"):
        return new + name[len(old) :]
    return None


def _rename_in_text(text: str, old: str, new: str) -> tuple[str, int]:
    out: list[str] = []
    pos = count = 0
    for span in find_tags(text):
        renamed = _renamed(text[span.start + 1 : span.end], old, new)
        if renamed is None:
            continue
        out += [text[pos : span.start], "#", renamed]
        pos = span.end
        count += 1
    out.append(text[pos:])
    return "".join(out), count


def _rename_in_value(value: str, old: str, new: str) -> tuple[str, int]:
    """Rename the tag in a ``tags`` value (``infra, ops``, ``[a, "b"]``), keeping its separators."""
    count = 0

    def one(m: re.Match[str]) -> str:
        nonlocal count
        lead, name = m.group(1), m.group(2)
        renamed = _renamed(name, old, new)
        if renamed is None or normal_tag(name) is None:
            return m.group(0)
        count += 1
        return lead + renamed

    done = re.sub(r"(#?)([\w][\w/-]*)", one, value)
    return done, count


def rename_tag(doc: ParsedFile, old: str, new: str, *, prose: bool = False) -> tuple[list[str], int]:
    """Each line's text with tag ``old`` (folded) renamed ``new`` (nested tags under it too), and
    how many tags changed: in entry text, ``tags`` metadata and front matter; with ``prose``
    (a format that writes paragraphs), in running text too. Lines with no tag come back as they
    were; code, headings and links are never touched."""
    texts = [ln.text for ln in doc.lines]
    count = 0
    for entry in doc.entries:
        i = entry.line - 1
        line = texts[i]
        cut = entry.meta_start if entry.metadata else len(line)
        head, n = _rename_in_text(line[entry.content_start : cut], old, new)
        tail = line[cut:]
        for item in sorted((m for m in entry.metadata if m.key.lower() in TAG_KEYS), key=lambda m: -m.start):
            rel_start, rel_end = item.start - cut, item.end - cut
            if rel_start < 0:
                continue
            key, colon, value = tail[rel_start:rel_end].partition(":")
            value, k = _rename_in_value(value, old, new)
            n += k
            tail = tail[:rel_start] + key + colon + value + tail[rel_end:]
        if n:
            texts[i] = line[: entry.content_start] + head + tail
            count += n
    if prose:
        entry_lines = {e.line for e in doc.entries}
        for ln in doc.lines:
            if ln.number not in entry_lines and ln.kind in (LineKind.TEXT, LineKind.CONTINUATION, LineKind.QUOTE):
                done, n = _rename_in_text(texts[ln.number - 1], old, new)
                if n:
                    texts[ln.number - 1] = done
                    count += n
    if doc.front_matter:
        first, last = doc.front_matter
        in_tags = False
        for i in range(first, last - 1):
            text = texts[i]
            m = _FM_KEY.match(text)
            if m is not None:
                in_tags = not m.group(2).strip()
                value, n = _rename_in_value(m.group(2), old, new)
                if n:
                    texts[i] = text[: m.start(2)] + value
                    count += n
                continue
            listed = _FM_ITEM.match(text) if in_tags else None
            if listed is None:
                in_tags = False
                continue
            group = 1 if listed.group(1) is not None else 2
            value, n = _rename_in_value(listed.group(group), old, new)
            if n:
                texts[i] = text[: listed.start(group)] + value
                count += n
    return texts, count
