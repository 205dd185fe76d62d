"""More editor flows: palette, whole-file editing, $EDITOR, tree badges, lint marks, locks."""

from __future__ import annotations

import subprocess

import pytest

from amr_tui.core.model import Severity
from amr_tui.screens.file_editor import FileEditScreen
from amr_tui.widgets.entry_view import EntryView
from tests.driver import app_for, git, running, shown, wait_for


@pytest.mark.slow
async def test_palette_finds_entries(driver):
    app, pilot = driver.app, driver.pilot
    await pilot.press("ctrl+p")
    await pilot.press(*"bun install")
    await pilot.pause(1.0)
    await shown(pilot, app, "tooling/bun.md")
    await pilot.press("down", "enter")
    await wait_for(pilot, lambda: driver.current.path == "tooling/bun.md", what="opened from palette")


@pytest.mark.slow
async def test_palette_runs_every_action_of_the_screen(demo):
    """ctrl+p lists the screen's actions from its bindings (history, dreams, forgotten facts...,
    not only a hand-kept list), and runs the one chosen on the screen that has it."""
    from amr_tui.screens.history import FileHistoryScreen
    from amr_tui.screens.palette import ActionsProvider

    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        names = [name for name, _help, _run in ActionsProvider(app.screen)._commands()]
        for wanted in ("History", "Dreams", "Find entries and files", "Help", "New entry below"):
            assert wanted in names, names
        assert len(names) == len(set(names)) and "Palette" not in names
        await pilot.press("ctrl+p")
        await pilot.press(*"history")
        await pilot.pause(0.6)
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: isinstance(app.screen, FileHistoryScreen), timeout=10, what="history from the palette"
        )


async def test_whole_file_edit_commits_and_keeps_crlf(demo):
    alice = demo[0]
    path = alice / "tooling" / "bun.md"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    git(alice, "commit", "-qam", "crlf")
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await drive.open("memory-alice", "tooling/bun.md")
        await pilot.press("E")
        await wait_for(pilot, lambda: isinstance(app.screen, FileEditScreen), what="file editor")
        area = app.screen.query_one("#file-edit-area")
        area.text = area.text + "- Added in the whole-file editor\n"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: b"whole-file editor" in path.read_bytes(), what="saved")
    data = path.read_bytes()
    assert b"- Added in the whole-file editor\r\n" in data
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert git(alice, "status", "--porcelain") == ""


async def test_external_editor_result_is_committed(demo, tmp_path, monkeypatch):
    alice = demo[0]
    script = tmp_path / "fake-editor.sh"
    script.write_text('#!/bin/sh\necho "- Written in the external editor" >> "$1"\n')
    script.chmod(0o755)
    monkeypatch.setenv("VISUAL", str(script))
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("ctrl+e")
        await wait_for(
            pilot,
            lambda: "external editor" in git(alice, "log", "-1", "--format=%s")
            or "EDITOR" in git(alice, "log", "-1", "--format=%s"),
            what="commit",
        )
    assert "Written in the external editor" in (alice / "MEMORY.md").read_text()
    assert git(alice, "status", "--porcelain") == ""


async def test_tree_shows_branch_dirty_and_ahead(demo, tmp_path):
    clone = tmp_path / "clones" / "memory-alice"
    subprocess.run(["git", "clone", "-q", str(demo[0]), str(clone)], check=True)
    (clone / "MEMORY.md").write_text((clone / "MEMORY.md").read_text() + "- local fact\n")
    git(clone, "commit", "-qam", "local")
    (clone / "team_structure.md").write_text("- dirty\n")
    app = app_for([clone], poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await shown(pilot, app, "memory-alice \u25cf \u21911  main")


async def test_lint_marks_in_gutter(driver):
    app, pilot = driver.app, driver.pilot
    await driver.open("memory-bob", "deploys.md")
    view = app.screen.query_one(EntryView)
    assert Severity.WARNING in view.marks.values()  # the broken link (AMR010, a warning)
    bad = next(line for line, sev in view.marks.items() if sev is Severity.WARNING)
    await driver.to_line(bad)
    await shown(pilot, app, "AMR010")
    await shown(pilot, app, "\u25b2")  # the warning mark


async def test_polling_works_while_index_lock_is_held_and_leaves_it(demo):
    alice = demo[0]
    lock = alice / ".git" / "index.lock"
    app = app_for(demo, poll_interval=0.2)
    async with running(app) as drive:
        pilot = drive.pilot
        lock.write_bytes(b"")
        (alice / "MEMORY.md").write_text((alice / "MEMORY.md").read_text() + "- written while locked\n")
        await wait_for(pilot, lambda: "written while locked" in drive.current.doc.text, what="reload under lock")
        assert lock.exists()
    assert lock.exists()
    lock.unlink()
