"""The parser's fast path (core.fastscan) reads every file exactly as markdown-it does.

Each document is parsed twice, once as usual and once with the fast path switched off, and
everything the parser returns is compared: line kinds, entries, links, headings and
diagnostics. Documents are built from lines the fast path accepts and lines it must refuse.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amr_tui.core.format import fastscan
from amr_tui.core.format.parser import parse
from tests.examples import examples


def _snapshot(doc) -> object:
    doc.diagnostics  # computed on first use; fills the entries' diagnostics too
    return (
        [(ln.number, ln.text, ln.eol, ln.kind) for ln in doc.lines],
        [
            (
                e.line,
                e.indent,
                e.marker,
                e.content_start,
                e.text,
                e.metadata,
                e.links,
                e.section,
                e.section_level,
                e.depth,
                e.parent_line,
                e.meta_start,
                e.meta_groups,
                e.multiline,
                e.diagnostics,
            )
            for e in doc.entries
        ],
        doc.links,
        doc.headings,
        doc.front_matter,
        doc.diagnostics,
        doc.bom,
        doc.utf8,
    )


def _both(data: bytes, path: str = "notes.md") -> tuple[object, object, bool]:
    fast = parse(data, path)
    text = data.decode("utf-8", "surrogateescape").removeprefix("\ufeff")
    used_fast = (
        fastscan.eligible_text(text)
        and fastscan.scan([type(ln)(ln.number, ln.text, ln.eol) for ln in fast.lines]) is not None
    )
    real = fastscan.eligible_text
    fastscan.eligible_text = lambda text: False
    try:
        slow = parse(data, path)
    finally:
        fastscan.eligible_text = real
    return _snapshot(fast), _snapshot(slow), used_fast


LINES = [
    "",
    " ",
    "\t",
    "  \t ",
    "# Title",
    "## Index",
    "###### six",
    "####### seven",
    "#tag line",
    "# closed #",
    "#",
    "## ",
    "#\tTabbed",
    "- fact [source: https://x.example/1; added: 2026-01-02]",
    "- fact",
    "- [[notes/a]] links",
    "- [[a.md]] with md",
    "- see [[b|alias]] and `[[c]]`",
    "- [source: x]",
    "- [label]: /url",
    "- [draft] idea",
    "- 2026 was busy",
    "- 1. ordered?",
    "- 3) also",
    "- # heading",
    "- > quote",
    "- ```",
    "- <div>",
    "- - nested",
    "- * star",
    "- + plus",
    "-  two spaces",
    "-\ttab",
    "- ",
    "-",
    "--",
    "---",
    "- - -",
    "***",
    "___",
    "===",
    "* star entry",
    "+ plus entry",
    "  - indented",
    "    code",
    "> quote",
    "```",
    "~~~",
    "<div>",
    "<!-- c -->",
    "1. one",
    "2) two",
    "10. ten",
    "2026-01-01 happened",
    "plain text",
    "more text [[x]]",
    "[ref]: https://example.com",
    "[not a ref]",
    "\\- escaped",
    "| a | b |",
    "!image",
    "password = hunter2hunter2",
    "key AKIA0123456789ABCDEF",
    "- token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "caf\u00e9 \u2014 \u00fcber",
    "\u00a0nbsp start",
    "- fact [Source: x; ADDED: 2026-13-01]",
    "- a [x: 1] [y: 2]",
    "- a [k: v;; w]",
    "- a [k: v; j]",
    "text\x1bwith escape",
    "- fact\u202e",
    "- fact [source: https://x/[1]]",
    "`code` first",
    "- `x` y",
    "``two`` ticks",
    "~tilde",
    "- ~~~",
    "~~~~",
    "- ``y``",
    "[[x]]: y",
    "- [[x]]: y",
    "[x]: y",
]


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(LINES), max_size=14), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_fast_path_agrees_with_markdown_it(lines: list[str], eol: str, final_eol: bool) -> None:
    text = eol.join(lines) + (eol if final_eol and lines else "")
    fast, slow, _ = _both(text.encode("utf-8"))
    assert fast == slow


@pytest.mark.parametrize(
    "text",
    [
        "# Memory\n\n## Index\n\n- [[infra]]: notes\n- [[people]]\n",
        "# T\n\n## Notes\n- a [source: https://e/1; added: 2026-01-01]\nlazy line\n- b\n\ntext\n- c\n",
        "- a\n#tag\n- b\n  \n- c\n",
        "## A\n- x\n## B\n- y\n### C\n- z [[y]]\n",
        "# CRLF\r\n\r\n- a\r\n- b\r\n",
    ],
)
def test_fast_path_taken_and_equal(text: str) -> None:
    fast, slow, used_fast = _both(text.encode())
    assert used_fast
    assert fast == slow


@pytest.mark.parametrize(
    "text",
    [
        "---\ntitle: x\n---\n- a\n",
        "- a\n  continued\n",
        "- a\n---\n",
        "> - q\n",
        "```\n- code\n```\n",
        "- a\r\n- b\rc\n",
        "text\n===\n",
        "1. a\n- b\n",
        "- a\v\n",
    ],
)
def test_fast_path_refuses_what_it_does_not_model(text: str) -> None:
    fast, slow, used_fast = _both(text.encode())
    assert not used_fast
    assert fast == slow
