"""The words of a text, as the index holds them and a query matches them. Pure; no I/O.

* ``fold`` lower-cases without changing the length, so an index into the folded text is an
  index into the original (``"İ".lower()`` is two characters; it folds to ``"i"`` here).
* Tokens are runs of letters and digits (``_`` splits, as does any punctuation); a camelCase
  run also yields its parts (``WorkerPixelFactory`` -> ``workerpixelfactory``, ``worker``,
  ``pixel``, ``factory``). Tokens are cut at ``MAX_TOKEN`` characters.
* ``subseq_pattern``: a word's letters in order (the SUBSEQUENCE match class), in linear time.
* ``strip_metadata``: an entry's text without trailing ``[key: value]`` groups (what is indexed).
"""

from __future__ import annotations

import re

MAX_TOKEN = 64

WORD = re.compile(r"[^\W_]+")
_CAMEL_HINT = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_CAMEL_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def fold(text: str) -> str:
    """Lower-case ``text`` keeping one character per character."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c.lower()[:1] for c in text)


# Bytes outside [^\W_] (ASCII letters and digits) become spaces: for ASCII text, translating
# and splitting finds the same runs as WORD.findall, at C speed.
_ASCII_WORD_BYTES = bytes(c if c < 128 and WORD.fullmatch(chr(c)) else 32 for c in range(256))


def tokens_of(text: str, low: str) -> set[str]:
    """The distinct tokens of ``text`` (``low`` is ``fold(text)``)."""
    # For ASCII text, translate + split finds the same runs as WORD, at C speed; without an
    # upper-case letter (low == text) there is no camelCase to split.
    if low.isascii():
        toks = set(low.encode("ascii").translate(_ASCII_WORD_BYTES).decode("ascii").split())
    else:
        toks = set(WORD.findall(low))
    # A capital only at the start ("Redis listens...") cannot be a camelCase hump: skip the scan.
    if text != low and text[1:] != low[1:] and _CAMEL_HINT.search(text) is not None:
        for run in WORD.findall(text):
            if _CAMEL_HINT.search(run) is not None:
                toks.update(p.lower() for p in _CAMEL_PART.findall(run))
    if toks and max(map(len, toks)) > MAX_TOKEN:
        toks = {t[:MAX_TOKEN] for t in toks}
    return toks


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
