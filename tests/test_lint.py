"""One test per lint code: each fails the day its code stops firing (or fires on clean input)."""

from __future__ import annotations

import pytest

from amr_tui.core.format.parser import parse
from amr_tui.core.format.rules import CODES
from amr_tui.core.lint.repo import RepoSnapshot, apply_edits, fix_edits, lint_repo

INDEX = "# Memory\n\n## Index\n"


def snap(files: dict[str, str | bytes], escaping: set[str] | None = None, drivers=None) -> RepoSnapshot:
    docs = {}
    for path, body in files.items():
        data = body.encode() if isinstance(body, str) else body
        if path.endswith(".md"):
            docs[path] = parse(data, path)
    return RepoSnapshot("r", set(files), docs, escaping or set(), {}, drivers or [])


def codes(files: dict[str, str | bytes], **kw) -> list[tuple[str, str, int]]:
    return [(f.diagnostic.code, f.path, f.diagnostic.line) for f in lint_repo(snap(files, **kw))]


def only(files, code, **kw):
    return [c for c in codes(files, **kw) if c[0] == code]


def test_clean_repo_has_no_findings():
    files = {
        "MEMORY.md": "# Memory: Joe\n\n- Joe leads the product team [source: https://example.com/s/1]\n\n## Index\n- [[team]]\n",
        "team.md": "# Team\n\n- Priya owns pricing [source: https://example.com/s/2; added: 2026-09-03]\n",
    }
    assert codes(files) == []


def test_amr001_missing_memory():
    assert only({"notes.md": "- a\n"}, "AMR001") == [("AMR001", "MEMORY.md", 0)]


def test_amr001_mentions_wrong_case():
    found = lint_repo(snap({"memory.md": "- a\n"}))
    assert any("memory.md" in f.diagnostic.message for f in found if f.diagnostic.code == "AMR001")


def test_amr002_no_index():
    assert only({"MEMORY.md": "# Memory\n- a fact\n"}, "AMR002")


def test_amr002_wrong_level_index():
    assert only({"MEMORY.md": "# Memory\n### Index\n"}, "AMR002") == [("AMR002", "MEMORY.md", 2)]


def test_amr003_over_line_budget():
    body = INDEX + "".join(f"- [[n{i}]]\n" for i in range(210))
    files = {"MEMORY.md": body, **{f"n{i}.md": "- x\n" for i in range(210)}}
    assert only(files, "AMR003")
    assert not only({"MEMORY.md": INDEX}, "AMR003")


def test_amr003_over_byte_budget():
    body = INDEX + "".join(f"- fact number {i} " + "x" * 200 + "\n" for i in range(150))
    assert only({"MEMORY.md": body}, "AMR003")


def test_amr004_multiline_entry():
    assert only({"MEMORY.md": INDEX + "- first line\n  second line\n"}, "AMR004") == [("AMR004", "MEMORY.md", 4)]


def test_amr005_empty_item():
    assert only({"MEMORY.md": INDEX + "- a [source: https://x.y/1;; added: 2026-01-01]\n"}, "AMR005")


def test_amr006_several_brackets():
    assert only({"MEMORY.md": INDEX + "- a [source: https://x.y/1] [source: https://x.y/2]\n"}, "AMR006")


def test_amr007_unescaped_semicolon():
    found = only({"MEMORY.md": INDEX + "- a [source: https://x.y/a;b=1; added: 2026-01-01]\n"}, "AMR007")
    assert found == [("AMR007", "MEMORY.md", 4)]


@pytest.mark.parametrize("value", ["2026-02-30", "2026-13-01", "yesterday", "2026-1-1"])
def test_amr008_bad_date(value):
    assert only({"MEMORY.md": INDEX + f"- a [added: {value}]\n"}, "AMR008")


def test_amr008_real_date_is_fine():
    assert not only({"MEMORY.md": INDEX + "- a [added: 2024-02-29]\n"}, "AMR008")


def test_amr009_source_not_link():
    assert only({"MEMORY.md": INDEX + "- a [source: s/301]\n"}, "AMR009")
    assert not only({"MEMORY.md": INDEX + "- a [source: https://e.com/s/301]\n"}, "AMR009")


def test_amr010_broken_link_with_case_suggestion():
    found = lint_repo(snap({"MEMORY.md": INDEX + "- [[Team]]\n", "team.md": "- x\n"}))
    broken = [f for f in found if f.diagnostic.code == "AMR010"]
    assert broken and "[[team]]" in broken[0].diagnostic.message
    assert broken[0].diagnostic.fix is not None


def test_amr010_missing_file():
    assert only({"MEMORY.md": INDEX + "- [[nowhere]]\n"}, "AMR010")


def test_amr011_md_suffix():
    assert only({"MEMORY.md": INDEX + "- [[team.md]]\n", "team.md": "- x\n"}, "AMR011")


@pytest.mark.parametrize("target", ["../outside", "/etc/passwd", ".git/config"])
def test_amr012_escaping_link(target):
    assert only({"MEMORY.md": INDEX + f"- [[{target}]]\n"}, "AMR012")


def test_amr012_symlink_outside():
    files = {"MEMORY.md": INDEX + "- [[secret]]\n", "secret.md": ""}
    assert only(files, "AMR012", escaping={"secret.md"})


def test_amr013_orphan_and_non_notes_ignored():
    files = {"MEMORY.md": INDEX, "lost.md": "- x\n", "README.md": "hi\n", ".gitattributes": "*.md merge=amr\n"}
    assert only(files, "AMR013") == [("AMR013", "lost.md", 0)]


def test_amr014_exact_duplicate():
    assert only({"MEMORY.md": INDEX + "- Uses bun, not npm\n- uses  Bun, not npm!\n"}, "AMR014") == [
        ("AMR014", "MEMORY.md", 5)
    ]


def test_amr015_near_duplicate():
    files = {
        "MEMORY.md": INDEX + "- [[a]]\n",
        "a.md": "- The staging database lives on host db-staging-2\n- The staging database lives on the host db-staging-2\n",
    }
    assert only(files, "AMR015")


def test_amr015_different_facts_are_not_near():
    files = {
        "MEMORY.md": INDEX
        + "- The staging database lives on host db-staging-2\n- The production cache lives in region eu-west-1\n"
    }
    assert not only(files, "AMR015")


@pytest.mark.parametrize(
    "secret",
    [
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_R8q2LmZ4xT7kWc1pN5vYb9sJd3Hf6Gt0Ea2U",
        "-----BEGIN RSA PRIVATE KEY-----",
        "password: hunter2hunter2",
        "https://bob:s3cretpass@example.com/",
    ],
)
def test_amr016_credentials(secret):
    assert only({"MEMORY.md": INDEX + f"- remember {secret}\n"}, "AMR016")


def test_amr016_plain_hash_is_not_a_secret():
    assert not only({"MEMORY.md": INDEX + "- deploy commit 9f2c1e7d8a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d\n"}, "AMR016")


@pytest.mark.parametrize("ch", ["\x1b]52;c;aGk=\x07", "\x9b2J", "\u202e", "\x00"])
def test_amr017_controls(ch):
    assert only({"MEMORY.md": INDEX + f"- a {ch} b\n"}, "AMR017")


@pytest.mark.parametrize(
    "text",
    [
        "prod key AKIA\u200bQZ4CX9E75DCG3HW2",  # a key id split by a zero-width space
        "pass\u2060word is set",  # a word joiner
        "pay\u00adments team",  # a soft hyphen
        "ab\ufe0fcd",  # a variation selector between letters
        "note \U000e0041\U000e0042 hidden",  # tag characters spell hidden ASCII, anywhere
        "BOM in\ufeffside",
    ],
)
def test_amr035_invisible_characters_inside_a_word(text):
    found = only({"MEMORY.md": INDEX + f"- {text}\n"}, "AMR035")
    assert found == [("AMR035", "MEMORY.md", 4)]


@pytest.mark.parametrize(
    "text",
    [
        "the team \U0001f469\u200d\U0001f4bb ships on Fridays",  # an emoji's joiner
        "love it \u2764\ufe0f",  # an emoji's variation selector
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 in Persian",  # a non-joiner that spells the word
        "\u0915\u094d\u200d\u0937 in Devanagari",
        "\u845b\U000e0100 city",  # an ideographic variation
        "flag \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
        "a\u200b b",  # not inside a word
    ],
)
def test_amr035_not_for_the_invisible_characters_writing_needs(text):
    assert only({"MEMORY.md": INDEX + f"- {text}\n"}, "AMR035") == []


def test_amr018_not_utf8():
    assert only({"MEMORY.md": INDEX.encode() + b"- caf\xe9\n"}, "AMR018")


def test_amr019_empty_entry():
    assert only({"MEMORY.md": INDEX + "- \n"}, "AMR019")
    assert only({"MEMORY.md": INDEX + "- [added: 2026-01-01]\n"}, "AMR019")


def test_amr020_trailing_non_metadata():
    assert only({"MEMORY.md": INDEX + "- a thing [draft]\n"}, "AMR020")


def test_amr021_key_twice():
    assert only({"MEMORY.md": INDEX + "- a [added: 2026-01-01; added: 2026-01-02]\n"}, "AMR021")
    assert not only({"MEMORY.md": INDEX + "- a [source: https://a.b/1; source: https://a.b/2]\n"}, "AMR021")


def test_amr022_key_case():
    assert only({"MEMORY.md": INDEX + "- a [Source: https://a.b/1]\n"}, "AMR022")


def test_amr023_nested():
    """A nested bullet is its own entry (docs/format.md 5.2): ``amr parse`` says so; lint does not,
    in any format: a nested list is ordinary Markdown, nothing to act on (core.formats)."""
    files = {"MEMORY.md": INDEX + "- parent\n  - child\n"}
    assert [(d.code, d.line) for d in parse(files["MEMORY.md"].encode()).diagnostics] == [("AMR023", 5)]
    assert only(files, "AMR023") == []


def test_amr036_placeholder():
    """An entry that says nothing but "test" (an agent trying its tool) is reported; a fact that
    holds the word is not."""
    files = {
        "MEMORY.md": INDEX + "- [[notes]]\n",
        "notes.md": "- test\n- asdf\n- hallo test\n- 测试\n- prova [added: 2026-01-01]\n"
        "- The test suite runs in 4 minutes\n- Foo Fighters tickets for Saturday\n",
    }
    assert only(files, "AMR036") == [("AMR036", "notes.md", n) for n in (1, 2, 3, 4, 5)]


def test_amr024_star_bullet():
    assert only({"MEMORY.md": INDEX + "* a\n"}, "AMR024")


def test_amr025_empty_value():
    assert only({"MEMORY.md": INDEX + "- a [source: ; added: 2026-01-01]\n"}, "AMR025")


def test_amr026_brackets_in_value():
    assert only({"MEMORY.md": INDEX + "- a [note: see [x] here]\n"}, "AMR026")


def test_amr027_undefined_merge_driver():
    assert only({"MEMORY.md": INDEX}, "AMR027", drivers=[(".gitattributes", 1, "amr")])


def test_amr028_front_matter():
    assert only({"MEMORY.md": "---\ntype: user\n---\n" + INDEX}, "AMR028")


def test_amr029_empty_link():
    assert only({"MEMORY.md": INDEX + "- see [[]]\n"}, "AMR029")


def test_amr032_heading_link_to_a_missing_heading():
    """Obsidian heading links: a heading that is there is no finding (tests/test_heading_links.py)."""
    files = {"MEMORY.md": INDEX + "- [[#Index|top]] [[#Nowhere]]\n- [[t#Gone]] [[t#Here]]\n", "t.md": "## Here\n"}
    assert only(files, "AMR032") == [("AMR032", "MEMORY.md", 4), ("AMR032", "MEMORY.md", 5)]


def test_amr034_a_file_too_large_to_read(make_repo):
    """The walk lists it with its size; lint says it checked nothing in it (not "All clean")."""
    from amr_tui.core.lint.repo import RepoSnapshot, lint_repo
    from amr_tui.core.paths import MAX_PARSE_BYTES

    memory = parse((INDEX + "- [[huge]]\n").encode(), "MEMORY.md")
    snap = RepoSnapshot("m", {"MEMORY.md", "huge.md", "data.bin"}, {"MEMORY.md": memory})
    snap.sizes = {"MEMORY.md": 40, "huge.md": MAX_PARSE_BYTES + 1, "data.bin": MAX_PARSE_BYTES * 2}
    found = [(f.diagnostic.code, f.path) for f in lint_repo(snap) if f.diagnostic.code == "AMR034"]
    assert found == [("AMR034", "huge.md")]  # data.bin is no memory file: not read, and not missed


def test_every_code_is_tested_here():
    """A new code without a test here fails this test."""
    import pathlib
    import re

    source = pathlib.Path(__file__).read_text()
    tested = set(re.findall(r"test_(amr\d{3})", source))
    planned = {"amr030"}  # resurrection: needs history (the history issue)
    assert {c.lower() for c in CODES} - planned <= tested


def test_fixes_converge_and_clean_up():
    files = {
        "MEMORY.md": "# Memory\n\n## Index\n- [[Team]]\n* star [Source: https://a.b/1] [added: 2026-01-01]\n",
        "team.md": "- x [[other.md]]\n",
        "other.md": "- y\n",
        "lost.md": "- z\n",
    }
    for _ in range(10):
        s = snap(files)
        edits = fix_edits(lint_repo(s))
        if not edits:
            break
        for path, line_edits in edits.items():
            files[path] = apply_edits(s.documents[path], line_edits).decode()
    remaining = {(f.diagnostic.code) for f in lint_repo(snap(files))}
    assert remaining == set(), (remaining, files)
    assert "- [[lost]]" in files["MEMORY.md"]
    assert "- star [source: https://a.b/1; added: 2026-01-01]" in files["MEMORY.md"]


def test_fix_keeps_crlf():
    data = "# Memory\r\n\r\n## Index\r\n* a\r\n"
    s = snap({"MEMORY.md": data})
    new = apply_edits(s.documents["MEMORY.md"], fix_edits(lint_repo(s))["MEMORY.md"])
    assert new == b"# Memory\r\n\r\n## Index\r\n- a\r\n"


def test_amr026_unclosed_metadata_bracket():
    found = only({"MEMORY.md": INDEX + "- a fact [source: https://a.b/1; added: 202\n"}, "AMR026")
    assert found == [("AMR026", "MEMORY.md", 4)]
    assert not only({"MEMORY.md": INDEX + "- see [the docs](https://a.b) and [[x]]\n", "x.md": ""}, "AMR026")


# AMR031: a metadata group that is not at the end of the entry is text; say so, and move it.
@pytest.mark.parametrize(
    ("line", "fixed"),
    [
        (
            "- Use bun [source: https://x.example/1; added: 2026-09-01] DRAFT",
            "- Use bun DRAFT [source: https://x.example/1; added: 2026-09-01]",
        ),
        (
            "- Prose after [source: https://example.com/s/1] see [[related]]",
            "- Prose after see [[related]] [source: https://example.com/s/1]",
        ),
        ("- [added: 2026-01-01] at the start", "- at the start [added: 2026-01-01]"),
        (
            "- Link after metadata [source: https://example.com/s/1] [[related]]",
            "- Link after metadata [[related]] [source: https://example.com/s/1]",
        ),
        ("- a [note: x; by: joe] then words", "- a then words [note: x; by: joe]"),
    ],
)
def test_amr031_metadata_not_at_the_end(line, fixed):
    files = {"MEMORY.md": INDEX + line + "\n", "related.md": "- r\n"}
    found = [f for f in lint_repo(snap(files)) if f.diagnostic.code == "AMR031"]
    assert [(f.path, f.diagnostic.line, f.diagnostic.severity.value) for f in found] == [("MEMORY.md", 4, "warning")]
    assert found[0].diagnostic.fix.edits[0].new_text == fixed
    after = parse((INDEX + fixed + "\n").encode())
    assert after.entries[0].metadata and "AMR031" not in {d.code for d in after.diagnostics}


def test_amr031_fix_joins_metadata_already_read():
    files = {"MEMORY.md": INDEX + "- a [source: https://x.test/1] [draft] [added: 2026-01-01]\n"}
    for _ in range(5):
        s = snap(files)
        edits = fix_edits(lint_repo(s))
        if not edits:
            break
        files["MEMORY.md"] = apply_edits(s.documents["MEMORY.md"], edits["MEMORY.md"]).decode()
    assert files["MEMORY.md"] == INDEX + "- a [draft] [source: https://x.test/1; added: 2026-01-01]\n"
    assert not lint_repo(snap(files))


@pytest.mark.parametrize(
    "line",
    [
        "- See [the docs](https://example.com/docs) for more",
        "- See [[related]] and [[other|alias]] for more",
        "- [ ] a task box is text",
        "- [x] a ticked task box is text",
        "- Work in progress [draft] still",
        "- Bare URL [https://example.com/a] in text",
        "- Space inside a key [my key: v] in text",
        "- Prose after a key-like bracket [note: here] and more words",
        "- Code span `[source: https://x.test/1]` is text",
        "- Reference link [source: https://x.test/1][ref] in text",
        "- Image ![source: https://x.test/1] in text",
        "- A fact [source: https://example.com/s/1]",
        "- A fact [source: https://example.com/s/1] [added: 2026-01-01]",
    ],
)
def test_amr031_reports_only_metadata_out_of_place(line):
    """Links, task boxes, tags and brackets that are not metadata-shaped are text, not AMR031."""
    memory = INDEX + line + "\n- Use bun [source: https://x.example/1; added: 2026-09-01] DRAFT\n"
    files = {"MEMORY.md": memory, "related.md": "- r\n", "other.md": "- o\n"}
    assert only(files, "AMR031") == [("AMR031", "MEMORY.md", 5)]


# Severity by one rule (docs/format.md section 6): an error only where two careful readers would
# read different entry text or metadata; AMR016 is the one stated exception.
@pytest.mark.parametrize(
    ("code", "files", "severity"),
    [
        ("AMR004", {"MEMORY.md": INDEX + "- a fact\nprose right under it, a lazy continuation\n"}, "warning"),
        ("AMR004", {"MEMORY.md": INDEX + "- a fact\n  indented continuation\n"}, "warning"),
        ("AMR001", {"notes.md": "- a\n"}, "warning"),
        ("AMR008", {"MEMORY.md": INDEX + "- a [added: 2026-02-30]\n"}, "warning"),
        ("AMR010", {"MEMORY.md": INDEX + "- see [[nowhere]]\n"}, "warning"),
        ("AMR012", {"MEMORY.md": INDEX + "- see [[../outside]]\n"}, "warning"),
        ("AMR029", {"MEMORY.md": INDEX + "- see [[]]\n"}, "warning"),
        ("AMR017", {"MEMORY.md": INDEX + "- a \u202e b\n"}, "error"),
        ("AMR018", {"MEMORY.md": INDEX.encode() + b"- caf\xe9\n"}, "error"),
        ("AMR026", {"MEMORY.md": INDEX + "- a [source: https://x.test/a[1]]\n"}, "error"),
        ("AMR016", {"MEMORY.md": INDEX + "- remember AKIAIOSFODNN7EXAMPLE\n"}, "error"),
    ],
)
def test_severity_follows_the_rule(code, files, severity):
    found = {f.diagnostic.severity.value for f in lint_repo(snap(files)) if f.diagnostic.code == code}
    assert found == {severity}


def test_amr002_no_fix_that_cannot_take():
    """Inside a code block left open, an added '## Index' would be code: no fix is offered."""
    found = lint_repo(snap({"MEMORY.md": "# Memory\n\n```\ncode\n"}))
    amr002 = [f for f in found if f.diagnostic.code == "AMR002"]
    assert len(amr002) == 1 and amr002[0].diagnostic.fix is None
    assert fix_edits(lint_repo(snap({"MEMORY.md": "# Memory\n- a\n"})))["MEMORY.md"]  # a plain file still gets one


def test_amr012_a_symlink_out_of_the_root_is_reported_not_an_orphan():
    files = {"MEMORY.md": INDEX, "evil.md": "", "lost.md": "- x\n"}
    found = [
        (f.diagnostic.code, f.path, f.diagnostic.fix is not None) for f in lint_repo(snap(files, escaping={"evil.md"}))
    ]
    assert ("AMR012", "evil.md", False) in found and ("AMR013", "lost.md", True) in found
    assert not [c for c in found if c[1] == "evil.md" and c[0] != "AMR012"]


def test_amr013_fix_only_for_tracked_files_and_writable_names():
    from amr_tui.core.lint.repo import without_untracked_links

    files = {"MEMORY.md": INDEX, "tracked.md": "- t\n", "untracked.md": "- u\n", "odd]].md": "- o\n"}
    found = without_untracked_links(lint_repo(snap(files)), {"MEMORY.md", "tracked.md", "odd]].md"})
    fixes = {f.path: f.diagnostic.fix for f in found if f.diagnostic.code == "AMR013"}
    assert set(fixes) == {"tracked.md", "untracked.md", "odd]].md"}
    assert fixes["tracked.md"] is not None and fixes["untracked.md"] is None and fixes["odd]].md"] is None
    assert "git does not track it" in next(f.diagnostic.message for f in found if f.path == "untracked.md")


def test_amr013_no_fix_when_the_link_would_name_another_file():
    files = {"MEMORY.md": INDEX + "- [[a]]\n", "a.md": "- a\n", "a": "data\n", "b.md": "- b\n"}
    found = [f for f in lint_repo(snap(files)) if f.diagnostic.code == "AMR013"]
    # "a" is no Markdown note: no AMR013 (issue 25); b.md is, with a fix that names it
    assert [(f.path, f.diagnostic.fix is not None) for f in found] == [("b.md", True)]


def test_amr031_moves_every_misplaced_group_of_a_line_in_order():
    files = {"MEMORY.md": INDEX + "- x [source: https://a.b/1] [added: 2026-01-01] y\n"}
    found = [f.diagnostic for f in lint_repo(snap(files)) if f.diagnostic.code == "AMR031"]
    assert [d.column for d in found] == [5, 29]
    assert {d.fix.edits[0].new_text for d in found} == {"- x y [source: https://a.b/1] [added: 2026-01-01]"}


def test_amr033_possible_contradiction():
    """Close texts that differ in a value (tests/test_contradictions.py has the rule's cases)."""
    files = {
        "MEMORY.md": INDEX + "- [[deploy]]\n- [[web]]\n",
        "deploy.md": "# Deploy\n\n- Build runs nightly\n- hero image format is JPEG\n",
        "web.md": "# Web\n\n- hero image format is AVIF\n- hero image format is AVIF\n",
    }
    found = lint_repo(snap(files))
    odd = [(f.path, f.diagnostic.line, f.diagnostic.message) for f in found if f.diagnostic.code == "AMR033"]
    assert odd == [("web.md", 3, "possible contradiction: contradicts deploy.md:4 (AVIF vs JPEG)?")]
    assert {f.diagnostic.code for f in found if (f.path, f.diagnostic.line) == ("web.md", 4)} == {"AMR014"}
