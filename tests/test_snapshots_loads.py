"""Issue 41: how the load budget's cut looks: the viewer's cut row between the last line an agent
loads and the first it does not, the gauge in the file's header, and the whole-file editor's cut
(the last loaded line underlined) with its gauge. A Claude Code memory folder of 240 index lines,
built in the shape Claude Code writes (tests/claudecode.py), at a fixed terminal size."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from amr_tui.screens.file_editor import FileEditScreen
from amr_tui.widgets.cut_area import CutTextArea
from tests.claudecode import build
from tests.driver import SNAPSHOT_SIZE, AppDriver, app_for, before_snapshot


@pytest.fixture
def cc_folder(tmp_path: Path) -> Path:
    folder = build(tmp_path / "home", "/tmp/proj", lines=240)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=folder, check=True)  # the tree's badge: no "not a git repo"
    subprocess.run(["git", "add", "--", "."], cwd=folder, check=True)
    subprocess.run(["git", "commit", "-qm", "Claude Code memory"], cwd=folder, check=True)
    return folder


async def _at(drive: AppDriver, line: int) -> None:
    pilot = drive.pilot
    await drive.settled()
    drive.view.focus()
    drive.view.go_to_line(line)
    await drive.settled()
    pilot.app.clear_notifications()
    await pilot.pause(0.1)


def test_viewer_draws_the_cut_and_the_gauge(snap_compare, cc_folder: Path) -> None:
    """MEMORY.md at line 201: the row above it says where Claude Code stops loading; the header
    holds the gauge (240/200 lines, 27.1/25 KB)."""

    async def go(drive: AppDriver) -> None:
        await _at(drive, 201)

    app = app_for([cc_folder], poll_interval=3600)
    assert snap_compare(app, terminal_size=SNAPSHOT_SIZE, run_before=before_snapshot(go))


def test_file_editor_draws_the_cut_and_the_gauge(snap_compare, cc_folder: Path) -> None:
    """E on MEMORY.md, the cursor put on line 198: line 200 underlined, the gauge below the text."""

    async def go(drive: AppDriver) -> None:
        pilot = drive.pilot
        await _at(drive, 1)
        await drive.press("E")
        await drive.until(lambda: isinstance(pilot.app.screen, FileEditScreen), what="the file editor")
        area = pilot.app.screen.query_one(CutTextArea)
        area.cursor_blink = False  # the cursor drawn, never blinked off at the capture
        area.move_cursor((197, 0), center=True)
        await drive.settled()
        await pilot.pause(0.2)

    app = app_for([cc_folder], poll_interval=3600)
    assert snap_compare(app, terminal_size=SNAPSHOT_SIZE, run_before=before_snapshot(go))
