"""The text of a ``verified:`` stamp and of a superseding entry (pure).

``verified: YYYY-MM-DD`` is amr's extension key (docs/format.md, section 11): the day someone
checked the fact against what it cites and found it still true, kept apart from ``added:`` (when
it was written). On an entry it is one metadata key; a line of prose has no metadata, so there it
goes in the file's front matter (Claude Code's topic files have one), for the whole file.

Superseding replaces a fact by its new wording: the new line keeps the old one's metadata but
``added`` and ``verified`` (both today: it is written and checked now), and the old wording gets a
tombstone with ``superseded-by`` (``core.tombstones``).
"""

from __future__ import annotations

from amr_tui.core.format.edit import insert_lines, replace_line, set_metadata
from amr_tui.core.format.metadata import format_metadata
from amr_tui.core.format.parser import Document
from amr_tui.core.model import WHITESPACE, Entry

VERIFIED = "verified"
SUPERSEDED_BY = "superseded-by"


def stamped_line(line_text: str, entry: Entry, day: str) -> str:
    """The entry's line with ``verified: day`` (an earlier stamp replaced)."""
    return set_metadata(line_text, entry, VERIFIED, day)


def front_matter_line(doc: Document, key: str) -> tuple[int, str] | None:
    """The line number and the value (as written) of ``key: value`` in the file's front matter;
    None when the file has no front matter or the key is not in it."""
    if not doc.front_matter:
        return None
    first, last = doc.front_matter
    for line in doc.lines[first : last - 1]:  # between the --- lines
        k, sep, value = line.text.partition(":")
        if sep and k.strip() == key:
            return line.number, value
    return None


def front_matter_stamped(doc: Document, day: str, key: str = VERIFIED) -> bytes | None:
    """The file with ``key: day`` in its front matter (replacing the key's line, or added before
    the closing ``---``); None when the file has no front matter."""
    if not doc.front_matter:
        return None
    found = front_matter_line(doc, key)
    if found is not None:
        return replace_line(doc, found[0], f"{key}: {day}")
    return insert_lines(doc, doc.front_matter[1] - 1, [f"{key}: {day}"])


def superseding_line(line_text: str, entry: Entry | None, new_text: str, day: str) -> str:
    """The line that replaces ``line_text``: the new wording, with the entry's indentation,
    marker and metadata (``added`` and ``verified`` set to ``day``); for a line of prose, the new
    wording with the line's indentation."""
    text = " ".join(new_text.split())
    if entry is None:
        indent = line_text[: len(line_text) - len(line_text.lstrip(WHITESPACE))]
        return indent + text
    items = [(m.key, m.value) for m in entry.metadata if m.key.lower() not in ("added", VERIFIED)]
    items += [("added", day), (VERIFIED, day)]
    head = line_text[: entry.content_start]
    return f"{head}{text} {format_metadata(items)}"


__all__ = ["SUPERSEDED_BY", "VERIFIED", "front_matter_line", "front_matter_stamped", "stamped_line", "superseding_line"]
