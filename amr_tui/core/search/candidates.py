"""Stage 3 of a keystroke: the candidates, the slots worth scoring (see ``index.py``). Pure.

Each query atom is resolved against the vocabulary (``Resolver``): the tokens it matches, by
class, best first: 0 EXACT (the token), 1 PREFIX, 2 SUBSTRING (atoms of 2+ characters),
3 SUBSEQUENCE inside the token (3+ characters); ``FUZZY`` (``score.py``) is a typo match, used
only when the strict classes find too few items; a word with other forms (``abbrev.py``)
matches any of them. ``gather`` then takes, in order: the items holding the typed phrase (or
the typed words together), then tier by tier (a tier is the weakest class among the atoms), a
group too large cut to the shortest texts (``PostingStore.take_best``), so at most ``cap``
items are scored; then typo matches and items holding most of the words (``_partial``).
``holding`` finds the items an exclusion (``-word``) leaves out.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate, combinations

from amr_tui.core import fuzzy
from amr_tui.core.search.abbrev import forms_of, phrase_form_pattern
from amr_tui.core.search.bits import bits_of, ids_of
from amr_tui.core.search.query import Query
from amr_tui.core.search.store import PostingStore
from amr_tui.core.search.text import is_subsequence, subseq_pattern

_MAX_NARROW = 5000  # narrow from a previous atom only while its token list is this short
_REUSE = 4  # a scan reuses the texts last gathered when it needs at least 1/_REUSE of them


def max_level(atom: str) -> int:
    """The weakest match class an atom can have: one letter PREFIX, two SUBSTRING, more SUBSEQUENCE."""
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
        level = min(level, max_level(self.text))
        up = self._up
        while len(up) <= level:
            up.append(self._level_bits(len(up), up[-1] if up else 0))
        return up[level]

    def level_bytes(self, nbytes: int, level: int) -> list[bytes]:
        """``upto(0..level)`` (capped at the atom's last level) as bytes of length ``nbytes``."""
        level = min(level, max_level(self.text))
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
    process = fuzzy.process
    OSA = fuzzy.OSA

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


Keep = Callable[[int], int]  # the slots of a bitset that pass the query's costly filters (``filters.Keep.bits``)


@dataclass(slots=True)
class Found:
    """The candidates of one query: what ``score.score_slots`` scores."""

    atoms: list[Atom]  # each required atom resolved (with its other forms)
    weights: list[float]  # each atom's rarity (``idf``)
    strict: list[int]  # slots holding every atom, best groups first
    fuzzy: list[int]  # slots holding every atom, some with a typo
    partial: list[int]  # slots holding most of the atoms
    typos: list[int]  # per atom, the slots holding it with a typo (0 when not looked for)
    # per atom: (its text, its weakest class, its class bitsets as bytes: one byte lookup a slot)
    levels: list[tuple[str, int, list[bytes]]]
    spellings: list[list[str]]  # per atom, its spellings (its other forms too), longest first
    scant: bool = False  # the partial matches hold fewer than half the words (nothing held more)


def gather(
    index: PostingStore,
    q: Query,
    live: int,
    keep: Keep | None,
    limit: int,
    resolver: Resolver,
    near: re.Pattern[str] | None,
    n_live: int,
    counted: dict[str, int],
) -> Found | None:
    """The candidates for ``q`` (its required atoms) among the ``live`` slots, at most
    ``cap(limit)`` scored precisely; None when nothing matches. ``near``: the typed words
    together (``query.near_phrase``); ``n_live``, ``counted``: what each atom's rarity is
    counted against (``SearchIndex.population`` and ``counted``)."""
    atoms = [resolver.group(a) for a in q.atoms]
    weights = [idf(counted[am.text] if am.text in counted else (am.upto(1) & live).bit_count(), n_live) for am in atoms]
    room = cap(limit)
    tiers: list[int] = []  # tiers[L]: live slots where every atom matches at class <= L

    def tier(level: int) -> int:
        while len(tiers) <= level:
            bits = live
            for am in atoms:
                bits &= am.upto(len(tiers))
                if not bits:
                    break
            if keep is not None and bits:
                bits = keep(bits)
            tiers.append(bits)
        return tiers[level]

    # Items holding the query's words as typed, together, go first (multi-word or
    # punctuated queries). They are all in tier 2, which is scanned when small enough.
    groups = [live]
    if len(q.atoms) > 1 or q.phrase != q.atoms[0]:
        t2 = tier(2)
        if t2 and t2.bit_count() <= PHRASE_SCAN:
            with_phrase = resolver.holders(t2, q.phrase)
            # then the items holding the typed words together as word starts ("deploys on
            # friday" for "can we deploy on friday"): a cut to the shortest texts keeps them
            with_near = 0
            # The phrase's holders alone fill what is scored: the loop below takes them and
            # no later group, so the near-phrase scan (most of a keystroke at 1M) is skipped.
            if near is not None and with_phrase.bit_count() < room:
                with_near = resolver.holders(t2, near=near) & ~with_phrase
            groups = [g for g in (with_phrase, with_near) if g]
            if groups:
                groups.append(live & ~with_phrase & ~with_near)
            else:
                groups = [live]
    chosen = 0  # bitset of slots taken whole
    picked: list[int] = []  # slots taken from a tier that had to be cut
    taken = 0
    overflow = False
    for group in groups:
        below = 0
        for level in range(4):
            bits = tier(level)
            new = bits & group & ~below
            below = bits
            if not new:
                continue
            n = new.bit_count()
            if taken + n <= room:
                chosen |= new
                taken += n
            else:
                picked = index.take_best(new, room - taken)
                taken = room
                overflow = True
                break
        if overflow:
            break
    fuzzy: list[int] = []
    if not overflow and taken < limit:
        fuzzy = typo_candidates(index, atoms, live, tier(3), room - taken, resolver)
        if keep is not None and fuzzy:
            fuzzy = ids_of(keep(bits_of(fuzzy)))
    strict = ids_of(chosen) + picked
    partial: list[int] = []
    typos: list[int] = [0] * len(atoms)
    # Too few items hold every word as typed: those holding every word with a typo and those
    # holding most of the words exactly are ranked together, by score (a typo two letters
    # off, "metrics" for "retries", is no better than leaving out a common word).
    # Items holding every word only inside other words ("ui" and "kit" in "buildkite") are
    # weak: when fewer than ``limit`` hold every word as a word or a word's start, the items
    # holding most words as words are scored too, and the two rank together by score.
    strong = tier(1).bit_count()
    if (len(strict) < limit or strong < limit) and len(atoms) >= 2:
        typos = [resolver.fuzzy_bits(am.text) if len(am.text) >= 3 else 0 for am in atoms]
        exact = [am.upto(1) & live for am in atoms]
        # enough items hold every word (only weakly): only items holding most words as words
        # rank among them, never one holding them inside other words or with a typo
        loose = [(am.upto(3) | t) & live for am, t in zip(atoms, typos, strict=True)] if len(strict) < limit else exact
        space = max(room - taken - len(fuzzy), 0 if strong >= limit else room // 2)
        partial = _partial(index, exact, loose, weights, live, tier(3) | bits_of(fuzzy), space, keep)
    scant: list[int] = []
    if not strict and not fuzzy and not partial and len(atoms) >= 2:
        # Nothing holds most of the words: the items holding any word of 2+ letters (as a word
        # or a word's start), those holding more of them first, so that a query answers
        # "No matches." only when no entry holds any of its words.
        held = [am.upto(1) & live if len(am.text) >= 2 else 0 for am in atoms]
        partial = scant = _scant(index, held, weights, live, room, keep)
    if not strict and not fuzzy and not partial:
        return None
    if fuzzy and not any(typos):  # a typo match holds its word: it is not missing
        typos = [resolver.fuzzy_bits(am.text) if len(am.text) >= 3 else 0 for am in atoms]
    nbytes = (len(index.items) >> 3) + 1
    levels = [(am.text, max_level(am.text), am.level_bytes(nbytes, max_level(am.text) if fuzzy else 2)) for am in atoms]
    spellings = [
        sorted({f.text for f in am.forms} if isinstance(am, AtomAny) else {am.text}, key=len, reverse=True)
        for am in atoms
    ]
    return Found(atoms, weights, strict, fuzzy, partial, typos, levels, spellings, bool(scant))


PHRASE_SCAN = 40_000  # scan at most this many candidates for the typed phrase
_MAX_COMBOS = 64  # subsets of atoms tried per number of missing atoms


def cap(limit: int) -> int:
    """How many items are scored precisely for a result list of ``limit``."""
    return max(240, 5 * limit)


def _partial(
    index: PostingStore,
    exact: list[int],
    loose: list[int],
    weights: list[float],
    live: int,
    taken: int,
    room: int,
    keep: Keep | None,
) -> list[int]:
    """Items holding most of the atoms, for a query too few items answer in full (at least
    half of them, the rarest weighing most): those lacking one atom first, then two, ...

    ``exact``: the slots holding each atom as a word or a word's start; ``loose``: also
    inside a word, or with a typo. Among items lacking as many atoms, those holding the rest
    as words come first, then those holding them only loosely ("metrics" is two letters off
    "retries"; "dance" is in "guidance"), and within each pass those whose missing atoms
    weigh least ("ci macos api": the fact holding "ci" and "macos" before the thousands
    holding "ci" and "api"). Each such set is cut to the room left by ``take_best`` on its
    own, so a common word's holders never crowd out a rare word's."""
    if room <= 0:
        return []
    n = len(exact)
    need = (n + 1) // 2
    total = sum(weights)
    out: list[int] = []
    seen = taken
    for missing in range(1, n - need + 1):
        leaves = [
            leave
            for leave in sorted(
                combinations(range(n), missing), key=lambda leave: (sum(weights[k] for k in leave), leave)
            )[:_MAX_COMBOS]
            # the rarest words are what the query is about: they may not all be missing
            if sum(weights[k] for k in leave) <= 0.75 * total
        ]
        for bits in (exact, loose):
            for leave in leaves:
                acc = live & ~seen
                for k in range(n):
                    if k not in leave:
                        acc &= bits[k]
                        if not acc:
                            break
                seen |= _take(index, acc, keep, out, room)
                if len(out) >= room:
                    return out
    return out


def _take(index: PostingStore, acc: int, keep: Keep | None, out: list[int], room: int) -> int:
    """Add the best of ``acc`` (those ``keep`` keeps) to ``out``, up to ``room`` in all; the
    slots it looked at (taken or not: they are not candidates again)."""
    if keep is not None and acc:
        acc = keep(acc)
    if acc:
        out += index.take_best(acc, room - len(out))
    return acc


def _scant(
    index: PostingStore, held: list[int], weights: list[float], live: int, room: int, keep: Keep | None
) -> list[int]:
    """Up to ``room`` items holding any atom (``held``: the slots holding each, as a word or a
    word's start), those holding more atoms first, and among those holding as many, those holding
    the rarer ones; for a query that nothing answers with most of its words.

    How many atoms each slot holds is added up in bit planes (``_count_planes``), so the work is a
    few dozen operations on bitsets whatever the number of atoms or items."""
    if room <= 0:
        return []
    planes = _count_planes(held)
    rarest = sorted(range(len(held)), key=lambda k: -weights[k])
    out: list[int] = []
    seen = 0
    for count in range(len(held) - 1, 0, -1):
        with_count = live
        for j, plane in enumerate(planes):
            with_count &= plane if count >> j & 1 else ~plane
            if not with_count:
                break
        if not with_count or count >> len(planes):
            continue
        for k in rarest:
            seen |= _take(index, with_count & held[k] & ~seen, keep, out, room)
            if len(out) >= room:
                return out
    return out


def _count_planes(sets: list[int]) -> list[int]:
    """The binary digits, as bitsets, of how many of ``sets`` each slot is in: slot ``s`` is in
    ``c`` of them when bit ``s`` of plane ``j`` is bit ``j`` of ``c`` (a ripple-carry adder over
    bitsets)."""
    planes: list[int] = []
    for bits in sets:
        carry = bits
        for j, plane in enumerate(planes):
            if not carry:
                break
            planes[j], carry = plane ^ carry, plane & carry
        if carry:
            planes.append(carry)
    return planes


def holding(index: PostingStore, excluded: Sequence[tuple[str, tuple[str, ...]]], live: int, resolver: Resolver) -> int:
    """Live slots holding any excluded word (as a word or a word's start) or phrase: what a
    ``-word`` leaves out of the candidates. ``excluded``: each phrase and its atoms (``query.exclusions``)."""
    out = 0
    for phrase, toks in excluded:
        if not toks:
            continue
        bits = live
        for t in toks:
            bits &= resolver.atom(t).upto(1)
        if len(toks) > 1 and bits:
            lower = index.lower
            bits = bits_of([s for s in ids_of(bits) if phrase in lower[s]])  # type: ignore[operator]  # live
        out |= bits
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
