"""amr_tui.core.merge: the entry-aware three-way merge, rule by rule (no git here)."""

from __future__ import annotations

import pytest

from amr_tui.core.merge.linediff import diff_hunks
from amr_tui.core.merge.parts import DELETED_OURS, DELETED_THEIRS, EDITED_BOTH, merge_metadata
from amr_tui.core.merge.three_way import merge3

HEAD = "# Findings\n\n"
A = "- Database: queries are fast [source: s/301]"
B = "- Runtime: GC freezes 400 ms [source: s/302]"
C = "- LB: ruled out [source: s/303]"
D = "- Cache stampede is the root cause [source: s/304]"


def doc(*lines: str, head: str = HEAD, eol: str = "\n") -> bytes:
    return (head.replace("\n", eol) + "".join(line + eol for line in lines)).encode()


def m(base: bytes, ours: bytes, theirs: bytes, path: str = "findings.md"):
    return merge3(base, ours, theirs, path)


def test_appends_on_both_sides_are_both_kept_ours_first():
    r = m(doc(A), doc(A, C), doc(A, B))
    assert r.clean and r.merged == doc(A, C, B)


def test_appends_in_the_middle_on_both_sides():
    r = m(doc(A, D), doc(A, C, D), doc(A, B, D))
    assert r.clean and r.merged == doc(A, C, B, D)


def test_same_entry_added_on_both_sides_appears_once():
    assert m(doc(A), doc(A, B), doc(A, B)).merged == doc(A, B)
    assert m(doc(A), doc(A, B, C), doc(A, C, B)).merged.count(C.encode()) == 1
    r = m(doc(A, D), doc(B, A, D), doc(A, D, B))  # added in different places: still once
    assert r.clean and r.merged.count(B.encode()) == 1


def test_deleted_on_one_side_untouched_on_the_other_stays_deleted():
    assert m(doc(A, B, D), doc(A, B, D), doc(A, D)).merged == doc(A, D)
    assert m(doc(A, B, D), doc(A, D), doc(A, B, D, C)).merged == doc(A, D, C)


def test_different_entries_edited_on_each_side_even_neighbours():
    a2, b2 = A.replace("fast", "slow"), B.replace("400", "450")
    r = m(doc(A, B), doc(a2, B), doc(A, b2))
    assert r.clean and r.merged == doc(a2, b2)


def test_same_entry_edited_differently_conflicts_around_that_entry_alone():
    a2, a3 = A.replace("fast", "slow"), A.replace("fast", "very fast")
    r = m(doc(A, B, D), doc(a2, B, D, C), doc(a3, B, D))
    assert not r.clean and len(r.conflicts) == 1
    c = r.conflicts[0]
    assert (c.kind, c.reason, c.ours, c.base, c.theirs) == ("entry", EDITED_BOTH, (a2,), (A,), (a3,))
    assert c.entry == "Database: queries are fast"
    text = r.merged.decode()
    assert text.startswith(
        HEAD + "<<<<<<< ours\n" + a2 + "\n||||||| base\n" + A + "\n=======\n" + a3 + "\n>>>>>>> theirs\n"
    )
    assert text.endswith(B + "\n" + D + "\n" + C + "\n")
    assert c.line == 3


def test_delete_against_edit_conflicts_both_ways():
    a2 = A.replace("fast", "slow")
    r = m(doc(A, B), doc(B), doc(a2, B))
    assert [(c.reason, c.ours, c.theirs) for c in r.conflicts] == [(DELETED_OURS, (), (a2,))]
    r = m(doc(A, B), doc(a2, B), doc(B))
    assert [(c.reason, c.ours, c.theirs) for c in r.conflicts] == [(DELETED_THEIRS, (a2,), ())]


def test_metadata_keys_merge_key_by_key():
    base = "- Port is 3001 [source: s/1; added: 2026-01-01]"
    ours = "- Port is 3001 [source: s/2; added: 2026-01-01]"
    theirs = "- Port is 3001 [source: s/1; added: 2026-01-01; expires: 2026-12-31]"
    r = m(doc(base), doc(ours), doc(theirs))
    assert r.clean and r.merged == doc("- Port is 3001 [source: s/2; added: 2026-01-01; expires: 2026-12-31]")


def test_text_on_one_side_metadata_on_the_other_merge():
    r = m(
        doc("- Port is 3001 [source: s/1]"),
        doc("- Port is 3002 [source: s/1]"),
        doc("- Port is 3001 [source: s/1; added: 2026-02-02]"),
    )
    assert r.merged == doc("- Port is 3002 [source: s/1; added: 2026-02-02]")


def test_same_key_changed_both_ways_conflicts():
    r = m(doc("- x [source: s/1]"), doc("- x [source: s/2]"), doc("- x [source: s/3]"))
    assert len(r.conflicts) == 1 and r.conflicts[0].kind == "entry"


def test_merge_metadata_removal_and_case():
    assert merge_metadata([("source", "a"), ("added", "1")], [("source", "a")], [("Source", "a"), ("added", "1")]) == [
        ("source", "a")
    ]
    assert merge_metadata([("k", "1")], [("k", "2")], [("k", "3")]) is None


def test_non_entry_lines_fall_back_to_an_ordinary_line_merge():
    base = b"# T\n\nIntro paragraph.\n\n- a\n"
    r = m(base, b"# T\n\nIntro, ours.\n\n- a\n", b"# T\n\nIntro, theirs.\n\n- a\n")
    assert [c.kind for c in r.conflicts] == ["text"]
    assert (
        r.merged
        == b"# T\n\n<<<<<<< ours\nIntro, ours.\n||||||| base\nIntro paragraph.\n=======\nIntro, theirs.\n>>>>>>> theirs\n\n- a\n"
    )
    clean = m(base, b"# Title\n\nIntro paragraph.\n\n- a\n", b"# T\n\nIntro paragraph.\n\n- a\n- b\n")
    assert clean.clean and clean.merged == b"# Title\n\nIntro paragraph.\n\n- a\n- b\n"


def test_both_add_a_section_with_different_entries():
    base = b"# Notes\n"
    r = m(base, b"# Notes\n\n## Cache\n- a\n", b"# Notes\n\n## Cache\n- b\n")
    assert r.clean and r.merged == b"# Notes\n\n## Cache\n- a\n- b\n"


def test_file_added_on_both_sides():
    r = merge3(None, b"# F\n\n- a\n", b"# F\n\n- b\n", "f.md")
    assert r.clean and r.merged == b"# F\n\n- a\n- b\n"


def test_crlf_bom_and_missing_final_newline_are_kept():
    base = "\ufeff# F\r\n\r\n- a\r\n".encode()
    r = m(base, base + b"- b\r\n", base + b"- c\r\n")
    assert r.merged == "\ufeff# F\r\n\r\n- a\r\n- b\r\n- c\r\n".encode()
    r = m(b"- a", b"- a\n- b", b"- a\n- c")
    assert r.merged == b"- a\n- b\n- c"
    r = m(doc(A, eol="\r\n"), doc(A.replace("fast", "x"), eol="\r\n"), doc(A.replace("fast", "y"), eol="\r\n"))
    assert b"\n" not in r.merged.replace(b"\r\n", b"")  # markers use CRLF too


def test_non_markdown_files_have_no_entries():
    r = merge3(b"a\n", b"a\nb\n", b"a\nc\n", "q.sql")
    assert [c.kind for c in r.conflicts] == ["text"]


def test_resolve_choices():
    a2, a3 = A.replace("fast", "slow"), A.replace("fast", "very fast")
    r = m(doc(A, B), doc(a2, B), doc(a3, B))
    assert r.resolve({0: "ours"}) == doc(a2, B)
    assert r.resolve({0: "theirs"}) == doc(a3, B)
    assert r.resolve({0: "base"}) == doc(A, B)
    assert r.resolve({0: "both"}) == doc(a2, a3, B)
    assert r.resolve({0: ["- merged by hand"]}) == doc("- merged by hand", B)
    assert r.resolve({}) == r.merged
    with pytest.raises(ValueError):
        r.resolve({0: "mine"})
    with pytest.raises(ValueError):
        r.resolve({0: ["two\nlines"]})
    with pytest.raises(IndexError):
        r.resolve({3: "ours"})


def test_marker_size_and_determinism():
    r = merge3(b"x\n", b"y\n", b"z\n", "f.md", marker_size=10)
    assert b"<<<<<<<<<< ours\n" in r.merged
    assert merge3(b"x\n", b"y\n", b"z\n", "f.md", marker_size=10).merged == r.merged


def test_linediff_is_minimal_and_applies():
    a, b = list("abcabba"), list("cbabac")
    hunks = diff_hunks(a, b)
    out, i = [], 0
    for h in hunks:
        out += a[i : h.a_start] + b[h.b_start : h.b_end]
        i = h.a_end
    assert out + a[i:] == b
    assert sum(h.a_end - h.a_start + h.b_end - h.b_start for h in hunks) == 5  # LCS is 4


def test_large_unrelated_files_stay_bounded():
    base = "".join(f"- fact {i}\n" for i in range(3000)).encode()
    ours = "".join(f"- other {i}\n" for i in range(3000)).encode()
    r = merge3(base, ours, base + b"- new\n", "f.md")
    assert b"- new" in r.merged and b"- other 2999" in r.merged
