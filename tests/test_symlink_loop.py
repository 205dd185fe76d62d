"""A symlink loop in a memory repo (``ln -s self.md self.md``, tracked or not) is a finding, never a
crash (issue 28 point 4): lint, search, the agent interface's load and the app all answer."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from amr_tui.services.agent.memory import AgentMemory
from amr_tui.services.workspace import discover, listed_as, scan_files
from tests.driver import AppDriver, app_for


@pytest.fixture
def looped(make_repo) -> Path:
    root = make_repo(
        "memory", {"MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n", "notes.md": "# Notes\n\n- a fact\n"}
    )
    os.symlink("self.md", root / "self.md")
    os.symlink("b.md", root / "a.md")
    os.symlink("a.md", root / "b.md")
    (root / "dir").mkdir()
    os.symlink("../dir/loop", root / "dir" / "loop")
    return root


def _amr(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "amr_tui", *args], cwd=root, capture_output=True, text=True, timeout=120
    )


def test_the_walk_lists_loops_as_never_followed(looped: Path) -> None:
    files, escaping, _stats = scan_files(looped)
    assert {"self.md", "a.md", "b.md", "dir/loop"} <= escaping
    assert listed_as(looped, "self.md") == "escaping"


def test_lint_and_search_answer_with_a_finding(looped: Path) -> None:
    lint = _amr(looped, "lint", ".")
    assert "Traceback" not in lint.stderr, lint.stderr
    assert "self.md: AMR012" in lint.stdout and "round in a loop" in lint.stdout
    found = _amr(looped, "search", "fact")
    assert found.returncode == 0 and "Traceback" not in found.stderr, found.stderr
    assert "notes.md:3" in found.stdout


def test_memory_load_answers(looped: Path) -> None:
    memory = AgentMemory(discover([looped]))
    try:
        loaded = memory.load()
        assert loaded.repos[0].index[0].path == "notes.md"
        assert memory.read("memory", "notes.md").entries[0].text == "a fact"
    finally:
        memory.close()


@pytest.fixture
def app(looped: Path):
    return app_for([looped], poll_interval=60)


async def test_the_app_opens_past_loading(driver: AppDriver) -> None:
    await driver.shown("# Memory")
    await driver.settled()
    assert "Loading memory" not in str(driver.screen.query_one("#status").render())
