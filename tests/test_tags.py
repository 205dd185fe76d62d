"""Tags: where a ``#tag`` is read and where it is not, the three places a tag lives (text,
``[tags: ...]``, front matter) read as one set, ``tag:NAME`` answering the same in the finder,
``amr search`` and MCP ``memory_search``, and a tag renamed in every file in one commit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amr_tui.core.format.parser import parse
from amr_tui.core.format.tags import file_tags, find_tags, front_matter_tags, item_tags, normal_tag, rename_tag
from amr_tui.core.search.query import QueryError
from amr_tui.core.search.query import parse as parse_query
from amr_tui.services.session.session import Session
from amr_tui.services.session.tags import rename_tag_in_repo, tag_counts
from amr_tui.services.workspace import discover
from amr_tui.services.writegate import EditRefused
from tests.driver import git
from tests.examples import examples
from tests.mcp_client import amr_mcp

ROOT = Path(__file__).resolve().parent.parent


def names(text: str) -> list[str]:
    return [t.name for t in find_tags(text)]


# ------------------------------------------------------------------------------- reading


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ("Deploys run from CI #infra", ["infra"]),
        ("#Infra at the start, #ops/oncall nested", ["infra", "ops/oncall"]),
        ("trailing punctuation #infra. and #ops, kept out", ["infra", "ops"]),
        ("issue #123 and #2026-10 are no tags", []),
        ("colours #fff #1e90ff #ff0a #add are no tags, #fffa and #cafe are", ["fffa", "cafe"]),
        ("a trailing dash or slash is no part of it: #infra- #ops/", ["infra", "ops"]),
        ("inline `#code` is code, not a tag", []),
        ("a URL https://example.com/page#section holds no tag", []),
        ("a link [[projects/payments#Deadlines]] names a heading", []),
        ("a Markdown link [t](notes.md#part) or [t](#anchor) neither", []),
        ("word#glued is no tag; an entity &#123; neither", []),
        ("unicode #équipe counts", ["équipe"]),
    ],
)
def test_tags_in_text(text: str, tags: list[str]) -> None:
    assert names(text) == tags


def test_headings_code_and_metadata_are_not_read_as_text_tags() -> None:
    doc = parse(
        b"# Title #notatag\n\n## Index #nope\n\n```\n- #fenced\n```\n- Entry #yes [source: https://x.example/a#b]\n",
        "MEMORY.md",
    )
    assert [e.text for e in doc.entries] == ["Entry #yes"]
    assert names(doc.entries[0].text) == ["yes"]


@pytest.mark.parametrize(
    ("front", "tags"),
    [
        ("tags: [infra, Ops]", ["infra", "ops"]),
        ("tags: infra, ops", ["infra", "ops"]),
        ("tags: infra ops", ["infra", "ops"]),
        ("tags: [\"#infra\", 'ops']", ["infra", "ops"]),
        ("tag: infra", ["infra"]),
        ("tags:\n  - infra\n  - ops\ntitle: x", ["infra", "ops"]),
        ("tags:\n- infra\n- 123", ["infra"]),
        ("title: no tags here", []),
    ],
)
def test_front_matter_tags(front: str, tags: list[str]) -> None:
    assert front_matter_tags(front.splitlines()) == tags
    doc = parse(f"---\n{front}\n---\n# T\n\n- e\n".encode(), "n.md")
    assert list(file_tags(doc)) == tags


def test_text_metadata_and_front_matter_are_one_set() -> None:
    meta = {"tags": ["infra, #ops"], "source": ["https://x.example/#frag"]}
    assert item_tags("Deploy #release", meta, ("team",)) == {"release", "infra", "ops", "team"}
    assert item_tags("nothing", None) == set()


def test_tag_operator_parses_and_refuses_what_is_no_tag() -> None:
    (flt,) = parse_query("tag:#Infra").filters
    assert (flt.key, flt.value) == ("tag", "infra")
    for bad in ("tag:123", "tag:fff"):
        assert parse_query(bad).error is not None and "tag:" in parse_query(bad).error


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab1 #`[]()/-_.fF\u00e9")), max_size=40))
def test_every_tag_found_is_a_tag_and_starts_at_a_hash(text: str) -> None:
    for tag in find_tags(text):
        assert text[tag.start] == "#"
        assert tag.start == 0 or text[tag.start - 1].isspace()
        assert normal_tag(text[tag.start + 1 : tag.end]) == tag.name


# ------------------------------------------------------------------------------- renaming


def test_rename_rewrites_text_metadata_and_front_matter_and_nothing_else() -> None:
    src = (
        "---\ntags: [infra, ops]\n---\n# Ops #infra\n\n"
        "- Deploy #infra and #infra/db, not `#infra` or [[a#infra]] [tags: infra, x; source: https://s.example/#infra]\n"
        "- Plain #Infra.\n- Unrelated #infrastructure\n"
    )
    doc = parse(src.encode(), "ops.md")
    texts, count = rename_tag(doc, "infra", "platform")
    assert count == 5
    assert texts == [
        "---",
        "tags: [platform, ops]",
        "---",
        "# Ops #infra",
        "",
        "- Deploy #platform and #platform/db, not `#infra` or [[a#infra]] [tags: platform, x; source: https://s.example/#infra]",
        "- Plain #platform.",
        "- Unrelated #infrastructure",
    ]


# ------------------------------------------------------------------------ one answer, three ways

MEMORY = """# Memory

- Deploys run from CI on every merge #infra [owner: priya]
- Rotate the database password monthly [tags: infra, security; owner: sam]
- The release train leaves on Tuesdays #release/train
- Issue #123 and colour #fff are no tags
- Our `#infra` channel is code, not a tag

## Index
- [[ops]]
- [[notes]]
"""
OPS = """---
tags: [ops, infra]
---
# Ops

- Pager rotation is weekly
- Deploy freezes start two days before a release
"""
NOTES = """# Notes

- Nothing tagged here, https://example.com/page#infra is a URL
- Another note about #release planning
"""
QUERIES = [
    "tag:infra",
    "tag:ops",
    "tag:release",
    "tag:security",
    "deploy tag:infra",
    "tags:infra",
    "owner:priya",
    "tag:nothing",
]


def _repo(make_repo) -> Path:
    return make_repo("memory", {"MEMORY.md": MEMORY, "ops.md": OPS, "notes.md": NOTES})


def _finder(root: Path, query: str) -> set[tuple[str, int]]:
    session = Session(discover([root]))
    session.load()
    hits = session.search_session()(query, 50)  # the finder's own searcher
    return {(h.item.path, h.item.line) for h in hits if h.item.kind == "entry"}


def _cli(root: Path, query: str, *extra: str) -> set[tuple[str, int]]:
    res = subprocess.run(
        [sys.executable, "-m", "amr_tui", "search", query, str(root), "--json", *extra],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert res.returncode in (0, 1), res.stderr
    return {(h["path"], h["line"]) for h in json.loads(res.stdout or "[]")}


EXPECTED = {
    "tag:infra": {("MEMORY.md", 3), ("MEMORY.md", 4), ("ops.md", 6), ("ops.md", 7)},
    "tag:ops": {("ops.md", 6), ("ops.md", 7)},
    "tag:release": {("MEMORY.md", 5), ("notes.md", 4)},
    "tag:security": {("MEMORY.md", 4)},
    "deploy tag:infra": {("MEMORY.md", 3), ("ops.md", 7)},
    "tags:infra": {("MEMORY.md", 4)},
    "owner:priya": {("MEMORY.md", 3)},
    "tag:nothing": set(),
}


@pytest.mark.slow
async def test_finder_amr_search_and_mcp_answer_every_query_the_same(make_repo, tmp_path: Path) -> None:
    root = _repo(make_repo)
    finder = {q: _finder(root, q) for q in QUERIES}
    cold = {q: _cli(root, q, "--no-cache") for q in QUERIES}
    _cli(root, "warm the cache")
    cached = {q: _cli(root, q) for q in QUERIES}
    async with amr_mcp(root, home=tmp_path / "mcp-home") as client:
        mcp = {}
        for q in QUERIES:
            found = await client.ok("memory_search", {"query": q, "limit": 50})
            mcp[q] = {(r["path"], r["line"]) for r in found["results"]}
    assert finder == EXPECTED
    assert cold == EXPECTED
    assert cached == EXPECTED
    assert mcp == EXPECTED


def test_amr_search_reads_any_metadata_key_some_entry_has(make_repo) -> None:
    """The bug: amr search knew eight metadata keys, so tags:infra was two words and found nothing."""
    root = _repo(make_repo)
    assert _cli(root, "tags:infra", "--no-cache") == {("MEMORY.md", 4)}
    res = subprocess.run(
        [sys.executable, "-m", "amr_tui", "search", "tag:fff", str(root)], capture_output=True, text=True, cwd=ROOT
    )
    assert res.returncode == 2 and "tag:" in res.stderr


def test_tag_counts_are_what_tag_finds(make_repo) -> None:
    root = _repo(make_repo)
    session = Session(discover([root]))
    session.load()
    counts = {c.tag: (c.entries, c.files) for c in tag_counts(session)}
    assert counts == {"infra": (4, 2), "ops": (2, 1), "security": (1, 1), "release/train": (1, 1), "release": (1, 1)}
    with pytest.raises(QueryError):
        session.search("tag:123")


def test_rename_is_one_commit_in_every_file(make_repo) -> None:
    root = _repo(make_repo)
    session = Session(discover([root]))
    session.load()
    before = int(git(root, "rev-list", "--count", "HEAD"))
    saved, count = rename_tag_in_repo(session, "memory", "#infra", "platform")
    assert saved.committed and count == 3  # the text, the metadata, the front matter
    assert int(git(root, "rev-list", "--count", "HEAD")) == before + 1
    assert git(root, "log", "-1", "--format=%s").startswith("Rename tag #infra to #platform (3 in 2 files)")
    assert sorted(git(root, "show", "--name-only", "--format=", "HEAD").split()) == ["MEMORY.md", "ops.md"]
    memory = (root / "MEMORY.md").read_text()
    assert "#platform [owner: priya]" in memory and "[tags: platform, security; owner: sam]" in memory
    assert "`#infra`" in memory  # code is never touched
    assert "tags: [ops, platform]" in (root / "ops.md").read_text()
    assert "https://example.com/page#infra" in (root / "notes.md").read_text()
    with pytest.raises(EditRefused):
        rename_tag_in_repo(session, "memory", "infra", "platform")  # nothing holds it any more
    with pytest.raises(EditRefused):
        rename_tag_in_repo(session, "memory", "platform", "123")


@pytest.mark.slow
async def test_the_tags_view_opens_a_tags_entries_and_renames_it(make_repo) -> None:
    from textual.widgets import OptionList

    from amr_tui.screens.dialogs import PromptScreen
    from amr_tui.screens.finder import FinderScreen
    from amr_tui.screens.tags import TagsScreen
    from tests.driver import app_for, running, said

    root = _repo(make_repo)
    async with running(app_for([root], poll_interval=60)) as drive:
        await drive.until(lambda: not drive.screen.indexing, what="loaded")
        await drive.press("number_sign")
        await drive.until(lambda: isinstance(drive.app.screen, TagsScreen) and drive.app.screen.counts, what="tags")
        tags = drive.app.screen
        assert [(c.tag, c.entries) for c in tags.counts][:2] == [("infra", 4), ("ops", 2)]
        assert tags.query_one(OptionList).highlighted == 1  # the first tag, under its repo's line
        await drive.press("enter")
        await drive.until(lambda: isinstance(drive.app.screen, FinderScreen), what="the finder")
        finder = drive.app.screen
        assert finder.query_one("#finder-input").value == "tag:infra repo:memory"
        await drive.until(lambda: len(finder.hits) == 4, what="the tag's four entries")
        await drive.press("escape")
        await drive.press("number_sign")
        await drive.until(lambda: isinstance(drive.app.screen, TagsScreen) and drive.app.screen.counts, what="tags")
        await drive.press("r")
        await drive.until(lambda: isinstance(drive.app.screen, PromptScreen), what="the new name")
        inp = drive.app.screen.query_one("#prompt-input")
        inp.value = "platform"
        await drive.press("enter")
        await drive.until(lambda: said(drive.app, "Rename tag #infra to #platform"), what="the commit")
    assert git(root, "log", "-1", "--format=%s").startswith("Rename tag #infra to #platform (3 in 2 files)")
