"""Ranked fuzzy search over the entries and file names of several memory repos.

Pure: it indexes only what it is handed (no files, git, threads or UI). Not thread-safe:
a caller that updates from one thread and searches from another holds a lock.

How a keystroke flows (``SearchIndex._search`` calls the stages in this order, each in its
own module, each reading only the modules above it):

1. **parse** (``query.py``): the operators (words, phrases, exclusions, filters), then the
   words' atoms (``parse_query``) and the atoms every hit must hold (``required``).
2. **filter** (``filters.py``): the live slots of the repos asked, cut by the cheap filters
   (``path:``, ``repo:``); the costly ones (phrases, metadata, ``is:``...) wait in ``Keep``
   for the candidates, asked of the ``SearchContext``.
3. **candidates** (``candidates.py``): the exclusions left out (``holding``), each atom resolved
   against the vocabulary (``Resolver``), then ``gather``: the items holding the typed phrase
   first, tier by tier, cut to at most ``cap(limit)``, then typos and partial matches.
4. **score** (``score.py``): ``score_slots``, the precise score of every candidate.
5. **take the best** (``best.py``): ``take`` sorts, keeps ``limit`` and makes the hits with
   their highlights.

Under them: ``items.py`` (what is indexed and returned), ``bits.py`` (sets of slots as ints),
``text.py`` (folding, tokens), ``store.py`` (slots and postings), ``abbrev.py`` (other forms).

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
  ``cap(limit)`` items are ever scored precisely (``score.score_slots``), however
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

from collections.abc import Collection, Container, Iterable

from amr_tui.core.search.best import highlight_positions, in_file_order, take
from amr_tui.core.search.bits import bits_of, ids_of
from amr_tui.core.search.candidates import Resolver, gather, holding
from amr_tui.core.search.filters import Keep, SearchContext, needs_context, passing
from amr_tui.core.search.items import SearchHit, SearchItem
from amr_tui.core.search.query import QueryError, exclusions, near_phrase, parse, parse_query, required
from amr_tui.core.search.score import score_slots
from amr_tui.core.search.store import PostingStore
from amr_tui.core.search.text import strip_metadata

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
        """One keystroke, stage by stage (the module docstring)."""
        # 1. parse: the operators, the words' atoms, those every hit must hold, the typed words together
        parsed = parse(query, context.keys if context is not None and ":" in query else frozenset())
        if parsed.error:
            raise QueryError(parsed.error)
        full = parse_query(parsed.text)
        if (not full.atoms and not parsed.filters) or limit <= 0:
            return []
        q = required(full)
        near = near_phrase(q)
        excluded = exclusions(parsed)
        # 2. filter: the repos asked and the cheap filters now; the costly ones (Keep) on the candidates
        live = self._live(repos)
        if live and parsed.filters:
            live &= passing(parsed.filters, self._files, self._live)
        keep = Keep(self, parsed, context) if (parsed.phrases or needs_context(parsed.filters)) else None
        # 3. candidates: no entry holding an excluded word, then those holding the words
        if live and excluded:
            live &= ~holding(self, excluded, live, resolver)
        if not live:
            return []
        if not full.atoms:  # filters only: every entry that passes, in file order
            entries = live & self._entry_bits()
            return in_file_order(self, ids_of(keep.bits(entries) if keep else entries), limit)
        n_live = max(1, self.population if self.population and repos is None else live.bit_count())
        found = gather(self, q, live, keep.bits if keep else None, limit, resolver, near, n_live, self.counted or {})
        if found is None:
            return []
        # 4. score
        ranked = score_slots(self, q, found, near)
        # 5. take the best
        return take(self, ranked, limit, full, found)

    def strict_count(
        self, query: str, repos: Collection[str] | None = None, *, keys: Container[str] = frozenset()
    ) -> int:
        """How many items hold every word of ``query`` (the words' strict classes, no typos):
        when at least ``limit``, a search of ``limit`` needs no typo or partial stage. ``keys``:
        the metadata keys a ``KEY:VALUE`` filter may name (``query.parse``)."""
        q = required(parse_query(parse(query, keys).text))
        resolver = Resolver(self)
        bits = self._live(repos)
        for a in q.atoms:
            bits &= resolver.group(a).upto(3)
        return bits.bit_count()

    def _entry_bits(self) -> int:
        live = self._live(None)
        return live & ~self.bits_for_files()

    def bits_for_files(self) -> int:
        """Slots of file-name items (the first slot of each file)."""
        return bits_of([slots[0] for slots in self._files.values() if slots])


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
