"""Soak: many writers, one memory, a real git server on 127.0.0.1.

Writers, each in its own clone of a repo served by ``git daemon``:

* ``--agents`` agent processes using plain git: every ~100 ms append a fact (to the shared
  ``findings.md`` or their own file), edit one of their facts (its metadata) or delete one, then
  ``git commit``; every ``--sync-every`` seconds ``amr sync`` (the CLI, a real process);
* one writer using amr's save path (``GitRepo.write_files``, what the editor's save calls) while a
  second thread runs ``services.sync.sync`` on the same clone at the same time.

At the end every clone syncs until all agree with the server, then the soak checks: every fact
added and not deliberately deleted exists exactly once on the server's main, every deliberately
deleted fact is gone, every fact's last edit is what the server holds, and every commit any writer
made is reachable from main. It prints writers, commits, saves, syncs, merges and losses.

    .venv/bin/python bench/soak_sync.py --seconds 180 --agents 4       # a few minutes
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AMR = [sys.executable, "-m", "amr_tui"]
BASE_FILES = {
    "MEMORY.md": "# Memory: team\n\n## Index\n- [[findings]]\n",
    "findings.md": "# Findings\n\n- Database: queries are fast [source: https://example.com/s/1]\n",
    ".gitattributes": "*.md merge=amr\n",
}
FACT = re.compile(r"^- (\S+ fact \d+) \[source: [^;\]]*; rev: (\d+)\]$")


def _git(
    cwd: Path, *args: str, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    res = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=120
    )
    if check and res.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {res.stderr}")
    return res


# ---------------------------------------------------------------------------------------------
# An agent (runs in its own process: python bench/soak_sync.py --agent ...)


def agent_main(clone: Path, name: str, seconds: float, sync_every: float, log: Path, seed: int) -> None:
    rng = random.Random(seed)
    alive: dict[str, tuple[str, int]] = {}  # fact -> (file, rev)
    added: list[str] = []
    deleted: list[str] = []
    vanished: list[str] = []
    commits: list[str] = []
    syncs: dict[str, int] = {}
    n = 0
    end = time.monotonic() + seconds
    next_sync = time.monotonic() + rng.uniform(0.2, sync_every)
    while time.monotonic() < end:
        op = rng.choice(["append"] * 5 + ["edit"] * 2 + ["delete"])
        if op == "append" or not alive:
            n += 1
            fact = f"{name} fact {n}"
            rel = rng.choice(["findings.md", f"agents/{name}.md"])
            path = clone / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            old = path.read_text() if path.exists() else f"# {name}\n\n"
            path.write_text(old + f"- {fact} [source: https://example.com/{name}/{n}; rev: 0]\n")
            alive[fact] = (rel, 0)
            added.append(fact)
            message = f"{name}: remember {fact}"
        else:
            fact = rng.choice(sorted(alive))
            rel, rev = alive[fact]
            path = clone / rel
            lines = path.read_text().splitlines(keepends=True)
            idx = next((i for i, ln in enumerate(lines) if ln.startswith(f"- {fact} [")), None)
            if idx is None:  # a merge lost it: record it, the final check reports it
                vanished.append(fact)
                del alive[fact]
                continue
            if op == "edit":
                lines[idx] = lines[idx].replace(f"; rev: {rev}]", f"; rev: {rev + 1}]")
                alive[fact] = (rel, rev + 1)
                message = f"{name}: update {fact}"
            else:
                del lines[idx]
                del alive[fact]
                deleted.append(fact)
                message = f"{name}: forget {fact}"
            path.write_text("".join(lines))
        _git(clone, "add", "-A")
        _git(clone, "commit", "-q", "-m", message)
        commits.append(_git(clone, "rev-parse", "HEAD").stdout.strip())
        if time.monotonic() >= next_sync:
            res = subprocess.run(
                [*AMR, "sync", "--attempts", "8"], cwd=clone, capture_output=True, text=True, timeout=300
            )
            status = res.stdout.split(": ")[1] if res.stdout.count(": ") >= 2 else f"exit {res.returncode}"
            syncs[status] = syncs.get(status, 0) + 1
            next_sync = time.monotonic() + sync_every
        time.sleep(rng.uniform(0.05, 0.15))
    log.write_text(
        json.dumps(
            {
                "name": name,
                "added": added,
                "deleted": deleted,
                "commits": commits,
                "syncs": syncs,
                "vanished": vanished,
                "revs": {f: r for f, (_p, r) in alive.items()},
            }
        )
    )


# ---------------------------------------------------------------------------------------------
# amr's save path + a concurrent in-process sync on the same clone


@dataclass
class SaveWriter:
    clone: Path
    seconds: float
    sync_every: float
    added: list[str] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)
    saves: int = 0
    save_retries: int = 0
    syncs: dict[str, int] = field(default_factory=dict)

    def run(self) -> None:
        stop = threading.Event()
        syncer = threading.Thread(target=self._sync_loop, args=(stop,), daemon=True)
        syncer.start()
        try:
            self._save_loop()
        finally:
            stop.set()
            syncer.join(timeout=300)

    def _save_loop(self) -> None:
        from amr_tui.git import GitRepo
        from amr_tui.git.errors import ConflictError, DirtyFileError, LockedError, RefMovedError
        from amr_tui.git.gate import Change

        repo = GitRepo(self.clone)
        end = time.monotonic() + self.seconds
        n = 0
        while time.monotonic() < end:
            n += 1
            fact = f"user fact {n}"
            line = f"- {fact} [source: https://example.com/user/{n}; rev: 0]\n".encode()
            for _try in range(50):
                head = repo.head()
                base = repo.read_blob_or_none(head, "findings.md")
                try:
                    oid = repo.write_files(
                        [Change("findings.md", base, base + line, head)], f"user: remember {fact}"
                    ).head
                    break
                except (ConflictError, DirtyFileError, LockedError, RefMovedError):
                    self.save_retries += 1
                    time.sleep(0.02)
            else:
                raise RuntimeError("a save never went through")
            self.saves += 1
            self.commits.append(oid)
            self.added.append(fact)
            time.sleep(0.1)

    def _sync_loop(self, stop: threading.Event) -> None:
        from amr_tui.services.sync.run import sync

        while not stop.wait(self.sync_every):
            res = sync(self.clone, attempts=8)
            self.syncs[res.status] = self.syncs.get(res.status, 0) + 1


# ---------------------------------------------------------------------------------------------


@dataclass
class SoakReport:
    writers: int
    seconds: float
    agent_commits: int
    saves: int
    save_retries: int
    syncs: dict[str, int]
    merges_on_server: int
    facts_added: int
    facts_deleted: int
    missing: list[str]
    duplicated: list[str]
    resurrected: list[str]
    stale_edits: list[str]
    unreachable_commits: int
    converged: bool

    @property
    def losses(self) -> int:
        return (
            len(self.missing)
            + len(self.duplicated)
            + len(self.resurrected)
            + len(self.stale_edits)
            + self.unreachable_commits
        )

    def summary(self) -> str:
        syncs = sum(self.syncs.values())
        by = ", ".join(f"{k} {v}" for k, v in sorted(self.syncs.items()))
        return (
            f"writers {self.writers} ({self.writers - 1} agents + amr's save path) for {self.seconds:.0f} s; "
            f"commits {self.agent_commits + self.saves} ({self.agent_commits} agent, {self.saves} saves, "
            f"{self.save_retries} save retries); syncs {syncs} ({by}); merge commits on main {self.merges_on_server}; "
            f"facts added {self.facts_added}, deleted {self.facts_deleted}; losses {self.losses} "
            f"(missing {len(self.missing)}, duplicated {len(self.duplicated)}, resurrected {len(self.resurrected)}, "
            f"stale edits {len(self.stale_edits)}, unreachable commits {self.unreachable_commits}); "
            f"converged {self.converged}"
        )


def run_soak(
    work: Path, url: str, bare: Path, *, agents: int = 3, seconds: float = 20.0, sync_every: float = 1.0
) -> SoakReport:
    """Run the soak against the served repo ``url`` (``bare`` is its path on disk)."""
    from amr_tui.services.sync.run import sync

    clones = []
    for i in range(agents + 1):
        dest = work / f"clone{i}"
        _git(work, "clone", "-q", url, str(dest))
        _git(dest, "config", "user.name", f"writer{i}")
        _git(dest, "config", "user.email", f"writer{i}@example.test")
        subprocess.run([*AMR, "merge-driver", "install", ".", "--no-commit"], cwd=dest, check=True, capture_output=True)
        clones.append(dest)
    env = {**os.environ}
    for key in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        env.pop(key, None)
    procs = []
    for i in range(agents):
        log = work / f"agent{i}.json"
        procs.append(
            (
                log,
                subprocess.Popen(
                    [
                        sys.executable,
                        str(Path(__file__).resolve()),
                        "--agent",
                        str(clones[i]),
                        f"agent{i}",
                        str(seconds),
                        str(sync_every),
                        str(log),
                        str(1000 + i),
                    ],
                    env=env,
                    cwd=ROOT,
                ),
            )
        )
    saver = SaveWriter(clones[-1], seconds, sync_every * 0.7)
    saver.run()
    for _log, proc in procs:
        proc.wait(timeout=seconds + 600)
        if proc.returncode != 0:
            raise RuntimeError(f"an agent failed with exit code {proc.returncode}")
    logs = [json.loads(log.read_text()) for log, _ in procs]
    syncs: dict[str, int] = dict(saver.syncs)
    for lg in logs:
        for k, v in lg["syncs"].items():
            syncs[k] = syncs.get(k, 0) + v
    converged = False
    for _round in range(12):
        heads = set()
        for dest in clones:
            res = sync(dest, attempts=8)
            syncs[res.status] = syncs.get(res.status, 0) + 1
            heads.add(res.head)
        tip = _git(bare, "rev-parse", "refs/heads/main").stdout.strip()
        if heads == {tip}:
            converged = True
            break
    return _check(bare, logs, saver, agents + 1, seconds, syncs, converged)


def _check(
    bare: Path,
    logs: list[dict],
    saver: SaveWriter,
    writers: int,
    seconds: float,
    syncs: dict[str, int],
    converged: bool,
) -> SoakReport:
    files = [p for p in _git(bare, "ls-tree", "-r", "--name-only", "main").stdout.split() if p.endswith(".md")]
    seen: dict[str, list[int]] = {}
    for path in files:
        for line in _git(bare, "show", f"main:{path}").stdout.splitlines():
            m = FACT.match(line)
            if m:
                seen.setdefault(m.group(1), []).append(int(m.group(2)))
    expected: dict[str, int] = {f: 0 for f in saver.added}
    gone: set[str] = set()
    for lg in logs:
        expected.update({f: r for f, r in lg["revs"].items()})
        gone.update(lg["deleted"])
    missing = sorted({f for f in expected if f not in seen} | {f for lg in logs for f in lg["vanished"]})
    duplicated = sorted(f for f, revs in seen.items() if len(revs) > 1)
    resurrected = sorted(f for f in gone if f in seen)
    stale = sorted(f for f, rev in expected.items() if f in seen and seen[f][0] != rev)
    commits = [c for lg in logs for c in lg["commits"]] + saver.commits
    reachable = set(_git(bare, "rev-list", "main").stdout.split())
    unreachable = sum(1 for c in commits if c not in reachable)
    merges = len(_git(bare, "rev-list", "--merges", "main").stdout.split())
    added = sum(len(lg["added"]) for lg in logs) + len(saver.added)
    return SoakReport(
        writers,
        seconds,
        sum(len(lg["commits"]) for lg in logs),
        saver.saves,
        saver.save_retries,
        syncs,
        merges,
        added,
        len(gone),
        missing,
        duplicated,
        resurrected,
        stale,
        unreachable,
        converged,
    )


def _serve(base: Path) -> tuple[subprocess.Popen[bytes], int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            "git",
            "daemon",
            f"--base-path={base}",
            "--export-all",
            "--enable=receive-pack",
            "--reuseaddr",
            "--listen=127.0.0.1",
            f"--port={port}",
            str(base),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("git daemon did not start")


def create_served_repo(base: Path, work: Path) -> Path:
    bare = base / "memory.git"
    _git(base, "init", "-q", "--bare", "-b", "main", str(bare))
    seed = work / "seed"
    _git(work, "init", "-q", "-b", "main", str(seed))
    for rel, text in BASE_FILES.items():
        (seed / rel).write_text(text)
    _git(seed, "add", "-A")
    _git(seed, "-c", "user.name=seed", "-c", "user.email=seed@example.test", "commit", "-q", "-m", "Create memory")
    _git(seed, "push", "-q", str(bare), "main:main")
    return bare


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--agent":
        clone, name, seconds, every, log, seed = argv[1:7]
        agent_main(Path(clone), name, float(seconds), float(every), Path(log), int(seed))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=180.0)
    p.add_argument("--agents", type=int, default=4)
    p.add_argument("--sync-every", type=float, default=1.0)
    p.add_argument("--keep", action="store_true", help="keep the work folder")
    args = p.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="amr-soak-"))
    server = work / "server"
    server.mkdir()
    bare = create_served_repo(server, work)
    proc, port = _serve(server)
    try:
        report = run_soak(
            work,
            f"git://127.0.0.1:{port}/memory.git",
            bare,
            agents=args.agents,
            seconds=args.seconds,
            sync_every=args.sync_every,
        )
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(report.summary())
    for label in ("missing", "duplicated", "resurrected", "stale_edits"):
        items = getattr(report, label)
        if items:
            print(f"{label}: {', '.join(items[:20])}")
    return 0 if report.losses == 0 and report.converged else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
