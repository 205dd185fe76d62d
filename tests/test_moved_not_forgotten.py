"""An entry moved to another mounted repo is not a forgotten fact (``amr forgotten``, the app's F list).

A move between two repos is two commits (the copy lands in B, then the removal in A); the
removal carries ``Moved-to: B/path`` and the deletion log treats it as a move. Real repos, a real
session and agent interface, ``amr`` run as a process; no mocks."""

from __future__ import annotations

import json
from pathlib import Path

from amr_tui.services.agent.memory import AgentMemory, Writer
from amr_tui.services.history.service import HistoryService
from amr_tui.services.session import editing
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import discover
from tests.historyhelpers import commit, git, new_repo
from tests.hostilehelpers import run_amr

MEMORY = (
    "# Memory\n\n- Deploys need two approvals [source: https://example.com/s/1]\n- Joe leads the team\n\n## Index\n"
)
OTHER = "# Memory\n\n- Bob likes tea\n\n## Index\n\n- [[notes]]\n"
NOTES = "# Notes\n\n- an old note\n"


def _pair(tmp_path: Path) -> tuple[Path, Path, Path]:
    folder = tmp_path / "repos"
    a = new_repo(folder / "alice", {"MEMORY.md": MEMORY})
    b = new_repo(folder / "bob", {"MEMORY.md": OTHER, "notes.md": NOTES})
    return folder, a, b


def _texts(root: Path) -> list[str]:
    service = HistoryService(root)
    try:
        return [f.text for f in service.forgotten()]
    finally:
        service.close()


def test_a_move_to_another_mounted_repo_is_not_forgotten(tmp_path: Path) -> None:
    _, a, b = _pair(tmp_path)
    session = Session(discover([a, b]))
    try:
        session.load()
        of = session.open("alice", "MEMORY.md")
        editing.move_entry(session, of, 4, "bob", "notes.md")  # Joe leads the team
    finally:
        session.close()
    assert "- Joe leads the team" in (b / "notes.md").read_text()
    assert "Joe leads the team" not in (a / "MEMORY.md").read_text()
    assert git(a, "log", "-1", "--format=%(trailers:key=Moved-to,valueonly)").strip() == "bob/notes.md"
    assert _texts(a) == []
    run = run_amr(["forgotten", str(a), "--json"], cwd=tmp_path)
    assert run.returncode == 0 and json.loads(run.stdout) == [], run
    # a real deletion next to it still is forgotten
    commit(a, {"MEMORY.md": "# Memory\n\n## Index\n"}, "Drop the approvals rule")
    assert _texts(a) == ["Deploys need two approvals"]


def test_an_agent_move_to_another_repo_is_not_forgotten(tmp_path: Path) -> None:
    _, a, b = _pair(tmp_path)
    memory = AgentMemory(discover([a, b]))
    try:
        read = memory.read("alice", "MEMORY.md")
        entry = next(e for e in read.entries if e.text == "Joe leads the team")
        reply = memory.move("alice", "MEMORY.md", entry.line, entry.hash, "bob", "notes.md", Writer("test-agent", "s1"))
        assert reply.status == "written", reply
    finally:
        memory.close()
    assert "- Joe leads the team" in (b / "notes.md").read_text()
    assert git(a, "log", "-1", "--format=%(trailers:key=Moved-to,valueonly)").strip() == "bob/notes.md"
    assert _texts(a) == []
