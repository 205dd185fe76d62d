"""Slot store and inverted index under ``SearchIndex`` (see ``index.py``). Pure.

Every item lives in a slot (a small int); sets of slots are Python ints used as bitsets
for querying. A token's posting is a ``set`` of slots while the token is rare and a
``BitArray`` (a mutable bytearray, turned into an int when a query needs it) once it is
common, so adding or dropping one file touches bytes in place instead of copying
kilobyte-sized ints. Repo and text-length groups are ``BitArray``s too.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, insort
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from itertools import accumulate
from operator import add, attrgetter, itemgetter

from amr_tui.core.search.bits import bits_of, ids_of
from amr_tui.core.search.items import SearchItem
from amr_tui.core.search.text import fold, tokens_of

_SET = tuple(1 << k for k in range(8))
_CLEAR = tuple(0xFF ^ (1 << k) for k in range(8))


class BitArray:
    """A mutable bitset, held in one of two forms: bytes, changed in place while files are
    added or dropped, or the int a query reads (made on demand; the bytes are then let go, so
    a million-slot posting is not held twice, ~85 MB at a million entries). A change to the
    int form turns it back into bytes."""

    __slots__ = ("buf", "_int")

    def __init__(self) -> None:
        self.buf: bytearray | None = None
        self._int: int | None = 0

    def _bytes(self) -> bytearray:
        buf = self.buf
        if buf is None:
            bits = self._int or 0
            size = (bits.bit_length() + 7) >> 3
            self.buf = buf = bytearray(bits.to_bytes(size + (size >> 3), "little"))  # with headroom
        return buf

    def set(self, ids: list[int]) -> None:
        """Set the bits ``ids`` (a non-empty list)."""
        buf = self._bytes()
        top = max(ids) >> 3
        if top >= len(buf):  # grow with headroom: files are added one after another
            buf.extend(bytes(top + 1 + (top >> 3) - len(buf)))
        for i in ids:
            buf[i >> 3] |= _SET[i & 7]
        self._int = None

    def clear(self, ids: list[int]) -> None:
        buf = self._bytes()
        top = len(buf) << 3
        for i in ids:
            if i < top:
                buf[i >> 3] &= _CLEAR[i & 7]
        self._int = None

    def value(self) -> int:
        got = self._int
        if got is None:
            got = self._int = int.from_bytes(self._bytes(), "little")
            self.buf = None
        return got

    @classmethod
    def of(cls, bits: int) -> BitArray:
        """A BitArray holding the bitset ``bits`` (>= 0)."""
        made = cls()
        made._int = bits
        return made


def _bucket(n: int) -> int:
    """Text-length bucket: exact below 160 characters, then 64 wide, capped."""
    return n if n < 160 else 160 + min((n - 160) >> 6, 31)


_BAND = 4  # a band of length buckets: bucket >> _BAND (16 buckets, 12 bands in all)


class PostingStore:
    """Items by slot, postings by token, the sorted vocabulary, repo and length groups.

    The stages (``candidates.py``, ``score.py``, ``best.py``) read it through the public methods and properties below.
    The attribute names are part of ``amr search``'s cache (it pickles ``__dict__``).
    """

    # The union of the length buckets of each band (``_BAND``), so that ``take_best`` tests a
    # dozen bands before the buckets of one, not up to 190 buckets. None until first needed
    # (then made from ``_len_bits``: an index from a cache written without it has none), kept
    # up to date from then on.
    _len_bands: dict[int, BitArray] | None = None

    def __init__(self) -> None:
        self._items: list[SearchItem | None] = []
        self._lower: list[str | None] = []  # fold(text), the same object when already folded
        self._free: list[int] = []  # heap of free slots
        self._post: dict[str, set[int] | BitArray] = {}
        self._df: dict[str, int] = {}  # how many items hold the token
        self._vocab: list[str] = []  # sorted tokens
        self._vjoined: str | None = None
        self._vstarts: list[int] = []
        self._vgroups: dict[int, list[str]] | None = None  # tokens by length
        # vocab_heads(n) by n; vocab_by_length's lists by a negative key (one dict, dropped together)
        self._vheads: dict[int, tuple[list[str], list[str]]] = {}
        self._repo_bits: dict[str, BitArray] = {}
        self._all = BitArray()
        self._len_bits: dict[int, BitArray] = {}
        self._len_bands = {}
        self._count = 0

    def _dense_min(self) -> int:
        return max(128, len(self._items) >> 8)

    def _alloc(self, n: int) -> list[int]:
        free, items, lower = self._free, self._items, self._lower
        slots = [heapq.heappop(free) for _ in range(min(n, len(free)))]
        while len(slots) < n:
            slots.append(len(items))
            items.append(None)
            lower.append(None)
        return slots

    def _group(self, slots: list[int]) -> tuple[dict[str, list[int]], dict[int, list[int]]]:
        """The given slots by token and by text-length bucket."""
        by_tok: defaultdict[str, list[int]] = defaultdict(list)
        by_len: defaultdict[int, list[int]] = defaultdict(list)
        items, lower = self._items, self._lower
        for slot in slots:
            item = items[slot]
            low = lower[slot]
            assert item is not None and low is not None
            text = item.text
            for tok in tokens_of(text, low):
                by_tok[tok].append(slot)
            n = len(text)
            by_len[n if n < 160 else _bucket(n)].append(slot)
        return by_tok, by_len

    def _add(self, items: list[SearchItem]) -> list[int]:
        """Store ``items`` (all of one repo) and index them; returns their slots."""
        slots = self._alloc(len(items))
        store, lower = self._items, self._lower
        for item, slot in zip(items, slots, strict=True):
            text = item.text
            low = fold(text)
            store[slot] = item
            lower[slot] = text if low == text else low
        by_tok, by_len = self._group(slots)
        dense_min = self._dense_min()
        post, df = self._post, self._df
        new_tokens: list[str] = []
        for tok, lst in by_tok.items():
            p = post.get(tok)
            if p is None:
                if len(lst) >= dense_min:  # a bulk load meets common tokens in one go
                    post[tok] = dense = BitArray()
                    dense.set(lst)
                else:
                    post[tok] = set(lst)
                df[tok] = len(lst)
                new_tokens.append(tok)
                continue
            df[tok] += len(lst)
            if isinstance(p, set):
                p.update(lst)
                if len(p) >= dense_min:
                    post[tok] = dense = BitArray()
                    dense.set(list(p))
            else:
                p.set(lst)
        if new_tokens:
            self._vjoined = None
            if len(new_tokens) > 64:  # a bulk load: one sort instead of an insort (a memmove) per token
                self._vocab.extend(new_tokens)
                self._vocab.sort()
            else:
                for tok in new_tokens:
                    insort(self._vocab, tok)
        self._repo_bits.setdefault(items[0].repo, BitArray()).set(slots)
        self._all.set(slots)
        for b, lst in by_len.items():
            self._len_bits.setdefault(b, BitArray()).set(lst)
        bands = self._len_bands
        if bands is not None:
            for band, lst in _by_band(by_len).items():
                bands.setdefault(band, BitArray()).set(lst)
        self._count += len(slots)
        return slots

    def _drop(self, slots: list[int]) -> None:
        """Unindex and free ``slots`` (all of one repo)."""
        by_tok, by_len = self._group(slots)
        first = self._items[slots[0]]
        repo = first.repo if first is not None else None
        for slot in slots:
            self._items[slot] = None
            self._lower[slot] = None
            heapq.heappush(self._free, slot)
        post, df = self._post, self._df
        sparse_max = self._dense_min() >> 2
        for tok, lst in by_tok.items():
            left = df[tok] - len(lst)
            if left <= 0:
                del post[tok], df[tok]
                del self._vocab[bisect_left(self._vocab, tok)]
                self._vjoined = None
                continue
            df[tok] = left
            p = post[tok]
            if isinstance(p, set):
                p.difference_update(lst)
            else:
                p.clear(lst)
                if left < sparse_max:
                    post[tok] = set(ids_of(p.value()))
        if repo is not None and repo in self._repo_bits:
            self._repo_bits[repo].clear(slots)
        self._all.clear(slots)
        for b, lst in by_len.items():
            self._len_bits[b].clear(lst)
        bands = self._len_bands
        if bands is not None:
            for band, lst in _by_band(by_len).items():
                bands[band].clear(lst)
        self._count -= len(slots)

    # ------------------------------------------------------------------ reading

    @property
    def items(self) -> Sequence[SearchItem | None]:
        """The item in each slot; None for a free slot."""
        return self._items

    @property
    def lower(self) -> Sequence[str | None]:
        """``fold(item.text)`` for each slot; None for a free slot."""
        return self._lower

    def lower_of(self, ids: list[int]) -> Sequence[str]:
        """``fold(item.text)`` of each of the live slots ``ids``, in order: gathered in C from a
        list (a third faster than a loop at 30,000 slots), or by the sequence's own ``take``
        when it reads from columns (``amr search``'s cache, ``services.search.columns``)."""
        lower = self._lower
        if type(lower) is list:
            return itemgetter(*ids)(lower) if len(ids) > 1 else [lower[s] for s in ids]  # type: ignore[misc]
        take = getattr(lower, "take", None)
        return take(ids) if take is not None else [lower[s] for s in ids]  # type: ignore[misc]

    @property
    def vocab(self) -> list[str]:
        """Every indexed token, sorted (read it, do not change it)."""
        return self._vocab

    def has_token(self, token: str) -> bool:
        return token in self._post

    def vocab_text(self) -> tuple[str, list[int]]:
        """The vocabulary joined by newlines, and where each token starts in it."""
        if self._vjoined is None:
            self._vgroups = None
            self._vheads.clear()
            vocab = self._vocab
            # start of token i = (length of the tokens before it) + i newlines
            self._vstarts = [0, *map(add, accumulate(map(len, vocab)), range(1, len(vocab)))]
            self._vjoined = "\n".join(vocab)
        return self._vjoined, self._vstarts

    def vocab_by_length(self, shortest: int, longest: int) -> list[str]:
        """Tokens whose length is in the range (for typo look-ups; read it, do not change it).
        Kept until the vocabulary changes, with ``vocab_heads``' lists: made afresh, the list
        of the 200,000 tokens of 5-9 characters at 1M entries was a third of a typo look-up."""
        self.vocab_text()
        key = -1 - (shortest << 8 | longest)  # negative: apart from vocab_heads' keys
        got = self._vheads.get(key)
        if got is None:
            groups = self._vocab_groups()
            toks = [t for n in range(shortest, longest + 1) for t in groups.get(n, ())]
            got = self._vheads[key] = (toks, toks)
        return got[0]

    def _vocab_groups(self) -> dict[int, list[str]]:
        self.vocab_text()
        if self._vgroups is None:
            groups: dict[int, list[str]] = {}
            for tok in self._vocab:
                groups.setdefault(len(tok), []).append(tok)
            self._vgroups = groups
        return self._vgroups

    def vocab_heads(self, n: int) -> tuple[list[str], list[str]]:
        """Tokens longer than ``n``, and their first ``n`` characters."""
        self.vocab_text()
        got = self._vheads.get(n)
        if got is None:
            longer = [t for size, toks in self._vocab_groups().items() if size > n for t in toks]
            got = self._vheads[n] = (longer, [t[:n] for t in longer])
        return got

    def bits_for(self, tokens: Iterable[str]) -> int:
        """The slots holding any of ``tokens``."""
        acc = 0
        ids: list[int] = []
        post = self._post
        for tok in tokens:
            p = post[tok]
            if isinstance(p, set):
                ids.extend(p)
            else:
                acc |= p.value()
        return acc | bits_of(ids) if ids else acc

    def _live(self, repos: Collection[str] | None) -> int:
        if repos is None:
            return self._all.value()
        live = 0
        for r in set(repos):
            bits = self._repo_bits.get(r)
            if bits is not None:
                live |= bits.value()
        return live

    def take_best(self, bits: int, k: int) -> list[int]:
        """``k`` slots of ``bits`` with the shortest text (then repo, path, line)."""
        if k <= 0:
            return []
        if bits.bit_count() <= k:
            return ids_of(bits)
        len_bits = self._len_bits
        whole, got, cut = _fill(bits, k, sorted(self._bands().items()))  # bands of buckets taken whole
        rest: list[int] = []
        if cut is not None:  # the band that has to be cut: its buckets, shortest first
            band, x = cut
            top = (band + 1) << _BAND
            buckets = ((b, len_bits[b]) for b in sorted(n for n in len_bits if band << _BAND <= n < top))
            more, got, cut = _fill(x, k, buckets, got)
            whole |= more
            if cut is not None:  # the bucket that has to be cut: same length, so by place
                ids = ids_of(cut[1])
                items = self._items
                keyed = sorted(zip(map(_PLACE, map(items.__getitem__, ids)), ids, strict=True))
                rest = [slot for _key, slot in keyed[: k - got]]
        return ids_of(whole) + rest

    def _bands(self) -> dict[int, BitArray]:
        bands = self._len_bands
        if bands is None:
            acc: dict[int, int] = {}
            for b, in_bucket in self._len_bits.items():
                acc[b >> _BAND] = acc.get(b >> _BAND, 0) | in_bucket.value()
            bands = self._len_bands = {band: BitArray.of(v) for band, v in acc.items()}
        return bands


def _by_band(by_len: dict[int, list[int]]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for b, lst in by_len.items():
        out.setdefault(b >> _BAND, []).extend(lst)
    return out


_PLACE = attrgetter("repo", "path", "line")


def _fill(
    bits: int, k: int, groups: Iterable[tuple[int, BitArray]], got: int = 0
) -> tuple[int, int, tuple[int, int] | None]:
    """Take the slots of ``bits`` group by group, in order, while whole groups fit in ``k``
    (``got`` already taken): (what was taken, how many now, the first group that did not fit
    as (its key, its slots in ``bits``), or None when ``k`` was reached or the groups ran out)."""
    whole = 0
    for key, group in groups:
        x = bits & group.value()
        if not x:
            continue
        c = x.bit_count()
        if got + c > k:
            return whole, got, (key, x)
        whole |= x
        got += c
        if got == k:
            break
    return whole, got, None
