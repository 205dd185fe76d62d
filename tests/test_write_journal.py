"""A write killed half way is repaired at the next start, and said so (issue 38 point 4).

Undoing a forget changes two files (the fact back into MEMORY.md, the tombstone out of
``.amr/forgotten.md``). The gate brings them forward one by one: a process killed between the
two left the tombstone gone and the fact not back, with HEAD still at the forget, which amr then
took for someone else's uncommitted change (``U``, or an agent's ``git commit -a``, would have
committed it). The gate now keeps the write's intent in the user data folder while it changes the
work tree; the next start (the app's and ``amr mcp``'s session, or any write) takes the change
back out (its commit had not landed) or finishes it (it had), and says what it did.

The processes here kill themselves (``os._exit``) at an exact step of the gate
(``gate.observe_steps``); ``scripts/kill_undo.py`` is the random SIGKILL run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from amr_tui.core.tombstones import TOMBSTONE_PATH
from amr_tui.services import writegate
from amr_tui.services.agent.memory import AgentMemory
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import discover
from tests.conftest import git

FACT = "- The deploy key rotates every 90 days [source: https://example.com/ops/keys]"
AGENT = "- An agent's fact, not committed yet\n"
MEMORY = f"# Memory\n\n{FACT}\n- The build runs on Fridays\n\n## Index\n"
TOMBS = "# Forgotten facts\n\n- The old port was 3001 [forgotten: 2026-09-01; reason: moved]\n"

# Forget FACT, then undo the forget, and die at the N-th time the undo's gate reaches STEP.
KILLED_UNDO = """
import os, sys
from pathlib import Path
from amr_tui.git.gate import observe_steps
from amr_tui.services.history.forgotten import forget
from amr_tui.services.session.session import Session
from amr_tui.services.undo import undo
from amr_tui.services.workspace import discover
root, step, nth, fact = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
session = Session(discover([Path(root)]))
lines = (Path(root) / "MEMORY.md").read_text().splitlines()
done = forget(session.history("memory"), "MEMORY.md", lines.index(fact) + 1, raw=fact, reason="test")
seen = []
def die(name):
    if name == step:
        seen.append(name)
        if len(seen) == nth:
            os._exit(9)
with observe_steps(die):
    undo(session, "memory", done.oid)
"""


@pytest.fixture
def repo(make_repo) -> Path:
    root = make_repo(files={"MEMORY.md": MEMORY, TOMBSTONE_PATH: TOMBS})
    with open(root / "MEMORY.md", "a") as f:
        f.write(AGENT)  # an agent's uncommitted edit in the same file: the case that went wrong
    return root


def _killed_undo(root: Path, step: str, nth: int) -> str:
    """Run the undo in a process that dies at that step; returns the forget commit (HEAD)."""
    res = subprocess.run(
        [sys.executable, "-c", KILLED_UNDO, str(root), step, str(nth), FACT],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)},
    )
    assert res.returncode == 9, res.stderr.decode()[-2000:]
    lock = root / ".git" / "index.lock"
    assert lock.exists()  # stale: amr never deletes it
    return git(root, "rev-parse", "HEAD").strip()


def _as_committed_plus_the_agents_line(root: Path) -> None:
    assert (root / "MEMORY.md").read_text() == git(root, "show", "HEAD:MEMORY.md") + AGENT
    assert (root / TOMBSTONE_PATH).read_text() == git(root, "show", f"HEAD:{TOMBSTONE_PATH}")
    assert git(root, "diff", "--cached") == ""  # the index stages nothing of amr's
    assert git(root, "status", "--porcelain").strip() == "M MEMORY.md"  # the agent's line only


def test_an_undo_killed_between_its_two_files_is_taken_back_at_the_next_start(repo: Path) -> None:
    forgot = _killed_undo(repo, "written", 1)  # the tombstone file is written, MEMORY.md not yet
    tomb = (repo / TOMBSTONE_PATH).read_text()
    assert "deploy key" not in tomb and FACT not in (repo / "MEMORY.md").read_text()  # half done
    (repo / ".git" / "index.lock").unlink()  # the person, after amr's message
    session = Session(discover([repo]))
    session.scan()  # the next start
    assert git(repo, "rev-parse", "HEAD").strip() == forgot  # the undo did not commit
    _as_committed_plus_the_agents_line(repo)  # the tombstone is back, the fact still forgotten
    (said,) = session.repairs
    assert "before it committed" in said and "took that change back out of" in said and TOMBSTONE_PATH in said


def test_an_undo_killed_after_staging_is_taken_back_index_too(repo: Path) -> None:
    forgot = _killed_undo(repo, "staged", 1)  # both files written, the index swapped in, no ref move
    assert git(repo, "diff", "--cached", "--name-only").split() != []  # amr's change staged
    (repo / ".git" / "index.lock").unlink()
    memory = AgentMemory(discover([repo]))  # amr mcp's start
    try:
        note = memory.load().note
    finally:
        memory.close()
    assert git(repo, "rev-parse", "HEAD").strip() == forgot
    _as_committed_plus_the_agents_line(repo)
    assert "took that change back out of" in note


def test_an_undo_killed_after_its_commit_landed_needs_nothing(repo: Path) -> None:
    _killed_undo(repo, "moved", 1)
    (repo / ".git" / "index.lock").unlink()
    assert git(repo, "log", "-1", "--format=%s").startswith("Undo")
    session = Session(discover([repo]))
    session.scan()
    assert session.repairs == []  # every file was already as the commit says
    _as_committed_plus_the_agents_line(repo)
    assert FACT in (repo / "MEMORY.md").read_text()
    assert not writegate.journal().file_for(repo / ".git").exists()


@pytest.mark.slow  # the start waits out the git lock timeout (3 s) on the stale index.lock
def test_while_the_stale_lock_is_there_the_start_says_so_and_writes_nothing(repo: Path) -> None:
    _killed_undo(repo, "written", 1)
    before = {p: (repo / p).read_bytes() for p in ("MEMORY.md", TOMBSTONE_PATH)}
    session = Session(discover([repo]))
    session.scan()
    (said,) = session.repairs
    assert "index.lock is still there" in said
    assert {p: (repo / p).read_bytes() for p in before} == before
    (repo / ".git" / "index.lock").unlink()
    again = Session(discover([repo]))
    again.scan()
    assert again.repairs and "took that change back" in again.repairs[0]
    _as_committed_plus_the_agents_line(repo)


def test_the_next_write_repairs_first_and_the_command_line_says_so(repo: Path) -> None:
    _killed_undo(repo, "written", 1)
    (repo / ".git" / "index.lock").unlink()
    res = subprocess.run(
        [sys.executable, "-m", "amr_tui", "undo"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)},
    )
    assert res.returncode == 0, res.stderr
    assert "before it committed" in res.stderr  # the repair, said on stderr
    assert FACT in (repo / "MEMORY.md").read_text()  # then the undo itself, whole
    assert "deploy key" not in (repo / TOMBSTONE_PATH).read_text()
    assert git(repo, "status", "--porcelain").strip() == "M MEMORY.md"


def test_opening_a_repo_with_no_write_left_writes_nothing(repo: Path) -> None:
    folder = writegate.journal().folder
    Session(discover([repo])).scan()
    assert not folder.exists() or list(folder.iterdir()) == []
