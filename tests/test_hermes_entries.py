"""Issue 25: Hermes writes its memory as paragraphs with a line holding only ``\u00a7`` between
them. Each paragraph is an entry (shown, edited, removed, moved, written by agents) and every
write keeps the file in Hermes' shape: one ``\u00a7`` between each two entries, no bullets."""

from __future__ import annotations

from pathlib import Path

import pytest

from amr_tui.core.format.edit import entry_lines, new_entry_lines, removal_span
from amr_tui.core.format.parser import parse
from amr_tui.core.model import LineKind
from amr_tui.services.agent.memory import AgentMemory, Writer
from amr_tui.services.agent.model import entry_hash
from amr_tui.services.session import editing
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import discover
from tests.conftest import git
from tests.driver import TMUX_SIZE, app_for, running

MEMORY = (
    "The user deploys the blog with `hugo`; the build takes about 40 seconds.\n"
    "\u00a7\n"
    "The staging site is at staging.example.org\n"
    "and is rebuilt on every push to main.\n"
    "\u00a7\n"
    "Comments are moderated by hand.\n"
)


def test_each_paragraph_is_an_entry_and_its_later_lines_continue_it() -> None:
    doc = parse(MEMORY.encode(), "MEMORY.md")
    assert doc.paragraphs
    assert [(e.line, e.marker, e.text) for e in doc.entries] == [
        (1, "", "The user deploys the blog with `hugo`; the build takes about 40 seconds."),
        (3, "", "The staging site is at staging.example.org"),
        (6, "", "Comments are moderated by hand."),
    ]
    assert doc.entries[1].multiline and doc.lines[3].kind is LineKind.CONTINUATION
    assert [ln.kind for ln in doc.lines if ln.text == "\u00a7"] == [LineKind.RULE, LineKind.RULE]
    assert doc.to_bytes() == MEMORY.encode()


@pytest.mark.parametrize(
    "text",
    [
        "# Notes\n\n- a bullet\n- another\n",  # no separator: plain Markdown
        "- a bullet\n\n```\n\u00a7\n```\n",  # a \u00a7 in code is no separator
        "A note about \u00a7 7 of the contract.\n",  # a \u00a7 inside a line is text
    ],
)
def test_a_file_without_separator_lines_is_read_as_markdown(text: str) -> None:
    doc = parse(text.encode(), "MEMORY.md")
    assert not doc.paragraphs
    assert all(e.marker for e in doc.entries)


def test_a_stretch_holding_a_list_is_left_as_markdown_reads_it() -> None:
    text = "Plain fact one.\n\u00a7\n- a bullet\n- another bullet\n\n\u00a7\nPlain fact two.\n"
    doc = parse(text.encode(), "M.md")
    assert [(e.marker, e.text) for e in doc.entries] == [
        ("", "Plain fact one."),
        ("-", "a bullet"),
        ("-", "another bullet"),
        ("", "Plain fact two."),
    ]


def test_removing_a_paragraph_takes_one_separator_with_it() -> None:
    doc = parse(MEMORY.encode(), "MEMORY.md")
    first, middle, last = doc.entries
    assert removal_span(doc, first) == (1, 2)  # the separator after it
    assert removal_span(doc, middle) == (3, 5)
    assert removal_span(doc, last) == (5, 6)  # the last: the separator before it


def test_a_new_paragraph_is_parted_from_its_neighbours() -> None:
    doc = parse(MEMORY.encode(), "MEMORY.md")
    assert new_entry_lines(doc, 6, ["New."]) == ["\u00a7", "New."]
    assert new_entry_lines(doc, 0, ["New."]) == ["New.", "\u00a7"]
    assert new_entry_lines(doc, 2, ["New."]) == ["New.", "\u00a7"]  # right after a separator
    plain = parse(b"- a\n", "notes.md")
    assert new_entry_lines(plain, 1, ["- b"]) == ["- b"]


def test_an_entry_moved_between_the_two_shapes_reads_as_its_new_file_does() -> None:
    hermes = parse(MEMORY.encode(), "MEMORY.md")
    notes = parse(b"# Notes\n\n  - an indented bullet [source: x]\n", "notes.md")
    assert entry_lines(hermes, hermes.entries[1], notes) == [
        "- The staging site is at staging.example.org",
        "and is rebuilt on every push to main.",
    ]
    assert entry_lines(notes, notes.entries[0], hermes) == ["an indented bullet [source: x]"]
    assert entry_lines(notes, notes.entries[0], notes) == ["- an indented bullet [source: x]"]


@pytest.fixture
def hermes(tmp_path: Path) -> Path:
    root = tmp_path / "hermes"
    root.mkdir()
    (root / "MEMORY.md").write_text(MEMORY)
    (root / "USER.md").write_text("Alex writes in British English.\n\u00a7\nAlex works Tuesday to Saturday.\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "MEMORY.md", "USER.md")
    git(root, "commit", "-qm", "memory")
    return root


def test_the_session_edits_removes_adds_and_moves_paragraphs_in_their_shape(hermes: Path) -> None:
    session = Session(discover([hermes]))
    session.load()
    of = session.open("hermes", "MEMORY.md")
    editing.delete_entry(session, of, 3)
    assert (hermes / "MEMORY.md").read_text() == (
        "The user deploys the blog with `hugo`; the build takes about 40 seconds.\n"
        "\u00a7\n"
        "Comments are moderated by hand.\n"
    )
    of = session.open("hermes", "MEMORY.md")
    editing.insert_entry(session, of, 3, "The blog's theme is PaperMod.")
    of = session.open("hermes", "MEMORY.md")
    editing.replace_entry_line(session, of, 1, "The user deploys the blog with `hugo`.")
    assert (hermes / "MEMORY.md").read_text() == (
        "The user deploys the blog with `hugo`.\n"
        "\u00a7\n"
        "Comments are moderated by hand.\n"
        "\u00a7\n"
        "The blog's theme is PaperMod.\n"
    )
    of = session.open("hermes", "MEMORY.md")
    editing.move_entry(session, of, 3, "hermes", "USER.md")
    assert (hermes / "USER.md").read_text() == (
        "Alex writes in British English.\n"
        "\u00a7\n"
        "Alex works Tuesday to Saturday.\n"
        "\u00a7\n"
        "Comments are moderated by hand.\n"
    )
    assert (hermes / "MEMORY.md").read_text() == (
        "The user deploys the blog with `hugo`.\n\u00a7\nThe blog's theme is PaperMod.\n"
    )
    assert git(hermes, "status", "--porcelain") == ""


def test_an_agent_writes_and_forgets_a_paragraph_through_mcp(hermes: Path) -> None:
    memory = AgentMemory(discover([hermes]))
    try:
        who = Writer(client="test-agent")
        wrote = memory.remember("Deploys need the VPN.", who, repo="hermes", path="MEMORY.md", source="chat")
        assert wrote.status == "written", wrote.message
        text = (hermes / "MEMORY.md").read_text()
        assert "Comments are moderated by hand.\n\u00a7\nDeploys need the VPN. [source: chat; added: 20" in text
        or_not = parse(text.encode(), "MEMORY.md")
        assert [e.text for e in or_not.entries][-1] == "Deploys need the VPN."
        first = or_not.entries[0]
        raw = or_not.lines[0].text
        gone = memory.forget("hermes", "MEMORY.md", first.line, entry_hash(raw), "outdated", who)
        assert gone.status == "written", gone.message
        assert (hermes / "MEMORY.md").read_text().startswith("The staging site is at staging.example.org\n")
    finally:
        memory.close()


@pytest.mark.slow
async def test_the_app_shows_paragraphs_as_entries_and_d_keeps_the_shape(hermes: Path) -> None:
    app = app_for([hermes], poll_interval=60)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        assert drive.current.path == "MEMORY.md"
        await drive.shown("\u2022 The staging site is at staging.example.org")
        await drive.to_line(3)
        await drive.press("d")
        question = await drive.asked("Delete entry?")
        assert question.body.startswith("The staging site is at staging.example.org")
        await drive.press("y")
        await drive.until(lambda: "staging" not in (hermes / "MEMORY.md").read_text(), what="the paragraph removed")
        assert (hermes / "MEMORY.md").read_text().count("\u00a7") == 1
        await drive.to_line(1)
        await drive.press("o")
        inp = app.screen.query_one("#editor-input")
        await drive.until(lambda: inp.has_focus, what="editor focus")
        await pilot.press(*"Uses Netlify.")
        await pilot.press("enter")
        await drive.until(lambda: "Netlify" in (hermes / "MEMORY.md").read_text(), what="the new paragraph")
        assert (hermes / "MEMORY.md").read_text() == (
            "The user deploys the blog with `hugo`; the build takes about 40 seconds.\n"
            "\u00a7\n"
            "Uses Netlify.\n"
            "\u00a7\n"
            "Comments are moderated by hand.\n"
        )
