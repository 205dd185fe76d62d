"""The welcome screen, as a new user meets it: what it lists, and the repo it offers to create."""

from __future__ import annotations

from pathlib import Path

from amr_tui.screens.dialogs import PromptScreen
from amr_tui.screens.welcome import WelcomeScreen
from tests.conftest import git
from tests.driver import TMUX_SIZE, app_for, running, screen_text, wait_for


async def test_the_memory_found_is_listed_one_folder_a_line_with_no_newline_glyph(tmp_path: Path, monkeypatch) -> None:
    """The list of memory found showed a ␊ where its first line should have ended."""
    home = tmp_path / "home"
    for name in ("basic-memory",):
        (home / name).mkdir(parents=True)
        (home / name / "note.md").write_text("- a note\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("BASIC_MEMORY_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    app = app_for([], poll_interval=60)
    async with running(app, TMUX_SIZE, ready=False) as drive:
        await wait_for(drive.pilot, lambda: isinstance(app.screen, WelcomeScreen) and app.screen.found, what="found")
        await drive.pilot.pause()
        text = screen_text(app)
        assert "\u240a" not in text, text
        lines = text.splitlines()
        heading = next(i for i, line in enumerate(lines) if "Agent memory found on this machine" in line)
        assert str(home / "basic-memory") in lines[heading + 1], lines[heading : heading + 2]


async def test_create_offers_the_git_repo_named_on_the_command_line(tmp_path: Path, monkeypatch, make_repo) -> None:
    """`amr EMPTY_GIT_REPO` (a git repo with no MEMORY.md and no notes) showed the welcome screen,
    and its "Create a memory repo" offered the shell's folder, not the repo named."""
    named = tmp_path / "named"
    named.mkdir()
    git(named, "init", "-q", "-b", "main")
    shell = tmp_path / "shell"
    shell.mkdir()
    monkeypatch.chdir(shell)
    app = app_for([named], poll_interval=60)
    async with running(app, TMUX_SIZE, ready=False) as drive:
        pilot = drive.pilot
        await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen), what="the welcome screen")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="the folder prompt")
        assert app.screen.query_one("#prompt-input").value == str(named.resolve())
