"""How alike two entry texts are: the one place that decides "same fact", "reworded" and "merged".

Every comparison runs on *normalised* text (``core.lint.normalise_text``: case-folded, punctuation
turned into spaces, runs of spaces collapsed), with rapidfuzz scorers (0-100). The thresholds are
documented in docs/format.md ("History, tombstones and dreaming") and were picked on the seed
article's and the demo's examples:

* ``REWORD_THRESHOLD`` (70, ``token_sort_ratio``): one entry rewritten into another. "Marco runs
  the website rewrite with one contractor" -> "... with two contractors since mid-September"
  scores 78; two unrelated facts from the same session score about 50.
* ``TIMELINE_REWORD_THRESHOLD`` (60): the same, when both lines sit in the same hunk of the same
  file in one commit (the position already says they are related); one entry line replaced by
  one is an edit of it at any score (``in_place_pairs``).
* ``MERGE_THRESHOLD`` (80, ``token_set_ratio``): an entry absorbed into a longer one ("The landing
  page is built with Next.js and Tailwind CSS" inside the merged stack entry scores 97).
* ``SAME_FACT_THRESHOLD`` (90, ``token_sort_ratio``, texts of 20 or more characters, the same
  numbers, versions and dates on both sides): a near duplicate, a resurrected fact, a tombstone
  match. The same bar as lint's AMR015.

rapidfuzz is imported on first use: importing it costs `amr` start-up time that a command
which never compares texts should not pay.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left, bisect_right

from amr_tui.core import fuzzy
from amr_tui.core.lint.facts import normalise_text, same_values
from amr_tui.core.lint.repo import NEAR_DUPLICATE_MIN_CHARS, NEAR_DUPLICATE_THRESHOLD

REWORD_THRESHOLD = 70.0
TIMELINE_REWORD_THRESHOLD = 60.0
MERGE_THRESHOLD = 80.0
SAME_FACT_THRESHOLD = NEAR_DUPLICATE_THRESHOLD
SAME_FACT_MIN_CHARS = NEAR_DUPLICATE_MIN_CHARS

normalise = normalise_text


def reword_score(a: str, b: str) -> float:
    """token_sort_ratio of two *normalised* texts."""
    return _score(a, b, contained=False)


def contained_score(a: str, b: str) -> float:
    """token_set_ratio of two *normalised* texts: high when one says what the other says."""
    return _score(a, b, contained=True)


def _score(a: str, b: str, *, contained: bool) -> float:
    if a == b:
        return 100.0
    if not a or not b:
        return 0.0
    fuzz = fuzzy.fuzz

    return float(fuzz.token_set_ratio(a, b) if contained else fuzz.token_sort_ratio(a, b))


def same_fact(a: str, b: str) -> float | None:
    """The score when two *normalised* texts state the same fact, else None.

    Equal texts always match; otherwise both must be at least ``SAME_FACT_MIN_CHARS`` long, hold
    the same numbers, versions and dates (``facts.same_values``: "port 5432" and "port 6432" are
    two facts) and score ``SAME_FACT_THRESHOLD`` or more.
    """
    if a == b:
        return 100.0 if a else None
    if len(a) < SAME_FACT_MIN_CHARS or len(b) < SAME_FACT_MIN_CHARS or not same_values(a, b):
        return None
    score = reword_score(a, b)
    return score if score >= SAME_FACT_THRESHOLD else None


def text_digest(text: str) -> str:
    """``sha256:<hex>`` of the normalised text (what a redacted tombstone keeps)."""
    return "sha256:" + hashlib.sha256(normalise_text(text).encode("utf-8", "surrogatepass")).hexdigest()


def best_pairs(olds: list[str], news: list[str], threshold: float) -> list[tuple[int, int, float]]:
    """Candidate pairs ``(i, j, score)`` with ``reword_score >= threshold``, best first.

    Ties are broken by position, so the result is deterministic. Uses one rapidfuzz ``extract``
    scan per old text for large inputs.
    """
    if not olds or not news:
        return []
    fuzz, process = fuzzy.fuzz, fuzzy.process

    found: list[tuple[int, int, float]] = []
    if len(olds) * len(news) > 400:
        # One C-level scan per old text (process.cdist would need numpy, which amr does not ship).
        for i, a in enumerate(olds):
            if not a:
                continue
            for _choice, score, j in process.extract(
                a, news, scorer=fuzz.token_sort_ratio, score_cutoff=threshold, limit=None
            ):
                if news[j]:
                    found.append((i, j, float(score)))
    else:
        for i, a in enumerate(olds):
            for j, b in enumerate(news):
                score = reword_score(a, b)
                if score >= threshold:
                    found.append((i, j, score))
    found.sort(key=lambda t: (-t[2], t[0], t[1]))
    return found


def in_place_pairs(olds: list[str], news: list[str]) -> list[tuple[int, int, float]]:
    """The entries of one hunk of one commit (*normalised* texts: the lines it removed, the
    lines it added in their place) that are the same entry rewritten: ``(i, j, score)``.

    One entry line replaced by one entry line is an edit of that entry, whatever the words (a
    line merge reads it so, and a conflict resolved "keep mine" writes exactly that); otherwise
    the best pairs at ``TIMELINE_REWORD_THRESHOLD``, each line in one pair at most. The history
    walk (forgotten facts, resurrections) and an entry's timeline both pair lines this way.
    """
    if len(olds) == 1 and len(news) == 1:
        return [(0, 0, reword_score(olds[0], news[0]))]
    out: list[tuple[int, int, float]] = []
    used_old: set[int] = set()
    used_new: set[int] = set()
    for i, j, score in best_pairs(olds, news, TIMELINE_REWORD_THRESHOLD):
        if i not in used_old and j not in used_new:
            used_old.add(i)
            used_new.add(j)
            out.append((i, j, score))
    return out


class SameFactIndex:
    """Texts (*normalised*) to ask "which is the first one that states the same fact as ``a``?".

    :meth:`first` gives the same answer as trying ``same_fact(a, texts[j])`` for ``j`` in order,
    but scores only the texts whose length a 90% ratio allows (``2*min/(la+lb) >= 0.9``, with a
    margin) in one rapidfuzz scan - plain ratio of the word-sorted texts, sorted once here, which
    is what token_sort_ratio computes - with a cutoff a point lower, then confirms the hits in
    order with :func:`same_fact` itself.
    """

    def __init__(self, texts: list[str]):
        self.texts = texts
        self._equal: dict[str, int] = {}
        for j, t in enumerate(texts):
            if t:
                self._equal.setdefault(t, j)
        order = sorted((len(t), j) for j, t in enumerate(texts) if len(t) >= SAME_FACT_MIN_CHARS)
        self._lengths = [n for n, _ in order]
        self._index = [j for _, j in order]
        self._keys = [" ".join(sorted(texts[j].split())) for j in self._index]

    def first(self, a: str) -> tuple[int, float] | None:
        """``(j, score)`` for the first ``texts[j]`` stating the same fact as ``a``, or None."""
        cands: list[int] = []
        if a in self._equal:
            cands.append(self._equal[a])
        if len(a) >= SAME_FACT_MIN_CHARS:
            lo = bisect_left(self._lengths, len(a) * 9 // 11 - 2)
            hi = bisect_right(self._lengths, len(a) * 11 // 9 + 2)
            if lo < hi:
                fuzz, process = fuzzy.fuzz, fuzzy.process

                query = " ".join(sorted(a.split()))
                cands += [
                    self._index[lo + k]
                    for _c, _s, k in process.extract(
                        query, self._keys[lo:hi], scorer=fuzz.ratio, score_cutoff=SAME_FACT_THRESHOLD - 1, limit=None
                    )
                ]
        for j in sorted(set(cands)):
            score = same_fact(a, self.texts[j])
            if score is not None:
                return j, score
        return None
