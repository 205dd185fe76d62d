"""Pilot tests of sync (through a git daemon on 127.0.0.1), per-entry conflict resolution, sharing."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import SelectionList

from amr_tui.screens.dialogs import ConfirmScreen, PromptScreen
from amr_tui.screens.share import ShareScreen
from amr_tui.screens.sync_conflict import SyncConflictScreen
from amr_tui.services.demo import build_demo
from tests.driver import WIDE_SIZE, app_for, git, notes, running, screen_text, wait_for
from tests.synchelpers import append, clone, commit_all, git_server, replace_line  # noqa: F401 (fixture)

BASE = "# Memory\n\n- Deploys happen on Tuesdays [source: https://e.com/s/1]\n\n## Index\n"


@pytest.mark.slow
async def test_sync_merges_and_pushes(git_server, tmp_path):
    url = git_server.create("mem", {"MEMORY.md": BASE}, work=tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    mine = clone(url, tmp_path / "a" / "mem", name="Me", driver=True)
    other = clone(url, tmp_path / "b" / "mem", name="Agent", driver=True)
    append(other, "MEMORY.md", "- Agent fact from another clone [source: https://e.com/s/2]")
    commit_all(other, "agent: fact")
    git(other, "push", "-q", "origin", "main")
    append(mine, "MEMORY.md", "- My own fact [source: https://e.com/s/3]")
    commit_all(mine, "me: fact")
    app = app_for([mine], poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        await pilot.press("S")
        await wait_for(
            pilot, lambda: any(str(n.title).startswith("Sync:") for n in notes(app)), timeout=30, what="sync result"
        )
        title = next(str(n.title) for n in notes(app) if str(n.title).startswith("Sync:"))
        assert title == "Sync: synced", [str(n.message) for n in notes(app)]
    server_text = git_server.read("mem", "MEMORY.md")
    assert "Agent fact from another clone" in server_text and "My own fact" in server_text


@pytest.mark.slow
async def test_sync_conflict_resolved_per_entry(git_server, tmp_path):
    url = git_server.create("mem", {"MEMORY.md": BASE}, work=tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    mine = clone(url, tmp_path / "a" / "mem", name="Me", driver=True)
    other = clone(url, tmp_path / "b" / "mem", name="Agent", driver=True)
    replace_line(
        other,
        "MEMORY.md",
        "- Deploys happen on Tuesdays [source: https://e.com/s/1]",
        "- Deploys happen on Wednesdays [source: https://e.com/s/1]",
    )
    commit_all(other, "agent: deploy day")
    git(other, "push", "-q", "origin", "main")
    replace_line(
        mine,
        "MEMORY.md",
        "- Deploys happen on Tuesdays [source: https://e.com/s/1]",
        "- Deploys happen on Thursdays [source: https://e.com/s/1]",
    )
    commit_all(mine, "me: deploy day")
    app = app_for([mine], poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        await pilot.press("S")
        await wait_for(pilot, lambda: isinstance(app.screen, SyncConflictScreen), timeout=30, what="conflict view")
        await wait_for(
            pilot, lambda: "Wednesdays" in screen_text(app) and "Thursdays" in screen_text(app), what="both sides shown"
        )
        assert git(mine, "status", "--porcelain") == ""  # nothing half-merged while the user decides
        await pilot.press("t")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, SyncConflictScreen), timeout=30, what="resolved")
        await wait_for(pilot, lambda: "Wednesdays" in git_server.read("mem", "MEMORY.md"), timeout=30, what="pushed")
    assert "Thursdays" not in (mine / "MEMORY.md").read_text()


@pytest.mark.slow
async def test_share_screen_partial_share_and_preview(tmp_path):
    vm = tmp_path / "vm"
    build_demo(vm)
    app = app_for([vm], poll_interval=60)
    out = tmp_path / "session"
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        await pilot.press("P")
        await wait_for(pilot, lambda: isinstance(app.screen, ShareScreen), what="share screen")
        sel = app.screen.query_one(SelectionList)
        values = [sel.get_option_at_index(i).value for i in range(sel.option_count)]
        for wanted in ("memory-alice:MEMORY.md", "memory-alice:projects"):
            sel.select(sel.get_option_at_index(values.index(wanted)))
        await wait_for(pilot, lambda: "an agent loads" in screen_text(app), timeout=15, what="preview")
        assert "dangling" in screen_text(app)  # MEMORY.md links to files that are not shared
        # ticked and unticked rows differ by glyph, not only by colour
        lists = [line.split("\u258e")[0] for line in screen_text(app).splitlines() if "\u258c" in line]
        rows: dict[str, str] = {}  # name -> its box, memory-alice's rows (the first of each name)
        for row in lists:
            rows.setdefault(row.split()[-1], row.split("\u258c")[0])
        assert rows["MEMORY.md"].endswith("\u2714") and rows["projects/"].endswith("\u2714"), rows
        assert rows["team_structure.md"].endswith("\u2590 "), rows  # an empty box
        app.screen.query_one("#share-dir").value = str(out)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=30, what="the amr mcp line")
        # the line amr share prints: the command that serves only what was shared
        body = app.screen.body
        assert f"  amr mcp {out / 'memory-alice'} --read-only memory-alice" in body.splitlines()
        assert '"mcpServers": {"amr-share"' in body
        await pilot.press("y")
        command = f"amr mcp {out / 'memory-alice'} --read-only memory-alice"
        await wait_for(pilot, lambda: app.clipboard == command, what="the command copied")
        await wait_for(pilot, lambda: not isinstance(app.screen, (ConfirmScreen, ShareScreen)), what="closed")
        # The share flow that opened the screen ends with it (it waited for the screen's answer).
        await wait_for(pilot, lambda: not [w for w in app.workers if w.group.startswith("flow:share")], what="done")
    shared = out / "memory-alice"
    assert (shared / "MEMORY.md").exists() and (shared / "projects" / "payments.md").exists()
    assert not (shared / "team_structure.md").exists()
    objects = git(shared, "rev-list", "--objects", "--all")
    assert "team_structure.md" not in objects and "dev-port.md" not in objects


def _deploy_day_conflict(git_server, tmp_path: Path) -> Path:
    """Two clones of one repo; the agent pushed Wednesday and my clone committed Thursday: S stops on it."""
    url = git_server.create("mem", {"MEMORY.md": BASE}, work=tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    mine = clone(url, tmp_path / "a" / "mem", name="Me", driver=True)
    other = clone(url, tmp_path / "b" / "mem", name="Agent", driver=True)
    old = "- Deploys happen on Tuesdays [source: https://e.com/s/1]"
    replace_line(other, "MEMORY.md", old, "- Deploys happen on Wednesdays [source: https://e.com/s/1]")
    commit_all(other, "agent: deploy day")
    git(other, "push", "-q", "origin", "main")
    replace_line(mine, "MEMORY.md", old, "- Deploys happen on Thursdays [source: https://e.com/s/1]")
    commit_all(mine, "me: deploy day")
    return mine


@pytest.mark.slow
async def test_sync_conflict_edit_prompt_asks_before_dropping_typed_text(git_server, tmp_path):
    """The conflict's "Write the entry as it should be" prompt dropped what was typed on esc and ctrl+q."""
    mine = _deploy_day_conflict(git_server, tmp_path)
    app = app_for([mine], poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        await pilot.press("S")
        await wait_for(pilot, lambda: isinstance(app.screen, SyncConflictScreen), timeout=30, what="conflict view")
        view = app.screen
        prompt, inp = await drive.edit_prompt()
        await pilot.press("escape")  # nothing changed: closes at once
        await wait_for(pilot, lambda: app.screen is view, what="prompt closed")
        prompt, inp = await drive.edit_prompt()
        inp.value = "- Deploys happen on Fridays [source: https://e.com/s/1]"
        await pilot.press("escape")
        await drive.asked("Discard what you typed?")
        await pilot.press("n")  # Keep editing
        await wait_for(pilot, lambda: app.screen is prompt, what="back in the prompt")
        assert "Fridays" in inp.value and inp.has_focus
        await pilot.press("ctrl+q")
        dialog = await drive.asked("Quit and discard 1 unsaved edit?")
        assert "mem/MEMORY.md: the entry you are writing for a sync conflict" in dialog.body
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is prompt, what="back in the prompt")
        assert app.return_code is None and "Fridays" in inp.value
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is view, what="back in the conflict view")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "Fridays" in git_server.read("mem", "MEMORY.md"), timeout=30, what="pushed")


@pytest.mark.slow
async def test_leaving_the_sync_conflict_view_asks_before_dropping_an_entry_written_there(git_server, tmp_path):
    """esc ("Leave for later") dropped the entries written with e without asking; ctrl+q did not count them."""
    mine = _deploy_day_conflict(git_server, tmp_path)
    app = app_for([mine], poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        await pilot.press("S")
        await wait_for(pilot, lambda: isinstance(app.screen, SyncConflictScreen), timeout=30, what="conflict view")
        view = app.screen
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="the edit prompt")
        inp = app.screen.query_one("#prompt-input")
        await wait_for(pilot, lambda: inp.has_focus, what="prompt focus")
        inp.value = "- Deploys happen on Fridays [source: https://e.com/s/1]"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is view, what="back in the conflict view")
        await pilot.press("escape")
        await drive.asked("Leave for later and discard what you wrote?")
        await pilot.press("n")  # Keep resolving
        await wait_for(pilot, lambda: app.screen is view, what="still in the conflict view")
        await pilot.press("ctrl+q")
        dialog = await drive.asked("Quit and discard 1 unsaved edit?")
        assert "mem/MEMORY.md: an entry you wrote for a sync conflict" in dialog.body
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is view, what="back in the conflict view")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "Fridays" in git_server.read("mem", "MEMORY.md"), timeout=30, what="pushed")
