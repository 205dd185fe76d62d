"""The finder's phrase and near-phrase scans run over the candidates' texts joined into one
string (``text.Joined``), and the near-phrase pattern starts with its first word's letters.
Both must answer exactly what asking every text alone, with the pattern written the plain way,
answers: Hypothesis over texts with the separator in them, matches that would run across the
join, and words at and past the text's edges."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amr_tui.core.search.bits import bits_of
from amr_tui.core.search.candidates import Joined, Resolver
from amr_tui.core.search.index import SearchIndex, SearchSession
from amr_tui.core.search.query import near_phrase, parse_query
from tests.examples import examples

_ALPHABET = st.sampled_from(list("ab ab\n_-.é1"))
_TEXT = st.text(_ALPHABET, max_size=14)
_WORD = st.text(st.sampled_from(list("ab1é")), min_size=1, max_size=3)


def _plain_near(words: list[str]) -> re.Pattern[str]:
    """near_phrase as first written: the look-behind first (a word start), then the words."""
    return re.compile(r"(?<![^\W_])" + r"\w*[\W_]+".join(re.escape(w) for w in words))


@settings(max_examples=examples(150), deadline=None)
@given(texts=st.lists(_TEXT, max_size=12), phrase=st.text(_ALPHABET, max_size=4))
def test_holding_is_every_text_asked_alone(texts: list[str], phrase: str) -> None:
    assert Joined(texts).holding(phrase) == [i for i, t in enumerate(texts) if phrase in t]


@settings(max_examples=examples(150), deadline=None)
@given(texts=st.lists(_TEXT, max_size=12), words=st.lists(_WORD, min_size=2, max_size=3))
def test_matching_is_every_text_asked_alone(texts: list[str], words: list[str]) -> None:
    plain = _plain_near(words)
    q = parse_query(" ".join(words))
    near = near_phrase(q)
    assert near is not None
    expected = [i for i, t in enumerate(texts) if plain.search(t)]
    assert [i for i, t in enumerate(texts) if near.search(t)] == expected  # the pattern, rewritten
    assert Joined(texts).matching(near) == expected  # and the joined scan


def test_a_match_across_the_join_counts_for_no_text() -> None:
    near = near_phrase(parse_query("vault s"))
    assert near is not None
    texts = ["the vault", "secret here", "a vault secret", "avault s"]
    assert Joined(texts).holding("vault\nsecret") == []
    assert Joined(texts).matching(near) == [2]


# ---------------------------------------------------------------- a keystroke scans what is left

_WORDS = ["vault", "secret", "vaults", "set", "seal", "s", "sec", "port", "redis", "postgres", "v"]
_SEP = st.sampled_from([" ", " ", "-", ", ", "_"])


@st.composite
def _entry(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=5))
    return "".join(w + draw(_SEP) for w in words).strip(" ,-_") or "v"


def _index(entries: list[str]) -> SearchIndex:
    idx = SearchIndex()
    for k in range(0, len(entries), 40):
        idx.set_file("r", f"f{k}.md", list(enumerate(entries[k : k + 40], 1)))
    return idx


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entries=st.lists(_entry(), min_size=1, max_size=320),
    domains=st.lists(st.integers(0, 2**330 - 1), min_size=1, max_size=5),
    typed=st.lists(
        st.sampled_from(["vault s", "vault se", "vault sec", "vault secret", "vault", "s", "t s"]), max_size=5
    ),
)
def test_holders_remembered_equal_a_fresh_scan(entries: list[str], domains: list[int], typed: list[str]) -> None:
    """Any order of phrases and near-phrase patterns over any slots (a narrower phrase after a
    wider one, over slots the wider scan never saw): what ``holders`` remembers never changes
    its answer."""
    idx = _index(entries)
    live = bits_of([slot for slot, text in enumerate(idx.lower) if text is not None])
    remembering = Resolver(idx, remember=True)
    for domain, phrase in zip([d & live for d in domains] * 3, typed * 2 or ["vault s"], strict=False):
        fresh = Resolver(idx)
        assert remembering.holders(domain, phrase) == fresh.holders(domain, phrase), phrase
        near = near_phrase(parse_query(phrase))
        if near is not None:
            assert remembering.holders(domain, near=near) == fresh.holders(domain, near=near), phrase


_KEYS = st.lists(st.sampled_from(list("vaulsecrt ") + ["\b"]), min_size=1, max_size=24)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=st.lists(_entry(), min_size=250, max_size=600), keys=_KEYS, limit=st.sampled_from([5, 50]))
def test_typing_a_phrase_past_what_is_scored_equals_a_fresh_search(
    entries: list[str], keys: list[str], limit: int
) -> None:
    """More candidates than are scored (cap 240): which of them hold the phrase decides which
    are scored, so a phrase scan that remembered wrongly shows other hits than a fresh search."""
    idx = _index(entries)
    session = SearchSession(idx)
    query = ""
    for key in keys:
        query = query[:-1] if key == "\b" else query + key
        assert session.search(query, limit) == idx.search(query, limit), query
