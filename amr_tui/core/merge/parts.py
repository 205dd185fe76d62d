"""Pieces of amr's three-way merge: the conflict model, rendering, and merging one entry line.

Pure: no I/O. See :mod:`amr_tui.core.merge.three_way` for the merge itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from amr_tui.core.format.metadata import format_metadata
from amr_tui.core.format.parser import BOM
from amr_tui.core.model import WHITESPACE, Entry

OURS, THEIRS, BASE, BOTH = "ours", "theirs", "base", "both"
CHOICES = (OURS, THEIRS, BASE, BOTH)

# Why a conflict happened (Conflict.reason).
EDITED_BOTH = "edited on both sides"
DELETED_OURS = "deleted on our side, edited on theirs"
DELETED_THEIRS = "edited on our side, deleted on theirs"
ADDED_BOTH = "different text added at the same place on both sides"
TEXT = "overlapping changes to text that is not an entry"

Choice = str | Sequence[str]  # one of CHOICES, or the lines to write instead (an edit)
Pair = tuple[str, str]  # (line text, end of line)
_V = TypeVar("_V")  # a value merged three ways (_pick)


@dataclass(frozen=True, slots=True)
class Conflict:
    """One place the merge could not decide, in the order it appears in the file.

    ``kind`` is ``"entry"`` (markers around that one entry) or ``"text"`` (an ordinary line
    conflict). ``ours``/``base``/``theirs`` hold the lines of each side without end of line; an
    empty tuple means the entry is absent on that side (deleted, or never there). ``line`` is the
    1-based line of the ``<<<<<<<`` marker in :attr:`MergeResult.merged`. ``entry`` is the fact
    the conflict is about (the entry text without metadata), for a heading in the UI.
    """

    index: int
    kind: str
    reason: str
    ours: tuple[str, ...]
    base: tuple[str, ...]
    theirs: tuple[str, ...]
    line: int = 0
    entry: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "index": self.index,
            "kind": self.kind,
            "reason": self.reason,
            "line": self.line,
            "entry": self.entry,
            "ours": list(self.ours),
            "base": list(self.base),
            "theirs": list(self.theirs),
        }


@dataclass(slots=True)
class ConflictPiece:
    kind: str
    reason: str
    ours: list[Pair]
    base: list[Pair]
    theirs: list[Pair]
    entry: str = ""


@dataclass(frozen=True, slots=True)
class Layout:
    """How to write lines back: BOM, the end of line for new lines, and the final newline."""

    bom: bool
    eol: str
    final_newline: bool
    marker_size: int = 7
    labels: tuple[str, str, str] = (OURS, BASE, THEIRS)


@dataclass(frozen=True)
class MergeResult:
    """The merged bytes and what conflicted. ``pieces`` lets :meth:`resolve` re-render."""

    merged: bytes
    conflicts: tuple[Conflict, ...]
    pieces: tuple[list[Pair] | ConflictPiece, ...] = field(repr=False, default=())
    layout: Layout | None = field(repr=False, default=None)

    @property
    def clean(self) -> bool:
        return not self.conflicts

    def resolve(self, choices: Mapping[int, Choice]) -> bytes:
        """The file with each conflict ``index`` replaced by its choice.

        A choice is ``"ours"``, ``"theirs"``, ``"base"``, ``"both"`` (ours, then the theirs lines
        that ours does not already have) or a sequence of lines written instead (an edit; lines
        must not hold line breaks). Conflicts without a choice keep their markers.
        """
        for index, choice in choices.items():
            if not 0 <= index < len(self.conflicts):
                raise IndexError(f"no conflict {index} (there are {len(self.conflicts)})")
            if isinstance(choice, str) and choice not in CHOICES:
                raise ValueError(f"unknown choice {choice!r}: use one of {', '.join(CHOICES)} or a list of lines")
            if not isinstance(choice, str):
                for text in choice:
                    if "\n" in text or "\r" in text:
                        raise ValueError("an edited line holds a line break")
        assert self.layout is not None
        return render(self.pieces, self.layout, choices)[0]


def _chosen(piece: ConflictPiece, choice: Choice, eol: str) -> list[Pair]:
    if choice == OURS:
        return list(piece.ours)
    if choice == THEIRS:
        return list(piece.theirs)
    if choice == BASE:
        return list(piece.base)
    if choice == BOTH:
        seen = {t for t, _ in piece.ours}
        return list(piece.ours) + [p for p in piece.theirs if p[0] not in seen]
    return [(text, eol) for text in choice]


def render(
    pieces: Sequence[list[Pair] | ConflictPiece], layout: Layout, choices: Mapping[int, Choice] | None = None
) -> tuple[bytes, list[Conflict]]:
    """Bytes of the merged file (markers for conflicts without a choice) and the conflicts."""
    out: list[Pair] = []
    conflicts: list[Conflict] = []
    eol = layout.eol
    n = 0
    for piece in pieces:
        if not isinstance(piece, ConflictPiece):
            out.extend(piece)
            continue
        index = n
        n += 1
        if choices is not None and index in choices:
            out.extend(_chosen(piece, choices[index], eol))
            continue
        conflicts.append(
            Conflict(
                index,
                piece.kind,
                piece.reason,
                tuple(t for t, _ in piece.ours),
                tuple(t for t, _ in piece.base),
                tuple(t for t, _ in piece.theirs),
                len(out) + 1,
                piece.entry,
            )
        )
        size = layout.marker_size
        ours_l, base_l, theirs_l = layout.labels
        out.append(("<" * size + " " + ours_l, eol))
        out.extend((t, e or eol) for t, e in piece.ours)
        out.append(("|" * size + " " + base_l, eol))
        out.extend((t, e or eol) for t, e in piece.base)
        out.append(("=" * size, eol))
        out.extend((t, e or eol) for t, e in piece.theirs)
        out.append((">" * size + " " + theirs_l, eol))
    for i in range(len(out) - 1):
        if not out[i][1]:
            out[i] = (out[i][0], eol)
    if out:
        last_text, last_eol = out[-1]
        out[-1] = (last_text, (last_eol or eol) if layout.final_newline else "")
    text = (BOM if layout.bom else "") + "".join(t + e for t, e in out)
    return text.encode("utf-8", "surrogateescape"), conflicts


# ---------------------------------------------------------------------------------------------
# One entry line, three ways


def _pick(base: _V, ours: _V, theirs: _V) -> tuple[bool, _V | None]:
    """Three-way choice of one value; ``None`` when both sides changed it differently."""
    if ours == base:
        return True, theirs
    if theirs == base or theirs == ours:
        return True, ours
    return False, None


def _items(entry: Entry) -> list[tuple[str, str]]:
    return [(m.key, m.value) for m in entry.metadata]


def _by_key(items: list[tuple[str, str]]) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for key, value in items:
        out.setdefault(key.lower(), []).append((key, value))
    return out


def merge_metadata(
    base: list[tuple[str, str]], ours: list[tuple[str, str]], theirs: list[tuple[str, str]]
) -> list[tuple[str, str]] | None:
    """Key-by-key three-way merge of metadata items; ``None`` when one key changed both ways.

    Keys compare case-insensitively; a repeated key is one value (its list of values). The
    result keeps our order, then the keys only theirs added, in their order.
    """
    b, o, t = _by_key(base), _by_key(ours), _by_key(theirs)
    order = list(o) + [k for k in t if k not in o]
    result: list[tuple[str, str]] = []
    for key in order + [k for k in b if k not in o and k not in t]:
        ok, chosen = _pick(_vals(b.get(key)), _vals(o.get(key)), _vals(t.get(key)))
        if not ok:
            return None
        if chosen is None:
            continue
        source = (
            o.get(key) if chosen == _vals(o.get(key)) else t.get(key) if chosen == _vals(t.get(key)) else b.get(key)
        )
        result.extend(source or [])
    return result


def _vals(items: list[tuple[str, str]] | None) -> tuple[str, ...] | None:
    return None if items is None else tuple(v for _, v in items)


def _head(line: str, entry: Entry) -> str:
    return line[: entry.meta_start].rstrip(WHITESPACE)


def merge_entry_line(base: str, ours: str, theirs: str, eb: Entry, eo: Entry, et: Entry) -> str | None:
    """Merge one entry edited on both sides, part by part; ``None`` when it conflicts.

    The text (with indent and marker) is one part; each metadata key is another. An entry whose
    text changed on one side and whose metadata changed on the other merges; the same key (or
    the text) changed differently on both sides conflicts.
    """
    ok, head = _pick(_head(base, eb), _head(ours, eo), _head(theirs, et))
    if not ok:
        return None
    items = merge_metadata(_items(eb), _items(eo), _items(et))
    if items is None:
        return None
    for line, entry in ((ours, eo), (theirs, et)):
        if head == _head(line, entry) and items == _items(entry):
            return line
    meta = format_metadata(items)
    return f"{head} {meta}" if meta else head
