"""SIGKILL during large saves (issue 7, part 4): zero torn files, leftovers swept at the next start.

A child process opens a memory repo the way the app does (``Session.load``, which sweeps the
temporary files of earlier interrupted saves) and saves a multi-MB file over and over through
the real save path (``services.editing.write``: merge check, blob, tree, commit, index.lock,
atomic work-tree write, compare-and-swap ref update). The parent SIGKILLs it at a random moment
of a save, then checks:

* the file holds exactly the old or the new bytes (never torn, never missing);
* HEAD's version of the file is one of the versions too, and every commit is readable;
* leftovers (``.amr-tmp-*`` next to the file, ``amr-index-*`` in .git) are counted; they are aged
  and the next child's start must have swept them;
* a stale ``index.lock`` left by the killed process is counted, then removed by the parent (as a
  person would after amr's message: amr never deletes a lock itself);
* the index never stages a revert of HEAD's version (an agent's next ``git commit`` would commit
  it); a kill may leave the edit staged but not committed, which is counted.

Usage: ``python scripts/kill_saves.py [--kills 200] [--mb 3] [--seed 1]``. Prints a JSON summary.
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

REL = "data/big.txt"  # not Markdown: the child spends its time saving, not parsing
ENV = {
    "GIT_AUTHOR_NAME": "Saver",
    "GIT_AUTHOR_EMAIL": "saver@example.test",
    "GIT_COMMITTER_NAME": "Saver",
    "GIT_COMMITTER_EMAIL": "saver@example.test",
}


def versions(mb: int) -> tuple[bytes, bytes]:
    lines = max(1, mb * 1024 * 1024 // 64)
    a = "".join(f"- fact {i:07d} version A [source: https://example.com/a/{i}]\n" for i in range(lines))
    b = a.replace("version A", "version B")
    return a.encode(), b.encode()


def child(root: str, mb: int) -> None:
    """Save REL again and again, flipping between the two versions. Never returns."""
    from amr_tui.services.session import editing
    from amr_tui.services.session.session import Session
    from amr_tui.services.workspace import discover

    a, b = versions(mb)
    session = Session(discover([Path(root)]))
    session.load()
    name = session.names[0]
    print("ready", flush=True)
    n = 0
    while True:
        of = session.open(name, REL)
        new = b if of.data == a else a
        print(f"begin {n}", flush=True)
        editing.write(session, of, new, f"save {n}")
        n += 1
        print(f"saved {n}", flush=True)


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, check=check, env={**os.environ, **ENV})


def make_repo(base: Path, mb: int) -> Path:
    root = base / "memory"
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    (root / "MEMORY.md").write_text("# Memory\n\n## Index\n- [[data/big.txt]]\n")
    (root / REL).parent.mkdir()
    (root / REL).write_bytes(versions(mb)[0])
    _git(root, "add", "--", "MEMORY.md", REL)
    _git(root, "commit", "-q", "-m", "Create memory repo")
    return root


def leftovers(root: Path) -> list[Path]:
    return sorted([*root.rglob(".amr-tmp-*"), *(root / ".git").glob("amr-index-*")])


def run_kills(kills: int, mb: int = 3, seed: int = 1, base: Path | None = None, max_wait: float = 0.12) -> dict:
    rng = random.Random(seed)
    base = Path(base or tempfile.mkdtemp(prefix="amr-kills-"))
    root = make_repo(base, mb)
    a, b = versions(mb)
    stats = {
        "kills": 0,
        "torn": 0,
        "missing": 0,
        "head_torn": 0,
        "killed_mid_save": 0,
        "leftover_files": 0,
        "not_swept": 0,
        "stale_index_lock": 0,
        "stale_ref_lock": 0,
        "edit_staged_not_committed": 0,
        "index_reverts_commit": 0,
        "fsck_errors": 0,
    }
    events: list[str] = []  # what each bad count was, for the message of a failing run
    aged: list[Path] = []
    env = {**os.environ, **ENV, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    for _ in range(kills):
        proc = subprocess.Popen(
            [sys.executable, __file__, "--child", str(root), "--mb", str(mb)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        assert proc.stdout is not None
        line = proc.stdout.readline()
        stats["child_errors"] = stats.get("child_errors", 0)
        if not line.startswith(b"ready"):
            raise RuntimeError(f"child did not start: {line!r} {proc.stderr.read().decode()[-2000:]}")
        unswept = [p.name for p in aged if p.exists()]  # the start must have swept them
        stats["not_swept"] += len(unswept)
        if unswept:
            events.append(f"kill {stats['kills']}: not swept at the next start: {unswept}")
        for _skip in range(rng.randrange(3)):  # let a few saves complete now and then
            proc.stdout.readline()
        began = proc.stdout.readline()  # "begin N": a save is starting now
        time.sleep(rng.uniform(0, max_wait))
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        if b"Traceback" in err:  # a save failed instead of being killed: a bug, or a lock left behind
            stats["child_errors"] += 1
            stats["last_child_error"] = err.decode("utf-8", "replace")[-600:]
        stats["kills"] += 1
        if began.startswith(b"begin") and b"saved " not in out.split(b"begin")[0]:
            stats["killed_mid_save"] += 1
        data = (root / REL).read_bytes() if (root / REL).exists() else None
        if data is None:
            stats["missing"] += 1
            events.append(f"kill {stats['kills']}: {REL} missing")
        elif data not in (a, b):
            stats["torn"] += 1
            events.append(f"kill {stats['kills']}: {REL} torn ({len(data)} bytes)")
        shown = _git(root, "cat-file", "blob", f"HEAD:{REL}", check=False)
        head_blob = shown.stdout
        if head_blob not in (a, b):
            stats["head_torn"] += 1
            events.append(f"kill {stats['kills']}: HEAD:{REL} is {len(head_blob)} bytes: {shown.stderr[-300:]!r}")
        lock = root / ".git" / "index.lock"
        if lock.exists():
            stats["stale_index_lock"] += 1
            lock.unlink()  # the person, after amr's message; amr itself never deletes it
        ref_locks = [root / ".git" / "HEAD.lock", *(root / ".git" / "refs").rglob("*.lock")]
        if any(p.exists() for p in ref_locks):
            stats["stale_ref_lock"] += 1  # killed inside git update-ref: the same message, the same fix
            for p in ref_locks:
                p.unlink(missing_ok=True)
        staged = _git(root, "cat-file", "blob", f":{REL}", check=False).stdout
        if staged != head_blob:
            if staged == data:
                stats["edit_staged_not_committed"] += 1  # killed after the index swap, before the ref moved
            else:
                stats["index_reverts_commit"] += 1  # an agent's next `git commit` would undo the save
                events.append(
                    f"kill {stats['kills']}: the index stages {len(staged)} bytes, HEAD {len(head_blob)}, "
                    f"the file {len(data or b'')}; the child said {out[-300:]!r}"
                )
        found = leftovers(root)
        stats["leftover_files"] += len(found)
        old = time.time() - 3600
        for p in found:
            os.utime(p, (old, old))  # older than a running save could be: the next start sweeps them
        aged = found
    fsck = _git(root, "fsck", "--no-dangling", check=False)
    stats["fsck_errors"] = 0 if fsck.returncode == 0 else 1
    if fsck.returncode:
        events.append(f"git fsck: {fsck.stderr[-600:]!r}")
    stats["events"] = events
    stats["saves_committed"] = int(_git(root, "rev-list", "--count", "HEAD").stdout.strip()) - 1
    stats["root"] = str(root)
    return stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--mb", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--child", metavar="ROOT")
    args = parser.parse_args()
    if args.child:
        child(args.child, args.mb)
        return 0
    stats = run_kills(args.kills, args.mb, args.seed)
    print(json.dumps(stats, indent=2))
    bad = (
        stats["torn"]
        + stats["missing"]
        + stats["head_torn"]
        + stats["not_swept"]
        + stats["fsck_errors"]
        + stats["index_reverts_commit"]
        + stats["child_errors"]
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
