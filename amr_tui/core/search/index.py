"""Ranked fuzzy search over the entries and file names of several memory repos.

Pure: it indexes only what it is handed (no files, git, threads or UI). Not thread-safe:
a caller that updates from one thread and searches from another holds a lock.

Design (figures: ``bench/bench_search.py``):

* Every item (an entry, or a file name whose text is its path) lives in a *slot*; sets of
  slots are Python ints used as bitsets, so intersections and unions run in C.
* An inverted index (``store.py``) maps each token of the entry TEXT (metadata is not
  indexed) to its slots: a ``set`` while the token is rare, a mutable bit array once it
  is common. A sorted vocabulary, joined into one string, answers "which tokens equal /
  start with / contain / hold as a subsequence this query atom" with ``bisect`` and
  linear-time ``re`` scans instead of a loop over items.
* A query atom matches a token as EXACT, PREFIX, SUBSTRING (atoms of 2+ chars) or
  SUBSEQUENCE (3+ chars). An item matches when every atom matches one of its tokens, in
  any order. Candidates are gathered in order: items holding the typed phrase first, then
  tier by tier (tier = the weakest class among the atoms); a group too large to score is
  cut to the items with the shortest text (length-bucket bitsets), so at most
  ``_cap(limit)`` items are ever scored precisely (``rank.score_slots``), however
  large the index.
* Too few strict matches turns on typo tolerance: vocabulary tokens within OSA distance
  1-2 of an atom or of its start (rapidfuzz over the vocabulary, not the items), or an
  atom that is two tokens run together.
* ``set_file`` re-indexes one file: items whose text did not change keep their slot and
  postings; the rest are dropped from the postings they held and new items take free
  slots. ``generation`` bumps when anything a hit shows changed.
* ``SearchSession`` keeps, for one search box, the atoms already resolved (a multi-word
  query reuses the earlier words), narrows an extended atom from the previous keystroke's
  candidate tokens, and caches results (backspace). Its results always equal
  ``SearchIndex.search``; a new ``generation`` drops everything it kept.
"""

from __future__ import annotations

import datetime as _dt
import fnmatch
from collections.abc import Collection, Container, Iterable, Mapping, Sequence
from itertools import combinations
from typing import Protocol

from amr_tui.core.format.tags import item_tags, tag_matches
from amr_tui.core.scope import matches as scope_matches
from amr_tui.core.search.items import SearchHit, SearchItem
from amr_tui.core.search.query import AGO, STOPWORDS, Filter, Parsed, QueryError, parse
from amr_tui.core.search.rank import Resolver, idf, near_phrase, score_slots, typo_candidates
from amr_tui.core.search.store import PostingStore
from amr_tui.core.search.text import (
    Query,
    bits_of,
    highlight_positions,
    ids_of,
    parse_query,
    positions_for,
    strip_metadata,
)

__all__ = [
    "QueryError",
    "SearchContext",
    "SearchHit",
    "SearchIndex",
    "SearchItem",
    "SearchSession",
    "highlight_positions",
]


class SearchIndex(PostingStore):
    """Items of many files of many repos; see the module docstring."""

    # How many entries the rarity of a word is counted against, when the index holds only
    # some of them (``amr search`` without its cache indexes only the lines that can match).
    population: int | None = None
    # With ``population``: how many entries hold each query word (a word start), counted by the
    # caller over every entry, for the words whose holders the index does not all have.
    counted: dict[str, int] | None = None

    def __init__(self) -> None:
        super().__init__()
        self._files: dict[tuple[str, str], list[int]] = {}
        self.generation = 0

    # ------------------------------------------------------------------ updates

    def __len__(self) -> int:
        return self._count

    @staticmethod
    def _items_of(repo: str, path: str, entries: Iterable[tuple[int, str]]) -> list[SearchItem]:
        items = [SearchItem(repo, path, 0, path, "file")]
        for line, text in entries:
            text = strip_metadata(text)
            if text.strip():
                items.append(SearchItem(repo, path, int(line), text, "entry"))
        return items

    def set_files(self, repo: str, files: Iterable[tuple[str, Iterable[tuple[int, str]]]]) -> None:
        """``set_file`` for many files of one repo, in order, with the same result; files not
        indexed yet are added in one batch (a full load posts each token once, not per file)."""
        batch: list[SearchItem] = []
        spans: list[tuple[tuple[str, str], int]] = []
        pending: set[tuple[str, str]] = set()
        for path, entries in files:
            key = (repo, path)
            if key in self._files or key in pending:
                self._add_batch(batch, spans)
                batch, spans, pending = [], [], set()
                self.set_file(repo, path, entries)
                continue
            items = self._items_of(repo, path, entries)
            spans.append((key, len(items)))
            pending.add(key)
            batch.extend(items)
        self._add_batch(batch, spans)

    def _add_batch(self, batch: list[SearchItem], spans: list[tuple[tuple[str, str], int]]) -> None:
        if not batch:
            return
        slots = self._add(batch)
        at = 0
        for key, n in spans:
            self._files[key] = slots[at : at + n]
            at += n
        self.generation += len(spans)

    def set_file(self, repo: str, path: str, entries: Iterable[tuple[int, str]]) -> None:
        """Replace every item of one file: its entries and its file-name item."""
        key = (repo, path)
        items = self._items_of(repo, path, entries)
        old = self._files.get(key)
        if not old:
            self._files[key] = self._add(items)
            self.generation += 1
            return
        # Items whose text is unchanged keep their slot (and their postings).
        store = self._items
        by_text: dict[tuple[str, str], list[int]] = {}
        for slot in old:
            it = store[slot]
            assert it is not None
            by_text.setdefault((it.kind, it.text), []).append(slot)
        kept: list[int] = []
        fresh: list[SearchItem] = []
        changed = False
        for it in items:
            lst = by_text.get((it.kind, it.text))
            if lst:
                slot = lst.pop()
                if store[slot] != it:
                    store[slot] = it
                    changed = True
                kept.append(slot)
            else:
                fresh.append(it)
        gone = [slot for lst in by_text.values() for slot in lst]
        if fresh:
            kept.extend(self._add(fresh))
        if gone:
            self._drop(gone)
        self._files[key] = kept
        if fresh or gone or changed:
            self.generation += 1

    def paths(self, repo: str) -> list[str]:
        """Every file of ``repo`` the index holds."""
        return [path for r, path in self._files if r == repo]

    def remove_file(self, repo: str, path: str) -> None:
        old = self._files.pop((repo, path), None)
        if old is not None:
            self._drop(old)
            self.generation += 1

    def remove_repo(self, repo: str) -> None:
        keys = [k for k in self._files if k[0] == repo]
        for key in keys:
            self._drop(self._files.pop(key))
        self._repo_bits.pop(repo, None)
        if keys:
            self.generation += 1

    def files(self, repo: str | None = None) -> list[tuple[str, str]]:
        """The (repo, path) pairs indexed, sorted."""
        return sorted(k for k in self._files if repo is None or k[0] == repo)

    # ------------------------------------------------------------------ searching

    def search(
        self,
        query: str,
        limit: int = 50,
        *,
        repos: Collection[str] | None = None,
        context: SearchContext | None = None,
    ) -> list[SearchHit]:
        """The best ``limit`` hits for ``query``, best first. An empty query gives [].

        ``context`` answers the filters the index cannot (metadata, broken links, orphans);
        without it those filters match nothing. A malformed filter raises QueryError."""
        return self._search(query, limit, repos, Resolver(self), context)

    def _search(
        self,
        query: str,
        limit: int,
        repos: Collection[str] | None,
        resolver: Resolver,
        context: SearchContext | None = None,
    ) -> list[SearchHit]:
        parsed = parse(query, context.keys if context is not None and ":" in query else frozenset())
        if parsed.error:
            raise QueryError(parsed.error)
        full = parse_query(parsed.text)
        if (not full.atoms and not parsed.filters) or limit <= 0:
            return []
        live = self._live(repos)
        if live and parsed.filters:
            live &= self._cheap_filters(parsed.filters)
        if live and parsed.excluded:
            live &= ~self._holding(parsed.excluded, live, resolver)
        if not live:
            return []
        keep = _Keep(self, parsed, context) if (parsed.phrases or _needs_context(parsed.filters)) else None
        if not full.atoms:  # filters only: every entry that passes, in file order
            slots = sorted(ids_of(keep.bits(live & self._entry_bits()) if keep else live & self._entry_bits()))
            first = sorted(slots, key=lambda s: _order(self._items[s]))[:limit]
            return [SearchHit(self._items[s], 50.0, ()) for s in first]  # type: ignore[arg-type]  # live slots
        required = [a for a in full.atoms if a not in STOPWORDS] or list(full.atoms)
        q = Query(full.raw, full.words, tuple(required), full.phrase, full.cased_words)
        atoms = [resolver.group(a) for a in required]
        n_live = max(1, self.population if self.population and repos is None else live.bit_count())
        counted = self.counted or {}
        weights = [
            idf(counted[am.text] if am.text in counted else (am.upto(1) & live).bit_count(), n_live) for am in atoms
        ]
        cap = _cap(limit)
        tiers: list[int] = []  # tiers[L]: live slots where every atom matches at class <= L

        def tier(level: int) -> int:
            while len(tiers) <= level:
                bits = live
                for am in atoms:
                    bits &= am.upto(len(tiers))
                    if not bits:
                        break
                if keep is not None and bits:
                    bits = keep.bits(bits)
                tiers.append(bits)
            return tiers[level]

        # Items holding the query's words as typed, together, go first (multi-word or
        # punctuated queries). They are all in tier 2, which is scanned when small enough.
        groups = [live]
        if len(q.atoms) > 1 or q.phrase != q.atoms[0]:
            t2 = tier(2)
            if t2 and t2.bit_count() <= _PHRASE_SCAN:
                with_phrase = resolver.holders(t2, q.phrase)
                # then the items holding the typed words together as word starts ("deploys on
                # friday" for "can we deploy on friday"): a cut to the shortest texts keeps them
                near = near_phrase(q)
                with_near = 0
                # The phrase's holders alone fill what is scored: the loop below takes them and
                # no later group, so the near-phrase scan (most of a keystroke at 1M) is skipped.
                if near is not None and with_phrase.bit_count() < cap:
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
                if taken + n <= cap:
                    chosen |= new
                    taken += n
                else:
                    picked = self.take_best(new, cap - taken)
                    taken = cap
                    overflow = True
                    break
            if overflow:
                break
        fuzzy: list[int] = []
        if not overflow and taken < limit:
            fuzzy = typo_candidates(self, atoms, live, tier(3), cap - taken, resolver)
            if keep is not None and fuzzy:
                fuzzy = ids_of(keep.bits(bits_of(fuzzy)))
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
            loose = (
                [(am.upto(3) | t) & live for am, t in zip(atoms, typos, strict=True)] if len(strict) < limit else exact
            )
            room = max(cap - taken - len(fuzzy), 0 if strong >= limit else cap // 2)
            partial = self._partial(exact, loose, weights, live, tier(3) | bits_of(fuzzy), room, keep)
        if not strict and not fuzzy and not partial:
            return []
        if fuzzy and not any(typos):  # a typo match holds its word: it is not missing
            typos = [resolver.fuzzy_bits(am.text) if len(am.text) >= 3 else 0 for am in atoms]
        ranked = score_slots(self, q, atoms, strict, fuzzy, partial, weights, typos)
        ranked.sort()
        out: list[SearchHit] = []
        for group, neg, _repo, _path, _line, slot in ranked[:limit]:
            item = self._items[slot]
            assert item is not None
            missing = (
                tuple(a for a, am, t in zip(required, atoms, typos, strict=True) if not ((am.upto(3) | t) >> slot) & 1)
                if group
                else ()
            )
            out.append(SearchHit(item, round(-neg, 3), positions_for(full, item.text), missing))
        return out

    def strict_count(
        self, query: str, repos: Collection[str] | None = None, *, keys: Container[str] = frozenset()
    ) -> int:
        """How many items hold every word of ``query`` (the words' strict classes, no typos):
        when at least ``limit``, a search of ``limit`` needs no typo or partial stage. ``keys``:
        the metadata keys a ``KEY:VALUE`` filter may name (``query.parse``)."""
        full = parse_query(parse(query, keys).text)
        required = [a for a in full.atoms if a not in STOPWORDS] or list(full.atoms)
        resolver = Resolver(self)
        bits = self._live(repos)
        for a in required:
            bits &= resolver.group(a).upto(3)
        return bits.bit_count()

    def _partial(
        self,
        exact: list[int],
        loose: list[int],
        weights: list[float],
        live: int,
        taken: int,
        room: int,
        keep: _Keep | None,
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
                    if keep is not None and acc:
                        acc = keep.bits(acc)
                    if acc:
                        out += self.take_best(acc, room - len(out))
                        seen |= acc
                        if len(out) >= room:
                            return out
        return out

    def _entry_bits(self) -> int:
        live = self._live(None)
        return live & ~self.bits_for_files()

    def bits_for_files(self) -> int:
        """Slots of file-name items (the first slot of each file)."""
        return bits_of([slots[0] for slots in self._files.values() if slots])

    def _cheap_filters(self, filters: Sequence[Filter]) -> int:
        """The slots that pass the path: and repo: filters (all slots when there are none)."""
        bits = -1
        for f in filters:
            if f.key == "repo":
                mask = 0
                for name in {k[0] for k in self._files}:
                    if f.value in name.lower():
                        mask |= self._live([name])
                bits &= mask
            elif f.key == "path":
                mask = 0
                for (_repo, path), slots in self._files.items():
                    low = path.lower()
                    if (fnmatch.fnmatchcase(low, f.value) if f.op == "glob" else f.value in low) and slots:
                        mask |= bits_of(slots)
                bits &= mask
        return bits

    def _holding(self, excluded: Sequence[str], live: int, resolver: Resolver) -> int:
        """Live slots holding any excluded word (as a word or a word's start) or phrase."""
        out = 0
        for phrase in excluded:
            toks = parse_query(phrase).atoms
            if not toks:
                continue
            bits = live
            for t in toks:
                bits &= resolver.atom(t).upto(1)
            if len(toks) > 1 and bits:
                lower = self._lower
                bits = bits_of([s for s in ids_of(bits) if phrase in lower[s]])  # type: ignore[operator]  # live
            out |= bits
        return out


class SearchContext(Protocol):
    """What the index cannot know itself, for the filters that need it (the session or the
    command line answers from the parsed files and the lint findings)."""

    @property
    def keys(self) -> Container[str]:
        """Metadata keys in use, beyond ``source`` and ``added`` (for KEY:VALUE filters)."""
        ...

    def metadata(self, item: SearchItem) -> Mapping[str, Sequence[str]] | None:
        """The entry's metadata: lower-case key -> values; None when unknown."""
        ...

    def file_scope(self, repo: str, path: str) -> str:
        """The ``scope`` the file's front matter gives its entries ("" for none)."""
        ...

    def fact(self, item: SearchItem) -> bool:
        """The line is a fact (an entry, or running text where a format writes prose), not a
        heading or a front-matter field: filters judge facts only."""
        ...

    def broken(self, item: SearchItem) -> bool:
        """The entry holds a [[link]] that resolves to no file."""
        ...

    def orphan(self, repo: str, path: str) -> bool:
        """Nothing links to the file (it is not reachable from MEMORY.md)."""
        ...

    def stale(self, item: SearchItem) -> bool:
        """The entry's evidence no longer holds in the code it cites (``amr verify``)."""
        ...

    def reads(self, item: SearchItem) -> tuple[int, str | None] | None:
        """How often agents read the entry through amr mcp and when last (ISO time); None when
        unknown (amr mcp never served its repo)."""
        ...

    def wrote(self, item: SearchItem, name: str) -> bool:
        """``name`` (folded) is among the writers of the commit that last wrote the entry's line."""
        ...

    def file_tags(self, repo: str, path: str) -> Sequence[str]:
        """The tags the file's front matter gives every entry of it (``core.format.tags``)."""
        ...


def _needs_context(filters: Sequence[Filter]) -> bool:
    return any(f.key not in ("path", "repo") for f in filters)


def _order(item: SearchItem | None) -> tuple[str, str, int]:
    assert item is not None
    return (item.repo, item.path, item.line)


class _Keep:
    """The expensive conditions of a query (phrases, metadata, is:), applied to a bitset."""

    def __init__(self, index: SearchIndex, parsed: Parsed, context: SearchContext | None) -> None:
        self._index = index
        self._phrases = parsed.phrases
        # ``by:`` last: it may need a blame of the file, so the cheaper filters cut the candidates first
        self._filters = sorted(
            (f for f in parsed.filters if f.key not in ("path", "repo")), key=lambda f: f.key == "by"
        )
        self._context = context
        self._memo: dict[int, bool] = {}

    def bits(self, bits: int) -> int:
        items, lower = self._index.items, self._index.lower
        memo = self._memo
        keep = []
        for slot in ids_of(bits):
            ok = memo.get(slot)
            if ok is None:
                item, low = items[slot], lower[slot]
                assert item is not None and low is not None
                ok = memo[slot] = self._passes(item, low)
            if ok:
                keep.append(slot)
        return bits_of(keep)

    def _passes(self, item: SearchItem, low: str) -> bool:
        if any(p not in low for p in self._phrases):
            return False
        if not self._filters:
            return True
        if item.kind != "entry" or self._context is None:
            return False
        ctx = self._context
        if not ctx.fact(item):  # a heading or a front-matter field: no fact to filter
            return False
        meta: Mapping[str, Sequence[str]] | None = None
        for f in self._filters:
            if f.key == "tag":
                if meta is None:
                    meta = ctx.metadata(item) or {}
                tags = item_tags(item.text, meta, ctx.file_tags(item.repo, item.path))
                if not any(tag_matches(t, f.value) for t in tags):
                    return False
                continue
            if f.key == "is":
                if f.value == "broken" and not ctx.broken(item):
                    return False
                if f.value == "orphan" and not ctx.orphan(item.repo, item.path):
                    return False
                if f.value == "stale" and not ctx.stale(item):
                    return False
                if f.value == "unread":
                    got = ctx.reads(item)
                    if got is None or got[0] > 0:
                        return False
                continue
            if f.key == "read":
                got = ctx.reads(item)
                if got is None or not _when_passes(got[1], f.op, f.value):
                    return False
                continue
            if meta is None:
                meta = ctx.metadata(item) or {}
            if f.key == "has":
                if not meta.get(f.value):
                    return False
            elif f.key == "no":
                if meta.get(f.value):
                    return False
            elif f.key == "added":
                values = meta.get("added") or ()
                if not any(_date_passes(v, f.op, _day(f.value)) for v in values):
                    return False
            elif f.key == "verified":
                if not _when_passes(next(iter(meta.get("verified") or ()), None), f.op, f.value):
                    return False
            elif f.key == "scope":  # its own key, else its file's front matter
                values = meta.get("scope") or [ctx.file_scope(item.repo, item.path)]
                if not any(v and scope_matches(f.value, v) for v in values):
                    return False
            elif f.key == "by":  # its own by: key, else who wrote its line (the context blames)
                said = meta.get("by")
                if said:
                    if not any(f.value in " ".join(v.lower().split()) for v in said):
                        return False
                elif not ctx.wrote(item, f.value):
                    return False
            else:
                values = meta.get(f.key) or ()
                if not any(f.value in " ".join(v.lower().split()) for v in values):
                    return False
        return True


def _day(value: str) -> str:
    """A filter's date: as written, or ``90d`` (``w``, ``m``, ``y``) as that long before today."""
    m = AGO.fullmatch(value)
    if m is None:
        return value
    days = int(m.group(1)) * {"d": 1, "w": 7, "m": 30, "y": 365}[m.group(2)]
    return (_dt.date.today() - _dt.timedelta(days=days)).isoformat()


def _when_passes(value: str | None, op: str, want: str) -> bool:
    """A date filter on a value an entry may lack (``verified``, the last read): none is older
    than any date, so it passes ``<`` and ``<=`` only."""
    if not value:
        return op in ("<", "<=")
    return _date_passes(value, op, _day(want))


def _date_passes(value: str, op: str, want: str) -> bool:
    value = value.strip()[: len(want)] if op == "=" else value.strip()[:10]
    if op == "=":
        return value == want
    cut = want if len(want) == 10 else want  # a month or a year compares as its prefix
    head = value[: len(cut)]
    if op == ">=":
        return head >= cut
    if op == ">":
        return head > cut
    if op == "<=":
        return head <= cut
    return head < cut


_PHRASE_SCAN = 40_000  # scan at most this many candidates for the typed phrase
_MAX_COMBOS = 64  # subsets of atoms tried per number of missing atoms


def _cap(limit: int) -> int:
    """How many items are scored precisely for a result list of ``limit``."""
    return max(240, 5 * limit)


class SearchSession:
    """A search box's view of an index: remembers what earlier keystrokes resolved.

    Results equal ``index.search(query, limit)``; the session only avoids repeating work.
    Everything is dropped when ``index.generation`` changes.
    """

    def __init__(self, index: SearchIndex) -> None:
        self._index = index
        self._generation = -1
        self._resolver = Resolver(index, remember=True)
        self._results: dict[tuple[str, int, frozenset[str] | None], list[SearchHit]] = {}

    def search(
        self,
        query: str,
        limit: int = 50,
        *,
        repos: Collection[str] | None = None,
        context: SearchContext | None = None,
    ) -> list[SearchHit]:
        idx = self._index
        if idx.generation != self._generation:
            self._generation = idx.generation
            self._resolver = Resolver(idx, remember=True)
            self._results.clear()
        key = (query, limit, None if repos is None else frozenset(repos))
        if context is not None and (
            "is:" in query or "read:" in query
        ):  # links, verdicts, reads change without a new generation
            return idx._search(query, limit, repos, self._resolver, context)
        hit = self._results.get(key)
        if hit is not None:
            return list(hit)
        out = idx._search(query, limit, repos, self._resolver, context)
        if len(self._results) >= 64:
            self._results.pop(next(iter(self._results)))
        self._results[key] = out
        return list(out)
