"""Ranked fuzzy search over the entries and file names of several memory repos.

Pure: it indexes only what it is handed (no files, git, threads or UI).

Design (figures in bench/bench_search.py):

* Every item (an entry, or a file name whose text is its path) lives in a *slot*; sets of
  slots are Python ints used as bitsets, so intersections and unions run in C.
* An inverted index maps each token of the entry TEXT (metadata is not indexed) to its
  slots: a ``set`` while the token is rare, a bitset once it is common (memory stays near
  the size of the text). A sorted vocabulary, joined into one string, answers "which
  tokens start with / contain / hold as a subsequence this query atom" with C-speed
  ``bisect`` and ``re`` scans instead of a loop over items.
* A query atom matches a token as EXACT, PREFIX, SUBSTRING (atoms of 2+ chars) or
  SUBSEQUENCE (3+ chars). An item matches when every atom matches one of its tokens. The
  best items are gathered tier by tier (tier = the weakest class among the atoms); a tier
  too large to score is cut to the items with the shortest text (length-bucket bitsets), so
  at most ``_cap(limit)`` items are ever scored precisely, whatever the index size.
* Too few strict matches turns on typo tolerance: vocabulary tokens within OSA distance
  1-2 of an atom (rapidfuzz, C), or an atom that is two tokens run together.
* ``set_file`` re-indexes one file: its old slots are dropped from the postings it held and
  its new items take free slots (lowest first).
* ``SearchSession`` keeps, for one search box, the atoms already resolved (a multi-word
  query reuses the earlier words), narrows an extended atom from its previous candidates,
  and caches results (backspace). Its results always equal ``SearchIndex.search``.
"""

from __future__ import annotations

import heapq
from itertools import accumulate
from operator import add
from bisect import bisect_left, insort
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from amr_tui.core.search_rank import Resolver, score_slots, typo_candidates
from amr_tui.core.search_text import (
    bits_of,
    fold,
    highlight_positions,
    ids_of,
    parse_query,
    strip_metadata,
    tokens_of,
)

__all__ = ["SearchItem", "SearchHit", "SearchIndex", "SearchSession", "highlight_positions"]


@dataclass(frozen=True, slots=True)
class SearchItem:
    repo: str  # display name of the mounted repo
    path: str  # path inside the repo, posix
    line: int  # 1-based line of the entry; 0 for a file-name item
    text: str  # entry text without metadata (what is matched); the path for a file item
    kind: str  # "entry" or "file"


@dataclass(frozen=True, slots=True)
class SearchHit:
    item: SearchItem
    score: float  # 0..100, higher is better
    positions: tuple[int, ...]  # indices into item.text of matched characters


def _bucket(n: int) -> int:
    """Length bucket: exact below 160 characters, then 64-wide, capped."""
    return n if n < 160 else 160 + min((n - 160) >> 6, 31)


class SearchIndex:
    """Items of many files of many repos; see the module docstring."""

    def __init__(self) -> None:
        self._items: list[SearchItem | None] = []
        self._lower: list[str | None] = []
        self._free: list[int] = []  # heap of free slots
        self._files: dict[tuple[str, str], list[int]] = {}
        self._repo_bits: dict[str, int] = {}
        self._all_bits = 0
        self._post: dict[str, set[int] | int] = {}
        self._df: dict[str, int] = {}
        self._vocab: list[str] = []  # sorted tokens
        self._vjoined: str | None = None
        self._vstarts: list[int] = []
        self._len_bits: dict[int, int] = {}
        self._count = 0
        self.generation = 0

    # ------------------------------------------------------------------ updates

    def __len__(self) -> int:
        return self._count

    def set_file(self, repo: str, path: str, entries: Iterable[tuple[int, str]]) -> None:
        """Replace every item of one file: its entries and its file-name item."""
        key = (repo, path)
        items = [SearchItem(repo, path, 0, path, "file")]
        for line, text in entries:
            text = strip_metadata(text)
            if text.strip():
                items.append(SearchItem(repo, path, int(line), text, "entry"))
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

    def _dense_min(self) -> int:
        return max(128, len(self._items) >> 8)

    def _add(self, items: list[SearchItem]) -> list[int]:
        slots: list[int] = []
        by_tok: dict[str, list[int]] = {}
        by_len: dict[int, list[int]] = {}
        for item in items:
            slot = heapq.heappop(self._free) if self._free else len(self._items)
            low = fold(item.text)
            if slot == len(self._items):
                self._items.append(item)
                self._lower.append(low)
            else:
                self._items[slot] = item
                self._lower[slot] = low
            slots.append(slot)
            for tok in tokens_of(item.text, low):
                lst = by_tok.get(tok)
                if lst is None:
                    by_tok[tok] = [slot]
                else:
                    lst.append(slot)
            by_len.setdefault(_bucket(len(item.text)), []).append(slot)
        dense_min = self._dense_min()
        post, df = self._post, self._df
        for tok, lst in by_tok.items():
            p = post.get(tok)
            if p is None:
                post[tok] = set(lst) if len(lst) < dense_min else bits_of(lst)
                df[tok] = len(lst)
                insort(self._vocab, tok)
                self._vjoined = None
                continue
            df[tok] += len(lst)
            if isinstance(p, set):
                p.update(lst)
                if len(p) >= dense_min:
                    post[tok] = bits_of(p)
            else:
                post[tok] = p | bits_of(lst)
        mask = bits_of(slots)
        repo = items[0].repo
        self._repo_bits[repo] = self._repo_bits.get(repo, 0) | mask
        self._all_bits |= mask
        for b, lst in by_len.items():
            self._len_bits[b] = self._len_bits.get(b, 0) | bits_of(lst)
        self._count += len(slots)
        return slots

    def _drop(self, slots: list[int]) -> None:
        by_tok: dict[str, list[int]] = {}
        by_len: dict[int, list[int]] = {}
        items, lower = self._items, self._lower
        first = items[slots[0]]
        repo = first.repo if first is not None else None
        for slot in slots:
            item = items[slot]
            low = lower[slot]
            assert item is not None and low is not None
            for tok in tokens_of(item.text, low):
                lst = by_tok.get(tok)
                if lst is None:
                    by_tok[tok] = [slot]
                else:
                    lst.append(slot)
            by_len.setdefault(_bucket(len(item.text)), []).append(slot)
            items[slot] = None
            lower[slot] = None
            heapq.heappush(self._free, slot)
        post, df = self._post, self._df
        sparse_max = self._dense_min() >> 2
        for tok, lst in by_tok.items():
            left = df[tok] - len(lst)
            if left <= 0:
                del post[tok], df[tok]
                i = bisect_left(self._vocab, tok)
                del self._vocab[i]
                self._vjoined = None
                continue
            df[tok] = left
            p = post[tok]
            if isinstance(p, set):
                p.difference_update(lst)
            else:
                p &= ~bits_of(lst)
                post[tok] = set(ids_of(p)) if left < sparse_max else p
        mask = bits_of(slots)
        if repo is not None and repo in self._repo_bits:
            rest = self._repo_bits[repo] & ~mask
            if rest:
                self._repo_bits[repo] = rest
            else:
                del self._repo_bits[repo]
        self._all_bits &= ~mask
        for b, lst in by_len.items():
            rest = self._len_bits[b] & ~bits_of(lst)
            if rest:
                self._len_bits[b] = rest
            else:
                del self._len_bits[b]
        self._count -= len(slots)

    # ------------------------------------------------------------------ vocabulary

    def _vocab_text(self) -> tuple[str, list[int]]:
        if self._vjoined is None:
            vocab = self._vocab
            # start of token i = (length of tokens before it) + i newlines
            self._vstarts = [0, *map(add, accumulate(map(len, vocab)), range(1, len(vocab)))]
            self._vjoined = "\n".join(self._vocab)
        return self._vjoined, self._vstarts

    def _bits_for(self, tokens: Iterable[str]) -> int:
        """The slots holding any of ``tokens``."""
        acc = 0
        ids: list[int] = []
        post = self._post
        for tok in tokens:
            p = post[tok]
            if isinstance(p, int):
                acc |= p
            else:
                ids.extend(p)
        return acc | bits_of(ids) if ids else acc

    # ------------------------------------------------------------------ searching

    def search(
        self, query: str, limit: int = 50, *, repos: Collection[str] | None = None
    ) -> list[SearchHit]:
        """The best ``limit`` hits for ``query``, best first. An empty query gives []."""
        return self._search(query, limit, repos, Resolver(self))

    def _live(self, repos: Collection[str] | None) -> int:
        if repos is None:
            return self._all_bits
        live = 0
        for r in repos:
            live |= self._repo_bits.get(r, 0)
        return live

    def _rank_key(self, slot: int) -> tuple[int, str, str, int]:
        it = self._items[slot]
        assert it is not None
        return (len(it.text), it.repo, it.path, it.line)

    def _take_best(self, bits: int, k: int) -> list[int]:
        """``k`` slots of ``bits`` with the shortest text (then repo, path, line)."""
        if k <= 0:
            return []
        if bits.bit_count() <= k:
            return ids_of(bits)
        out: list[int] = []
        for b in sorted(self._len_bits):
            x = bits & self._len_bits[b]
            if not x:
                continue
            need = k - len(out)
            ids = ids_of(x)
            if len(ids) > need:
                ids.sort(key=self._rank_key)
                del ids[need:]
            out.extend(ids)
            if len(out) >= k:
                break
        return out

    def _search(
        self, query: str, limit: int, repos: Collection[str] | None, resolver: Resolver
    ) -> list[SearchHit]:
        q = parse_query(query)
        if not q.atoms or limit <= 0:
            return []
        live = self._live(repos)
        if not live:
            return []
        atoms = [resolver.atom(a) for a in q.atoms]
        cap = _cap(limit)
        chosen = 0  # bitset of slots taken whole
        picked: list[int] = []  # slots taken from a tier that had to be cut
        taken = 0
        prev = 0
        overflow = False
        for level in range(4):
            tier = live
            for am in atoms:
                tier &= am.upto(level)
                if not tier:
                    break
            new = tier & ~prev
            prev = tier
            if not new:
                continue
            n = new.bit_count()
            if taken + n <= cap:
                chosen |= new
                taken += n
            else:
                picked = self._take_best(new, cap - taken)
                taken = cap
                overflow = True
                break
        fuzzy: list[int] = []
        if not overflow and taken < limit:
            fuzzy = typo_candidates(self, atoms, live, prev, cap - taken, resolver)
        strict = ids_of(chosen) + picked
        if not strict and not fuzzy:
            return []
        ranked = score_slots(self, q, atoms, strict, fuzzy)
        ranked.sort()
        out: list[SearchHit] = []
        for neg, _repo, _path, _line, slot in ranked[:limit]:
            item = self._items[slot]
            assert item is not None
            out.append(SearchHit(item, round(-neg, 3), highlight_positions(query, item.text)))
        return out


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
        self, query: str, limit: int = 50, *, repos: Collection[str] | None = None
    ) -> list[SearchHit]:
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
