"""Bitset conversions (``core.search.bits``): the numpy path for a million-slot index and the
pure loops give the same answers, at every density and width."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amr_tui.core.search import bits as text
from tests.examples import examples

WIDTHS = st.sampled_from([64, 1 << 12, (1 << 19) + 5, 1_040_000])


@st.composite
def slot_sets(draw: st.DrawFn) -> list[int]:
    width = draw(WIDTHS)
    k = draw(st.sampled_from([0, 1, 2, 47, 48, 300, 5000, 40000]))
    ids = draw(st.sets(st.integers(0, width - 1), min_size=min(k, 40), max_size=min(k, 40)))
    if k > 40:  # many slots: a strided run plus the drawn ones (cheap to draw)
        step = max(1, width // k)
        ids |= set(range(draw(st.integers(0, step - 1)), width, step))
    return sorted(ids)


@pytest.mark.skipif(text._numpy() is None, reason="numpy is a dependency; this compares both paths")
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ids=slot_sets())
def test_numpy_and_loops_agree(ids: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as mp:
        mp.setattr(text, "WIDE_BITS", 1 << 62)  # the loops only
        loops = text.bits_of(ids)
        assert text.ids_of(loops) == ids
    with monkeypatch.context() as mp:
        mp.setattr(text, "WIDE_BITS", 1)  # numpy wherever it is allowed
        assert text.bits_of(ids) == loops
        assert text.bits_of(set(ids)) == loops
        assert text.ids_of(loops) == ids
    assert text.bits_of(iter(ids)) == loops  # the default width


def test_a_million_slot_bitset_round_trips() -> None:
    ids = list(range(3, 1_040_000, 31))
    bits = text.bits_of(ids)
    assert bits.bit_count() == len(ids) and text.ids_of(bits) == ids
