"""Focused tests of parser edge cases (docs/format.md decides each one).

The conformance suite (tests/conformance) pins the JSON of whole files; these tests look at
what the JSON does not show: line kinds, sections, depth and parent, offsets, fixes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from amr_tui.core.format.edit import new_entry_line
from amr_tui.core.format.jsonout import entries_json
from amr_tui.core.format.links import find_links, split_target
from amr_tui.core.format.metadata import format_metadata, parse_metadata
from amr_tui.core.format.parser import parse, serialize
from amr_tui.core.format.rules import CODES
from amr_tui.core.model import LineKind


def doc_of(text: str | bytes, path: str = "MEMORY.md"):
    data = text.encode("utf-8") if isinstance(text, str) else text
    doc = parse(data, path)
    assert serialize(doc) == data
    doc.diagnostics  # the line-local lint runs on first use; it also fills each entry's diagnostics
    return doc


def kinds(text: str) -> list[str]:
    return [ln.kind.value for ln in doc_of(text).lines]


def codes(doc, line: int | None = None) -> list[str]:
    return [d.code for d in doc.diagnostics if line is None or d.line == line]


def only_entry(text: str):
    doc = doc_of(text)
    assert len(doc.entries) == 1, [e.text for e in doc.entries]
    return doc.entries[0]


# --- block structure ----------------------------------------------------------------------


def test_setext_headings_give_sections() -> None:
    doc = doc_of("Memory\n======\n- a\n\nTopics\n------\n- b\n")
    assert doc.headings == [(1, 1, "Memory"), (5, 2, "Topics")]
    assert [(e.text, e.section, e.section_level) for e in doc.entries] == [("a", "Memory", 1), ("b", "Topics", 2)]
    assert kinds("Memory\n======\n") == ["heading", "heading"]


def test_dashes_under_a_list_item_are_a_rule_not_a_setext_heading() -> None:
    # "Sub" is a lazy continuation of the item; a setext underline cannot be lazy.
    doc = doc_of("- a\nSub\n---\n- b\n")
    assert doc.headings == []
    assert [ln.kind for ln in doc.lines] == [LineKind.ENTRY, LineKind.CONTINUATION, LineKind.RULE, LineKind.ENTRY]
    assert codes(doc, 1) == ["AMR004"]


def test_heading_inside_a_list_item_is_not_a_section() -> None:
    doc = doc_of("## Top\n- # not a heading\n- b\n")
    assert doc.headings == [(1, 2, "Top")]
    assert [(e.text, e.section) for e in doc.entries] == [("# not a heading", "Top"), ("b", "Top")]


def test_heading_inside_a_blockquote_is_not_a_section() -> None:
    doc = doc_of("# A\n> # quoted\n- b\n")
    assert doc.headings == [(1, 1, "A")]
    assert doc.entries[0].section == "A"


def test_entries_before_any_heading_have_no_section() -> None:
    e = only_entry("- first\n# Later\n")
    assert (e.section, e.section_level) == (None, 0)


def test_tables_are_paragraphs_and_hold_no_entries() -> None:
    # amr reads CommonMark, which has no tables: the rows are a paragraph. A "-" inside a
    # cell is not a bullet; a link in a cell still counts.
    doc = doc_of("| key | value |\n| --- | ----- |\n| - x | [[team]] |\n")
    assert doc.entries == []
    assert [ln.kind for ln in doc.lines] == [LineKind.TEXT] * 3
    assert [lk.target for lk in doc.links] == ["team"]


def test_html_block_swallows_lines_until_a_blank_line() -> None:
    # CommonMark HTML block type 6 (<div>) ends at the first blank line, not at </div>.
    doc = doc_of("<div>\n- inside\n</div>\n- swallowed [[x]]\n\n- real\n")
    assert [e.line for e in doc.entries] == [6]
    assert [ln.kind.value for ln in doc.lines[:4]] == ["html"] * 4
    assert doc.links == []  # links in HTML blocks do not count


def test_html_comment_block() -> None:
    doc = doc_of("<!--\n- hidden [[x]]\n-->\n- shown\n")
    assert [e.text for e in doc.entries] == ["shown"]
    assert doc.links == []


def test_fenced_and_indented_code_hold_no_entries_or_links() -> None:
    doc = doc_of("```md\n- code [[a]]\n```\n~~~\n- tilde\n~~~\n\n    - indented code [[b]]\n- real\n")
    assert [e.text for e in doc.entries] == ["real"]
    assert doc.links == []


def test_unclosed_fence_runs_to_the_end_of_the_file() -> None:
    doc = doc_of("- a\n```\n- b\n- c\n")
    assert [e.text for e in doc.entries] == ["a"]


def test_blockquote_bullets_are_not_entries_but_their_links_count() -> None:
    doc = doc_of("> - quoted [[q]]\n> more\n- real\n")
    assert [e.text for e in doc.entries] == ["real"]
    assert doc.lines[0].kind is LineKind.QUOTE
    assert [lk.target for lk in doc.links] == ["q"]


def test_ordered_items_are_not_entries() -> None:
    doc = doc_of("1. one [[a]]\n2) two\n")
    assert doc.entries == []
    assert [ln.kind for ln in doc.lines] == [LineKind.LIST, LineKind.LIST]
    assert [lk.target for lk in doc.links] == ["a"]


def test_tabs_as_indentation() -> None:
    doc = doc_of("- a\n\t- b\n-\tc\n\t- d\n")
    assert [(e.text, e.depth, e.parent_line) for e in doc.entries] == [
        ("a", 0, 0),
        ("b", 1, 1),
        ("c", 0, 0),
        ("d", 1, 3),
    ]
    assert doc.entries[1].indent == "\t"
    # A tab at the start of a line outside a list is four columns: indented code.
    assert doc_of("\t- code\n").entries == []


def test_dash_alone_and_dash_with_spaces_are_empty_entries() -> None:
    doc = doc_of("-\n-   \n- [ ]\n")
    assert [e.text for e in doc.entries] == ["", "", "[ ]"]
    assert codes(doc, 1) == ["AMR019"] and codes(doc, 2) == ["AMR019"]
    assert codes(doc, 3) == []  # an empty "[ ]" is text, too plain to be worth an AMR020


def test_dash_without_space_is_not_a_bullet() -> None:
    assert doc_of("-not a bullet\n--also not\n").entries == []


def test_thematic_breaks_are_not_entries() -> None:
    doc = doc_of("- - -\n* * *\n")
    assert doc.entries == []
    assert [ln.kind for ln in doc.lines] == [LineKind.RULE, LineKind.RULE]


def test_checkbox_at_the_start_is_text() -> None:
    e = only_entry("- [ ] write the docs [added: 2026-01-02]\n")
    assert e.text == "[ ] write the docs"
    assert e.meta_json() == {"added": "2026-01-02"}
    assert only_entry("- [x] done\n").text == "[x] done"


def test_nested_entries_have_depth_and_parent() -> None:
    doc = doc_of("- a\n  - b\n    - c\n  - d\n- e\n")
    assert [(e.line, e.depth, e.parent_line) for e in doc.entries] == [
        (1, 0, 0),
        (2, 1, 1),
        (3, 2, 2),
        (4, 1, 1),
        (5, 0, 0),
    ]
    assert [d.code for d in doc.diagnostics] == ["AMR023"] * 3


def test_one_line_holds_at_most_one_entry() -> None:
    # "- - x" opens two list items on one line; the outer one is the entry, the rest is text.
    e = only_entry("- - x\n")
    assert (e.text, e.depth) == ("- x", 0)
    assert codes(doc_of("- - x\n")) == []
    assert only_entry("- 1. step\n").text == "1. step"
    assert doc_of("1. - x\n").entries == []  # an ordered item first: no entry at all
    doc = doc_of("* - + x\n    - y\n")
    assert [(e.line, e.text, e.depth, e.parent_line) for e in doc.entries] == [(1, "- + x", 0, 0), (2, "y", 1, 1)]


def test_bullet_line_stays_an_entry_when_a_block_starts_on_it() -> None:
    for text, first in [("- ```\n  code\n  ```\n", "```"), ("- > quoted\n", "> quoted"), ("- <div>\n", "<div>")]:
        doc = doc_of(text)
        assert doc.lines[0].kind is LineKind.ENTRY
        assert [e.text for e in doc.entries] == [first]


def test_multiline_item_counts_code_and_ordered_lists_but_not_sub_entries() -> None:
    doc = doc_of("- a\n  - b\n- c\n  ```\n  x\n  ```\n- d\n  1. step\n- e\n\n  para\n- f\n\n")
    multi = {e.text: e.multiline for e in doc.entries}
    assert multi == {"a": False, "b": False, "c": True, "d": True, "e": True, "f": False}
    assert [d.line for d in doc.diagnostics if d.code == "AMR004"] == [3, 7, 9]


def test_continuation_of_a_sub_entry_is_reported_once() -> None:
    doc = doc_of("- a\n  - b\n    more\n")
    assert [d.line for d in doc.diagnostics if d.code == "AMR004"] == [2]


def test_deep_nesting_stops_at_ten_levels() -> None:
    # markdown-it's CommonMark preset nests blocks at most 20 deep (a list and its item are
    # two): bullets below the tenth level are continuation text of the tenth.
    text = "".join("  " * i + f"- x{i}\n" for i in range(12))
    doc = doc_of(text)
    assert [e.depth for e in doc.entries] == list(range(10))
    assert [d.line for d in doc.diagnostics if d.code == "AMR004"] == [10]


def test_front_matter() -> None:
    doc = doc_of("---\ntitle: x\n- not an entry\n---\n- a\n")
    assert doc.front_matter == (1, 4)
    assert [e.line for e in doc.entries] == [5]
    assert [(d.code, d.line) for d in doc.diagnostics] == [("AMR028", 1)]
    # "---" with no closing line is a thematic break, not front matter.
    doc = doc_of("---\n- a\n")
    assert doc.front_matter is None and [e.line for e in doc.entries] == [2]
    # "..." closes it too; front matter must start on line 1.
    assert doc_of("---\na: b\n...\n- a\n").front_matter == (1, 3)
    assert doc_of("\n---\na: b\n---\n").front_matter is None


def test_front_matter_after_a_bom() -> None:
    doc = doc_of(b"\xef\xbb\xbf---\na: 1\n---\n- a\n")
    assert doc.bom and doc.front_matter == (1, 3)


def test_non_markdown_files_have_no_entries_and_no_links() -> None:
    for path in ("billing/count.sql", "notes.txt", "MEMORY"):
        doc = doc_of("- looks like [[a]] an entry\n", path)
        assert doc.entries == [] and doc.links == [] and doc.diagnostics == []
    assert doc_of("- a\n", "notes.MARKDOWN").entries  # the suffix is case-insensitive


# --- lines and bytes ----------------------------------------------------------------------


def test_line_endings_are_kept_per_line() -> None:
    doc = doc_of(b"- a\r\n- b\n- c")
    assert [(ln.text, ln.eol) for ln in doc.lines] == [("- a", "\r\n"), ("- b", "\n"), ("- c", "")]


def test_lone_cr_stays_in_the_line() -> None:
    doc = doc_of(b"- a\rb\n- c\r\r\n")
    assert [ln.text for ln in doc.lines] == ["- a\rb", "- c\r"]
    assert [e.text for e in doc.entries] == ["a\rb", "c"]  # CR is trimmed at the end
    assert [d.code for d in doc.diagnostics] == ["AMR017", "AMR017"]


def test_bom_is_not_part_of_line_one() -> None:
    doc = doc_of(b"\xef\xbb\xbf- a [added: 2026-01-01]\n")
    assert doc.bom and doc.lines[0].text == "- a [added: 2026-01-01]"
    assert doc.entries[0].metadata[0].start == 5  # offsets count from after the BOM


def test_invalid_utf8_is_kept_as_surrogate_escapes() -> None:
    doc = doc_of(b"- caf\xe9 [source: https://x.test/\xff]\n")
    assert not doc.utf8
    e = doc.entries[0]
    assert e.text == "caf\udce9"
    assert e.meta_json() == {"source": "https://x.test/\udcff"}
    assert [(d.code, d.line) for d in doc.diagnostics] == [("AMR018", 0)]  # no AMR017 per byte


def test_empty_file_and_bom_only() -> None:
    assert doc_of(b"").lines == []
    doc = doc_of(b"\xef\xbb\xbf")
    assert doc.bom and doc.lines == []


def test_trailing_whitespace_is_trimmed_ascii_only() -> None:
    e = only_entry("- fact \t [source: https://x.test/1]  \t\n")
    assert e.text == "fact" and e.first("source") == "https://x.test/1"
    # No-break space is text, not whitespace: trimming is the same in every language.
    e = only_entry("- fact\u00a0\n")
    assert e.text == "fact\u00a0"


# --- metadata -----------------------------------------------------------------------------


def test_link_directly_followed_by_metadata() -> None:
    e = only_entry("- see [[a]][source: https://x.test/1]\n")
    assert e.text == "see [[a]]"
    assert e.meta_json() == {"source": "https://x.test/1"}
    assert [lk.target for lk in e.links] == ["a"]


def test_metadata_without_space_after_colon() -> None:
    e = only_entry("- fact [added:2026-01-01;source:https://x.test]\n")
    assert e.meta_json() == {"added": "2026-01-01", "source": "https://x.test"}


def test_bare_url_group_is_not_metadata() -> None:
    doc = doc_of("- fact [https://x.test/a]\n")
    assert doc.entries[0].metadata == []
    assert doc.entries[0].text == "fact [https://x.test/a]"
    assert codes(doc) == ["AMR020"]


def test_scheme_without_slash_reads_as_a_key() -> None:
    # A key is [A-Za-z][A-Za-z0-9_.-]* then ':' not followed by '/': "mailto:" is a key.
    e = only_entry("- write to Joe [mailto:joe@example.test]\n")
    assert e.meta_json() == {"mailto": "joe@example.test"}


def test_key_must_start_with_a_letter() -> None:
    for group in ("[1a: b]", "[_a: b]", "[: b]", "[a b: c]"):
        e = only_entry(f"- fact {group}\n")
        assert e.metadata == [], group


def test_group_is_metadata_when_its_first_item_is() -> None:
    e = only_entry("- fact [source: https://x.test/a; b; added: 2026-01-01]\n")
    assert e.meta_json() == {"source": "https://x.test/a; b", "added": "2026-01-01"}
    assert only_entry("- fact [draft; source: https://x.test]\n").metadata == []


def test_item_offsets_point_at_keys() -> None:
    line = "  - fact [source: https://x.test; added: 2026-01-01]"
    doc = doc_of("- top\n" + line + "\n")
    e = doc.entries[1]
    assert [line[m.start : m.end] for m in e.metadata] == ["source: https://x.test", "added: 2026-01-01"]
    assert line[e.meta_start :] == "[source: https://x.test; added: 2026-01-01]"
    assert e.meta_groups == 1


def test_several_groups_are_one_list_and_the_fix_merges_them() -> None:
    line = "- a [source: https://x.test/1] [source: https://x.test/2][added: 2026-01-01]"
    doc = doc_of(line + "\n")
    e = doc.entries[0]
    assert e.meta_groups == 3
    [d] = [d for d in doc.diagnostics if d.code == "AMR006"]
    assert d.fix is not None
    assert d.fix.edits[0].new_text == "- a [source: https://x.test/1; source: https://x.test/2; added: 2026-01-01]"


def test_unescaped_semicolon_fix_escapes_it() -> None:
    doc = doc_of("- a [source: https://x.test/p;v=1; added: 2026-01-01]\n")
    assert doc.entries[0].first("source") == "https://x.test/p;v=1"
    [d] = [d for d in doc.diagnostics if d.code == "AMR007"]
    assert d.fix.edits[0].new_text == "- a [source: https://x.test/p%3Bv=1; added: 2026-01-01]"
    assert only_entry(d.fix.edits[0].new_text + "\n").diagnostics == []


def test_semicolon_before_something_key_like_starts_a_new_item() -> None:
    # The unescapable case: text after ';' that looks like "key:" is a new item.
    e = only_entry("- a [source: https://x.test/a;b:c]\n")
    assert e.meta_json() == {"source": "https://x.test/a", "b": "c"}


def test_escapes_stay_encoded() -> None:
    e = only_entry("- a [source: https://x.test/q%3Ba%5B1%5D]\n")
    assert e.first("source") == "https://x.test/q%3Ba%5B1%5D"
    assert e.diagnostics == []


def test_backslash_is_not_an_escape() -> None:
    e = only_entry("- a \\[note: x\\]\n")
    assert e.text == "a \\"
    assert e.meta_json() == {"note": "x\\"}


@pytest.mark.parametrize(
    ("content", "reason", "column"),
    [
        ("fact [source: https://x.test/[1]]", "value", 6),
        ("fact [source: x]]", "value", 6),
        ("fact [source: [x]", "value", 6),
        ("fact [source: https://x.test] [[related]]", "not_last", 6),
        ("fact [source: https://x.test] [draft]", "not_last", 6),
        ("fact [t][source: https://x.test]", "after_bracket", 9),
        ("fact ![source: https://x.test]", "after_bang", 7),
    ],
)
def test_metadata_that_cannot_be_read(content: str, reason: str, column: int) -> None:
    meta = parse_metadata(content)
    assert meta.items == [] and meta.unparsable and meta.unparsable_reason == reason
    assert meta.unparsable_at + 1 == column
    doc = doc_of(f"- {content}\n")
    code = "AMR031" if reason == "not_last" else "AMR026"  # only brackets after it: misplaced, with a fix
    assert [(d.code, d.column) for d in doc.diagnostics if d.code in ("AMR026", "AMR031")] == [(code, column + 2)]


@pytest.mark.parametrize(
    "content",
    [
        "fact [source: x] and then prose",
        "fact [source: x] see [[a]]",  # prose before the link: not metadata, not an error
        "see [[notes: misc]]",
        "see `[k: v]` and [[a]]",
        "a [t][ref]",
        "a ![img][ref]",
        "fact [[a]]",
    ],
)
def test_brackets_that_are_just_text(content: str) -> None:
    meta = parse_metadata(content)
    assert meta.items == [] and not meta.unparsable


def test_stranded_metadata_is_reported_even_when_a_later_group_is_read() -> None:
    doc = doc_of("- a [source: https://x.test] [draft] [added: 2026-01-01]\n")
    e = doc.entries[0]
    assert e.text == "a [source: https://x.test] [draft]"
    assert e.meta_json() == {"added": "2026-01-01"}
    assert codes(doc) == ["AMR031"]


def test_metadata_inside_inline_code_is_text() -> None:
    e = only_entry("- use `arr[i: j]`\n")
    assert e.metadata == [] and e.diagnostics == []


def test_format_metadata_escapes_values() -> None:
    assert format_metadata([("source", "https://x.test/a;b[1]")]) == "[source: https://x.test/a%3Bb%5B1%5D]"
    assert format_metadata([]) == ""
    assert new_entry_line("  two   words ", [("added", "2026-01-01")]) == "- two words [added: 2026-01-01]"
    assert new_entry_line("", []) == "-"
    assert new_entry_line("x", [], like=only_entry("  * y\n")) == "  * x"


# --- links --------------------------------------------------------------------------------


def test_link_targets_drop_alias_fragment_and_spaces() -> None:
    assert split_target("a/b#Heading|Alias") == "a/b"
    assert split_target("a|b#c") == "a"
    assert split_target("  spaced  ") == "spaced"
    e = only_entry("- [[a|alias]] [[b#h]] [[ c ]]\n")
    assert [(lk.target, lk.raw) for lk in e.links] == [("a", "a|alias"), ("b", "b#h"), ("c", " c ")]


def test_links_inside_inline_code_do_not_count() -> None:
    assert [lk.target for lk in find_links("`[[a]]` ``x [[b]] x`` [[c]] ```[[d]]``", 1)] == ["c", "d"]
    # An unclosed backtick run is literal text: the link after it counts.
    assert [lk.target for lk in find_links("` [[a]]", 1)] == ["a"]


def test_links_in_metadata_are_not_entry_links() -> None:
    doc = doc_of("- fact [[a]] [see: b]\n")
    assert [lk.target for lk in doc.entries[0].links] == ["a"]


def test_triple_brackets() -> None:
    assert [lk.target for lk in find_links("[[[a]]]", 1)] == ["a"]
    assert [lk.raw for lk in find_links("[[a]]]]", 1)] == ["a"]


def test_md_suffix_fix_keeps_alias() -> None:
    doc = doc_of("- see [[notes/a.md|A]]\n")
    [d] = [d for d in doc.diagnostics if d.code == "AMR011"]
    assert d.fix.edits[0].new_text == "- see [[notes/a|A]]"


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("../x", "AMR012"),
        ("/etc/passwd", "AMR012"),
        ("~/x", "AMR012"),
        ("C:/x", "AMR012"),
        (".git/config", "AMR012"),
        ("a/.git/x", "AMR012"),
        ("a\\..\\..\\x", "AMR012"),
        ("", "AMR029"),
        ("#only-fragment", "AMR032"),  # a heading link to a heading this file does not have
        ("a.md", "AMR011"),
        ("a.sql", None),
        ("a/./b", None),
    ],
)
def test_unsafe_and_suspicious_link_targets(target: str, expected: str | None) -> None:
    doc = doc_of(f"- see [[{target}]]\n")
    assert [d.code for d in doc.diagnostics] == ([expected] if expected else [])


# --- diagnostics --------------------------------------------------------------------------


def test_control_characters_are_reported_once_per_line() -> None:
    doc = doc_of("- a \x1b[2J b \x00 c\n- \u202egnp.exe\n- tab\tis fine\n- line\u2028sep\n")
    assert [(d.code, d.line, d.column) for d in doc.diagnostics] == [
        ("AMR017", 1, 5),
        ("AMR017", 2, 3),
        ("AMR017", 4, 7),
    ]


def test_secrets_on_any_non_blank_line() -> None:
    doc = doc_of("# Notes\nplain text ghp_" + "a" * 36 + "\n- token sk-" + "b" * 30 + "\n")
    assert [(d.code, d.line) for d in doc.diagnostics] == [("AMR016", 2), ("AMR016", 3)]


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("2026-01-01", True),
        ("2024-02-29", True),
        ("2026-02-29", False),
        ("2026-13-01", False),
        ("2026-1-1", False),
        ("20260101", False),
        ("2026-01-01T10:00", False),
        ("0000-01-01", False),
        ("\u0662\u0660\u0662\u0666-01-01", False),
    ],
)
def test_dates(value: str, ok: bool) -> None:
    e = only_entry(f"- a [added: {value}; expires: {value}; updated: {value}]\n")
    assert [d.code for d in e.diagnostics].count("AMR008") == (0 if ok else 3)


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("https://x.test/s/1", True),
        ("devin:session/42", True),
        ("urn:x", True),
        ("s/303", False),
        ("session 42", False),
        ("https://x.test/a b", False),
        ("//x.test", False),
        ("1http://x", False),
    ],
)
def test_source_must_be_a_uri(value: str, ok: bool) -> None:
    e = only_entry(f"- a [source: {value}]\n")
    assert ("AMR009" in [d.code for d in e.diagnostics]) is not ok


def test_diagnostics_are_sorted_by_line_column_code() -> None:
    doc = doc_of("* a [Added: 2026-02-30] [Added: x]\n")
    got = [(d.line, d.column, d.code) for d in doc.diagnostics]
    assert got == sorted(got)
    assert [d.code for d in doc.diagnostics] == ["AMR024", "AMR008", "AMR022", "AMR006", "AMR008", "AMR021", "AMR022"]


# --- the examples in docs/format.md -------------------------------------------------------

DOC = Path(__file__).resolve().parents[1] / "docs" / "format.md"
_FENCE = re.compile(r"^(`{3,})(\w*)(?: path=(\S+))?\s*$")


def doc_blocks() -> list[tuple[int, str, str | None, list[str]]]:
    """(line, info, path, lines) of every fenced block in docs/format.md."""
    blocks = []
    lines = DOC.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        fence, info, path = m.group(1), m.group(2), m.group(3)
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not re.match(rf"^{fence}`*\s*$", lines[j]):
            body.append(lines[j])
            j += 1
        blocks.append((i + 1, info, path, body))
        i = j + 1
    return blocks


def example_file(body: list[str]) -> tuple[str, list[tuple[int, dict]]]:
    """The example's file text and its annotations as (1-based line in the file, expectation)."""
    file_lines: list[str] = []
    notes: list[tuple[int, dict]] = []
    for raw in body:
        if raw.startswith("→ "):
            assert file_lines, "an annotation before any line"
            notes.append((len(file_lines), json.loads(raw[2:])))
        else:
            file_lines.append(raw)
    return "\n".join(file_lines) + "\n", notes


AMR_BLOCKS = [b for b in doc_blocks() if b[1] == "amr"]


def test_format_doc_has_examples() -> None:
    assert len(AMR_BLOCKS) >= 25
    assert sum(len(example_file(b[3])[1]) for b in AMR_BLOCKS) >= 80


@pytest.mark.parametrize("block", AMR_BLOCKS, ids=[f"docs-line-{b[0]}" for b in AMR_BLOCKS])
def test_format_doc_example(block) -> None:
    doc_line, _info, path, body = block
    text, notes = example_file(body)
    doc = doc_of(text, path or "example.md")
    rows = {row["line"]: row for row in entries_json(doc)}
    assert notes, f"docs/format.md:{doc_line}: example without annotations"
    for line, want in notes:
        where = f"docs/format.md:{doc_line}, example line {line}"
        row = rows.get(line)
        if want.get("entry", True) is False:
            assert row is None, f"{where}: is an entry: {row}"
            continue
        assert row is not None, f"{where}: not an entry"
        assert row["text"] == want["text"], where
        assert row["metadata"] == want.get("metadata", {}), where
        assert row["links"] == want.get("links", []), where
        assert [d["code"] for d in row["diagnostics"]] == want.get("codes", []), where
    annotated = {line for line, _ in notes}
    assert set(rows) <= annotated, f"docs/format.md:{doc_line}: entries without an annotation: {set(rows) - annotated}"


def test_format_doc_json_example_is_real() -> None:
    blocks = doc_blocks()
    pairs = [(a, b) for a, b in zip(blocks, blocks[1:]) if a[1] == "amr" and b[1] == "json"]
    assert pairs, "section 7 shows an amr example and its JSON"
    for (_, _, path, body), (_, _, _, json_lines) in pairs:
        text, _ = example_file(body)
        assert entries_json(doc_of(text, path or "example.md")) == json.loads("\n".join(json_lines))


def test_format_doc_lists_every_code() -> None:
    text = DOC.read_text(encoding="utf-8")
    table = {m.group(1): m.group(2) for m in re.finditer(r"^\| (AMR\d{3}) \| (\w+) \|", text, re.M)}
    assert table == {code: sev.value for code, (sev, _msg) in CODES.items()}


def test_many_groups_parse_in_linear_time() -> None:
    import time

    line = "- x" + "[k: v]" * 5000 + "\n"
    began = time.perf_counter()
    doc = doc_of(line)
    assert len(doc.entries[0].metadata) == 5000
    assert time.perf_counter() - began < 2.0


def test_the_editor_warns_on_a_missing_link_and_an_unclosed_one() -> None:
    """Issue 24 point 9: as you type, [[missing]] (with the repo's resolver) and a [[ never closed."""
    from amr_tui.core.format.edit import check_line

    _, diags = check_line("- see [[nowhere]] and [[notes]]", "a.md", lambda link: link.target == "notes")
    assert [(d.code, d.message) for d in diags] == [("AMR010", "[[nowhere]] names no file in this repo")]
    _, diags = check_line("- see [[notes", "a.md")
    assert [d.code for d in diags] == ["AMR010"] and "never closed" in diags[0].message
    assert check_line("- see [[notes]]", "a.md", lambda link: True)[1] == []
