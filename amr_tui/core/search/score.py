"""Stage 4 of a keystroke: the precise score of each candidate (see ``index.py``). Pure.

``score_slots`` gives every candidate slot ``(group, -score, repo, path, line)``: how well its
text holds each atom (the atom's match class, weighed by its rarity), the typed phrase, where
and how close together the words sit, the text's length, the case typed, and a cut for noise.
``best.py`` sorts and takes the best. ``Weights`` are the signals' shares
(``bench/relevance.py --weights`` measures each choice).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from amr_tui.core import fuzzy as rapid  # "fuzzy" names the fuzzy-matched slots in score_slots
from amr_tui.core.search.candidates import Found
from amr_tui.core.search.query import STOPWORDS, Query
from amr_tui.core.search.store import PostingStore
from amr_tui.core.search.text import WORD, subseq_pattern

CLASS_SCORE = (1.0, 0.84, 0.62, 0.45)
FUZZY = 4
FUZZY_SCORE = 0.3
MISSING = 5  # a partial match: the item does not hold this atom at all
PARTIAL_FACTOR = 0.8  # a partial match's score is scaled down (and it ranks below every full match)
_BIT = tuple(1 << k for k in range(8))


@dataclass(frozen=True, slots=True)
class Weights:
    """The share of each signal in an item's score (``score_slots``); they sum to 1.

    ``length`` rewards a short text (``length_span`` characters and more earn nothing).
    ``saturation`` is BM25's k1 for each typed word's count in the text: 0 counts a word once
    however often it repeats; a larger value lets each repetition add more.
    ``noise_span``, ``noise_cut``: noise, a text that repeats its words and says little else
    ("Deploy order, deploy order"), loses up to ``noise_cut`` of its score: all of it with no
    word besides the typed ones, none from ``noise_span`` other words on (``_said``); a
    ``noise_span`` of 0 turns this off. ``bench/relevance.py --weights`` measures each choice."""

    match: float = 0.73
    phrase: float = 0.1
    position: float = 0.05
    length: float = 0.05
    order: float = 0.02
    near: float = 0.03
    case: float = 0.02
    length_span: float = 200.0
    saturation: float = 0.0
    noise_span: int = 3
    noise_cut: float = 0.5


WEIGHTS = Weights()


def _subseq_quality(cache: dict[str, re.Pattern[str]], atom: str, low: str) -> float:
    rx = cache.get(atom)
    if rx is None:
        rx = cache[atom] = subseq_pattern(atom, r"\W_")
    m = rx.search(low)
    if m is None:  # matched through a camelCase part or a cut token: no bonus
        return 0.0
    tight = len(atom) / (m.end() - m.start())
    return 0.08 * tight + (0.04 if _word_start(low, m.start()) else 0.0)


def _said(low: str, spellings: list[list[str]], span: int) -> float:
    """1.0 for a text that says something; less for noise: a text that repeats a word and holds
    fewer than ``span`` other words than the typed ones ("Deploy order, deploy order" says
    nothing beyond "deploy order"), and nothing for a text that holds no word but two or more
    typed ones and stop words (a list or a heading: "Backup, restore" for "restore backup",
    which a sentence stating something about them must not rank below; one word alone is a
    name, as good an answer as any). A real sentence repeats "the"
    but holds other words."""
    words = WORD.findall(low)
    distinct = set(words)
    typed = [sp for forms in spellings for sp in forms]
    others = (word for word in distinct if word not in STOPWORDS and not any(sp in word for sp in typed))
    if len(distinct) == len(words):
        return 1.0 if len(spellings) < 2 or next(others, None) is not None else 0.0
    return min(1.0, sum(1 for _word in others) / span)


def _where(low: str, spellings: list[str]) -> tuple[int, int]:
    """(offset, length) of the first of these spellings in ``low``, at a word start if any is."""
    best = (-1, 0)
    for form in spellings:
        at = low.find(form)
        while at > 0 and low[at - 1].isalnum():
            at = low.find(form, at + 1)
        if at < 0:
            at = low.find(form)
        if at >= 0 and (best[0] < 0 or at < best[0]):
            best = (at, len(form))
    return best


def _word_start(low: str, i: int) -> bool:
    return i == 0 or not low[i - 1].isalnum()


def score_slots(
    index: PostingStore, q: Query, cands: Found, near: re.Pattern[str] | None
) -> list[tuple[int, float, str, str, int, int]]:
    """``(group, -score, repo, path, line, slot)`` for every candidate (``cands``); sort it for the
    ranking. ``near``: the typed words together (``query.near_phrase``).

    ``group`` is 0 for an item holding every atom as a word or a word's start, 1 for one
    holding some only inside a word (several atoms), with a typo (``fuzzy``) or not at all
    (``partial``: they score nothing): those rank together by score. When no item holds most
    of the atoms (``cands.scant``), ``group`` is how many atoms an item lacks. ``weights``: one per atom (its
    rarity); the atoms' class scores are averaged with them."""
    strict, fuzzy, partial, weights, typos = cands.strict, cands.fuzzy, cands.partial, cands.weights, cands.typos
    ww = WEIGHTS
    slots = strict + fuzzy + list(partial)
    w = list(weights)
    w_total = sum(w) or 1.0
    w = [x / w_total for x in w]  # shares that sum to 1 (one word: exactly 1, whatever its rarity)
    items, lower = index.items, index.lower
    levels = cands.levels  # each atom's class bitsets as bytes: testing a slot is one byte lookup
    rx_cache: dict[str, re.Pattern[str]] = {}
    n = len(cands.atoms)
    typo_of = list(typos) or [0] * n  # the slots holding each atom with a typo (partial matches)
    first = q.atoms[0]
    spellings = cands.spellings  # each atom's, longest first: where it sits in a text
    plain = n == 1 and q.phrase == first
    near_phrase_rx = near
    fuzzy_set = set(fuzzy)
    partial_set = set(partial)
    scant = cands.scant
    ratio = None
    if fuzzy:
        ratio = rapid.fuzz.partial_ratio
    out: list[tuple[int, float, str, str, int, int]] = []
    for slot in slots:
        item = items[slot]
        low = lower[slot]
        assert item is not None and low is not None
        is_fuzzy = slot in fuzzy_set
        is_partial = slot in partial_set
        total = 0.0
        worst = 0
        lacks = 0
        byte, bit = slot >> 3, _BIT[slot & 7]
        for k, (atom, top, bufs) in enumerate(levels):
            for lv, buf in enumerate(bufs):  # noqa: B007 (lv is the class found, read after the loop)
                if buf[byte] & bit:
                    break
            else:
                if is_partial:
                    lv = FUZZY if (typo_of[k] >> slot) & 1 else MISSING
                else:
                    lv = FUZZY if is_fuzzy else top
            if lv == MISSING:
                lacks += 1
                continue
            if lv == 3:  # a subsequence inside a word: tighter and at a word start is better
                total += w[k] * (CLASS_SCORE[3] + _subseq_quality(rx_cache, atom, low))
            else:
                total += w[k] * (FUZZY_SCORE if lv == FUZZY else CLASS_SCORE[lv])
            worst = max(worst, lv)
        base = total
        pos = low.find(first)
        if is_fuzzy:
            assert ratio is not None
            f_phrase = 0.8 * ratio(q.phrase, low) / 100.0
        elif plain:
            f_phrase = 1.0 if worst <= 1 else 0.7 if worst == 2 else 0.0
        else:
            p = low.find(q.phrase)
            f_phrase = 0.0 if p < 0 else 1.0 if _word_start(low, p) else 0.7
            if f_phrase < 0.8 and near_phrase_rx is not None and near_phrase_rx.search(low) is not None:
                f_phrase = 0.8  # the typed words together, each as a word's start ("deploys on friday")
        f_pos = max(0.0, 1.0 - pos / 80.0) if pos >= 0 else 0.0
        text = item.text
        f_len = 1.0 - min(1.0, len(text) / ww.length_span)
        f_order = f_near = 0.0
        if n > 1:
            # the words in the typed order, and close together ("deploys on Friday" for "deploy
            # on friday", not "deploys ... happen on Friday")
            at = [_where(low, forms) for forms in spellings]
            found = [(p, size) for p, size in at if p >= 0]
            f_order = 1.0 if all(a[0] <= b[0] for a, b in zip(found, found[1:], strict=False)) else 0.0
            if len(found) > 1:
                gap = max(p for p, _s in found) - min(p for p, _s in found) - sum(s for _p, s in found[:-1])
                f_near = 1.0 / (1.0 + max(0, gap) / 8.0)
        if ww.saturation:  # each repetition of a typed word adds (BM25's tf saturation)
            k1 = ww.saturation
            typed = [max(low.count(sp) for sp in forms) for forms in spellings]
            base *= sum(wk * (tf * (k1 + 1) / (tf + k1) if tf else 1.0) for wk, tf in zip(w, typed, strict=True))
        said = _said(low, spellings, ww.noise_span) if ww.noise_span else 1.0
        f_case = 1.0 if q.cased_words and any(w in text for w in q.cased_words) else 0.0
        adj = 0.0
        if item.kind == "file":
            base_name = low[low.rfind("/") + 1 :]
            adj = 0.04 if all(a in base_name for a in q.atoms) else -0.03
        where = ww.phrase * f_phrase + ww.position * f_pos + ww.length * f_len + ww.order * f_order + ww.near * f_near
        score = (ww.match * base + where + ww.case * f_case + adj) * (1.0 - ww.noise_cut * (1.0 - said))
        if is_partial:
            score *= PARTIAL_FACTOR
        score = round(100.0 * min(1.0, max(0.0, score)), 3)
        weak = is_partial or is_fuzzy or (n > 1 and worst >= 2)
        # items holding fewer than half the words (``cands.scant``): those holding more first
        group = lacks if scant and is_partial else 1 if weak else 0
        out.append((group, -score, item.repo, item.path, item.line, slot))
    return out
