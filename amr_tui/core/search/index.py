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

from collections.abc import Collection, Iterable

from amr_tui.core.search.items import SearchHit, SearchItem
from amr_tui.core.search.rank import Resolver, score_slots, typo_candidates
from amr_tui.core.search.store import PostingStore
from amr_tui.core.search.text import (
    bits_of,
    highlight_positions,
    ids_of,
    parse_query,
    positions_for,
    strip_metadata,
)

__all__ = ["SearchItem", "SearchHit", "SearchIndex", "SearchSession", "highlight_positions"]


class SearchIndex(PostingStore):
    """Items of many files of many repos; see the module docstring."""

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

    def search(self, query: str, limit: int = 50, *, repos: Collection[str] | None = None) -> list[SearchHit]:
        """The best ``limit`` hits for ``query``, best first. An empty query gives []."""
        return self._search(query, limit, repos, Resolver(self))

    def _search(self, query: str, limit: int, repos: Collection[str] | None, resolver: Resolver) -> list[SearchHit]:
        q = parse_query(query)
        if not q.atoms or limit <= 0:
            return []
        live = self._live(repos)
        if not live:
            return []
        atoms = [resolver.atom(a) for a in q.atoms]
        cap = _cap(limit)
        tiers: list[int] = []  # tiers[L]: live slots where every atom matches at class <= L

        def tier(level: int) -> int:
            while len(tiers) <= level:
                bits = live
                for am in atoms:
                    bits &= am.upto(len(tiers))
                    if not bits:
                        break
                tiers.append(bits)
            return tiers[level]

        # Items holding the query's words as typed, together, go first (multi-word or
        # punctuated queries). They are all in tier 2, which is scanned when small enough.
        groups = [live]
        if len(q.atoms) > 1 or q.phrase != q.atoms[0]:
            t2 = tier(2)
            if t2 and t2.bit_count() <= _PHRASE_SCAN:
                lower, phrase = self._lower, q.phrase
                with_phrase = bits_of([s for s in ids_of(t2) if phrase in lower[s]])  # type: ignore[operator]  # a live slot has its text
                if with_phrase:
                    groups = [with_phrase, live & ~with_phrase]
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
        strict = ids_of(chosen) + picked
        if not strict and not fuzzy:
            return []
        ranked = score_slots(self, q, atoms, strict, fuzzy)
        ranked.sort()
        out: list[SearchHit] = []
        for neg, _repo, _path, _line, slot in ranked[:limit]:
            item = self._items[slot]
            assert item is not None
            out.append(SearchHit(item, round(-neg, 3), positions_for(q, item.text)))
        return out


_PHRASE_SCAN = 40_000  # scan at most this many candidates for the typed phrase


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

    def search(self, query: str, limit: int = 50, *, repos: Collection[str] | None = None) -> list[SearchHit]:
        idx = self._index
        if idx.generation != self._generation:
            self._generation = idx.generation
            self._resolver = Resolver(idx, remember=True)
            self._results.clear()
        key = (query, limit, None if repos is None else frozenset(repos))
        hit = self._results.get(key)
        if hit is not None:
            return list(hit)
        out = idx._search(query, limit, repos, self._resolver)
        if len(self._results) >= 64:
            self._results.pop(next(iter(self._results)))
        self._results[key] = out
        return list(out)
