"""Forgetting an entry that holds a credential (issue 38 point 3): the tombstone keeps a digest of
it, never the value, whichever way it is forgotten (``amr forget``, MCP ``memory_forget``, the
app's default ``x``), and the user is told that git history still holds it and how to purge it
(amr itself never rewrites history)."""

from __future__ import annotations

from pathlib import Path

import pytest

from amr_tui.cli.main import main
from amr_tui.core.tombstones import TOMBSTONE_PATH, parse_tombstones
from amr_tui.screens.dialogs import ChoiceScreen, PromptScreen
from amr_tui.services.agent.memory import AgentMemory, Writer
from amr_tui.services.workspace import discover
from tests.conftest import git
from tests.driver import WIDE_SIZE, app_for, notes, running, wait_for

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"  # a GitHub token's shape
SECRET_LINE = f"- The deploy token is {TOKEN} for CI [source: https://example.com/ci]"
MEMORY = f"# Memory\n\n{SECRET_LINE}\n- The build runs on Fridays\n\n## Index\n"


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo(files={"MEMORY.md": MEMORY})


def _check_redacted(root: Path) -> None:
    assert TOKEN not in (root / TOMBSTONE_PATH).read_text()
    assert TOKEN not in git(root, "show", f"HEAD:{TOMBSTONE_PATH}")  # not in HEAD either
    assert TOKEN not in git(root, "show", "HEAD:MEMORY.md")
    assert TOKEN not in git(root, "log", "-1", "--format=%B")
    (stone,) = parse_tombstones((root / TOMBSTONE_PATH).read_bytes())
    assert stone.redacted and stone.digest.startswith("sha256:")
    assert git(root, "status", "--porcelain") == ""


def test_amr_forget_of_a_credential_keeps_only_a_digest(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["forget", f"{repo}/MEMORY.md:3", "--reason", f"leaked {TOKEN}"]) == 0
    out = capsys.readouterr().out
    _check_redacted(repo)
    assert TOKEN not in out
    assert "git history still holds" in out and "git filter-repo --replace-text" in out and "BFG" in out


def test_memory_forget_of_a_credential_keeps_only_a_digest(repo: Path) -> None:
    memory = AgentMemory(discover([repo]))
    try:
        read = memory.read("memory", "MEMORY.md")
        entry = next(e for e in read.entries if TOKEN in e.raw)
        reply = memory.forget("memory", "MEMORY.md", entry.line, entry.hash, "leaked", Writer("agent", "s1"))
    finally:
        memory.close()
    assert reply.status == "written", reply.message
    assert "redacted" in reply.message and "git history still holds" in reply.message
    _check_redacted(repo)


@pytest.mark.slow
async def test_the_apps_default_forget_of_a_credential_keeps_only_a_digest(repo: Path) -> None:
    app = app_for([repo], poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        await drive.to_first_entry()
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="forget mode")
        await pilot.press("enter")  # the default: "Forget it and record a tombstone"
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="reason")
        await pilot.press("enter")
        await wait_for(pilot, lambda: TOKEN not in (repo / "MEMORY.md").read_text(), what="forgotten")
        await wait_for(pilot, lambda: git(repo, "status", "--porcelain") == "", what="committed")
        await wait_for(pilot, lambda: any("git history still holds" in str(n.message) for n in notes(app)), what="told")
    _check_redacted(repo)
