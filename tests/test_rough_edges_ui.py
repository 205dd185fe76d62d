"""Issue 16, section 5: rough edges found by trying the demo (the app's side)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from tests.driver import TMUX_SIZE, app_for, running, screen_text


@pytest.mark.slow
async def test_help_scrolls_to_every_binding(demo):
    """On a 38-row terminal the ? help is longer than the screen: j, arrows and pgdn reach its
    last binding, and k/g come back to the first."""
    app = app_for(demo, poll_interval=60)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        await pilot.press("question_mark")
        await drive.until(lambda: app.screen.query("#help-table"), what="the help")
        table = app.screen.query_one("#help-table", DataTable)
        last = str(table.get_row_at(table.row_count - 1)[2])[:20]  # a long row may be cut at the right
        first = str(table.get_row_at(0)[2])[:20]
        assert table.row_count > TMUX_SIZE[1], "the help fits the screen: nothing to scroll"
        await pilot.pause()
        assert last not in screen_text(app)
        for _ in range(table.row_count):
            await pilot.press("pagedown")
        await pilot.pause()
        assert last in screen_text(app)
        await pilot.press("g")
        await pilot.pause()
        assert first in screen_text(app) and last not in screen_text(app)
        for _ in range(table.row_count):
            await pilot.press("j")
        await pilot.pause()
        assert last in screen_text(app)
        await pilot.press("k", "g")
        for _ in range(table.row_count):
            await pilot.press("down")
        await pilot.pause()
        assert last in screen_text(app)


@pytest.mark.slow
async def test_every_list_moves_with_j_k_g_G_and_filters_as_typed(driver):
    """The tree, the side panel's lists, the move target list, the dream list and the share list
    all take j/k/g/G; typing narrows a list (the tree and the share list jump to the row starting
    with it), esc clears what was typed without leaving the screen."""
    from amr_tui.screens.dialogs import ChoiceScreen
    from amr_tui.widgets.file_tree import MemoryTree
    from amr_tui.widgets.lists import FilterList

    app, press = driver.app, driver.press
    tree = app.screen.query_one(MemoryTree)
    await press("1")
    assert tree.has_focus
    await press("G")
    assert tree.cursor_line == tree.last_line > 3
    await press("k")
    assert tree.cursor_line == tree.last_line - 1
    await press("g", "j")
    assert tree.cursor_line == 1
    await press("l", "a")  # l is no key of the main screen: it starts a jump
    assert tree.cursor_node.data.path == "landing-page.md"
    await pilot_wait(driver, 1.1)
    await press("u", "s")
    assert tree.cursor_node.data.path == "using_datadog_mcp.md"
    side = app.screen.side_hidden
    await press("s")  # no row starts with "uss": s is the screen's key (the side panel) again
    assert app.screen.side_hidden != side and tree.cursor_node.data.path == "using_datadog_mcp.md"
    await press("s")
    await press("escape")

    # the side panel: links from MEMORY.md, narrowed to one, and enter follows that one
    await driver.open("memory-alice", "MEMORY.md")
    out = app.screen.query_one("#outgoing", FilterList)
    await driver.until(lambda: out.option_count > 3, what="MEMORY.md's links")
    await driver.settled()
    total = out.option_count
    await press("4")
    assert out.has_focus, app.focused
    await press("G")
    assert out.highlighted == total - 1
    await press("g", "j")
    assert out.highlighted == 1
    await press(*"landing")
    assert out.option_count == 1 and "landing-page" in str(out.get_option_at_index(0).prompt)
    await press("escape")
    assert out.option_count == total and isinstance(app.screen, type(driver.screen))
    await press(*"landing", "enter")
    await driver.until(lambda: driver.current.path == "landing-page.md", what="the filtered link followed")

    # the move target list
    await driver.open("memory-alice", "styling.md")
    await driver.to_first_entry()
    await press("m")
    await driver.until(lambda: isinstance(app.screen, ChoiceScreen), what="the move targets")
    targets = app.screen.query_one(FilterList)
    everything = targets.option_count
    await press("j", "j", "k")
    assert targets.highlighted == 1
    await press(*"redis")
    assert 1 <= targets.option_count < everything
    assert all("redis" in str(targets.get_option_at_index(i).prompt) for i in range(targets.option_count))
    await press("escape")
    assert isinstance(app.screen, ChoiceScreen) and targets.option_count == everything
    await press("escape")

    # the dream list
    await press("V")
    await driver.until(lambda: app.screen.query("#dreams-list"), what="the dream list")
    dreams = app.screen.query_one("#dreams-list", FilterList)
    await driver.until(lambda: app.screen.cards, what="the pending dreams")
    await press(*"zzzz")
    assert dreams.option_count == 0
    await press("escape")
    assert dreams.option_count == len(app.screen.cards) and app.screen.query("#dreams-list")
    await press("G")
    assert dreams.highlighted == dreams.option_count - 1
    await press("escape")

    # the share list
    await driver.until(lambda: not app.screen.query("#dreams-list"), what="back on the main screen")
    await press("P")
    await driver.until(lambda: app.screen.query("#share-choices"), what="the share screen")
    picks = app.screen.query_one("#share-choices")
    await press("j")
    assert picks.highlighted == 1
    await press("G")
    assert picks.highlighted == picks.option_count - 1
    await press("g")
    assert picks.highlighted == 0
    await press("l", "a")
    assert "landing-page.md" in str(picks.get_option_at_index(picks.highlighted).prompt)
    await press("space")  # right after a jump, space still ticks the row
    assert picks.get_option_at_index(picks.highlighted).value in picks.selected


async def pilot_wait(driver, seconds: float) -> None:
    """Let a typed jump's pause run out."""
    import asyncio

    await asyncio.sleep(seconds)
    await driver.pilot.pause()


@pytest.mark.slow
async def test_tree_separates_repo_name_from_branch(driver):
    """The gap between a repo's name and its branch is drawn in every rendering of the screen: in
    the SVG a screenshot is made of, the branch's run does not start with the spaces (an SVG
    renderer drops a run's leading spaces, and the tree read "memory-alicemain")."""
    import re

    from amr_tui.widgets.file_tree import repo_label

    await driver.settled()
    for _ in range(16):  # wide enough for the repo's badges and its branch
        await driver.press("greater_than_sign")
    await driver.pilot.pause()
    svg = driver.app.export_screenshot()
    runs = re.findall(r">((?:&#160;)*)main</text>", svg)
    assert runs and all(lead == "" for lead in runs), runs
    label = repo_label(_info())
    assert label.plain == "memory-alice  main"


def _info():
    from amr_tui.services.session.watch import RepoInfo

    return RepoInfo("memory-alice", "main")


MEMORY = "# Memory\n\n- fact 0 s0\n- fact 1 s0\n- fact 2 s0\n\n## Index\n- [[notes/a]]\n"


@pytest.mark.slow
async def test_keep_theirs_says_so_and_toasts_leave_the_dialog_buttons_free(make_repo):
    """Keeping theirs in the conflict view, with nothing else of mine, commits nothing: the
    notification says "Kept theirs" (it said "Resolve edit conflict"), never "Committed"; and a notification over a dialog does
    not cover its buttons."""
    from textual.widgets import Button
    from textual.widgets._toast import Toast

    from amr_tui.screens.conflict import ConflictScreen
    from amr_tui.widgets.safe import notify_text
    from tests.driver import git, notes

    root = make_repo(files={"MEMORY.md": MEMORY, "notes/a.md": "# A\n\n- note a\n"})
    app = app_for([root], poll_interval=60)
    async with running(app, TMUX_SIZE, notifications=True) as drive:
        pilot = drive.pilot
        await drive.to_line(4)
        await pilot.press("e")
        inp = app.screen.query_one("#editor-input")
        await drive.until(lambda: inp.has_focus, what="the editor")
        await pilot.press("home", "ctrl+k", *"fact 1 u1")
        path = root / "MEMORY.md"
        path.write_text(path.read_text().replace("- fact 1 s0", "- fact 1 a1"))
        git(root, "commit", "-qam", "agent: fact 1")
        head = git(root, "rev-parse", "HEAD")
        await pilot.press("enter")
        await drive.until(lambda: isinstance(app.screen, ConflictScreen), what="the conflict view")
        for i in range(3):
            notify_text(app, f"note {i} " + "with some words " * 6, title="A note")
        await pilot.pause(0.3)
        toasts = [t.region for t in app.screen.query(Toast)]
        buttons = [b.region for b in app.screen.query(Button)]
        assert toasts and buttons
        assert not [(t, b) for t in toasts for b in buttons if t.overlaps(b)]
        await pilot.press("ctrl+t")
        await drive.until(lambda: any("Kept theirs" in str(n.message) for n in notes(app)), what="the notification")
        await drive.settled()
        assert git(root, "rev-parse", "HEAD") == head
        assert not [n for n in notes(app) if n.title == "Committed"]


@pytest.mark.slow
async def test_rejecting_a_dream_run_says_rejected(driver):
    """X in a run's review rejects it: the notification says "Rejected" (it said "Committed" and
    named a ref, though nothing was committed to main)."""
    from amr_tui.screens.dreams.screen import RunReviewScreen
    from tests.driver import git, notes

    app = driver.app
    root = app.screen.session.mount("memory-alice").root
    main = git(root, "rev-parse", "main")
    await driver.press("V")
    await driver.until(lambda: getattr(app.screen, "cards", None), what="the pending dreams")
    await driver.press("enter")
    await driver.until(lambda: isinstance(app.screen, RunReviewScreen), what="the run's review")
    await driver.settled()
    await driver.press("X")
    await driver.asked("Reject the rest of this run?")
    await driver.press("y")
    await driver.until(lambda: any(n.title == "Rejected" for n in notes(app)), what="the notification")
    assert not [n for n in notes(app) if n.title == "Committed"]
    assert git(root, "rev-parse", "main") == main


@pytest.mark.slow
async def test_new_above_on_the_heading_goes_below_it(driver):
    """O on line 1 (the file's heading) puts the new entry above the first entry, never above the
    heading."""
    app, press = driver.app, driver.press
    root = app.screen.session.mount("memory-alice").root
    await driver.to_line(1)
    await press("O")
    inp = app.screen.query_one("#editor-input")
    await driver.until(lambda: inp.has_focus, what="the editor")
    await press(*"A new first fact", "enter")
    await driver.until(lambda: "A new first fact" in (root / "MEMORY.md").read_text(), what="the new entry saved")
    lines = (root / "MEMORY.md").read_text().splitlines()
    assert lines[0] == "# Memory: Alice"
    first_entry = next(i for i, ln in enumerate(lines) if ln.startswith("- "))
    assert "A new first fact" in lines[first_entry]
    await driver.settled()


@pytest.mark.slow
async def test_t_asks_before_replacing_an_added_date(driver):
    """t on an entry that has an `added` date asks before replacing it; no keeps it."""
    from amr_tui.screens.dialogs import ConfirmScreen
    from tests.driver import git

    app, press = driver.app, driver.press
    root = app.screen.session.mount("memory-alice").root
    await driver.open("memory-alice", "styling.md")
    await driver.to_first_entry()
    entry = driver.current.doc.entries[0]
    assert any(item.key == "added" for item in entry.metadata)
    head = git(root, "rev-parse", "HEAD")
    await press("t")
    await driver.until(lambda: isinstance(app.screen, ConfirmScreen), what="the question")
    assert app.screen.title_text.startswith("Replace added:")
    await press("n")
    await driver.settled()
    assert git(root, "rev-parse", "HEAD") == head
    await press("t")
    await driver.until(lambda: isinstance(app.screen, ConfirmScreen), what="the question")
    await press("y")
    await driver.until(lambda: git(root, "rev-parse", "HEAD") != head, what="the stamp committed")


async def test_first_r_in_forgotten_facts_restores_the_highlighted_fact(driver):
    """F lists the forgotten facts with the first one highlighted: the first r asks to restore it."""
    from amr_tui.screens.dialogs import ConfirmScreen
    from amr_tui.screens.forgotten import ForgottenScreen

    app = driver.app
    await driver.press("F")
    await driver.until(lambda: isinstance(app.screen, ForgottenScreen) and app.screen.facts, what="forgotten facts")
    await driver.settled()
    restorable = [i for i, f in enumerate(app.screen.facts) if f.line is not None]
    assert restorable[:1] == [0], "the demo's first forgotten fact can be restored"
    await driver.press("r")
    await driver.until(lambda: isinstance(app.screen, ConfirmScreen), what="the restore question")
    assert app.screen.title_text == "Restore this fact?"


INDEXED = "# Memory\n\n- a fact\n\n## Index\n- [[notes/a]]\n\n## Later\n- more\n"


@pytest.mark.slow
async def test_orphans_are_marked_in_the_tree_and_a_new_file_is_offered_to_the_index(make_repo):
    """A file no link reaches from MEMORY.md (AMR013) reads "orphan" in the tree; n (new file)
    asks, once the file is created, to link it from MEMORY.md's Index, and yes commits
    ``- [[path]]`` at the end of the Index (through the write gate, one commit)."""
    from amr_tui.screens.dialogs import ConfirmScreen, PromptScreen
    from amr_tui.widgets.file_tree import MemoryTree
    from tests.driver import git, tree_files

    root = make_repo(files={"MEMORY.md": INDEXED, "notes/a.md": "# A\n\n- note a\n", "stray.md": "# Stray\n\n- x\n"})
    app = app_for([root], poll_interval=60)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        await drive.settled()
        tree = app.screen.query_one(MemoryTree)
        labels = {path: str(node.label) for (_repo, path), node in tree_files(tree).items()}
        assert "orphan" in labels["stray.md"], labels
        assert "orphan" not in labels["notes/a.md"] and "orphan" not in labels["MEMORY.md"]
        head = git(root, "rev-parse", "HEAD")
        await pilot.press("n")
        await drive.until(lambda: isinstance(app.screen, PromptScreen), what="the name prompt")
        await pilot.press(*"topics/new-one", "enter")
        await drive.until(lambda: isinstance(app.screen, ConfirmScreen), what="the Index question")
        assert app.screen.title_text == "Add it to MEMORY.md's Index?"
        await drive.until(lambda: git(root, "rev-parse", "HEAD") != head, what="the file created")
        created = git(root, "rev-parse", "HEAD").strip()
        await pilot.press("y")
        await drive.until(lambda: git(root, "rev-parse", "HEAD") != created, what="the Index line committed")
        memory = git(root, "show", "HEAD:MEMORY.md")
        assert memory == INDEXED.replace("- [[notes/a]]\n", "- [[notes/a]]\n- [[topics/new-one]]\n")
        assert git(root, "rev-list", "--count", f"{created}..HEAD") == "1\n"
        assert git(root, "status", "--porcelain") == ""
        await drive.settled()
        assert drive.current.path == "topics/new-one.md"
        labels = {path: str(node.label) for (_repo, path), node in tree_files(tree).items()}
        assert "orphan" not in labels["topics/new-one.md"] and "orphan" in labels["stray.md"]


async def test_welcome_init_offers_the_current_folder_and_asks_for_an_identity(tmp_path, monkeypatch):
    """With nothing to mount, i on the welcome screen offers the current folder; when git has no
    identity it asks for one, as the main screen does, and keeps it in the new repo's own config."""
    import os

    from amr_tui.screens.dialogs import ConfirmScreen, PromptScreen
    from amr_tui.screens.main.screen import MainScreen
    from amr_tui.screens.welcome import WelcomeScreen
    from tests.driver import git, wait_for

    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("EMAIL", "")
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    app = app_for([], poll_interval=60)
    async with running(app, TMUX_SIZE, ready=False) as drive:
        pilot = drive.pilot
        await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen), what="the welcome screen")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="the folder prompt")
        assert app.screen.query_one("#prompt-input").value == str(here)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="what will be written")
        await pilot.press("y")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, PromptScreen) and "Git needs a name" in app.screen.title_text,
            what="the identity question",
        )
        app.screen.query_one("#prompt-input").value = "Ada Lovelace <ada@example.test>"
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, MainScreen) and getattr(app.screen, "current", None) is not None,
            what="the new repo open",
        )
    assert (here / "MEMORY.md").is_file()
    assert git(here, "config", "--local", "user.name").strip() == "Ada Lovelace"
    assert git(here, "log", "-1", "--format=%an <%ae>").strip() == "Ada Lovelace <ada@example.test>"
    assert not (tmp_path / ".gitconfig").exists() and not (Path(os.environ["HOME"]) / ".gitconfig").exists()
