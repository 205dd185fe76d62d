"""``amr history FILE:LINE`` on a line that is not an entry says so (exit 2, stderr) instead of
printing a timeline for the heading or blank line. Real repo, amr run as a process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.historyhelpers import new_repo
from tests.hostilehelpers import run_amr

MEMORY = "# Memory\n\n- Joe leads the team\n\nSome prose.\n\n## Index\n"


@pytest.mark.parametrize(("line", "what"), [(1, "a heading"), (2, "a blank line"), (5, "not an entry")])
def test_a_line_that_is_not_an_entry_is_refused(tmp_path: Path, line: int, what: str) -> None:
    repo = new_repo(tmp_path / "memory", {"MEMORY.md": MEMORY})
    run = run_amr(["history", f"MEMORY.md:{line}"], cwd=repo)
    assert run.returncode == 2, run
    assert f"MEMORY.md:{line} is not an entry" in run.stderr and what in run.stderr, run.stderr
    assert run.stdout == ""
    as_json = run_amr(["history", f"MEMORY.md:{line}", "--json"], cwd=repo)
    assert as_json.returncode == 2 and as_json.stdout == ""


def test_an_entry_line_still_has_its_timeline(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "memory", {"MEMORY.md": MEMORY})
    run = run_amr(["history", "MEMORY.md:3"], cwd=repo)
    assert run.returncode == 0, run
    assert "Joe leads the team" in run.stdout and "added" in run.stdout
