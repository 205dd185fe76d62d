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

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from amr_tui.core import fuzzy
from amr_tui.core.diff.similarity import SAME_FACT_MIN_CHARS, SAME_FACT_THRESHOLD, normalise, text_digest
from amr_tui.core.format.metadata import format_metadata
from amr_tui.core.format.parser import Document, parse
from amr_tui.core.lint.facts import same_values
from amr_tui.core.paths import (
    TOMBSTONE_PATH as TOMBSTONE_PATH,  # the tombstone file's API, defined with the other path rules
)
from amr_tui.core.paths import is_tombstone_path as is_tombstone_path
from amr_tui.core.textsafety import find_controls

BLOCK_LIMIT = 256  # a word in more texts than this is too common to block on
REDACTED_TEXT = "(redacted)"
TOMBSTONE_HEADER = (
    "# Forgotten facts\n"
    "\n"
    "Facts removed from this memory on purpose: when, why and by whom. This file is not linked\n"
    "from MEMORY.md, so agents do not load it at session start. A fact listed here that shows up\n"
    'again elsewhere is reported by `amr lint --history` (AMR030). Format: docs/format.md, "Tombstones".\n'
    "\n"
)


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
    superseded_by: str | None = None  # the wording that replaced it (amr verify's supersede)

    @property
    def redacted(self) -> bool:
        return self.text is None

    def describe(self) -> str:
        if self.superseded_by:
            return f'superseded on {self.forgotten} by "{self.superseded_by}", see {TOMBSTONE_PATH}:{self.line}'
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
        out.append(
            Tombstone(
                line=entry.line,
                text=text,
                digest=digest if redacted and digest else text_digest(entry.text),
                forgotten=date,
                reason=entry.first("reason"),
                by=entry.first("by"),
                sources=tuple(entry.meta("source")),
                file=entry.first("file"),
                superseded_by=entry.first("superseded-by"),
            )
        )
    return out


# Agents writing through ``amr mcp`` share one address (``agent@amr.invalid``): their names tell
# them apart.
SHARED_EMAIL_DOMAIN = "@amr.invalid"


def same_person(author: tuple[str, str], forgetter: tuple[str, str] | None, by: str | None = None) -> bool:
    """Whether ``author`` (name, email of a commit) is the one who forgot a fact: the author of
    the commit that forgot it (``forgetter``: the same email, case aside, and for the address
    agents share the same name too), or, when no commit is known, the tombstone's ``by`` name."""
    name, email = author
    if forgetter is not None:
        f_name, f_email = forgetter
        if email.casefold() != f_email.casefold():
            return False
        return not email.casefold().endswith(SHARED_EMAIL_DOMAIN) or name.casefold() == f_name.casefold()
    return by is not None and " ".join(by.split()).casefold() == " ".join(name.split()).casefold()


def _one_line(value: str) -> str:
    """A metadata value: one line, no control characters, trimmed."""
    value = " ".join(value.split())
    for offset, _ch in reversed(find_controls(value)):
        value = value[:offset] + " " + value[offset + 1 :]
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
    superseded_by: str | None = None,
) -> str:
    """The tombstone entry for a fact (``redact``: keep only its digest; ``superseded_by``: the
    wording that replaced it)."""
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
        if superseded_by and _one_line(superseded_by):
            items.append(("superseded-by", _one_line(superseded_by)))
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
    ``similarity.same_fact`` (token-sort ratio 90+, texts of 20+ characters, the same numbers and
    dates). The fuzzy step only
    compares texts whose lengths are within the range a 90% ratio allows and that share one of
    the query's three rarest known words (when every word is common, all texts of a fitting
    length), and scores them in rapidfuzz: plain ratio of the word-sorted texts, which is what
    token_sort_ratio computes. Returns the label given to :meth:`add`.
    """

    def __init__(self) -> None:
        self._exact: dict[str, str] = {}
        self._digests: dict[str, str] = {}
        self._fuzzy: list[tuple[str, str, int]] = []  # (word-sorted key, label, length)
        self._words: dict[str, list[int]] = {}
        self._by_length: tuple[list[int], list[str], list[int]] | None = None  # lengths, keys, indexes

    def __len__(self) -> int:
        return len(self._exact) + len(self._digests)

    def add(self, text: str | None, label: str, digest: str | None = None, *, fuzzy: bool = True) -> None:
        """Know ``text`` (and its ``digest``) as ``label``; ``fuzzy=False``: only the same text
        matches it, never a near wording (a superseded fact: its new wording is near it)."""
        if text is not None:
            key = normalise(text)
            if not key:
                return
            if key not in self._exact:
                self._exact[key] = label
                if fuzzy and len(key) >= SAME_FACT_MIN_CHARS:
                    sorted_key = " ".join(sorted(key.split()))
                    self._fuzzy.append((sorted_key, label, len(sorted_key)))
                    self._by_length = None
                    for w in set(key.split()):
                        self._words.setdefault(w, []).append(len(self._fuzzy) - 1)
            digest = digest or text_digest(text)
        if digest:
            self._digests.setdefault(digest, label)

    def match(self, text: str) -> str | None:
        key = normalise(text)
        if not key:
            return None
        hit = self._exact.get(key)
        if hit is not None:
            return hit
        hit = self._digests.get(text_digest(text))
        if hit is not None or len(key) < SAME_FACT_MIN_CHARS:
            return hit
        words = sorted((w for w in set(key.split()) if w in self._words), key=lambda w: (len(self._words[w]), w))
        if not words:
            return None
        query = " ".join(sorted(key.split()))
        # ratio = 2*matches/(len a + len b) >= 0.9 needs the shorter at least 9/11 of the longer
        lo, hi = len(query) * 9 / 11, len(query) * 11 / 9
        fuzz, process = fuzzy.fuzz, fuzzy.process

        if len(self._words[words[0]]) <= BLOCK_LIMIT:
            cands = sorted(
                {
                    i
                    for w in words[:3]
                    if len(self._words[w]) <= BLOCK_LIMIT
                    for i in self._words[w]
                    if lo <= self._fuzzy[i][2] <= hi
                }
            )
            keys = [self._fuzzy[i][0] for i in cands]
        else:  # every word is common: scan the texts of a fitting length (in rapidfuzz)
            lengths, all_keys, order = self._length_index()
            a, b = bisect_left(lengths, lo), bisect_right(lengths, hi)
            cands, keys = order[a:b], all_keys[a:b]
        if not cands:
            return None
        # the best-scoring text that holds the same values: "port 5432" never matches "port 6432"
        for _key, _score, k in process.extract(
            query, keys, scorer=fuzz.ratio, score_cutoff=SAME_FACT_THRESHOLD, limit=None
        ):
            if same_values(query, keys[k]):
                return self._fuzzy[cands[k]][1]
        return None

    def _length_index(self) -> tuple[list[int], list[str], list[int]]:
        if self._by_length is None:
            order = sorted(range(len(self._fuzzy)), key=lambda i: (self._fuzzy[i][2], i))
            self._by_length = ([self._fuzzy[i][2] for i in order], [self._fuzzy[i][0] for i in order], order)
        return self._by_length
