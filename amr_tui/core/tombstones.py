"""Tombstones: plain-Markdown records of facts removed on purpose (pure).

The extension (docs/format.md, "Tombstones") keeps one file, ``.amr/forgotten.md``. It is never
linked from ``MEMORY.md``, so agents do not load it at session start; being under a dot-folder,
lint does not call it an orphan (AMR013 exempts dot-files) and does not compare it for duplicates.
Each forgotten fact is one ordinary entry whose metadata uses open keys:

    - Dev server was on port 3001 this afternoon [forgotten: 2026-10-08; reason: transient; by: Alice Chen; source: https://example.com/sessions/118; file: dev-port.md]
    - (redacted) [forgotten: 2026-10-08; reason: personal data; by: Alice Chen; digest: sha256:…]

``forgotten`` (the date) marks a tombstone. The redacting variant keeps no text and no source,
only ``digest``: ``sha256:`` + the hex SHA-256 of the fact's normalised text (UTF-8). Matching
a live entry against tombstones (resurrection detection) uses :class:`FactMatcher`: normalised
equality, equal digests, or ``similarity.same_fact`` (rapidfuzz, 90 or more).
"""

from __future__ import annotations

from dataclasses import dataclass

from amr_tui.core.format import Document, parse
from amr_tui.core.metadata import format_metadata
from amr_tui.core.similarity import normalise, same_fact, text_digest
from amr_tui.core.textsafety import find_controls

TOMBSTONE_PATH = ".amr/forgotten.md"
REDACTED_TEXT = "(redacted)"
TOMBSTONE_HEADER = (
    "# Forgotten facts\n"
    "\n"
    "Facts removed from this memory on purpose: when, why and by whom. This file is not linked\n"
    "from MEMORY.md, so agents do not load it at session start. A fact listed here that shows up\n"
    "again elsewhere is reported by `amr lint --history` (AMR030). Format: docs/format.md, \"Tombstones\".\n"
    "\n"
)


def is_tombstone_path(path: str) -> bool:
    return path == TOMBSTONE_PATH


@dataclass(frozen=True, slots=True)
class Tombstone:
    line: int
    text: str | None  # None when redacted
    digest: str
    forgotten: str  # the date, as written
    reason: str | None = None
    by: str | None = None
    sources: tuple[str, ...] = ()
    file: str | None = None

    @property
    def redacted(self) -> bool:
        return self.text is None

    def describe(self) -> str:
        who = f" by {self.by}" if self.by else ""
        why = f" ({self.reason})" if self.reason else ""
        return f"forgotten on purpose on {self.forgotten}{who}{why}, see {TOMBSTONE_PATH}:{self.line}"


def parse_tombstones(data: Document | bytes) -> list[Tombstone]:
    """Every entry with a ``forgotten`` key in a tombstone file."""
    doc = data if isinstance(data, Document) else parse(bytes(data), TOMBSTONE_PATH)
    out: list[Tombstone] = []
    for entry in doc.entries:
        date = entry.first("forgotten")
        if date is None:
            continue
        digest = entry.first("digest")
        redacted = digest is not None and (entry.text in ("", REDACTED_TEXT))
        text = None if redacted else entry.text
        out.append(Tombstone(
            line=entry.line,
            text=text,
            digest=digest if redacted and digest else text_digest(entry.text),
            forgotten=date,
            reason=entry.first("reason"),
            by=entry.first("by"),
            sources=tuple(entry.meta("source")),
            file=entry.first("file"),
        ))
    return out


def _one_line(value: str) -> str:
    """A metadata value: one line, no control characters, trimmed."""
    value = " ".join(value.split())
    for offset, ch in reversed(find_controls(value)):
        value = value[:offset] + " " + value[offset + 1:]
    return " ".join(value.split())


def tombstone_line(
    text: str,
    *,
    date: str,
    reason: str | None = None,
    by: str | None = None,
    sources: tuple[str, ...] | list[str] = (),
    file: str | None = None,
    redact: bool = False,
) -> str:
    """The tombstone entry for a fact (``redact``: keep only its digest)."""
    items: list[tuple[str, str]] = [("forgotten", date)]
    if reason and _one_line(reason):
        items.append(("reason", _one_line(reason)))
    if by and _one_line(by):
        items.append(("by", _one_line(by)))
    if redact:
        items.append(("digest", text_digest(text)))
        body = REDACTED_TEXT
    else:
        items.extend(("source", _one_line(s)) for s in sources if _one_line(s))
        if file:
            items.append(("file", _one_line(file)))
        body = _one_line(text)
    return f"- {body} {format_metadata(items)}"


def add_tombstone(existing: bytes | None, line: str) -> bytes:
    """The tombstone file with ``line`` appended (created with its header when missing)."""
    if not existing:
        return (TOMBSTONE_HEADER + line + "\n").encode("utf-8")
    eol = b"\r\n" if existing.count(b"\r\n") * 2 > existing.count(b"\n") else b"\n"
    if not existing.endswith(b"\n"):
        existing += eol
    return existing + line.encode("utf-8") + eol


class FactMatcher:
    """Tells whether a text states a fact from a list (tombstones, past deletions).

    ``match`` tries, in order: equal normalised text, equal digest, then the closest text by
    ``similarity.same_fact``. Returns the label given to :meth:`add`.
    """

    def __init__(self) -> None:
        self._exact: dict[str, str] = {}
        self._digests: dict[str, str] = {}
        self._fuzzy: list[tuple[str, str]] = []
        self._words: dict[str, list[int]] = {}

    def __len__(self) -> int:
        return len(self._exact) + len(self._digests)

    def add(self, text: str | None, label: str, digest: str | None = None) -> None:
        if text is not None:
            key = normalise(text)
            if not key:
                return
            if key not in self._exact:
                self._exact[key] = label
                self._fuzzy.append((key, label))
                for w in set(key.split()):
                    self._words.setdefault(w, []).append(len(self._fuzzy) - 1)
            digest = digest or text_digest(text)
        if digest:
            self._digests.setdefault(digest, label)

    @classmethod
    def from_tombstones(cls, tombstones: list[Tombstone]) -> FactMatcher:
        m = cls()
        for t in tombstones:
            m.add(t.text, t.describe(), t.digest)
        return m

    def match(self, text: str) -> str | None:
        key = normalise(text)
        if not key:
            return None
        hit = self._exact.get(key)
        if hit is not None:
            return hit
        hit = self._digests.get(text_digest(text))
        if hit is not None:
            return hit
        # Candidates share one of the text's three rarest known words (blocking, as lint's
        # near-duplicate check does): a 90% token-sort match keeps nearly every word.
        words = sorted((w for w in set(key.split()) if w in self._words), key=lambda w: (len(self._words[w]), w))
        seen: set[int] = set()
        best: tuple[float, int] | None = None
        for w in words[:3]:
            for idx in self._words[w]:
                if idx in seen:
                    continue
                seen.add(idx)
                score = same_fact(key, self._fuzzy[idx][0])
                if score is not None and (best is None or (score, -idx) > (best[0], -best[1])):
                    best = (score, idx)
        return self._fuzzy[best[1]][1] if best else None
