"""Properties of the entry-aware merge (Hypothesis).

* nothing either side added is dropped: every added line is in the result (maybe between
  markers), or, for an entry merged key by key, its text or all its metadata are;
* a change made on one side only comes through exactly, byte for byte (and so does the same
  change made on both sides);
* line endings survive: all-CRLF inputs give an all-CRLF result, markers included;
* the result depends only on the input (run twice, same bytes), and choosing a side for every
  conflict leaves no markers.

The fast tier runs a quarter of the examples (``tests/examples.py``); ``HYPOTHESIS_PROFILE=full``
runs all 250 per property, ``HYPOTHESIS_PROFILE=long`` 20x that.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from amr_tui.core.format.parser import parse
from amr_tui.core.merge.three_way import merge3
from tests.examples import examples

PROFILES = {
    "default": settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow]),
    "long": settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow]),
}
SETTINGS = PROFILES.get(os.environ.get("HYPOTHESIS_PROFILE", "default"), PROFILES["default"])

FACTS = ["Database is fast", "Runtime GC freezes", "LB ruled out", "Use bun not npm", "Port is 3001"]
_entry = st.builds(
    lambda fact, n, extra: f"- {fact}"
    + (f" [source: s/{n}" + ("; added: 2026-01-0" + str(extra) if extra else "") + "]" if n else ""),
    st.sampled_from(FACTS),
    st.integers(0, 3),
    st.integers(0, 3),
)
_text = st.sampled_from(["", "# Title", "## Index", "Some prose.", "More prose here.", "- [[notes]]", "  - nested"])
_line = st.one_of(_entry, _entry, _text)
_doc = st.lists(_line, max_size=12)


@st.composite
def _edited(draw, base: list[str], tag: str) -> list[str]:
    lines = list(base)
    for k in range(draw(st.integers(0, 5))):
        op = draw(st.sampled_from(["append", "insert", "delete", "edit", "meta", "text"]))
        pos = draw(st.integers(0, max(0, len(lines) - 1)))
        if op == "append":
            lines.append(f"- {tag} fact {k} [source: s/{tag}{k}]")
        elif op == "insert":
            lines.insert(pos, draw(st.one_of(_line, st.just(f"- {tag} inserted {k}"))))
        elif not lines:
            continue
        elif op == "delete":
            del lines[pos]
        elif op == "edit":
            lines[pos] = lines[pos].replace("fast", f"{tag}-fast").replace("3001", f"300{k}") + f" {tag}"
        elif op == "meta" and lines[pos].startswith("- ") and lines[pos].endswith("]"):
            lines[pos] = lines[pos][:-1] + f"; by: {tag}]"
        else:
            lines[pos] = f"Prose by {tag} {k}."
    return lines


def _bytes(lines: list[str], eol: str = "\n") -> bytes:
    return "".join(line + eol for line in lines).encode()


def _out_lines(data: bytes) -> list[str]:
    return [ln.rstrip("\r") for ln in data.decode().split("\n")]


def _text(line: str) -> str | None:
    doc = parse((line + "\n").encode(), "f.md")
    return doc.entries[0].text if doc.entries else None


def _meta(line: str) -> set[tuple[str, str]]:
    doc = parse((line + "\n").encode(), "f.md")
    return {(m.key.lower(), m.value) for m in doc.entries[0].metadata} if doc.entries else set()


@st.composite
def _triple(draw):
    base = draw(_doc)
    return base, draw(_edited(base, "ours")), draw(_edited(base, "theirs"))


@SETTINGS
@given(_triple())
@example(
    (
        ["", "", "- Database is fast", "- LB ruled out [source: s/1]", "- LB ruled out"],
        ["", "", "- Database is fast", "- LB ruled out [source: s/1; by: ours]", "- LB ruled out"],
        ["- theirs inserted 2", "", "- Database is fast", "- LB ruled out theirs"],
    )
)  # theirs took source off (and reworded): ours' own change, by, is what must stay
def test_never_drops_a_line_either_side_added(triple):
    base, ours, theirs = triple
    result = merge3(_bytes(base), _bytes(ours), _bytes(theirs), "f.md")
    out = _out_lines(result.merged)
    out_set = set(out)
    out_doc = parse(result.merged, "f.md")
    texts = {e.text for e in out_doc.entries}
    metas = [{(m.key.lower(), m.value) for m in e.metadata} for e in out_doc.entries]
    for side in (ours, theirs):
        for line in side:
            if side.count(line) <= base.count(line) or line in out_set:
                continue
            entries = parse((line + "\n").encode(), "f.md").entries
            assert entries, f"non-entry line {line!r} was dropped:\n{result.merged.decode()}"
            items = _meta(line)
            merged_text = result.merged.decode()
            # A side that only took all the metadata off a base entry changed no text and added no
            # key: merged key by key, the other side's text and no metadata of its own is what it asked.
            only_meta_dropped = not items and any(
                e.text == entries[0].text and e.metadata for e in parse(_bytes(base), "f.md").entries
            )
            # Keys the line shares with a base entry of its text are no change of this side's: the
            # other side may take them off (merged key by key, its removal wins).
            had = [_meta(b) for b in base if _text(b) == entries[0].text]
            new_items = items - set().union(*had) if had else items
            kept = (
                entries[0].text in texts
                or (items and any(items <= m for m in metas))
                or (items and all(f"{k}: {v}" in merged_text for k, v in items))
                or (had and new_items != items and all(f"{k}: {v}" in merged_text for k, v in new_items))
                or only_meta_dropped
            )  # merged key by key
            assert kept, f"entry {line!r} was dropped:\n{merged_text}"


@SETTINGS
@given(_triple())
def test_one_sided_and_identical_changes_come_through_exactly(triple):
    base, ours, _ = triple
    b, o = _bytes(base), _bytes(ours)
    for res in (merge3(b, o, b, "f.md"), merge3(b, b, o, "f.md"), merge3(b, o, o, "f.md")):
        assert res.clean and res.merged == o


@SETTINGS
@given(_triple())
def test_crlf_in_crlf_out_and_deterministic(triple):
    base, ours, theirs = (_bytes(x, "\r\n") for x in triple)
    first = merge3(base, ours, theirs, "f.md")
    assert first.merged.count(b"\n") == first.merged.count(b"\r\n")
    assert merge3(base, ours, theirs, "f.md").merged == first.merged
    chosen = first.resolve({c.index: "both" for c in first.conflicts})
    assert b"<<<<<<<" not in chosen and b">>>>>>>" not in chosen


@SETTINGS
@given(_triple(), st.booleans(), st.booleans())
@example((["", "", "- Database is fast", "# Title"], ["", "", "# Title"], ["", "", "- Database is fast"]), False, False)
def test_bom_and_final_newline(triple, bom, final):
    base, ours, theirs = triple
    pre = "\ufeff".encode() if bom else b""

    def enc(lines: list[str]) -> bytes:
        data = _bytes(lines)
        return pre + (data if final or not data else data[:-1])

    inputs = [enc(x) for x in (base, ours, theirs)]
    res = merge3(*inputs, "f.md")
    assert res.merged.startswith(pre)
    ends = {d.endswith(b"\n") for d in inputs if d not in (b"", pre)}
    # Text of blank lines only has no final newline to keep: two blank lines without one are "\n",
    # as one blank line with one is.
    if len(ends) == 1 and res.merged.removeprefix(pre).strip(b"\n"):
        assert res.merged.endswith(b"\n") == ends.pop()
