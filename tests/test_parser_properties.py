"""Properties of the memory-file parser (Hypothesis).

Profiles (choose with ``HYPOTHESIS_PROFILE``):

* ``default`` -- the fast tier: a quarter of ``full``'s examples (``tests/examples.py``).
* ``full`` -- 300 examples per property (1,200 for the byte round trip), the whole file in
  well under 20 s.
* ``long`` -- a soak run: ``HYPOTHESIS_PROFILE=long .venv/bin/python -m pytest
  tests/test_parser_properties.py`` (20x the examples; a few minutes).

The number of examples each property ran is written to the terminal at the end of the module
(``examples run: ...``; not under xdist) and counted in ``EXAMPLES``.
"""

from __future__ import annotations

import json
import os
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from amr_tui.core.format.edit import new_entry_line
from amr_tui.core.format.jsonout import entries_json
from amr_tui.core.format.metadata import escape_value
from amr_tui.core.format.parser import parse, serialize
from amr_tui.core.format.rules import check_document
from amr_tui.core.model import WHITESPACE, LineKind
from tests.examples import examples

# Settings are applied per test, not through settings.load_profile(), so that importing this
# module never changes the Hypothesis settings of other test modules.
PROFILES = {
    "default": settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]),
    "long": settings(
        max_examples=6000,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    ),
}
SETTINGS = PROFILES.get(os.environ.get("HYPOTHESIS_PROFILE", "default"), PROFILES["default"])
ROUND_TRIP_SETTINGS = settings(SETTINGS, max_examples=SETTINGS.max_examples * 4)

EXAMPLES: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def _report_counts(request: pytest.FixtureRequest):
    yield
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None and EXAMPLES:
        counts = ", ".join(f"{name}={n}" for name, n in sorted(EXAMPLES.items()))
        with capture.global_and_fixture_disabled():
            reporter.write_line(f"\ntest_parser_properties examples run: {counts}")


# --- strategies -------------------------------------------------------------------------

FRAGMENTS: list[bytes] = [
    b"- ",
    b"* ",
    b"+ ",
    b"-",
    b"1. ",
    b"2) ",
    b"  ",
    b"    ",
    b"\t",
    b"> ",
    b">",
    b"```",
    b"~~~",
    b"<div>",
    b"</div>",
    b"<!-- ",
    b" -->",
    b"# ",
    b"## Index",
    b"---",
    b"===",
    b"***",
    b"fact",
    b"Joe leads",
    b"x",
    b" ",
    b"  ",
    b"[",
    b"]",
    b"[[",
    b"]]",
    b"[[a]]",
    b"[[a|b]]",
    b"[[a#h]]",
    b"[[../x]]",
    b"[[a.md]]",
    b";",
    b":",
    b"; ",
    b": ",
    b"source",
    b"added",
    b"Key",
    b"[source: https://example.com/s/1]",
    b"[added: 2026-01-01]",
    b"[draft]",
    b"[t](u)",
    b"[t][r]",
    b"![a][b]",
    b"https://x.com/a;b",
    b"%3B",
    b"%5B",
    b"`",
    b"``",
    b"!",
    b"(",
    b")",
    b"\\",
    b"|",
    b"\x00",
    b"\x1b[2J",
    b"\r",
    b"\x0b",
    b"\x0c",
    b"\xe2\x80\xa8",
    b"\xe2\x80\xae",
    b"\xef\xbb\xbf",
    b"\xff",
    b"\xc3",
    b"\xc3\xa9",
    b"\xf0\x9f\x98\x80",
    b"\xc2\xa0",
    b"ghp_" + b"a" * 36,
]
EOLS = [b"\n", b"\r\n", b"\r", b""]

md_line = st.lists(st.sampled_from(FRAGMENTS), max_size=10).map(b"".join)


@st.composite
def markdownish(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(md_line, max_size=25))
    out = bytearray()
    if draw(st.booleans()) and draw(st.booleans()):
        out += b"\xef\xbb\xbf"
    for line in lines:
        out += line + draw(st.sampled_from(EOLS[:2]) if draw(st.integers(0, 9)) else st.sampled_from(EOLS))
    return bytes(out)


any_file = st.one_of(st.binary(max_size=600), markdownish())


@st.composite
def with_entries(draw: st.DrawFn) -> bytes:
    """Markdown-ish bytes with bullet lines mixed in, so most examples hold entries."""
    lines = draw(st.lists(st.tuples(st.booleans(), md_line, st.sampled_from(EOLS[:2])), min_size=1, max_size=20))
    out = b"".join((b"- " + text if bullet else text) + eol for bullet, text, eol in lines)
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + out + draw(st.sampled_from([b"", b"- last"]))


KEY = st.from_regex(r"\A[A-Za-z][A-Za-z0-9_.-]{0,8}\Z")
# Values: printable text without line breaks, including ; [ ] which format_metadata escapes.
VALUE = st.text(
    alphabet=st.characters(
        min_codepoint=0x20,
        max_codepoint=0x2FF,
        blacklist_categories=("Cc", "Cs"),
    )
    | st.sampled_from(list(";[]:%/ ")),
    max_size=20,
)
TEXT = st.text(
    alphabet=st.characters(
        min_codepoint=0x20, max_codepoint=0x2FF, blacklist_categories=("Cc", "Cs"), blacklist_characters="[]"
    ),
    max_size=30,
)


# --- properties -------------------------------------------------------------------------


@pytest.mark.slow
@ROUND_TRIP_SETTINGS
@given(any_file)
def test_round_trip_is_byte_identical(data: bytes) -> None:
    EXAMPLES["round_trip"] += 1
    doc = parse(data)
    assert serialize(doc) == data
    assert doc.to_bytes() == data


@SETTINGS
@given(st.binary(max_size=400), st.sampled_from(["notes.sql", "a.txt", "x.json", "MEMORY.md", "n.markdown"]))
def test_any_path_round_trips(data: bytes, path: str) -> None:
    EXAMPLES["any_path"] += 1
    assert serialize(parse(data, path)) == data


@SETTINGS
@given(any_file)
def test_parsing_is_deterministic(data: bytes) -> None:
    EXAMPLES["deterministic"] += 1
    a, b = parse(data), parse(data)
    assert entries_json(a) == entries_json(b)
    assert [ln.kind for ln in a.lines] == [ln.kind for ln in b.lines]
    assert [d.to_json() for d in a.diagnostics] == [d.to_json() for d in b.diagnostics]
    assert a.headings == b.headings and a.front_matter == b.front_matter


@SETTINGS
@given(st.one_of(any_file, with_entries()))
def test_deferred_lint_equals_a_full_recheck(data: bytes) -> None:
    """Document.diagnostics (run on first use, from the parser's unusual metadata reads only)
    says exactly what the rules say when they read every entry's metadata again."""
    EXAMPLES["deferred_lint"] += 1
    deferred = parse(data)
    full = check_document(parse(data, check=False))
    assert [d.to_json() for d in deferred.diagnostics] == [d.to_json() for d in full]


@SETTINGS
@given(any_file)
def test_structure_invariants(data: bytes) -> None:
    EXAMPLES["invariants"] += 1
    doc = parse(data)
    n = len(doc.lines)
    seen = set()
    for entry in doc.entries:
        assert 1 <= entry.line <= n
        assert doc.lines[entry.line - 1].kind is LineKind.ENTRY
        assert entry.line not in seen  # one entry per line
        seen.add(entry.line)
        assert entry.text == entry.text.strip(WHITESPACE)
        assert entry.parent_line < entry.line
        assert (entry.depth == 0) == (entry.parent_line == 0)
        for item in entry.metadata:
            assert item.value == item.value.strip(WHITESPACE)
        for link in entry.links:
            assert link.line == entry.line
    assert [e.line for e in doc.entries] == sorted(seen)
    assert {ln.number for ln in doc.lines if ln.kind is LineKind.ENTRY} == seen
    for d in doc.diagnostics:
        assert 0 <= d.line <= n
        if d.line:
            assert 0 <= d.column <= len(doc.lines[d.line - 1].text) + 1
        else:
            assert d.column == 0
    rows = entries_json(doc)
    assert json.loads(json.dumps(rows)) == rows


@pytest.mark.slow
@SETTINGS
@given(with_entries(), st.data())
def test_replacing_one_entry_line_changes_only_that_line(data: bytes, draw: st.DataObject) -> None:
    doc = parse(data)
    assume(doc.entries)
    EXAMPLES["replace_line"] += 1
    entry = draw.draw(st.sampled_from(doc.entries))
    items = draw.draw(st.lists(st.tuples(KEY, VALUE), max_size=3))
    new_text = new_entry_line(draw.draw(TEXT), items, like=entry)  # what an edit writes
    before = [(ln.text, ln.eol) for ln in doc.lines]
    doc.lines[entry.line - 1].text = new_text
    out = serialize(doc)
    after = parse(out)
    assert len(after.lines) == len(before)
    for ln, (text, eol) in zip(after.lines, before):
        assert ln.eol == eol
        assert ln.text == (new_text if ln.number == entry.line else text)
    head = b"\xef\xbb\xbf" if doc.bom else b""
    assert out == head + b"".join(
        (new_text if i == entry.line - 1 else t).encode("utf-8", "surrogateescape") + e.encode()
        for i, (t, e) in enumerate(before)
    )


def _thematic_break(line: str) -> bool:
    stripped = line.replace(" ", "").replace("\t", "")
    return len(stripped) >= 3 and len(set(stripped)) == 1 and stripped[0] in "-*_"


@SETTINGS
@given(TEXT, st.lists(st.tuples(KEY, VALUE), max_size=4))
def test_new_entry_line_parses_back(text: str, items: list[tuple[str, str]]) -> None:
    line = new_entry_line(text, items)
    assume(not _thematic_break(line))
    EXAMPLES["new_entry_line"] += 1
    doc = parse((line + "\n").encode("utf-8"))
    assert len(doc.entries) == 1, line
    entry = doc.entries[0]
    assert doc.diagnostics is not None  # the lint runs on first use and fills entry.diagnostics
    assert entry.text == " ".join(text.split())
    assert [(m.key, m.value) for m in entry.metadata] == [(k, escape_value(v).strip(WHITESPACE)) for k, v in items]
    codes = {d.code for d in entry.diagnostics}
    assert not codes & {"AMR005", "AMR006", "AMR007", "AMR020", "AMR026"}, (line, codes)
