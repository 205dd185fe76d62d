"""The metadata group reader (core.format.metadata.parse_group) walks a group once with a regex;
it must read every group exactly as the plain definition does: split on ";", each piece
``key: value`` (an item), blank (an empty item) or anything else (the rest of the previous
value, joined back with ";"). The definition is written out here, slowly and plainly, and
Hypothesis compares the two on groups built to hit every branch."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amr_tui.core.format.metadata import parse_group, parse_metadata
from amr_tui.core.model import WHITESPACE, MetaItem

_WS = "[ \\t\\v\\f\\r]*"
_PIECE = re.compile(
    _WS + r"([A-Za-z][A-Za-z0-9_.-]*)" + _WS + ":(?!/)" + _WS + r"((?:.*[^ \t\v\f\r])?)" + _WS + r"\Z", re.S
)


def _definition(inner: str, offset: int, base: int):
    pieces = inner.split(";")
    if _PIECE.match(pieces[0]) is None:
        return None
    items, joined, empty = [], [], []
    start = offset
    for piece in pieces:
        m = _PIECE.match(piece)
        if m is not None:
            value = m.group(2)
            end = start + (m.end(2) if value else len(piece.rstrip(WHITESPACE)))
            items.append(MetaItem(m.group(1), value, base + start + m.start(1), base + end))
        elif piece.strip(WHITESPACE) == "":
            empty.append((start, start + len(piece)))
        else:
            prev = items[-1]
            rest = piece.rstrip(WHITESPACE)
            end = start + len(rest)
            items[-1] = MetaItem(prev.key, (prev.value + ";" + rest).strip(WHITESPACE), prev.start, base + end)
            joined.append((start - 1, end))
        start += len(piece) + 1
    return items, joined, empty


_blank = st.text(alphabet=" \t\v\f\r", max_size=3)
_key = st.from_regex(r"[A-Za-z][A-Za-z0-9_.-]{0,6}", fullmatch=True)
_value = st.text(alphabet="ab1 :/-.\t\u00a0%", max_size=12)
_item = st.builds(lambda a, k, b, c, v, d: f"{a}{k}{b}:{c}{v}{d}", _blank, _key, _blank, _blank, _value, _blank)
_piece = st.one_of(
    _item,
    _blank,
    st.text(alphabet="ab :/;\t", max_size=8),
    st.builds(lambda k: f"{k}://host/x", _key),
    st.just("key:"),
    st.just("a: "),
)
_group = st.lists(_piece, min_size=1, max_size=6).map(";".join)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(_group, st.integers(0, 40), st.integers(0, 10))
def test_the_group_reader_is_the_definition(inner: str, offset: int, base: int) -> None:
    assert parse_group(inner, offset, base) == _definition(inner, offset, base)


def test_the_usual_groups_read_as_before() -> None:
    cases = {
        "source: https://example.com/1; added: 2026-11-21": [
            ("source", "https://example.com/1"),
            ("added", "2026-11-21"),
        ],
        "source: a;b; added: x": [("source", "a;b"), ("added", "x")],  # an unescaped ";" joined back
        "note: ;; added: x;": [("note", ""), ("added", "x")],  # empty items
        " k :  v  ": [("k", "v")],
        "see: http://x": [("see", "http://x")],
    }
    for inner, want in cases.items():
        items, _joined, _empty = parse_group(inner, 0)
        assert [(i.key, i.value) for i in items] == want, inner
    assert parse_group("http://x; a: b", 0) is None  # "http:" then "/": not a key
    assert parse_group("draft", 0) is None
    meta = parse_metadata("fact [source: a;b; added: 2026-01-01]", base=2)
    assert [(i.key, i.value, i.start, i.end) for i in meta.items] == [
        ("source", "a;b", 8, 19),
        ("added", "2026-01-01", 21, 38),
    ]
    assert meta.joined_items == [(15, 17)]  # from the ";" to the end of "b"
