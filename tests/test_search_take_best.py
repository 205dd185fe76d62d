"""``PostingStore.take_best`` tests the bands of length buckets (``_len_bands``) before the
buckets of one band: what it picks must equal a walk over every bucket, shortest first (the
cut bucket by place), whether the bands were kept up to date through edits or made afresh for
an index that has none (one restored from a cache written before them)."""

from __future__ import annotations

import random

from amr_tui.core.search.bits import bits_of, ids_of
from amr_tui.core.search.index import SearchIndex
from amr_tui.core.search.store import BitArray


def _reference(idx: SearchIndex, bits: int, k: int) -> list[int]:
    """take_best as it was: every length bucket, shortest first."""
    if k <= 0:
        return []
    if bits.bit_count() <= k:
        return ids_of(bits)
    whole, got, rest = 0, 0, []
    for b in sorted(idx._len_bits):
        x = bits & idx._len_bits[b].value()
        if not x:
            continue
        c = x.bit_count()
        if got + c <= k:
            whole |= x
            got += c
            if got == k:
                break
            continue
        ids = ids_of(x)
        keyed = sorted(((it.repo, it.path, it.line), s) for s in ids if (it := idx.items[s]) is not None)
        rest = [s for _key, s in keyed[: k - got]]
        break
    return ids_of(whole) + rest


def _text(rng: random.Random) -> str:
    n = rng.choice([rng.randint(1, 40), rng.randint(40, 159), rng.randint(160, 3000)])
    words = ["vault", "secret", "redis", "port", "alpha", "x"]
    out = ""
    while len(out) < n:
        out += rng.choice(words) + " "
    return out[:n].strip() or "x"


def _files(rng: random.Random, n: int) -> list[tuple[str, list[tuple[int, str]]]]:
    return [(f"f{i}.md", [(line, _text(rng)) for line in range(1, rng.randint(2, 30))]) for i in range(n)]


def _bands_of(idx: SearchIndex) -> dict[int, int]:
    return {band: ba.value() for band, ba in idx._bands().items() if ba.value()}


def test_take_best_equals_every_bucket_walked_through_edits() -> None:
    rng = random.Random(7)
    idx = SearchIndex()
    idx.set_files("mem", _files(rng, 40))
    idx.set_file("other", "o.md", [(1, _text(rng)), (2, _text(rng))])
    for step in range(30):
        if step % 3 == 0:
            path, entries = _files(rng, 1)[0]
            idx.set_file("mem", f"f{rng.randint(0, 45)}.md", entries)
        elif step % 3 == 1:
            idx.remove_file("mem", f"f{rng.randint(0, 45)}.md")
        live = ids_of(idx._live(None))
        for _ in range(6):
            bits = bits_of(rng.sample(live, rng.randint(1, len(live))))
            for k in (1, 5, 17, 240, len(live)):
                assert idx.take_best(bits, k) == _reference(idx, bits, k)
        # the bands kept up to date equal bands made afresh from the buckets
        fresh = SearchIndex.__new__(SearchIndex)
        fresh.__dict__.update({k: v for k, v in idx.__dict__.items() if k != "_len_bands"})
        assert _bands_of(fresh) == _bands_of(idx)


def test_an_index_without_bands_makes_them_and_keeps_them() -> None:
    rng = random.Random(3)
    idx = SearchIndex()
    idx.set_files("mem", _files(rng, 20))
    old = SearchIndex.__new__(SearchIndex)  # as amr search's cache restores one written before the bands
    old.__dict__.update({k: v for k, v in idx.__dict__.items() if k != "_len_bands"})
    assert "_len_bands" not in old.__dict__
    bits = old._live(None)
    assert old.take_best(bits, 50) == _reference(old, bits, 50)
    assert isinstance(old.__dict__["_len_bands"], dict)
    old.set_file("mem", "new.md", [(1, "a short one"), (2, "x" * 900)])
    old.remove_file("mem", "f3.md")
    bits = old._live(None)
    for k in (1, 50, 200):
        assert old.take_best(bits, k) == _reference(old, bits, k)


def test_bitarray_of_an_int() -> None:
    for v in (0, 1, 0b1011, 1 << 900 | 5):
        ba = BitArray.of(v)
        assert ba.value() == v
        ba.set([3])
        assert ba.value() == v | 8
