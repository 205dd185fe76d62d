"""The metadata of a file's entries, kept compactly for the search filters.

The finder's ``source:``, ``added:>=``, ``has:`` and ``KEY:VALUE`` filters read an entry's
``[key: value]`` metadata. The session keeps a parsed ``Document`` only for the few files open
or recently read (a million entries' worth of Documents is most of a gigabyte), so what the
filters need of every other file is kept here: one string per file with each entry's items,
and two arrays (the entry's line, where its items start). About 50 bytes an entry instead of
the entry's objects. Keys are lower-cased (filters match keys without case); a key never holds
``:`` or a line break (``core.format.metadata.KEY_RE``) and a value never holds a line break
(an entry is one line), so ``key:value`` pairs joined by line breaks cannot be misread.
Pure: no I/O.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Collection, Iterable

from amr_tui.core.model import Entry

__all__ = ["FileMeta", "PackedMeta", "file_meta", "pack_meta", "unpack_meta"]

_NO_KEYS: frozenset[str] = frozenset()

PackedMeta = tuple[bytes, bytes, str, tuple[str, ...]]  # lines, offsets (array "I" bytes), text, keys


class FileMeta:
    """The metadata of the entries of one file that have any, by the entry's (first) line."""

    __slots__ = ("_lines", "_offsets", "_text", "keys")

    def __init__(self, lines: array[int], offsets: array[int], text: str, keys: frozenset[str]) -> None:
        self._lines = lines  # ascending line of each entry with metadata
        self._offsets = offsets  # len(lines) + 1 offsets into text
        self._text = text
        self.keys = keys  # every key of the file, lower-cased

    def __len__(self) -> int:
        return len(self._lines)

    def at(self, line: int) -> dict[str, list[str]] | None:
        """``{key: [values]}`` of the entry at ``line`` (keys lower-cased, in order); None when
        that entry has no metadata."""
        i = bisect_left(self._lines, line)
        if i == len(self._lines) or self._lines[i] != line:
            return None
        out: dict[str, list[str]] = {}
        for pair in self._text[self._offsets[i] : self._offsets[i + 1]].split("\n"):
            key, _, value = pair.partition(":")
            out.setdefault(key, []).append(value)
        return out

    def values_of(self, keys: Collection[str]) -> dict[int, list[str]]:
        """The values of ``keys`` (lower case) of each entry that has any, by the entry's line:
        one pass over the file (``at`` for every entry costs a search each)."""
        out: dict[int, list[str]] = {}
        text, offsets = self._text, self._offsets
        for i, line in enumerate(self._lines):
            for pair in text[offsets[i] : offsets[i + 1]].split("\n"):
                key, _, value = pair.partition(":")
                if key in keys:
                    out.setdefault(line, []).append(value)
        return out


def file_meta(entries: Iterable[Entry], intern: dict[frozenset[str], frozenset[str]] | None = None) -> FileMeta | None:
    """The metadata of ``entries`` (a document's), or None when none has any. ``intern``: a
    dict shared across files, so files with the same keys share one frozenset."""
    lines: array[int] = array("I")
    offsets: array[int] = array("I", [0])
    parts: list[str] = []
    keys: set[str] = set()
    at = 0
    last = -1
    for entry in entries:
        if not entry.metadata or entry.line <= last:
            continue
        last = entry.line
        chunk = "\n".join(f"{m.key.lower()}:{m.value}" for m in entry.metadata)
        keys.update(m.key.lower() for m in entry.metadata)
        lines.append(entry.line)
        parts.append(chunk)
        at += len(chunk)
        offsets.append(at)
    if not lines:
        return None
    return FileMeta(lines, offsets, "".join(parts), _intern(frozenset(keys), intern))


def _intern(keys: frozenset[str], intern: dict[frozenset[str], frozenset[str]] | None) -> frozenset[str]:
    if not keys:
        return _NO_KEYS
    return intern.setdefault(keys, keys) if intern is not None else keys


def pack_meta(m: FileMeta) -> PackedMeta:
    """Plain bytes and strings (what a cache may hold)."""
    return m._lines.tobytes(), m._offsets.tobytes(), m._text, tuple(sorted(m.keys))


def unpack_meta(t: PackedMeta, intern: dict[frozenset[str], frozenset[str]] | None = None) -> FileMeta:
    """The FileMeta of ``pack_meta``; ValueError when its parts do not line up."""
    raw_lines, raw_offsets, text, keys = t
    lines: array[int] = array("I")
    offsets: array[int] = array("I")
    lines.frombytes(raw_lines)
    offsets.frombytes(raw_offsets)
    if len(offsets) != len(lines) + 1 or offsets[-1] != len(text):
        raise ValueError("packed metadata does not line up")
    return FileMeta(lines, offsets, str(text), _intern(frozenset(map(str, keys)), intern))
