"""``[[`` completion: what is being typed, how each format writes the link, the ranking, and the
list in the entry editor, the whole-file editor and the capture prompt (typed slowly and in a
burst, with the same end)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.widgets import Input, TextArea

from amr_tui.core.format.complete import (
    Completion,
    apply_completion,
    completion_for,
    link_query,
    link_targets,
)
from amr_tui.core.format.links import LinkState, NameIndex, find_links, resolve
from amr_tui.core.search.targets import TargetIndex, rank_headings
from amr_tui.screens.dialogs import TextPromptScreen
from amr_tui.screens.file_editor import FileEditScreen
from amr_tui.widgets.link_complete import LinkCompletion
from tests.driver import AppDriver, burst, git, said
from tests.examples import examples

DEMO_FILES = [
    "MEMORY.md",
    "backend/migrations.md",
    "backend/rate-limits.md",
    "backend/redis.md",
    "billing/count_paying_customers.sql",
    "dev-port.md",
    "landing-page.md",
    "projects/payments.md",
    "projects/website.md",
    "styling.md",
    "team_structure.md",
    "tooling/bun.md",
]


# ------------------------------------------------------------------------------ the text half


@pytest.mark.parametrize(
    ("text", "cursor", "typed", "heading", "closed"),
    [
        ("See [[back", 10, "back", None, False),
        ("See [[back]]", 10, "back", None, True),
        ("[[a]] and [[pay#Dead", 20, "pay", "Dead", False),
        ("[[#Ind", 6, "", "Ind", False),
        ("[[", 2, "", None, False),
    ],
)
def test_the_link_being_typed(text: str, cursor: int, typed: str, heading: str | None, closed: bool) -> None:
    q = link_query(text, cursor)
    assert q is not None and (q.target, q.heading, q.closed) == (typed, heading, closed)


@pytest.mark.parametrize(
    ("text", "cursor"),
    [("See [[done]] after", 18), ("no link here", 5), ("code `[[x", 9), ("[[a|alias", 9), ("[[a]", 4)],
)
def test_no_link_being_typed(text: str, cursor: int) -> None:
    assert link_query(text, cursor) is None


def test_taking_a_completion_closes_the_link_once() -> None:
    done = Completion("backend/redis", "[[backend/redis]]")
    assert apply_completion("See [[bac", link_query("See [[bac", 9), done) == ("See [[backend/redis]]", 21)
    text = "See [[bac]] and more"
    assert apply_completion(text, link_query(text, 9), done) == ("See [[backend/redis]] and more", 21)


def test_each_format_writes_the_link_its_way() -> None:
    def texts(style: str, files: list[str], titles: dict[str, str] | None = None) -> dict[str, str]:
        return {t.path: t.text for t in link_targets(files, style, titles)}

    assert texts("amr", ["a/b.md", "c.sql"]) == {"a/b.md": "a/b", "c.sql": "c.sql"}
    assert texts("letta", ["system/persona.md"]) == {"system/persona.md": "system/persona.md"}
    assert texts("obsidian", ["Home.md", "Projects/Atlas.md", "Archive/Atlas.md", "att/diagram.png"]) == {
        "Home.md": "Home",
        "Archive/Atlas.md": "Atlas",  # the shortest path wins the bare name, as Obsidian resolves it
        "Projects/Atlas.md": "Projects/Atlas",
        "att/diagram.png": "diagram.png",
    }
    titled = {"coffee-brewing-methods.md": "Coffee Brewing Methods", "odd.md": "Something Else Entirely"}
    assert texts("basic-memory", ["coffee-brewing-methods.md", "odd.md"], titled) == {
        "coffee-brewing-methods.md": "Coffee Brewing Methods",
        "odd.md": "odd",  # a title that would not find the note is not offered
    }
    (target,) = link_targets(["memory/user_role.md"], "claude-code", {"memory/user_role.md": "User role"})
    assert completion_for(target, "claude-code", "memory/MEMORY.md").insert == "[User role](user_role.md)"
    assert completion_for(target, "claude-code", "other/x.md").insert == "[User role](../memory/user_role.md)"


_SEGMENT = st.sampled_from(["a", "b", "Notes", "x y", "n1", "n10"])


@settings(max_examples=examples(150), deadline=None)
@given(
    files=st.lists(
        st.lists(_SEGMENT, min_size=1, max_size=3).map(lambda p: "/".join(p) + st_suffix(p)), min_size=1, max_size=12
    ),
    style=st.sampled_from(["amr", "obsidian", "letta", "folder"]),
)
def test_every_link_completion_writes_finds_its_file(files: list[str], style: str) -> None:
    """Whatever the files, the link a completion writes resolves, as the format resolves links,
    to the file it was offered for."""
    paths = set(files)
    names = NameIndex(paths) if style in ("obsidian", "basic-memory") else None
    for target in link_targets(paths, style):
        written = completion_for(target, style, "MEMORY.md").insert
        (link,) = find_links(written, 1)
        res = resolve(link.target, paths, None, names)
        assert res.state is LinkState.OK and res.path == target.path, (written, res)


def st_suffix(parts: list[str]) -> str:
    return ".md" if len(parts[-1]) % 2 else ".txt"


def test_targets_rank_as_the_finder_ranks_file_names() -> None:
    index = TargetIndex("r", link_targets(DEMO_FILES, "amr"))
    assert [t.text for t in index.search("back")][:3] == ["backend/redis", "backend/migrations", "backend/rate-limits"]
    assert [t.text for t in index.search("rate li")] == ["backend/rate-limits"]
    assert index.search("redsi")[0].text == "backend/redis"  # a typo still finds it
    assert index.search("nothing-like-it") == []
    assert [t.text for t in index.search("")][:3] == ["backend/migrations", "backend/rate-limits", "backend/redis"]
    assert rank_headings(["Index", "Deadlines", "Open questions"], "dead") == ["Deadlines"]
    paths = TargetIndex("r", link_targets(["infra.md", "infra/zeta.md", "infra/api.md", "infra/alpha.md"], "amr"))
    assert [t.text for t in paths.search("infra/a")][:2] == ["infra/alpha", "infra/api"]  # a path's start first


# ------------------------------------------------------------------------------ in the app


def completion(drive: AppDriver) -> LinkCompletion:
    return drive.app.screen.query_one(LinkCompletion)


async def _new_entry(drive: AppDriver) -> Input:
    await drive.to_first_entry()
    await drive.press("o")
    inp = drive.app.screen.query_one("#editor-input", Input)
    await drive.until(lambda: inp.has_focus, what="the entry editor")
    return inp


@pytest.mark.slow
async def test_entry_editor_completes_with_tab_and_saves_a_link_that_resolves(
    driver: AppDriver, demo: list[Path]
) -> None:
    inp = await _new_entry(driver)
    for key in "See [[back":
        await driver.press(key if key != " " else "space")
    await driver.until(lambda: completion(driver).is_open, what="the completion list")
    rows = [c.insert for c in completion(driver).items]
    assert rows[:3] == ["[[backend/redis]]", "[[backend/migrations]]", "[[backend/rate-limits]]"]
    await driver.press("down", "tab")
    assert inp.value == "See [[backend/migrations]]"
    assert inp.has_focus and not completion(driver).display  # tab took the target, not the focus
    assert "AMR010" not in str(driver.app.screen.editor.diagnostics)
    await driver.press("enter")
    await driver.until(lambda: said(driver.app, "MEMORY.md"), what="the save")
    assert "- See [[backend/migrations]]\n" in git(demo[0], "show", "HEAD:MEMORY.md")


@pytest.mark.slow
async def test_esc_closes_the_list_only_and_headings_follow_a_hash(driver: AppDriver) -> None:
    inp = await _new_entry(driver)
    for key in "[[MEMORY#In":
        await driver.press(key)
    await driver.until(lambda: completion(driver).is_open, what="the headings")
    assert [c.label for c in completion(driver).items] == ["Index"]
    await driver.press("escape")
    assert not completion(driver).display and driver.app.screen.editor.display and inp.value == "[[MEMORY#In"
    await driver.press("tab")  # opens it again
    await driver.until(lambda: completion(driver).is_open, what="the list again")
    await driver.press("enter")
    assert inp.value == "[[MEMORY#Index]]"


@pytest.mark.slow
async def test_a_burst_ends_where_slow_typing_ends(driver: AppDriver, demo: list[Path]) -> None:
    """``o``, the text, tab and enter in one burst: tab waits for the rows of ``[[sty`` (it does
    not take the focus away, nor a stale row), enter saves the line with the link taken."""
    await driver.to_first_entry()
    burst(driver, "o", *"Colours in [[sty", "tab", "enter")
    await driver.until(lambda: said(driver.app, "MEMORY.md"), what="the save")
    assert "- Colours in [[styling]]\n" in git(demo[0], "show", "HEAD:MEMORY.md")


async def test_whole_file_editor_completes_and_keeps_its_own_keys(driver: AppDriver) -> None:
    await driver.press("E")
    await driver.until(lambda: isinstance(driver.app.screen, FileEditScreen), what="the file editor")
    area = driver.app.screen.query_one(TextArea)
    await driver.until(lambda: area.has_focus, what="the text area")
    await driver.press("enter")  # no list: a new line
    assert area.text.startswith("\n# Memory")
    area.move_cursor((0, 0))
    for key in "[[sty":
        await driver.press(key)
    await driver.until(lambda: completion(driver).is_open, what="the completion list")
    await driver.press("enter")
    assert area.document.get_line(0) == "[[styling]]"
    await driver.press("down")  # the list is closed: the cursor moves
    assert area.cursor_location[0] == 1


async def test_capture_completes_across_writable_repos(driver: AppDriver) -> None:
    await driver.press("c")
    await driver.until(lambda: isinstance(driver.app.screen, TextPromptScreen), what="the capture prompt")
    inp = driver.app.screen.query_one(Input)
    await driver.until(lambda: inp.has_focus, what="the prompt's input")
    for key in "Ask [[onc":
        await driver.press(key if key != " " else "space")
    await driver.until(lambda: completion(driver).is_open, what="the completion list")
    assert completion(driver).items[0].detail.startswith("memory-bob")
    await driver.press("tab")
    assert inp.value == "Ask [[oncall]]"
    await driver.press("escape")  # no list open: the prompt asks before dropping the text


@pytest.mark.parametrize(
    ("folder", "typed", "first"),
    [
        ("claude-code/memory", "[[user", "[User role](user_role.md)"),  # its front matter's name
        ("basic-memory", "[[brew", "[[Coffee Brewing Methods]]"),  # its front matter's title
        ("obsidian-vault", "[[atl", "[[Atlas]]"),  # its name, found anywhere in the vault
    ],
)
def test_the_session_completes_each_format_from_its_files(folder: str, typed: str, first: str, tmp_path: Path) -> None:
    import shutil

    from amr_tui.services.session.linktargets import link_targets_of
    from amr_tui.services.session.session import Session
    from amr_tui.services.workspace import discover

    src = Path(__file__).parent / "fixtures" / "formats" / folder
    root = tmp_path / "repo"
    shutil.copytree(src, root)
    session = Session(discover([root]))
    session.scan()
    (repo,) = session.names
    found = link_targets_of(session).complete(repo, "MEMORY.md", typed, len(typed))
    assert found and found[0].insert == first, [c.insert for c in found]
