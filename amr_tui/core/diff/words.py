"""Which words changed inside an entry: the word-level highlights of a reworded line.

``word_changes(old, new)`` aligns the two texts word by word (difflib's matcher on tokens: words and
runs of punctuation, the whitespace after each kept with it) and returns, for each side, the character spans that are not
shared: what was taken out of the old text and what was put into the new one. A span covers
whole words; the whitespace between two changed words joins them into one span. Pure.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from amr_tui.core.spans import join_touching

_TOKEN = re.compile(r"\w+\s*|[^\w\s]+\s*|\s+")  # a word or a run of punctuation, with the space after it


def _tokens(text: str) -> list[tuple[int, int, str]]:
    """(start, end, word without trailing space) of each token."""
    return [(m.start(), m.end(), m.group(0).rstrip()) for m in _TOKEN.finditer(text)]


def word_changes(old: str, new: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(spans of ``old`` that were removed or replaced, spans of ``new`` that were added or
    replaced), each a list of (start, end) character offsets, sorted and not overlapping."""
    if old == new:
        return [], []
    a, b = _tokens(old), _tokens(new)
    matcher = SequenceMatcher(None, [t[2] for t in a], [t[2] for t in b], autojunk=False)
    old_spans: list[tuple[int, int]] = []
    new_spans: list[tuple[int, int]] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        if i1 < i2:
            old_spans.append((a[i1][0], a[i2 - 1][0] + len(a[i2 - 1][2])))
        if j1 < j2:
            new_spans.append((b[j1][0], b[j2 - 1][0] + len(b[j2 - 1][2])))
    return join_touching(old_spans), join_touching(new_spans)


def changed_lines(old: str, new: str, limit: int = 12) -> list[tuple[str, str]]:
    """Pairs of lines that differ between two versions of a file (a replaced line with its
    counterpart, an added or removed line with ""), in order, at most ``limit``."""
    a, b = old.split("\n"), new.split("\n")
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        left, right = a[i1:i2], b[j1:j2]
        for k in range(max(len(left), len(right))):
            pair = (left[k] if k < len(left) else "", right[k] if k < len(right) else "")
            if pair[0].strip() or pair[1].strip():
                out.append(pair)
            if len(out) >= limit:
                return out
    return out


__all__ = ["changed_lines", "word_changes"]
