"""Pilot tests of the editor's flows on real git repos (the demo set)."""

from __future__ import annotations

import subprocess

import pytest

from amr_tui.widgets.entry_view import EntryView
from tests.driver import app_for, git, notes, running, screen_text, shown, wait_for


@pytest.mark.slow
async def test_opens_first_repo_memory_with_both_repos(demo):
    app = app_for([demo[0].parent])
    async with running(app) as drive:
        pilot = drive.pilot
        assert (drive.current.repo, drive.current.path) == ("memory-alice", "MEMORY.md")
        await shown(pilot, app, "memory-alice", "memory-bob", "\u2022", "[[team_structure]]")


@pytest.mark.slow
async def test_follow_link_back_and_forward(demo):
    app = app_for(demo)
    async with running(app) as drive:
        pilot = drive.pilot
        index_line = next(ln.number for ln in drive.current.doc.lines if "[[team_structure]]" in ln.text)
        await drive.to_line(index_line)
        await pilot.press("enter")
        await wait_for(pilot, lambda: drive.current.path == "team_structure.md", what="link followed")
        await pilot.press("left_square_bracket")
        await wait_for(pilot, lambda: drive.current.path == "MEMORY.md", what="back")
        await pilot.press("right_square_bracket")
        await wait_for(pilot, lambda: drive.current.path == "team_structure.md", what="forward")


async def test_backlinks_listed(demo):
    app = app_for(demo)
    async with running(app) as drive:
        pilot = drive.pilot
        await drive.open("memory-alice", "team_structure.md")
        await shown(pilot, app, "MEMORY.md:")
        assert "Backlinks (" in screen_text(app) and "Backlinks (0)" not in screen_text(app)


async def test_finder_jumps_to_entry(demo):
    app = app_for(demo)
    async with running(app) as drive:
        pilot = drive.pilot
        await wait_for(pilot, lambda: len(app.session.index) > 10, what="index")
        await pilot.press("slash")
        await pilot.press(*"bun")
        from amr_tui.screens.finder import FinderScreen

        await wait_for(pilot, lambda: isinstance(app.screen, FinderScreen) and app.screen.hits, what="finder hits")
        top = app.screen.hits[0].item
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: getattr(app.screen, "current", None) and drive.current.path == top.path, what="jump"
        )
        if top.line:
            assert app.screen.query_one(EntryView).cursor_line == top.line


@pytest.mark.slow
async def test_edit_entry_commits_one_file(demo):
    alice = demo[0]
    before = int(git(alice, "rev-list", "--count", "HEAD"))
    app = app_for(demo)
    async with running(app) as drive:
        pilot = drive.pilot
        inp = await drive.edit_first_entry()
        inp.value = "Alice prefers short summaries [source: https://example.com/sessions/999; added: 2026-11-01]"
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: "Alice prefers short summaries" in (alice / "MEMORY.md").read_text(), what="saved"
        )
    assert int(git(alice, "rev-list", "--count", "HEAD")) == before + 1
    assert git(alice, "show", "--name-only", "--format=", "HEAD").split() == ["MEMORY.md"]
    assert git(alice, "status", "--porcelain") == ""
    assert "Edit entry in MEMORY.md" in git(alice, "log", "-1", "--format=%s")


@pytest.mark.slow
async def test_typing_in_the_editor_keeps_the_entry(demo):
    """e opens the entry with the cursor at its end and nothing selected: keys typed add to
    the text (Textual's Input selects everything on focus, so one key replaced the entry)."""
    app = app_for(demo)
    async with running(app) as drive:
        pilot = drive.pilot
        inp = await drive.edit_first_entry()
        original = inp.value
        await pilot.press("!")
        assert inp.value == original + "!"
        await pilot.press("home", "N", "o", "t", "e", ":", "space")
        assert inp.value == "Note: " + original + "!"


@pytest.mark.slow
async def test_editor_flags_metadata_that_is_not_at_the_end_as_you_type(demo):
    """AMR031 reaches the entry editor: metadata followed by text is shown as text, as a warning."""
    app = app_for(demo)
    async with running(app) as drive:
        pilot = drive.pilot
        inp = await drive.edit_first_entry()
        inp.value = "Use bun [source: https://x.example/1; added: 2026-09-01]"
        await pilot.pause(0.1)
        shown_now = lambda: str(app.screen.query_one("#editor-diagnostics").render())  # noqa: E731
        assert "valid entry" in shown_now()
        inp.cursor_position = len(inp.value)
        await pilot.press("space", "D", "R", "A", "F", "T")
        await wait_for(pilot, lambda: "AMR031" in shown_now(), what="AMR031 shown while typing")
        assert "valid entry" not in shown_now() and not app.screen.editor.has_errors  # a warning
        await pilot.press("escape")


@pytest.mark.slow
async def test_invalid_entry_asks_before_saving(demo):
    alice = demo[0]
    head = git(alice, "rev-parse", "HEAD")
    app = app_for(demo)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("o")
        inp = app.screen.query_one("#editor-input")
        await wait_for(pilot, lambda: inp.has_focus, what="editor")
        inp.value = "A fact [source: https://example.com/a[1]]"  # an error: AMR026 (a bad date is a warning)
        await pilot.pause(0.1)
        assert "AMR026" in str(app.screen.query_one("#editor-diagnostics").render())
        await pilot.press("enter")
        from amr_tui.screens.dialogs import ConfirmScreen

        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirmation")
        await pilot.press("n")
        await pilot.pause(0.3)
    assert git(alice, "rev-parse", "HEAD") == head


async def test_read_only_repo_refuses_edits(demo):
    bob = demo[1]
    head = git(bob, "rev-parse", "HEAD")
    app = app_for(demo, read_only={"memory-bob"})
    async with running(app) as drive:
        pilot = drive.pilot
        await drive.open("memory-bob", "MEMORY.md")
        await pilot.press("e")
        await pilot.pause(0.2)
        assert not app.screen.query_one("#editor").display
        assert any("Read-only" in str(n.message) for n in notes(app))
        await pilot.press("d")
        await pilot.pause(0.2)
    assert git(bob, "rev-parse", "HEAD") == head


@pytest.mark.slow
async def test_agent_commit_during_edit_is_kept(demo):
    alice = demo[0]
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        inp = await drive.edit_first_entry()
        # An agent appends a fact and commits while the user types.
        with (alice / "MEMORY.md").open("a") as fh:
            fh.write("- Agent learned something new [source: https://example.com/sessions/555]\n")
        git(alice, "commit", "-qam", "agent: remember something")
        agent_commit = git(alice, "rev-parse", "HEAD").strip()
        inp.value = "Alice leads payments (edited by the user)"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "edited by the user" in (alice / "MEMORY.md").read_text(), what="saved")
    text = (alice / "MEMORY.md").read_text()
    assert "Agent learned something new" in text
    subprocess.run(["git", "merge-base", "--is-ancestor", agent_commit, "HEAD"], cwd=alice, check=True)
    assert git(alice, "status", "--porcelain") == ""


async def test_live_update_keeps_cursor(demo):
    alice = demo[0]
    app = app_for(demo, poll_interval=0.2)
    async with running(app) as drive:
        pilot = drive.pilot
        view = app.screen.query_one(EntryView)
        target = drive.current.doc.entries[1].line
        await drive.to_line(target)
        text_at_cursor = drive.current.doc.lines[target - 1].text
        data = (alice / "MEMORY.md").read_text()
        (alice / "MEMORY.md").write_text("- A brand new first fact from an agent\n" + data)
        git(alice, "commit", "-qam", "agent: new first fact")
        await wait_for(pilot, lambda: "brand new first fact" in drive.current.doc.text, what="live reload")
        assert drive.current.doc.lines[view.cursor_line - 1].text == text_at_cursor
        assert any("Memory changed" in str(n.title) for n in notes(app))


async def test_help_screen_lists_bindings(demo):
    app = app_for(demo)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("question_mark")
        from amr_tui.screens.help import HelpScreen

        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        await shown(pilot, app, "Find", "Edit")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), what="help closed")


async def test_welcome_screen_without_repos(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = app_for([])
    async with running(app, ready=False) as drive:
        pilot = drive.pilot
        from amr_tui.screens.welcome import WelcomeScreen

        await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen), what="the welcome screen")
        await shown(pilot, app, "amr demo")


async def test_welcome_creates_a_memory_repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = app_for([])
    async with running(app, ready=False) as drive:
        pilot = drive.pilot
        from amr_tui.screens.dialogs import ConfirmScreen, PromptScreen
        from amr_tui.screens.welcome import WelcomeScreen

        await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen), what="the welcome screen")
        await pilot.press("ctrl+n")

        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="path prompt")
        app.screen.query_one("#prompt-input").value = str(tmp_path / "fresh-memory")
        await pilot.press("enter")
        # what will be written, exactly, before anything is
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the preview")
        assert "git init, then one commit" in app.screen.body and "## Index" in app.screen.body
        assert not (tmp_path / "fresh-memory").exists()
        await pilot.press("y")
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="opened")
        assert drive.current.path == "MEMORY.md"
    assert (tmp_path / "fresh-memory" / "MEMORY.md").read_text() == "# Memory\n\n## Index\n"


async def test_config_repos_theme_and_key_overrides(demo, tmp_path, monkeypatch):
    from amr_tui.app import make_app
    from amr_tui.services.config import load_config

    cfg_file = tmp_path / "config.toml"
    cfg_file.write_text(
        f'repos = ["{demo[0]}", "{demo[1]}"]\nread_only = ["memory-bob"]\ntheme = "gruvbox"\n'
        '[keys]\n"main.find" = "f"\n'
    )
    monkeypatch.chdir(tmp_path)
    cfg = load_config(cfg_file)
    app = make_app([], config=cfg, poll_interval=60)
    assert [m.name for m in app.mounts] == ["memory-alice", "memory-bob"]
    assert [m.read_only for m in app.mounts] == [False, True]
    async with running(app) as drive:
        pilot = drive.pilot
        assert app.theme == "gruvbox"
        await pilot.press("f")
        from amr_tui.screens.finder import FinderScreen

        await wait_for(pilot, lambda: isinstance(app.screen, FinderScreen), what="remapped find key")


def test_broken_config_is_reported_not_fatal(tmp_path):
    from amr_tui.services.config import load_config

    bad = tmp_path / "config.toml"
    bad.write_text("repos = [unclosed\n")
    cfg = load_config(bad)
    assert cfg.error and cfg.repos == []


async def test_new_agent_entry_becomes_searchable(demo):
    alice = demo[0]
    app = app_for(demo, poll_interval=0.2)
    async with running(app) as drive:
        pilot = drive.pilot
        (alice / "tooling" / "bun.md").write_text(
            (alice / "tooling" / "bun.md").read_text() + "- Zanzibar cache warms at boot\n"
        )
        await wait_for(pilot, lambda: app.session.search("zanzibar", 5), what="indexed")
        hit = app.session.search("zanzibar", 5)[0].item
        assert (hit.repo, hit.path) == ("memory-alice", "tooling/bun.md")


@pytest.mark.slow
async def test_user_and_agent_both_append_at_the_end_without_conflict(demo):
    """Seed case 1 inside one clone: the save merges entry-aware, so both appended facts stay."""
    alice = demo[0]
    path = alice / "tooling" / "bun.md"
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await drive.open("memory-alice", "tooling/bun.md")
        await drive.to_line(drive.current.doc.entries[-1].line)
        await pilot.press("o")
        inp = app.screen.query_one("#editor-input")
        await wait_for(pilot, lambda: inp.has_focus, what="editor")
        path.write_text(path.read_text() + "- Agent appended this at the end\n")
        git(alice, "commit", "-qam", "agent: append")
        inp.value = "User appended this at the end"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "User appended" in path.read_text(), what="saved")
    text = path.read_text()
    assert "Agent appended this at the end" in text and "User appended this at the end" in text
    assert "<<<<<<<" not in text


async def test_screen_stays_usable_while_indexing(demo):
    """The screen is never covered by Textual's loading spinner while the repos are indexed."""
    app = app_for(demo, poll_interval=60)
    async with running(app, ready=False) as drive:
        pilot = drive.pilot
        from amr_tui.screens.main.screen import MainScreen

        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), what="main screen")
        assert app.screen.loading is False
        # the first file opens once search is ready, before the lint is done
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="the first file")
        assert app.screen.loading is False
        await wait_for(pilot, lambda: not app.screen.indexing, what="lint and badges done")
        assert app.screen.loading is False


async def test_letters_typed_on_the_welcome_screen_act_on_nothing(tmp_path, monkeypatch):
    """Issue 25 point 4: typing as if into a search ("i", then Enter) writes nothing; only a key
    with a modifier starts the creation, and the preview asks before anything is written."""
    from amr_tui.screens.welcome import WelcomeScreen

    monkeypatch.chdir(tmp_path)
    app = app_for([])
    async with running(app, ready=False) as drive:
        pilot = drive.pilot
        await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen), what="the welcome screen")
        await pilot.press(*"idemo", "tab")
        await pilot.pause(0.3)
        assert isinstance(app.screen, WelcomeScreen)
    assert list(tmp_path.iterdir()) == []
