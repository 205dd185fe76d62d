"""Soak (issue 7, part 5): agents committing every 100 ms while amr saves edits, counted.

Four agent processes (plain git, like real agents) each append a fact every ~100 ms, mostly to
their own file and sometimes to the shared notes.md, and commit it (``git commit -- FILE``); a
lost race (index.lock, a moved branch, "nothing to commit" because someone else's commit already
carried the fact) is retried until the fact is in a commit. Meanwhile this process makes N saves
through ``services.editing`` (the app's save path): each rewrites one fact line of notes.md or
of an agent's file, chosen at random, so saves race agents on the same files and are merged onto
their commits. A save refused because an agent's write is not committed yet (amr never
overwrites it) or because it conflicts is redone from a fresh open, and counted.

At the end: every agent commit is reachable from the branch (none lost), every agent fact is in
HEAD (none lost), every fact the user edited holds the user's last text (no edit lost), and
``git fsck`` is clean.

Usage: ``python bench/soak_saves.py [--saves 1000] [--agents 4] [--interval 0.1]``; prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FACT = re.compile(r"^- fact (\S+) (\S+) ")
AGENT_ENV = {
    "GIT_AUTHOR_NAME": "Agent",
    "GIT_AUTHOR_EMAIL": "agent@example.test",
    "GIT_COMMITTER_NAME": "Agent",
    "GIT_COMMITTER_EMAIL": "agent@example.test",
}


def fact_line(fid: str, tag: str) -> str:
    return f"- fact {fid} {tag} [source: https://example.com/s/{fid}]"


def facts(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        m = FACT.match(line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def git(root: Path, *args: str, check: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in AGENT_ENV}
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=check, env={**env, **AGENT_ENV}
    )


def agent(root: Path, number: int, stop: Path, out: Path, interval: float, seed: int) -> None:
    rng = random.Random(seed * 100 + number)
    commits: list[str] = []
    confirmed: list[tuple[str, str]] = []
    n = 0
    while not stop.exists():
        n += 1
        rel = f"agent-{number}.md" if rng.random() < 0.85 else "notes.md"
        fid = f"a{number}-{n}"
        for _attempt in range(400):
            head_text = git(root, "show", f"HEAD:{rel}").stdout
            if fid in facts(head_text):  # someone's commit (amr's save, another agent) carried it
                confirmed.append((rel, fid))
                break
            if fid not in facts((root / rel).read_text()):
                with open(root / rel, "a") as f:  # O_APPEND: never overwrites what others wrote
                    f.write(fact_line(fid, "agent") + "\n")
            if True:  # `git commit -- FILE` stages and commits it in one process
                res = git(root, "commit", "-q", "-m", f"agent {number}: fact {n}", "--", rel)
                if res.returncode == 0:
                    oid = git(root, "rev-parse", "HEAD").stdout.strip()
                    if fid in facts(git(root, "show", f"{oid}:{rel}").stdout):
                        commits.append(oid)
            time.sleep(0.01 + rng.random() * 0.02)
        stop.exists() or time.sleep(interval)
    out.write_text(json.dumps({"commits": commits, "facts": confirmed}))


def make_repo(base: Path, agents: int) -> Path:
    root = base / "memory"
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main", check=True)
    files = {
        "MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n" + "".join(f"- [[agent-{i}]]\n" for i in range(agents)),
        "notes.md": "# Notes\n\n" + "".join(fact_line(f"n{i}", "seed") + "\n" for i in range(60)),
    }
    for i in range(agents):
        files[f"agent-{i}.md"] = f"# Agent {i}\n\n" + "".join(fact_line(f"s{i}-{j}", "seed") + "\n" for j in range(20))
    for rel, text in files.items():
        (root / rel).write_text(text)
    git(root, "add", "--", *files, check=True)
    git(root, "commit", "-q", "-m", "Create memory repo", check=True)
    return root


def run_soak(
    saves: int = 1000, agents: int = 4, interval: float = 0.1, seed: int = 1, base: Path | None = None
) -> dict:
    from amr_tui.git import ConflictError, DirtyFileError, RefMovedError
    from amr_tui.services.session import editing
    from amr_tui.services.session.session import Session
    from amr_tui.services.workspace import discover

    rng = random.Random(seed)
    base = Path(base or tempfile.mkdtemp(prefix="amr-soak-"))
    root = make_repo(base, agents)
    stop = base / "stop"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--agent",
                str(i),
                "--root",
                str(root),
                "--stop",
                str(stop),
                "--out",
                str(base / f"agent-{i}.json"),
                "--interval",
                str(interval),
                "--seed",
                str(seed),
            ],
            env=env,
        )
        for i in range(agents)
    ]
    session = Session(discover([root]))
    session.load()
    name = session.names[0]
    editing.DIRTY_RETRIES = 4  # reopen and redo sooner than the app's 6 s wait (counted as dirty_retried)
    mine: dict[tuple[str, str], str] = {}  # (file, fact id) -> the user's last saved tag
    stats = {"saves": 0, "conflicts_retried": 0, "dirty_retried": 0, "ref_moved_retried": 0, "gave_up": 0}
    started = time.monotonic()
    try:
        for k in range(saves):
            rel = "notes.md" if rng.random() < 0.7 else f"agent-{rng.randrange(agents)}.md"
            for _attempt in range(100):
                of = session.open(name, rel)
                entries = [e for e in of.doc.entries if FACT.match(of.doc.lines[e.line - 1].text)]
                entry = rng.choice(entries)
                fid = FACT.match(of.doc.lines[entry.line - 1].text).group(1)
                tag = f"u{k}"
                try:
                    editing.replace_entry_line(session, of, entry.line, fact_line(fid, tag))
                except ConflictError:
                    stats["conflicts_retried"] += 1  # the app shows both sides; here: reopen, redo
                    continue
                except DirtyFileError:
                    stats["dirty_retried"] += 1
                    continue
                except RefMovedError:
                    stats["ref_moved_retried"] += 1  # lost every compare-and-swap race: save again
                    continue
                mine[(rel, fid)] = tag
                stats["saves"] += 1
                break
            else:
                stats["gave_up"] += 1
    finally:
        stop.write_text("stop")
        for p in procs:
            p.wait(timeout=120)
    elapsed = time.monotonic() - started
    agent_commits: list[str] = []
    agent_facts: list[tuple[str, str]] = []
    for i in range(agents):
        data = json.loads((base / f"agent-{i}.json").read_text())
        agent_commits += data["commits"]
        agent_facts += [tuple(x) for x in data["facts"]]
    lost_commits = [c for c in agent_commits if git(root, "merge-base", "--is-ancestor", c, "HEAD").returncode != 0]
    head = {
        rel: facts(git(root, "show", f"HEAD:{rel}").stdout)
        for rel in {"notes.md", *(f"agent-{i}.md" for i in range(agents))}
    }
    lost_agent_facts = [f for f in agent_facts if f[1] not in head[f[0]]]
    lost_edits = [(rel, fid, tag) for (rel, fid), tag in mine.items() if head[rel].get(fid) != tag]
    status = git(root, "status", "--porcelain").stdout
    return {
        **stats,
        "agents": agents,
        "agent_commits": len(agent_commits),
        "agent_facts": len(agent_facts),
        "lost_agent_commits": len(lost_commits),
        "lost_agent_facts": len(lost_agent_facts),
        "lost_user_edits": len(lost_edits),
        "commits_total": int(git(root, "rev-list", "--count", "HEAD").stdout.strip()),
        "fsck_clean": git(root, "fsck", "--no-dangling").returncode == 0,
        "status_clean": status == "",
        "seconds": round(elapsed, 1),
        "examples": {
            "lost_commits": lost_commits[:3],
            "lost_facts": lost_agent_facts[:3],
            "lost_edits": lost_edits[:3],
            "status": status[:300],
        },
        "root": str(root),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=1000)
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--interval", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--agent", type=int)
    parser.add_argument("--root")
    parser.add_argument("--stop")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.agent is not None:
        agent(Path(args.root), args.agent, Path(args.stop), Path(args.out), args.interval, args.seed)
        return 0
    result = run_soak(args.saves, args.agents, args.interval, args.seed)
    print(json.dumps(result, indent=2))
    lost = result["lost_agent_commits"] + result["lost_agent_facts"] + result["lost_user_edits"]
    return 1 if lost or not result["fsck_clean"] else 0


if __name__ == "__main__":
    sys.exit(main())
