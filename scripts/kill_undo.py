"""SIGKILL during ``amr undo`` of a forget (issue 38 point 4): no half-done write is left for
someone else to commit.

Forgetting an entry changes two files in one commit (the entry leaves ``MEMORY.md``, its
tombstone joins ``.amr/forgotten.md``); undoing the forget changes both back. The write gate
brings work-tree files forward one by one, so a process killed between the two used to leave the
tombstone gone from the work tree while the fact was not back, with HEAD still at the forget:
amr then took the half-done state for someone else's uncommitted change, and ``U`` (or an
agent's ``git commit -a``) would have committed it.

A child process opens the repo the way the app does (``Session``: its start repairs a write a
killed process left half done, and says so), then forgets one entry and undoes the forget, over
and over, through the real services (``history.forgotten.forget``, ``services.undo.undo``).
``MEMORY.md`` holds an agent's uncommitted line all along (the case that failed). The child
prints each step of the gate (``gate.observe_steps``); the parent SIGKILLs it 0-5 ms after one
of the undo's steps under ``index.lock`` (chosen at random: the first or second file read or
written, the index swapped in), removes the stale ``index.lock`` as a person would (amr never
deletes a lock), and checks the repo twice: right after the kill, and after the next child's
start. Each time it counts

* ``half_done``: the work tree holds the tombstone and the fact together, or neither;
* ``uncommitted_amr``: the work tree or the index differs from HEAD by more than the agent's
  line (amr's own change left uncommitted, which ``U`` or ``git commit -a`` would commit);
* ``agent_line_lost``: the agent's uncommitted line is gone from the file, or was committed.

Usage: ``python scripts/kill_undo.py [--kills 40] [--entries 400] [--seed 1] [--clean]``
(``--clean``: no agent line in the file). Prints a JSON summary; exit 1 when anything is bad
after the next start. A bad state left after the next start is counted, then cleared (the work
tree and index reset to HEAD plus the agent's line), so each kill counts on its own.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ENV = {
    "GIT_AUTHOR_NAME": "Undoer",
    "GIT_AUTHOR_EMAIL": "undoer@example.test",
    "GIT_COMMITTER_NAME": "Undoer",
    "GIT_COMMITTER_EMAIL": "undoer@example.test",
}
TARGET = "- The deploy key rotates every 90 days [source: https://example.com/ops/keys]"
AGENT_LINE = "- An agent's fact, not committed yet"
TOMB = ".amr/forgotten.md"
# Where to kill: (gate step, which occurrence) of the undo's write (git/gate.py STEPS)
CUES = [("locked", 1), ("read", 1), ("written", 1), ("read", 2), ("written", 2), ("staged", 1)]


def child(root: str) -> None:
    """Start as the app does, say what the start repaired, wait for "go", then forget TARGET and
    undo the forget again and again. Never returns."""
    from amr_tui.git.gate import observe_steps
    from amr_tui.services.history.forgotten import forget
    from amr_tui.services.session.session import Session
    from amr_tui.services.undo import undo
    from amr_tui.services.workspace import discover

    session = Session(discover([Path(root)]))
    session.scan()  # the start: sweeps leftovers, repairs a half-done write
    for note in getattr(session, "repairs", []):
        print("repaired " + note.replace("\n", " "), flush=True)
    name = session.names[0]
    print("ready", flush=True)
    sys.stdin.readline()  # "go"

    def cue(step: str) -> None:
        print(f"step {step}", flush=True)  # the gate's steps: the parent kills right after one

    with observe_steps(cue):
        _loop(session, name, root, forget, undo)


def _loop(session: Any, name: str, root: str, forget: Any, undo: Any) -> None:
    n = 0
    while True:
        data = (Path(root) / "MEMORY.md").read_text()
        lines = data.splitlines()
        if TARGET in lines:
            done = forget(session.history(name), "MEMORY.md", lines.index(TARGET) + 1, raw=TARGET, reason="probe")
            oid = done.oid
        else:  # a kill right after the forget: undo the forget HEAD holds
            oid = _git(Path(root), "rev-parse", "HEAD").stdout.decode().strip()
        print(f"begin {n}", flush=True)
        undo(session, name, oid)
        n += 1
        print(f"undone {n}", flush=True)


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, check=check, env={**os.environ, **ENV})


def make_repo(base: Path, entries: int, clean: bool) -> Path:
    root = base / "memory"
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    facts = "".join(f"- Fact number {i} about the build [source: https://example.com/f/{i}]\n" for i in range(entries))
    (root / "MEMORY.md").write_text(f"# Memory\n\n{TARGET}\n{facts}\n## Index\n")
    _git(root, "add", "--", "MEMORY.md")
    _git(root, "commit", "-q", "-m", "Create memory repo")
    if not clean:
        with open(root / "MEMORY.md", "a") as f:
            f.write(AGENT_LINE + "\n")
    return root


def reset(root: Path, clean: bool) -> None:
    """The work tree and index as HEAD holds them, plus the agent's uncommitted line."""
    _git(root, "reset", "-q")
    for rel in ("MEMORY.md", TOMB):
        shown = _git(root, "cat-file", "blob", f"HEAD:{rel}", check=False)
        if shown.returncode == 0:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(shown.stdout)
        else:
            (root / rel).unlink(missing_ok=True)
    if not clean:
        with open(root / "MEMORY.md", "a") as f:
            f.write(AGENT_LINE + "\n")


def check(root: Path, clean: bool) -> dict[str, int]:
    """The bad states of the repo as it is now (see the module docstring)."""
    out = {"half_done": 0, "uncommitted_amr": 0, "agent_line_lost": 0}
    disk = (root / "MEMORY.md").read_text()
    tomb = (root / TOMB).read_text() if (root / TOMB).exists() else ""
    fact_there = TARGET in disk.splitlines()
    tomb_there = "deploy key rotates" in tomb
    if fact_there == tomb_there:
        out["half_done"] = 1
    if not clean:
        if AGENT_LINE not in disk.splitlines():
            out["agent_line_lost"] = 1
        disk = disk.replace(AGENT_LINE + "\n", "")
    for rel, now in (("MEMORY.md", disk), (TOMB, tomb if (root / TOMB).exists() else None)):
        head = _git(root, "cat-file", "blob", f"HEAD:{rel}", check=False)
        committed = head.stdout.decode() if head.returncode == 0 else None
        staged = _git(root, "cat-file", "blob", f":{rel}", check=False)
        index = staged.stdout.decode() if staged.returncode == 0 else None
        if now != committed or index != committed:
            out["uncommitted_amr"] = 1
    if not clean and AGENT_LINE in (_git(root, "show", "HEAD:MEMORY.md").stdout.decode()):
        out["agent_line_lost"] = 1
    return out


def run_kills(
    kills: int,
    entries: int = 400,
    seed: int = 1,
    clean: bool = False,
    base: Path | None = None,
    max_wait: float = 0.005,
) -> dict[str, object]:
    rng = random.Random(seed)
    base = Path(base or tempfile.mkdtemp(prefix="amr-kill-undo-"))
    root = make_repo(base, entries, clean)
    after_kill = {"half_done": 0, "uncommitted_amr": 0, "agent_line_lost": 0}
    after_start = dict(after_kill)
    stats: dict[str, object] = {"kills": 0, "killed_mid_undo": 0, "stale_index_lock": 0, "repaired_at_start": 0}
    events: list[str] = []
    env = {**os.environ, **ENV, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}

    def start() -> tuple[subprocess.Popen[bytes], list[str]]:
        proc = subprocess.Popen(
            [sys.executable, __file__, "--child", str(root)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        assert proc.stdout is not None
        notes = []
        while True:
            line = proc.stdout.readline()
            if line.startswith(b"repaired "):
                notes.append(line[len(b"repaired ") :].decode().strip())
                continue
            if not line.startswith(b"ready"):
                raise RuntimeError(f"child did not start: {line!r} {proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            return proc, notes

    proc, _notes = start()
    for k in range(kills):
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(b"go\n")
        proc.stdin.flush()
        for _skip in range(rng.randrange(2)):  # let an undo complete now and then
            proc.stdout.readline()
        began = proc.stdout.readline()
        while began and not began.startswith(b"begin"):
            began = proc.stdout.readline()
        # The undo's gate: kill right after one of its steps under index.lock (the first or
        # second file read or written, the index swapped in), a moment later.
        step, nth = rng.choice(CUES)
        seen = 0
        while seen < nth:
            line = proc.stdout.readline()
            if not line or line.startswith(b"undone"):
                break
            seen += line.strip() == f"step {step}".encode()
        time.sleep(rng.uniform(0, max_wait))
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        if b"Traceback" in err:
            stats["child_errors"] = int(stats.get("child_errors", 0)) + 1  # type: ignore[call-overload]
            stats["last_child_error"] = err.decode("utf-8", "replace")[-800:]
        stats["kills"] = k + 1
        if b"undone" not in out.split(b"begin")[-1]:
            stats["killed_mid_undo"] = int(stats["killed_mid_undo"]) + 1  # type: ignore[call-overload]
        lock = root / ".git" / "index.lock"
        if lock.exists():
            stats["stale_index_lock"] = int(stats["stale_index_lock"]) + 1  # type: ignore[call-overload]
            lock.unlink()  # the person, after amr's message; amr itself never deletes it
        for p in [root / ".git" / "HEAD.lock", *(root / ".git" / "refs").rglob("*.lock")]:
            p.unlink(missing_ok=True)
        bad = check(root, clean)
        for key, n in bad.items():
            after_kill[key] += n
        proc, notes = start()  # the next start
        if notes:
            stats["repaired_at_start"] = int(stats["repaired_at_start"]) + 1  # type: ignore[call-overload]
        again = check(root, clean)
        for key, n in again.items():
            after_start[key] += n
        if any(again.values()):
            events.append(f"kill {k + 1}: after the next start {again} (right after the kill {bad}); notes {notes}")
            reset(root, clean)  # each kill on its own: a bad state left is counted once, then cleared
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
    fsck = _git(root, "fsck", "--no-dangling", check=False)
    stats["fsck_errors"] = 0 if fsck.returncode == 0 else 1
    stats["after_kill"] = after_kill
    stats["after_next_start"] = after_start
    stats["events"] = events
    stats["root"] = str(root)
    return stats


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--kills", type=int, default=40)
    parser.add_argument("--entries", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clean", action="store_true", help="no agent line in the file")
    parser.add_argument("--child", metavar="ROOT")
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return 0
    stats = run_kills(args.kills, args.entries, args.seed, args.clean)
    print(json.dumps(stats, indent=2))
    after = stats["after_next_start"]
    assert isinstance(after, dict)
    return 1 if any(after.values()) or stats["fsck_errors"] or stats.get("child_errors") else 0


if __name__ == "__main__":
    sys.exit(main())
