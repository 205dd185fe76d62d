"""Query atoms resolved against the vocabulary, typo candidates, and the precise score.

Helpers of ``SearchIndex`` (see ``index.py``'s docstring), reading the posting store
(``store.py``) through its public methods. Pure.

Match classes of an atom against a token, best first: 0 EXACT (the token), 1 PREFIX,
2 SUBSTRING (atoms of 2+ characters), 3 SUBSEQUENCE inside the token (3+ characters);
``FUZZY`` is a typo match, used only when the strict classes find too few items.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from amr_tui.core.search.abbrev import forms_of, phrase_form_pattern
from amr_tui.core.search.store import PostingStore
from amr_tui.core.search.text import Joined, Query, bits_of, ids_of, is_subsequence, subseq_pattern

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
_MAX_NARROW = 5000  # narrow from a previous atom only while its token list is this short
_REUSE = 4  # a scan reuses the texts last gathered when it needs at least 1/_REUSE of them


def _max_level(atom: str) -> int:
    return 1 if len(atom) == 1 else 2 if len(atom) == 2 else 3


class _Levels:
    """What an atom's slot bitsets per level give the ranker: their cumulative union (``upto``,
    kept in ``_up``, made by ``_level_bits``) and the same as bytes for per-slot lookups."""

    __slots__ = ("text", "_up", "_bytes")

    def __init__(self, text: str) -> None:
        self.text = text
        self._up: list[int] = []  # cumulative slot bitsets per level, computed lazily
        self._bytes: list[bytes] = []

    def _level_bits(self, level: int, below: int) -> int:
        """The slots of ``level`` or better, given ``below``: those of the levels under it."""
        raise NotImplementedError

    def upto(self, level: int) -> int:
        """Slots whose best class for this atom is ``level`` or better."""
        level = min(level, _max_level(self.text))
        up = self._up
        while len(up) <= level:
            up.append(self._level_bits(len(up), up[-1] if up else 0))
        return up[level]

    def level_bytes(self, nbytes: int, level: int) -> list[bytes]:
        """``upto(0..level)`` (capped at the atom's last level) as bytes of length ``nbytes``."""
        level = min(level, _max_level(self.text))
        have = self._bytes
        if have and len(have[0]) != nbytes:
            have.clear()
        while len(have) <= level:
            have.append(self.upto(len(have)).to_bytes(nbytes, "little"))
        return have[: level + 1]


class AtomMatch(_Levels):
    """The vocabulary tokens one atom matches, by class, and the slots behind them."""

    __slots__ = ("tokens", "_index")

    def __init__(self, index: PostingStore, text: str, tokens: tuple[list[str], ...]) -> None:
        super().__init__(text)
        self.tokens = tokens  # (exact, prefix, substring, subsequence)
        self._index = index

    def _level_bits(self, level: int, below: int) -> int:
        return self._index.bits_for(self.tokens[level]) | below

    def all_tokens(self) -> list[str]:
        return [t for group in self.tokens for t in group]


class AtomAny(_Levels):
    """One query word that also matches its other forms (``abbrev.py``: "db" and "database"):
    the slots of each level are the union of the forms' slots. Reads like an ``AtomMatch``."""

    __slots__ = ("forms",)

    def __init__(self, text: str, forms: Sequence[AtomMatch | AtomPhrase]) -> None:
        super().__init__(text)
        self.forms = tuple(forms)

    @property
    def tokens(self) -> tuple[list[str], ...]:
        return tuple([t for f in self.forms for t in f.tokens[k]] for k in range(4))

    def _level_bits(self, level: int, below: int) -> int:
        bits = below
        for f in self.forms:
            bits |= f.upto(level)
        return bits

    def all_tokens(self) -> list[str]:
        return [t for f in self.forms for t in f.all_tokens()]


class AtomPhrase(_Levels):
    """A form of several words (``abbrev.py``: "e2e" is "end to end"): the slots holding its
    words in order, each a whole word but the last (a word's start: "pull requests"), separated
    by anything but letters and digits ("end-to-end", "end to end"). Every level is the same:
    a phrase form is matched as written or not at all."""

    __slots__ = ("_resolver", "pattern")

    def __init__(self, resolver: Resolver, text: str) -> None:
        super().__init__(text)
        self._resolver = resolver
        self.pattern = phrase_form_pattern(text)

    @property
    def tokens(self) -> tuple[list[str], ...]:
        return [], [], [], []

    def _level_bits(self, level: int, below: int) -> int:
        if level:
            return below
        bits = -1
        for word in self.text.split():
            bits &= self._resolver.atom(word).upto(1)
            if not bits:
                return 0
        return self._resolver.holders(bits, near=self.pattern)

    def all_tokens(self) -> list[str]:
        return []


Atom = AtomMatch | AtomAny | AtomPhrase


def idf(df: int, n: int) -> float:
    """BM25's inverse document frequency: a word in few entries weighs more than a common one."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def classify_fresh(index: PostingStore, atom: str) -> tuple[list[str], ...]:
    vocab = index.vocab
    lo = bisect_left(vocab, atom)
    hi = bisect_left(vocab, atom + "\U0010ffff", lo)
    exact: list[str] = []
    if lo < hi and vocab[lo] == atom:
        exact = [atom]
        lo += 1
    prefix = vocab[lo:hi]
    sub: list[str] = []
    subseq: list[str] = []
    if len(atom) >= 2:
        joined, starts = index.vocab_text()
        seen: set[int] = set()
        for m in re.finditer(re.escape(atom), joined):
            i = bisect_right(starts, m.start()) - 1
            if i not in seen and m.start() != starts[i]:
                seen.add(i)
                tok = vocab[i]
                if not tok.startswith(atom):
                    sub.append(tok)
        if len(atom) >= 3:
            seen.clear()
            for m in subseq_pattern(atom).finditer(joined):
                i = bisect_right(starts, m.start()) - 1
                if i not in seen:
                    seen.add(i)
                    tok = vocab[i]
                    if atom not in tok:
                        subseq.append(tok)
    return exact, prefix, sub, subseq


def classify_from(tokens: list[str], atom: str) -> tuple[list[str], ...]:
    """Classify ``tokens`` (a superset of the matches, e.g. an earlier atom's) for ``atom``."""
    exact: list[str] = []
    prefix: list[str] = []
    sub: list[str] = []
    subseq: list[str] = []
    rx = subseq_pattern(atom).search if len(atom) >= 3 else None
    two = len(atom) >= 2
    for t in tokens:
        if t.startswith(atom):
            (exact if len(t) == len(atom) else prefix).append(t)
        elif two and atom in t:
            sub.append(t)
        elif rx is not None and rx(t) is not None:
            subseq.append(t)
    return exact, prefix, sub, subseq


class Resolver:
    """Turns atoms into ``AtomMatch``es; with ``remember`` it keeps and narrows them."""

    def __init__(self, index: PostingStore, remember: bool = False) -> None:
        self._index = index
        self._remember = remember
        self._atoms: dict[str, AtomMatch] = {}
        self._fuzzy: dict[str, int] = {}
        # With ``remember``: phrase and near-phrase scans done, (phrase or pattern) -> (the slots
        # scanned, those holding it). A keystroke that extends the phrase scans only the slots
        # that held the shorter one, and those not scanned then.
        self._scans: dict[tuple[bool, str], tuple[int, int]] = {}
        # The last texts gathered for a scan (``_gathered``): (slots as bits, how many, slots, texts).
        self._last: tuple[int, int, list[int], Joined] | None = None

    def atom(self, text: str) -> AtomMatch:
        known = self._atoms.get(text)
        if known is not None:
            return known
        tokens = None
        if self._remember and len(text) >= 4:
            parent = self._parent(text)
            if parent is not None:
                tokens = classify_from(parent.all_tokens(), text)
        if tokens is None:
            tokens = classify_fresh(self._index, text)
        am = AtomMatch(self._index, text, tokens)
        if self._remember:
            if len(self._atoms) >= 64:
                self._atoms.pop(next(iter(self._atoms)))
            self._atoms[text] = am
        return am

    def _parent(self, text: str) -> AtomMatch | None:
        best: AtomMatch | None = None
        for key, am in self._atoms.items():
            if len(key) >= 3 and len(key) < len(text) and (best is None or len(key) > len(best.text)):
                if sum(map(len, am.tokens)) <= _MAX_NARROW and is_subsequence(key, text):
                    best = am
        return best

    def group(self, text: str) -> Atom:
        """``atom(text)``, or the union with its other forms when it has some (``abbrev.py``)."""
        forms = forms_of(text)
        if not forms:
            return self.atom(text)
        return AtomAny(text, [self.atom(text), *(AtomPhrase(self, f) if " " in f else self.atom(f) for f in forms)])

    def holders(self, domain: int, phrase: str = "", near: re.Pattern[str] | None = None) -> int:
        """The slots of ``domain`` whose folded text holds ``phrase`` (or, given ``near``, that
        the pattern finds a match in). A text holding a phrase holds every part of it, and a
        near-phrase pattern that another's source begins with matches wherever that one does
        (its last word cut shorter, or fewer words): so an earlier scan's misses are skipped."""
        key = (near is not None, near.pattern if near is not None else phrase)
        todo = domain
        best = -1
        for (is_near, text), (scanned, held) in self._scans.items():
            if is_near == key[0] and len(text) > best and (key[1].startswith(text) if is_near else text in key[1]):
                todo, best = (domain & held) | (domain & ~scanned), len(text)
        if not todo:
            found = 0
        else:
            ids, texts, sub = self._gathered(todo)
            hits = texts.matching(near) if near is not None else texts.holding(phrase)
            found = bits_of([ids[i] for i in hits])
            if sub:
                found &= todo
        if self._remember:
            if len(self._scans) >= 16:
                self._scans.pop(next(iter(self._scans)))
            self._scans[key] = (domain, found)
        return found

    def _gathered(self, todo: int) -> tuple[list[int], Joined, bool]:
        """The slots of ``todo`` and their folded texts joined, for a scan: (slots, texts, whether
        they are more than ``todo``, so that what is found must be cut to it). Gathering the
        texts of 33,000 candidates is most of a scan at 1M entries: the last gathering is kept
        and answers a scan of a large enough part of it (the phrase and the near-phrase scans
        of one keystroke, or a keystroke that extends the phrase) without gathering again."""
        last = self._last
        if last is not None:
            bits, count, ids, texts = last
            if todo == bits:
                return ids, texts, False
            inside = todo & bits
            if inside == todo and todo.bit_count() * _REUSE >= count:
                return ids, texts, True
        ids = ids_of(todo)
        joined = Joined(self._index.lower_of(ids))
        self._last = (todo, len(ids), ids, joined)
        return ids, joined, False

    def fuzzy_bits(self, atom: str) -> int:
        """Slots holding a token one or two typos away from ``atom`` (or two run together)."""
        known = self._fuzzy.get(atom)
        if known is not None:
            return known
        bits = fuzzy_bits(self._index, atom)
        if self._remember:
            self._fuzzy[atom] = bits
        return bits


def fuzzy_bits(index: PostingStore, atom: str) -> int:
    from rapidfuzz import process  # on first use: rapidfuzz costs `amr` start-up time
    from rapidfuzz.distance import OSA  # on first use, as rapidfuzz.process above

    n = len(atom)
    vocab = index.vocab
    toks: set[str] = set()
    if n >= 4:
        k = 1 if n <= 6 else 2
        near = index.vocab_by_length(n - k, n + k)
        for tok, _d, _i in process.extract(atom, near, scorer=OSA.distance, score_cutoff=k, limit=None):
            toks.add(tok)
        if n >= 5:  # a word still being typed, with a typo in what is there
            longer, heads = index.vocab_heads(n)
            for _h, _d, i in process.extract(atom, heads, scorer=OSA.distance, score_cutoff=k, limit=None):
                toks.add(longer[i])
    elif n == 3:  # a three-letter word with two letters swapped ("bnu" for "bun"): one edit of
        # any other kind would reach too many three-letter words to mean one
        for i in range(2):
            swapped = atom[:i] + atom[i + 1] + atom[i] + atom[i + 2 :]
            if swapped != atom and index.has_token(swapped):
                toks.add(swapped)
    bits = index.bits_for(toks) if toks else 0
    for cut in range(2, n - 1):  # "rediscache" -> "redis" + "cache..."
        left, right = atom[:cut], atom[cut:]
        if index.has_token(left):
            lo = bisect_left(vocab, right)
            hi = bisect_left(vocab, right + "\U0010ffff", lo)
            if lo < hi:
                bits |= index.bits_for((left,)) & index.bits_for(vocab[lo:hi])
    return bits


def typo_candidates(
    index: PostingStore, atoms: Sequence[Atom], live: int, strict_bits: int, room: int, resolver: Resolver
) -> list[int]:
    """Up to ``room`` slots matching every atom strictly or with a typo, minus ``strict_bits``."""
    if room <= 0:
        return []
    loose = live
    any_typo = False
    for am in atoms:
        typo = resolver.fuzzy_bits(am.text) if len(am.text) >= 3 else 0
        any_typo = any_typo or bool(typo)
        loose &= am.upto(3) | typo
        if not loose:
            return []
    if not any_typo:
        return []
    return index.take_best(loose & ~strict_bits, room)


def _subseq_quality(cache: dict[str, re.Pattern[str]], atom: str, low: str) -> float:
    rx = cache.get(atom)
    if rx is None:
        rx = cache[atom] = subseq_pattern(atom, r"\W_")
    m = rx.search(low)
    if m is None:  # matched through a camelCase part or a cut token: no bonus
        return 0.0
    tight = len(atom) / (m.end() - m.start())
    return 0.08 * tight + (0.04 if _word_start(low, m.start()) else 0.0)


def near_phrase(q: Query) -> re.Pattern[str] | None:
    """The typed words from the first word that counts to the last (stop words between them
    kept: "deploy on friday" of "can we deploy on friday"), each matching a word's start, in
    order and next to each other; None for one word."""
    words = [w for w in q.words if any(c.isalnum() for c in w)]
    keep = [i for i, w in enumerate(words) if any(a in w for a in q.atoms)]
    if len(keep) < 2:
        return None
    core = words[keep[0] : keep[-1] + 1]
    parts = [re.escape("".join(c for c in w if c.isalnum())) for w in core]
    if not all(parts):
        return None
    # At a word start: the first word's letters, then a look back past them at the character
    # before (not a letter or digit). Written so rather than with the look-behind first, the
    # pattern starts with a literal, which the regex engine finds by a fast scan of the text.
    first = parts[0]
    return re.compile(first + rf"(?<![^\W_]{first})" + "".join(r"\w*[\W_]+" + p for p in parts[1:]))


_WORD = re.compile(r"[^\W_]+")


def _said(low: str, spellings: list[list[str]], span: int) -> float:
    """1.0 for a text that says something; less for noise: a text that repeats a word and holds
    fewer than ``span`` other words than the typed ones ("Deploy order, deploy order" says
    nothing beyond "deploy order"). A real sentence repeats "the" but holds other words."""
    words = _WORD.findall(low)
    distinct = set(words)
    if len(distinct) == len(words):
        return 1.0
    typed = [sp for forms in spellings for sp in forms]
    other = sum(1 for word in distinct if not any(sp in word for sp in typed))
    return min(1.0, other / span)


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
    index: PostingStore,
    q: Query,
    atoms: Sequence[Atom],
    strict: list[int],
    fuzzy: list[int],
    partial: Sequence[int] = (),
    weights: Sequence[float] | None = None,
    typos: Sequence[int] = (),
) -> list[tuple[int, float, str, str, int, int]]:
    """``(group, -score, repo, path, line, slot)`` for every slot given; sort it for the ranking.

    ``group`` is 0 for an item holding every atom as a word or a word's start, 1 for one
    holding some only inside a word (several atoms), with a typo (``fuzzy``) or not at all
    (``partial``: they score nothing): those rank together by score. ``weights``: one per atom (its
    rarity); the atoms' class scores are averaged with them."""
    ww = WEIGHTS
    slots = strict + fuzzy + list(partial)
    w = list(weights) if weights is not None else [1.0] * len(atoms)
    w_total = sum(w) or 1.0
    w = [x / w_total for x in w]  # shares that sum to 1 (one word: exactly 1, whatever its rarity)
    # Each atom's class bitsets as bytes: testing a slot is then one byte lookup.
    items, lower = index.items, index.lower
    nbytes = (len(items) >> 3) + 1
    levels = [
        (am.text, _max_level(am.text), am.level_bytes(nbytes, _max_level(am.text) if fuzzy else 2)) for am in atoms
    ]
    rx_cache: dict[str, re.Pattern[str]] = {}
    n = len(atoms)
    typo_of = list(typos) or [0] * n  # the slots holding each atom with a typo (partial matches)
    first = q.atoms[0]
    # each atom's spellings (its other forms too), longest first: where it sits in a text
    spellings = [
        sorted({f.text for f in am.forms} if isinstance(am, AtomAny) else {am.text}, key=len, reverse=True)
        for am in atoms
    ]
    plain = n == 1 and q.phrase == first
    near_phrase_rx = near_phrase(q)
    fuzzy_set = set(fuzzy)
    partial_set = set(partial)
    ratio = None
    if fuzzy:
        from rapidfuzz import fuzz  # on first use: rapidfuzz costs `amr` start-up time

        ratio = fuzz.partial_ratio
    out: list[tuple[int, float, str, str, int, int]] = []
    for slot in slots:
        item = items[slot]
        low = lower[slot]
        assert item is not None and low is not None
        is_fuzzy = slot in fuzzy_set
        is_partial = slot in partial_set
        total = 0.0
        worst = 0
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
        out.append((1 if weak else 0, -score, item.repo, item.path, item.line, slot))
    return out
