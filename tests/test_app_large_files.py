"""A file too large for the editor to load (over MAX_PARSE_BYTES here) is never silently ignored:
``ctrl+e`` opens it in $EDITOR, as its screen offers, and says that what the editor changed stays on
disk, not committed; ``E`` (and the other edit keys) say why they cannot edit it. A read-only repo's
file is not handed to $EDITOR. Real git repos, a real editor process, keys pressed through Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest

from amr_tui.screens.main.screen import MainScreen
from amr_tui.services.workspace import MAX_PARSE_BYTES
from tests.driver import app_for, forget_notes, git, running, said, wait_for

LINE = "- Bulk fact about the service [source: https://example.com/b; added: 2026-10-01]\n"
BIG = "# Big\n\n" + LINE * (MAX_PARSE_BYTES // len(LINE) + 10)


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo("memory", {"MEMORY.md": "# Memory\n\n## Index\n\n- [[big]]\n", "big.md": BIG})


def _editor(tmp_path: Path, monkeypatch, *, append: bool) -> Path:
    """A fake $EDITOR that logs the file it got, and appends a line to it when ``append``."""
    log = tmp_path / "editor.log"
    script = tmp_path / "fake-editor"
    body = 'printf -- "- appended in the editor [source: https://example.com/e]\\n" >> "$1"\n' if append else ""
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{log}"\n{body}')
    script.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(script))
    monkeypatch.delenv("VISUAL", raising=False)
    return log


async def _open_big(drive) -> None:
    await drive.open("memory", "big.md")
    assert drive.current.read_only == "too large" and drive.current.data is None


async def test_ctrl_e_opens_a_file_too_large_to_load_and_says_the_changes_are_not_committed(
    repo: Path, tmp_path: Path, monkeypatch
) -> None:
    """ctrl+e did nothing on it but say 'Open a Markdown memory file first' (the file's own screen
    said 'Open it with $EDITOR (ctrl+e)')."""
    log = _editor(tmp_path, monkeypatch, append=True)
    head = git(repo, "rev-parse", "HEAD")
    app = app_for([repo], poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await _open_big(drive)
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: log.exists(), timeout=10, what="the editor to run")
        assert log.read_text().strip() == str(repo / "big.md")
        await wait_for(
            pilot,
            lambda: said(app, "big.md is too large for amr to read or commit"),
            timeout=10,
            what="the not-committed notice",
        )
        assert said(app, "stay on disk") and not said(app, "Open a Markdown memory file first")
        assert isinstance(app.screen, MainScreen) and drive.current.path == "big.md"
    assert git(repo, "rev-parse", "HEAD") == head  # nothing committed
    assert (repo / "big.md").read_text().endswith("- appended in the editor [source: https://example.com/e]\n")
    assert git(repo, "status", "--porcelain") == " M big.md\n"


async def test_ctrl_e_on_an_unchanged_large_file_says_nothing_is_kept(repo: Path, tmp_path: Path, monkeypatch) -> None:
    log = _editor(tmp_path, monkeypatch, append=False)
    app = app_for([repo], poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await _open_big(drive)
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: log.exists(), timeout=10, what="the editor to run")
        await pilot.pause(0.3)
        assert not said(app, "too large for amr to read or commit")
    assert git(repo, "status", "--porcelain") == ""


async def test_E_and_e_on_a_file_too_large_to_load_say_why(repo: Path, tmp_path: Path, monkeypatch) -> None:
    log = _editor(tmp_path, monkeypatch, append=True)
    app = app_for([repo], poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await _open_big(drive)
        for key in ("E", "e"):
            forget_notes(app)
            await pilot.press(key)
            await wait_for(
                pilot,
                lambda: said(app, "MB: too large to load into the editor") and said(app, "big.md is "),
                timeout=10,
                what=f"why {key} cannot edit it",
            )
            assert said(app, "ctrl+e") and not said(app, "Open a Markdown memory file first")
            assert isinstance(app.screen, MainScreen)
    assert not log.exists()


async def test_ctrl_e_does_not_hand_a_read_only_repos_large_file_to_the_editor(
    repo: Path, tmp_path: Path, monkeypatch
) -> None:
    log = _editor(tmp_path, monkeypatch, append=True)
    app = app_for([repo], poll_interval=60, read_only={"memory"})
    async with running(app) as drive:
        pilot = drive.pilot
        await _open_big(drive)
        await pilot.press("ctrl+e")
        await wait_for(
            pilot, lambda: said(app, "Read-only: the repo is mounted read-only"), timeout=10, what="the refusal"
        )
    assert not log.exists() and git(repo, "status", "--porcelain") == ""
