"""Pilot tests of file and entry operations: move, delete, create, rename, conflicts, refusals."""

from __future__ import annotations

import subprocess

import pytest

from amr_tui.screens.conflict import ConflictScreen
from amr_tui.screens.dialogs import ChoiceScreen, ConfirmScreen, PromptScreen
from amr_tui.widgets.entry_view import EntryView
from tests.driver import app_for, click_text, git, notes, running, screen_text, shown, tree_files, wait_for


async def saved(pilot, app, before: int):
    await wait_for(
        pilot,
        lambda: len([n for n in notes(app) if n.title in ("Committed", "Not saved")]) > before,
        timeout=15,
        what="save",
    )
    assert not any(n.title == "Not saved" for n in notes(app)), [str(n.message) for n in notes(app)]


def commits(app) -> int:
    return len([n for n in notes(app) if n.title in ("Committed", "Not saved")])


async def test_delete_entry_asks_then_commits(demo):
    alice = demo[0]
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        entry = drive.current.doc.entries[0]
        await drive.to_first_entry()
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        n = commits(app)
        await pilot.press("y")
        await saved(pilot, app, n)
    assert entry.text not in (alice / "MEMORY.md").read_text()
    assert git(alice, "log", "-1", "--format=%s").startswith("Remove entry from MEMORY.md")


async def test_move_entry_to_other_repo(demo):
    alice, bob = demo
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        entry = drive.current.doc.entries[0]
        await drive.to_first_entry()
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="choices")
        choices = app.screen.choices
        idx = next(i for i, (cid, _) in enumerate(choices) if cid == "memory-bob\0MEMORY.md")
        from textual.widgets import OptionList

        app.screen.query_one(OptionList).highlighted = idx
        n = commits(app)
        await pilot.press("enter")
        await saved(pilot, app, n)
    assert entry.text in (bob / "MEMORY.md").read_text()
    assert entry.text not in (alice / "MEMORY.md").read_text()
    assert git(bob, "status", "--porcelain") == "" and git(alice, "status", "--porcelain") == ""


async def test_rename_rewrites_links_in_one_commit(demo):
    alice = demo[0]
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await drive.open("memory-alice", "team_structure.md")
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="prompt")
        app.screen.query_one("#prompt-input").value = "people/team"
        n = commits(app)
        await pilot.press("enter")
        await saved(pilot, app, n)
        await wait_for(pilot, lambda: drive.current.path == "people/team.md", what="renamed file open")
    assert not (alice / "team_structure.md").exists()
    assert "[[people/team]]" in (alice / "MEMORY.md").read_text()
    assert "[[team_structure]]" not in (alice / "MEMORY.md").read_text()
    changed = git(alice, "show", "--name-status", "--format=", "HEAD")
    assert "team_structure.md" in changed and "people/team.md" in changed and "MEMORY.md" in changed
    assert git(alice, "status", "--porcelain") == ""


async def test_delete_file_lists_backlinks(demo):
    alice = demo[0]
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await drive.open("memory-alice", "team_structure.md")
        await pilot.press("D")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        await shown(pilot, app, "MEMORY.md:", "will break")
        n = commits(app)
        await pilot.press("y")
        await saved(pilot, app, n)
    assert not (alice / "team_structure.md").exists()
    assert git(alice, "log", "-1", "--format=%s").startswith("Delete team_structure.md")


async def test_broken_link_offers_to_create_file(demo):
    bob = demo[1]
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await drive.open("memory-bob", "deploys.md")
        doc = drive.current.doc
        states = app.session.link_states("memory-bob", doc)
        broken = next(lk for lk in doc.links if states[(lk.line, lk.start)].value == "broken")
        await drive.to_line(broken.line)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="create?")
        n = commits(app)
        await pilot.press("y")
        await saved(pilot, app, n)
    assert (bob / (broken.target + ".md")).exists()


@pytest.mark.slow
async def test_conflict_shows_both_sides_and_keeps_choice(demo):
    alice = demo[0]
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        entry = drive.current.doc.entries[0]
        await drive.to_first_entry()
        await pilot.press("e")
        inp = app.screen.query_one("#editor-input")
        await wait_for(pilot, lambda: inp.has_focus, what="editor")
        # the agent rewrites the same entry and commits
        text = (alice / "MEMORY.md").read_text().replace(entry.text, "Agent's rewording of the first fact")
        (alice / "MEMORY.md").write_text(text)
        git(alice, "commit", "-qam", "agent: reword")
        inp.value = "User's rewording of the first fact"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen), what="conflict screen")
        await shown(pilot, app, "Agent's rewording", "User's rewording")  # drawn a moment after it is pushed
        n = commits(app)
        await pilot.press("ctrl+o")
        await saved(pilot, app, n)
    final = (alice / "MEMORY.md").read_text()
    assert "User's rewording of the first fact" in final
    log = git(alice, "log", "--format=%s")
    assert "agent: reword" in log


async def test_refuses_mid_merge(demo):
    alice = demo[0]
    git(alice, "checkout", "-qb", "side")
    (alice / "MEMORY.md").write_text((alice / "MEMORY.md").read_text().replace("Alice", "Alicia", 1))
    git(alice, "commit", "-qam", "side edit")
    git(alice, "checkout", "-q", "main")
    (alice / "MEMORY.md").write_text((alice / "MEMORY.md").read_text().replace("Alice", "Alisa", 1))
    git(alice, "commit", "-qam", "main edit")
    subprocess.run(["git", "merge", "side"], cwd=alice, capture_output=True)
    assert (alice / ".git" / "MERGE_HEAD").exists()
    head = git(alice, "rev-parse", "HEAD")
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await drive.open("memory-alice", "team_structure.md")
        await pilot.press("o")
        inp = app.screen.query_one("#editor-input")
        await wait_for(pilot, lambda: inp.has_focus, what="editor")
        inp.value = "Something new"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.title == "Not saved" for n in notes(app)), what="refusal")
        msg = next(str(n.message) for n in notes(app) if n.title == "Not saved")
        assert "merge" in msg.lower()
        assert "merging" in screen_text(app)  # the tree badge says so too
    assert git(alice, "rev-parse", "HEAD") == head


async def test_missing_identity_is_asked_and_set_locally(demo, monkeypatch):
    alice = demo[0]
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("EMAIL", "")
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("o")
        inp = app.screen.query_one("#editor-input")
        await wait_for(pilot, lambda: inp.has_focus, what="editor")
        inp.value = "Fact needing an identity"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="identity prompt")
        app.screen.query_one("#prompt-input").value = "Ada Lovelace <ada@example.test>"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Fact needing an identity" in (alice / "MEMORY.md").read_text(), what="saved")
    assert git(alice, "config", "--local", "user.name").strip() == "Ada Lovelace"
    assert "Ada Lovelace" in git(alice, "log", "-1", "--format=%an")


async def test_draft_survives_navigation(driver):
    app, pilot = driver.app, driver.pilot
    await pilot.press("o")
    inp = app.screen.query_one("#editor-input")
    await wait_for(pilot, lambda: inp.has_focus, what="editor")
    inp.value = "Half-written fact"
    from amr_tui.screens.main.screen import Place

    app.screen.leave_file(lambda: app.screen.open_place(Place("memory-alice", "team_structure.md", 0)))
    await wait_for(pilot, lambda: driver.current.path == "team_structure.md", what="navigated")
    assert not app.screen.query_one("#editor").display
    await driver.open("memory-alice", "MEMORY.md")
    app.screen.query_one(EntryView).focus()
    await pilot.press("e")
    inp = app.screen.query_one("#editor-input")
    await wait_for(pilot, lambda: inp.has_focus, what="the editor again")
    assert inp.value == "Half-written fact"


async def test_sql_file_is_highlighted_read_view(driver):
    app, pilot = driver.app, driver.pilot
    await driver.open("memory-alice", "billing/count_paying_customers.sql")
    code = app.screen.query_one("#code")
    await wait_for(pilot, lambda: code.display, what="the code view")
    assert code.language == "sql"
    assert "SELECT" in code.text.upper()


async def test_capture_asks_which_repo(demo):
    bob = demo[1]
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="prompt")
        app.screen.query_one("#prompt-input").value = "Bob prefers tabs [added: 2026-11-29]"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="which repo")
        from textual.widgets import OptionList

        app.screen.query_one(OptionList).highlighted = 1
        n = commits(app)
        await pilot.press("enter")
        await saved(pilot, app, n)
    text = (bob / "MEMORY.md").read_text()
    assert "Bob prefers tabs" in text
    assert text.index("Bob prefers tabs") < text.index("## Index")


async def test_source_link_asks_before_opening(driver):
    app, pilot = driver.app, driver.pilot
    view = app.screen.query_one(EntryView)
    await driver.to_first_entry()
    view.post_message(EntryView.SourceActivated("https://example.com/sessions/101"))
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
    await wait_for(pilot, lambda: "https://example.com/sessions/101" in screen_text(app), what="url shown")
    await pilot.press("n")
    await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), what="dismissed")
    view.post_message(EntryView.SourceActivated("file:///etc/passwd"))
    await wait_for(pilot, lambda: any("Not a web link" in str(n.message) for n in notes(app)), what="the refusal")
    await pilot.pause()
    assert not isinstance(app.screen, ConfirmScreen)


async def test_click_on_link_follows_it(driver):
    app, pilot = driver.app, driver.pilot
    await shown(pilot, app, "[[team_structure]]")
    assert await click_text(pilot, app, "[[team_structure]]")
    await wait_for(pilot, lambda: driver.current.path == "team_structure.md", what="clicked link")


@pytest.mark.slow
async def test_the_last_file_asked_for_is_the_one_shown(make_repo):
    """Opens run in workers: a big file asked for first finishes after a small one asked for next.
    The small one stays shown (it once flipped back to the big one), and a reload meanwhile
    reads the file being opened, not the one on screen."""
    from amr_tui.screens.main.screen import Place

    big = "".join(
        f"- Fact {k} about service {k % 97} [source: https://e.com/s/{k}; added: 2026-01-01]\n" for k in range(6000)
    )
    repo = make_repo(
        "mem",
        {
            "MEMORY.md": "# Memory\n\n## Index\n- [[big]]\n- [[small]]\n",
            "big.md": big,
            "small.md": "- the small file\n",
        },
    )
    app = app_for([repo], poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        screen = app.screen
        screen.open_place(Place("mem", "big.md", 0))
        screen.open_place(Place("mem", "small.md", 0))
        await wait_for(pilot, lambda: drive.current.path == "small.md", what="small shown")
        await pilot.pause(1.0)  # the big file's worker is done by now
        assert drive.current.path == "small.md"
        screen.open_place(Place("mem", "big.md", 0))
        screen.action_reload()  # before big.md arrives: reload big.md, not MEMORY.md/small.md
        await wait_for(pilot, lambda: drive.current.path == "big.md", what="big shown")
        await pilot.pause(0.5)
        assert drive.current.path == "big.md"


async def test_the_tree_cursor_stays_put_when_an_agent_adds_a_file(make_repo):
    """The tree is rebuilt when files come and go (a poll after an agent's commit): the cursor
    stays on the file it was on, rather than jumping to the repo's row."""
    from amr_tui.widgets.file_tree import MemoryTree

    repo = make_repo("mem", {"MEMORY.md": "# Memory\n\n## Index\n- [[a]]\n- [[b]]\n", "a.md": "- a\n", "b.md": "- b\n"})
    app = app_for([repo], poll_interval=0.2)
    async with running(app) as drive:
        pilot = drive.pilot
        tree = app.screen.query_one(MemoryTree)
        # start-up puts the cursor on the open file once the tree has its lines: let it happen first
        await wait_for(
            pilot,
            lambda: tree.cursor_node is not None and tree.cursor_node.data.path == "MEMORY.md",
            what="start-up selection",
        )
        await pilot.pause(0.3)
        tree.focus()
        tree.select_file("mem", "b.md")
        await pilot.pause(0.3)
        assert tree.cursor_node.data.path == "b.md"
        (repo / "c.md").write_text("- c, from an agent\n")
        git(repo, "add", "--", "c.md")
        git(repo, "commit", "-q", "-m", "agent: add c")
        await wait_for(pilot, lambda: ("mem", "c.md") in tree_files(tree), timeout=10, what="the new file in the tree")
        await pilot.pause(0.3)
        assert tree.cursor_node is not None and tree.cursor_node.data.path == "b.md"
