"""Stage 5 of a keystroke: take the best of the scored candidates, as hits (see ``index.py``). Pure.

``take`` sorts what ``score.score_slots`` gave, keeps the first ``limit`` and makes each a
``SearchHit``: its score, the query words a partial match lacks, and the characters to
highlight (``positions_for``: each query word as a whole, an occurrence at a word start first;
a word not there atom by atom: substring, then subsequence inside one word, then a tight
subsequence anywhere (fzf-like), then the closest word (a typo), then any subsequence).
``in_file_order``: a query of filters only lists what passes in file order.
"""

from __future__ import annotations

from collections.abc import Sequence

from amr_tui.core import fuzzy
from amr_tui.core.search.candidates import Found
from amr_tui.core.search.items import SearchHit, SearchItem
from amr_tui.core.search.query import Query, parse_query
from amr_tui.core.search.store import PostingStore
from amr_tui.core.search.text import MAX_TOKEN, WORD, fold

_FUZZY_SPAN_WORDS = 1000  # words of a text looked at for a typo highlight


def take(
    index: PostingStore,
    ranked: list[tuple[int, float, str, str, int, int]],
    limit: int,
    full: Query,
    found: Found,
) -> list[SearchHit]:
    """The best ``limit`` of ``ranked`` (``score.score_slots``) as hits, best first; ``full``:
    the query's words as typed (what is highlighted)."""
    ranked.sort()
    items = index.items
    out: list[SearchHit] = []
    for group, neg, _repo, _path, _line, slot in ranked[:limit]:
        item = items[slot]
        assert item is not None
        missing = (
            tuple(am.text for am, t in zip(found.atoms, found.typos, strict=True) if not ((am.upto(3) | t) >> slot) & 1)
            if group
            else ()
        )
        out.append(SearchHit(item, round(-neg, 3), positions_for(full, item.text, missing), missing))
    return out


def in_file_order(index: PostingStore, slots: Sequence[int], limit: int) -> list[SearchHit]:
    """The first ``limit`` of ``slots`` in file order (repo, path, line), unscored."""
    items = index.items
    first = sorted(slots, key=lambda s: _order(items[s]))[:limit]
    return [SearchHit(items[s], 50.0, ()) for s in first]  # type: ignore[arg-type]  # live slots


def _order(item: SearchItem | None) -> tuple[str, str, int]:
    assert item is not None
    return (item.repo, item.path, item.line)


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
    for m in WORD.finditer(low):
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
    OSA = fuzzy.OSA

    best: tuple[float, int, int] | None = None
    for _, m in zip(range(_FUZZY_SPAN_WORDS), WORD.finditer(low), strict=False):  # the first words only
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


def positions_for(q: Query, text: str, missing: Sequence[str] = ()) -> tuple[int, ...]:
    """``highlight_positions`` for a query already parsed; the atoms in ``missing`` (those a
    partial match does not hold, ``SearchHit.missing``) are not looked for: what they would
    point at is letters scattered over other words."""
    if not q.words or not text:
        return ()
    low = fold(text)
    pos: set[int] = set()
    for word in q.words:
        at = _best_substring(word, text, low)
        if at >= 0:
            pos.update(range(at, at + len(word)))
            continue
        for atom in WORD.findall(word):
            if atom[:MAX_TOKEN] not in missing:
                pos.update(_atom_positions(atom[:MAX_TOKEN], text, low))
    return tuple(sorted(pos))
