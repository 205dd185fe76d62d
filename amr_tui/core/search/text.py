"""Text helpers for the search index: folding, tokens, query parsing, bitsets, highlighting.

Pure functions over strings and ints; no I/O. ``index.py`` builds the index on top.

* ``fold`` lower-cases without changing the length, so an index into the folded text is an
  index into the original (``"İ".lower()`` is two characters; it folds to ``"i"`` here).
* Tokens are runs of letters and digits (``_`` splits, as does any punctuation); a camelCase
  run also yields its parts (``WorkerPixelFactory`` -> ``workerpixelfactory``, ``worker``,
  ``pixel``, ``factory``). Tokens are cut at ``MAX_TOKEN`` characters.
* A query is split on whitespace into words; each word into atoms (its tokens). Every atom
  must match an item for the item to match.
* Bitsets are Python ints: bit ``i`` set means slot ``i`` is in the set.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, cast

MAX_TOKEN = 64
MAX_ATOMS = 24  # atoms of a query used for matching (a pasted paragraph stays cheap)
_FUZZY_SPAN_WORDS = 1000  # words of a text looked at for a typo highlight

_WORD = re.compile(r"[^\W_]+")
_CAMEL_HINT = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_CAMEL_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def fold(text: str) -> str:
    """Lower-case ``text`` keeping one character per character."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c.lower()[:1] for c in text)


# Bytes outside [^\W_] (ASCII letters and digits) become spaces: for ASCII text, translating
# and splitting finds the same runs as _WORD.findall, at C speed.
_ASCII_WORD_BYTES = bytes(c if c < 128 and _WORD.fullmatch(chr(c)) else 32 for c in range(256))


def tokens_of(text: str, low: str) -> set[str]:
    """The distinct tokens of ``text`` (``low`` is ``fold(text)``)."""
    # For ASCII text, translate + split finds the same runs as _WORD, at C speed; without an
    # upper-case letter (low == text) there is no camelCase to split.
    if low.isascii():
        toks = set(low.encode("ascii").translate(_ASCII_WORD_BYTES).decode("ascii").split())
    else:
        toks = set(_WORD.findall(low))
    # A capital only at the start ("Redis listens...") cannot be a camelCase hump: skip the scan.
    if text != low and text[1:] != low[1:] and _CAMEL_HINT.search(text) is not None:
        for run in _WORD.findall(text):
            if _CAMEL_HINT.search(run) is not None:
                toks.update(p.lower() for p in _CAMEL_PART.findall(run))
    if toks and max(map(len, toks)) > MAX_TOKEN:
        toks = {t[:MAX_TOKEN] for t in toks}
    return toks


@dataclass(frozen=True, slots=True)
class Query:
    raw: str
    words: tuple[str, ...]  # folded, whitespace-separated words
    atoms: tuple[str, ...]  # distinct tokens of the words, in order of appearance
    phrase: str  # the folded words joined by one space
    cased_words: tuple[str, ...]  # words as typed, when they hold an upper-case letter


def parse_query(query: str) -> Query:
    raw_words = query.split()
    words = tuple(fold(w) for w in raw_words)
    atoms: list[str] = []
    for w in words:
        for a in _WORD.findall(w):
            a = a[:MAX_TOKEN]
            if a not in atoms and len(atoms) < MAX_ATOMS:
                atoms.append(a)
    cased = tuple(w for w in raw_words if w != w.lower())
    return Query(query, words, tuple(atoms), " ".join(words), cased)


def is_subsequence(needle: str, hay: str) -> bool:
    it = iter(hay)
    return all(c in it for c in needle)


def subseq_pattern(atom: str, gap: str = r"\n") -> re.Pattern[str]:
    """Matches ``atom`` as a subsequence whose gaps hold no character of the class ``gap``
    (by default no newline: the match stays inside one line of the joined vocabulary).

    Each gap is ``[^{gap}{next}]*+``: it stops at the first occurrence of the next
    character and never gives anything back, so matching is linear (no catastrophic
    backtracking on hostile text) and finds the leftmost, earliest-ending match.
    """
    parts = [re.escape(atom[0])]
    for c in atom[1:]:
        e = re.escape(c)
        parts.append(f"[^{gap}{e}]*+{e}")
    return re.compile("".join(parts))


# ---------------------------------------------------------------------------- bitsets


# Bitsets at least this wide (an index of half a million items and more) convert with numpy,
# twice as fast as the loops below at a million slots (33,000 set: 5.6 -> 2.6 ms one way, 3.4 ->
# 1.6 ms the other); narrower ones never import it. None: numpy is not installed.
WIDE_BITS = 1 << 19


@functools.cache
def _numpy() -> Any:
    try:
        import numpy  # a million-entry index only: it costs start-up time and memory

        return numpy
    except ImportError:  # the loops below give the same answers
        return None


def bits_of(ids: Iterable[int]) -> int:
    """A bitset holding ``ids``."""
    known: Collection[int] = ids if isinstance(ids, (list, tuple, set, frozenset)) else list(ids)
    if not known:
        return 0
    if len(known) < 48:
        lo = min(known)
        m = 0
        for i in known:
            m |= 1 << (i - lo)
        return m << lo
    top = max(known) + 1
    np = _numpy() if top >= WIDE_BITS else None
    if np is not None:
        flags = np.zeros(top, dtype=np.bool_)
        flags[np.fromiter(known, dtype=np.int64, count=len(known))] = True
        return int.from_bytes(np.packbits(flags, bitorder="little").tobytes(), "little")
    buf = bytearray(b"0") * top
    for i in known:
        buf[top - 1 - i] = 49  # "1", most significant bit first
    return int(buf, 2)


_BYTE_BITS = tuple(tuple(k for k in range(8) if b >> k & 1) for b in range(256))
_NONZERO = re.compile(rb"[^\x00]")


def ids_of(bits: int) -> list[int]:
    """The slots set in ``bits``, ascending."""
    if not bits:
        return []
    if bits & (bits - 1) == 0:
        return [bits.bit_length() - 1]
    width = bits.bit_length()
    np = _numpy() if width >= WIDE_BITS else None
    if np is not None and bits.bit_count() << 8 >= width:  # not so sparse that the bytes walk wins
        raw = np.frombuffer(bits.to_bytes((width + 7) >> 3, "little"), dtype=np.uint8)
        return cast(list[int], np.flatnonzero(np.unpackbits(raw, bitorder="little")).tolist())
    if bits.bit_count() << 6 < width:  # sparse: walk the non-zero bytes
        raw = bits.to_bytes((width + 7) >> 3, "little")
        out: list[int] = []
        for m in _NONZERO.finditer(raw):
            base = m.start()
            out.extend([(base << 3) + k for k in _BYTE_BITS[raw[base]]])
        return out
    s = bin(bits)[:1:-1]  # least significant bit first
    out = []
    find = s.find
    i = find("1")
    while i >= 0:
        out.append(i)
        i = find("1", i + 1)
    return out


class Joined:
    """Texts joined into one string, so one scan in C finds which of them hold a phrase or
    match a pattern: a Python loop over the 30,000 candidates of a two-word query cost 15-50 ms
    a keystroke at 1M entries. A match across the join counts for no text; the text it starts
    in is then asked alone, so each answer is what asking every text alone would give.

    Which text a match is in is counted from the separators before it (the scans run forward,
    so each separator is counted once): no list of where each text starts is made unless a
    text holds the separator itself."""

    _SEP = "\n"

    def __init__(self, texts: Sequence[str]) -> None:
        self._texts = texts
        self._blob = self._SEP.join(texts)
        # _starts[i]: where text i begins in the blob; the last one is len(blob) + 1. Only when
        # a text holds the separator (counting separators would then miscount).
        self._starts: list[int] | None = None
        if self._blob.count(self._SEP) != max(0, len(texts) - 1):
            self._starts = list(accumulate(map((1).__add__, map(len, texts)), initial=0))
        self._at = 0  # the forward cursor: text self._i begins at or before blob offset self._at
        self._i = 0

    def __len__(self) -> int:
        return len(self._texts)

    def _end(self, at: int) -> tuple[int, int]:
        """(the text holding blob offset ``at``, where that text ends); ``at`` never goes back
        within one scan (``_rewind`` starts a scan)."""
        starts = self._starts
        if starts is not None:
            i = bisect_right(starts, at) - 1
            return i, starts[i + 1] - 1
        blob = self._blob
        self._i += blob.count(self._SEP, self._at, at)
        self._at = at
        end = blob.find(self._SEP, at)
        return self._i, len(blob) if end < 0 else end

    def _rewind(self) -> None:
        self._at = self._i = 0

    def holding(self, phrase: str) -> list[int]:
        """The indices of the texts that hold ``phrase``, ascending."""
        out: list[int] = []
        blob, n = self._blob, len(phrase)
        if not n:
            return list(range(len(self._texts)))
        self._rewind()
        at = blob.find(phrase)
        if self._starts is not None:
            while at >= 0:
                i, end = self._end(at)
                if at + n <= end:
                    out.append(i)
                    at = blob.find(phrase, end + 1)
                else:
                    at = blob.find(phrase, at + 1)
            return out
        # _end written out: a common phrase ("infra/") is in 10,000 of the texts scanned
        find, count, sep, size = blob.find, blob.count, self._SEP, len(blob)
        i = last = 0
        while at >= 0:
            i += count(sep, last, at)
            last = at
            end = find(sep, at)
            if end < 0:
                end = size
            if at + n <= end:
                out.append(i)
                at = find(phrase, end + 1)
            else:
                at = find(phrase, at + 1)
        return out

    def matching(self, pattern: re.Pattern[str]) -> list[int]:
        """The indices of the texts ``pattern`` finds a match in, ascending."""
        out: list[int] = []
        blob, texts, pos = self._blob, self._texts, 0
        self._rewind()
        while pos <= len(blob):
            m = pattern.search(blob, pos)
            if m is None:
                break
            i, end = self._end(m.start())
            if m.end() <= end or pattern.search(texts[i]) is not None:
                out.append(i)
            pos = end + 1
        return out


# ---------------------------------------------------------------------------- highlighting


def _is_word_start(text: str, low: str, i: int) -> bool:
    if i == 0:
        return True
    prev = low[i - 1]
    if not prev.isalnum():
        return True
    return text[i - 1].islower() and text[i].isupper()


def _best_substring(needle: str, text: str, low: str) -> int:
    """Start of ``needle`` in ``low``, preferring an occurrence at a word start; -1 if absent."""
    first = low.find(needle)
    if first < 0:
        return -1
    i = first
    for _ in range(64):
        if _is_word_start(text, low, i):
            return i
        i = low.find(needle, i + 1)
        if i < 0:
            break
    return first


def _subseq_span(needle: str, low: str, start: int, end: int) -> list[int] | None:
    """fzf v1: leftmost greedy match, then tighten backwards; positions or None."""
    j = 0
    n = len(needle)
    i = start
    while i < end and j < n:
        if low[i] == needle[j]:
            j += 1
        i += 1
    if j < n:
        return None
    stop = i  # one past the last matched char
    j = n - 1
    i = stop - 1
    while j >= 0:
        if low[i] == needle[j]:
            j -= 1
        i -= 1
    begin = i + 1
    out: list[int] = []
    j = 0
    for k in range(begin, stop):
        if j < n and low[k] == needle[j]:
            out.append(k)
            j += 1
    return out


def _atom_positions(atom: str, text: str, low: str) -> list[int]:
    at = _best_substring(atom, text, low)
    if at >= 0:
        return list(range(at, at + len(atom)))
    best: list[int] | None = None
    for m in _WORD.finditer(low):
        span = _subseq_span(atom, low, m.start(), m.end())
        if span is not None:
            if best is None or span[-1] - span[0] < best[-1] - best[0]:
                best = span
            if best[-1] - best[0] < len(atom) + 2:
                break
    if best is not None:
        return best
    spread = _subseq_span(atom, low, 0, len(low))
    if spread is not None and spread[-1] - spread[0] < 2 * len(atom) + 2:
        return spread
    fuzzy = _fuzzy_token_span(atom, low)  # a typo: point at the closest word
    if fuzzy is not None:
        return list(range(*fuzzy))
    return spread or []


def _fuzzy_token_span(atom: str, low: str) -> tuple[int, int] | None:
    if len(atom) < 3:
        return None
    from rapidfuzz.distance import OSA  # on first use: rapidfuzz costs `amr` start-up time

    best: tuple[float, int, int] | None = None
    for _, m in zip(range(_FUZZY_SPAN_WORDS), _WORD.finditer(low), strict=False):  # the first words only
        tok = m.group()
        sim = max(OSA.normalized_similarity(atom, tok), OSA.normalized_similarity(atom, tok[: len(atom)]))
        if sim >= 0.6 and (best is None or sim > best[0]):
            best = (sim, m.start(), m.end())
    return None if best is None else (best[1], best[2])


def highlight_positions(query: str, text: str) -> tuple[int, ...]:
    """Indices into ``text`` of the characters that match ``query`` (for highlighting).

    Each query word is looked for as a whole (an occurrence at a word start first); a word
    that is not there is matched atom by atom: substring, then subsequence inside one word,
    then a tight subsequence anywhere (fzf-like), then the closest word (a typo), then any
    subsequence.
    """
    return positions_for(parse_query(query), text)


def positions_for(q: Query, text: str) -> tuple[int, ...]:
    """``highlight_positions`` for a query already parsed."""
    if not q.words or not text:
        return ()
    low = fold(text)
    pos: set[int] = set()
    for word in q.words:
        at = _best_substring(word, text, low)
        if at >= 0:
            pos.update(range(at, at + len(word)))
            continue
        for atom in _WORD.findall(word):
            pos.update(_atom_positions(atom[:MAX_TOKEN], text, low))
    return tuple(sorted(pos))


_META_HINT = re.compile(r"\[\s*[A-Za-z][A-Za-z0-9_.-]*\s*:")
_META_TAIL = 4096  # metadata is read from the end of the text only


def strip_metadata(text: str) -> str:
    """Drop trailing ``[key: value; ...]`` metadata groups, if the text still has them.

    Parsed entries come without them already; this only guards against a caller handing
    over raw bullet text. Only the last ``_META_TAIL`` characters are read, so a hostile
    text of thousands of bracket groups costs no more than a normal one.
    """
    if not text.rstrip().endswith("]"):
        return text
    cut = max(0, len(text) - _META_TAIL)
    tail = text[cut:]
    if _META_HINT.search(tail) is None:
        return text
    # On first use: `amr search` answering from its cache does not load the format package.
    from amr_tui.core.format.metadata import parse_metadata

    parsed = parse_metadata(tail)
    if not parsed.groups:
        return text
    return text[: cut + parsed.meta_start].rstrip()
