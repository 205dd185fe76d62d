"""Heading links as Obsidian vaults write them: ``[[#Heading|alias]]`` (same file) and
``[[file#Heading]]`` name a heading. A valid one is no finding; a heading that is not there is
AMR032 (a warning); following one in the app puts the cursor on the heading's line."""

from __future__ import annotations

import pytest

from amr_tui.core.format.parser import parse
from amr_tui.core.lint.facts import facts_of, pack, unpack
from amr_tui.core.lint.repo import RepoSnapshot, lint_repo
from amr_tui.widgets.entry_view import EntryView
from tests.driver import app_for, running

VAULT_MEMORY = (
    "# Memory\n\n"
    "- Deploys need two approvals\n\n"
    "## Some Heading\n\n"
    "- a fact under it\n\n"
    "## Index\n\n"
    "- [[#Index|top]]\n"
    "- [[#Some Heading]]\n"
    "- [[#some heading|case differs]]\n"
    "- [[team#People]]\n"
    "- [[team#People|the people]]\n"
    "- [[team]]\n"
)
TEAM = "# Team\n\n## People\n\n- Priya owns pricing\n"


def snap(files: dict[str, str], facts_only: set[str] = frozenset()) -> RepoSnapshot:  # type: ignore[assignment]
    docs = {p: parse(b.encode(), p) for p, b in files.items()}
    facts = {p: unpack(pack(facts_of(docs.pop(p)))) for p in facts_only}
    return RepoSnapshot("r", set(files), docs, facts=facts)


def found(files: dict[str, str], facts_only: set[str] = frozenset()) -> list[tuple[str, str, int, str]]:  # type: ignore[assignment]
    return [
        (f.diagnostic.code, f.path, f.diagnostic.line, f.diagnostic.severity.value)
        for f in lint_repo(snap(files, facts_only))
    ]


def test_valid_heading_links_give_no_finding() -> None:
    assert found({"MEMORY.md": VAULT_MEMORY, "team.md": TEAM}) == []


def test_valid_heading_links_from_cached_facts_give_no_finding() -> None:
    """A linked file known only from the lint cache's facts still has its headings."""
    assert found({"MEMORY.md": VAULT_MEMORY, "team.md": TEAM}, {"team.md"}) == []


def test_missing_heading_is_a_warning_not_an_error() -> None:
    memory = "# Memory\n\n## Index\n\n- [[#Nowhere|x]]\n- [[team#Gone]]\n- [[team]]\n"
    assert found({"MEMORY.md": memory, "team.md": TEAM}) == [
        ("AMR032", "MEMORY.md", 5, "warning"),
        ("AMR032", "MEMORY.md", 6, "warning"),
    ]
    # the same from cached facts of team.md
    assert [c for c in found({"MEMORY.md": memory, "team.md": TEAM}, {"team.md"}) if c[0] == "AMR032"] == [
        ("AMR032", "MEMORY.md", 5, "warning"),
        ("AMR032", "MEMORY.md", 6, "warning"),
    ]


def test_empty_links_are_still_amr029() -> None:
    memory = "# Memory\n\n## Index\n\n- [[]]\n- [[|alias]]\n- [[#]]\n"
    assert [c[:3] for c in found({"MEMORY.md": memory})] == [
        ("AMR029", "MEMORY.md", 5),
        ("AMR029", "MEMORY.md", 6),
        ("AMR029", "MEMORY.md", 7),
    ]


@pytest.mark.slow
async def test_following_heading_links_goes_to_the_heading(make_repo) -> None:
    root = make_repo("vault", {"MEMORY.md": VAULT_MEMORY, "team.md": TEAM})
    app = app_for([root], poll_interval=60)
    async with running(app) as drive:
        assert drive.current.path == "MEMORY.md"
        lines = VAULT_MEMORY.splitlines()
        some = lines.index("## Some Heading") + 1
        index = lines.index("## Index") + 1
        # [[#Some Heading]]: the cursor goes to that heading, in the same file
        await drive.to_line(lines.index("- [[#Some Heading]]") + 1)
        await drive.press("enter")
        await drive.until(lambda: drive.view.cursor_line == some, what="the cursor on ## Some Heading")
        assert drive.current.path == "MEMORY.md"
        # [[#Index|top]]
        await drive.to_line(lines.index("- [[#Index|top]]") + 1)
        await drive.press("enter")
        await drive.until(lambda: drive.view.cursor_line == index, what="the cursor on ## Index")
        # [[team#People|the people]]: team.md opens at its ## People line
        await drive.to_line(lines.index("- [[team#People|the people]]") + 1)
        await drive.press("enter")
        await drive.until(
            lambda: drive.current.path == "team.md" and drive.app.screen.query_one(EntryView).cursor_line == 3,
            what="team.md open on ## People",
        )
