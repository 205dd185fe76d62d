"""Starvation bench: is any amr write starved by agents committing to the same file every ~100 ms?

Setup: a bare repo and two clones of it (``clone-a``, ``clone-b``). In *each* clone ``--agents``
agent processes write the same memory file (``notes.md``) the way real agents do, with plain git:
append a fact line (O_APPEND, like ``echo line >> notes.md``), ``git add notes.md``,
``git commit -q -m ...``, each git step retried while ``index.lock`` is busy (or the commit
failed for any other reason); now and then (``--linger``) an agent leaves its line uncommitted for
0.5-2 s before committing it. An agent whose line is already in HEAD (another agent's ``git add``
swept it into their commit) counts it as landed.

Meanwhile this process runs, until ``--seconds`` are up, these loops in threads:

* writes, round robin over both clones: an **entry save** (``services.editing.replace_entry_line``
  through a ``Session``, as bench/soak_saves.py does: rewrites the tag of one of the clone's own
  seeded facts), a **forget** (``services.forgotten.forget`` of one of the clone's own seeded
  facts that is present) and a **restore** (``services.forgotten.restore`` of one the clone
  forgot, found with ``forgotten()``);
* **sync**: ``services.sync.sync`` of each clone over and over (0.1 s apart), one thread per
  clone (the app syncs each repo on its own worker).

Every call is timed from call to return; an exception is a *refusal* (its reason counted, with
ids and numbers masked). A sync is *ok* when its status is synced or up-to-date, else its status
(busy, conflict, error ...) is counted with its message.

At the end the agents commit what they hold and stop, both clones sync until they agree with the
bare repo, and the bench counts losses: an agent commit not reachable from its clone's branch (or
from the bare repo's main), an agent fact missing from a final HEAD (or there twice), an agent's
uncommitted line that disappeared from the work tree, a saved user edit not holding its last text,
a forgotten fact that is back or a restored one that is missing (or twice), an amr commit not
reachable, ``git fsck`` not clean, a clone whose work tree is not clean at the end.

    .venv/bin/python bench/starvation.py --seconds 60 --agents 3 --interval 0.1 [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from amr_tui.services.history.forgotten import forget, restore

ROOT = Path(__file__).resolve().parent.parent
FILE = "notes.md"
FACT = re.compile(r"^- fact (\S+) (\S+) \[source: ")
AGENT_ENV = {
    "GIT_AUTHOR_NAME": "Agent",
    "GIT_AUTHOR_EMAIL": "agent@example.test",
    "GIT_COMMITTER_NAME": "Agent",
    "GIT_COMMITTER_EMAIL": "agent@example.test",
}
CLONES = ("a", "b")
SEED_EDIT = 15  # per clone: facts e-<c>-<j> whose tag amr's saves rewrite
SEED_FORGET = 15  # per clone: facts k-<c>-<j> that amr forgets and restores


def fact_line(fid: str, tag: str) -> str:
    return f"- fact {fid} {tag} [source: https://example.com/s/{fid}]"


def facts_in(text: str) -> Counter:
    """fact id -> how many lines hold it."""
    out: Counter = Counter()
    for line in text.splitlines():
        m = FACT.match(line)
        if m:
            out[m.group(1)] += 1
    return out


def tags_in(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        m = FACT.match(line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def _clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return {**env, **(extra or {})}


def git(cwd: Path, *args: str, check: bool = False, agent: bool = False) -> subprocess.CompletedProcess:
    res = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=_clean_env(AGENT_ENV if agent else None),
        timeout=120,
    )
    if check and res.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} in {cwd}: {res.stderr.strip()}")
    return res


def mask(text: str, limit: int = 160) -> str:
    """A reason string with commit ids, paths of temp folders and numbers masked, so equal reasons count together."""
    text = " ".join(str(text).split())
    text = re.sub(r"/\S*amr-starve-\S*?/", "<tmp>/", text)
    text = re.sub(r"\b[0-9a-f]{7,64}\b", "<oid>", text)
    text = re.sub(r"\d+", "N", text)
    return text[:limit]


def code_version() -> str:
    """The commit the amr code under test is at (and whether amr_tui/ holds uncommitted changes)."""
    marker = ROOT / ".bench-commit"  # an exported tree (git archive) names its commit here
    if marker.exists():
        return marker.read_text().strip() + " (clean export)"
    head = git(ROOT, "rev-parse", "--short", "HEAD").stdout.strip() or "unknown"
    dirty = git(ROOT, "status", "--porcelain", "--", "amr_tui").stdout.strip()
    return head + (" + uncommitted changes in amr_tui/" if dirty else "")


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(q / 100 * len(s) + 0.5)) - 1))
    return s[k]


# ---------------------------------------------------------------------------------------------
# An agent (its own process: python bench/starvation.py --agent ...)


def agent_main(root: Path, name: str, stop: Path, out: Path, interval: float, linger: float, seed: int) -> None:
    rng = random.Random(seed)
    commits: list[str] = []
    landed: list[str] = []
    latencies: list[float] = []
    vanished: list[dict] = []
    transient: list[str] = []
    retries: Counter = Counter()
    gave_up: list[str] = []
    n = 0

    def run_retrying(*args: str) -> subprocess.CompletedProcess:
        """One git step, retried while index.lock (or a ref lock) is busy."""
        for _ in range(3000):
            res = git(root, *args, agent=True)
            err = res.stderr
            if (
                res.returncode == 0
                or "nothing to commit" in res.stdout
                or "nothing added to commit" in res.stdout
                or "no changes added" in res.stdout
            ):
                return res
            retries[
                "index.lock busy"
                if "index.lock" in err
                else mask(err.splitlines()[0] if err else f"exit {res.returncode}", 80)
            ] += 1
            time.sleep(0.005 + rng.random() * 0.02)
        return res

    while True:
        if stop.exists():
            break
        n += 1
        fid = f"{name}-{n}"
        started = time.monotonic()
        with open(root / FILE, "a", encoding="utf-8") as f:  # echo line >> notes.md
            f.write(fact_line(fid, "agent") + "\n")
        last_seen = time.time()  # wall clock: compared with the times of amr's calls

        def on_disk() -> bool:
            return fid in facts_in((root / FILE).read_text(encoding="utf-8", errors="replace"))

        if rng.random() < linger:  # left uncommitted for a while (looked at every 50 ms)
            until = time.monotonic() + rng.uniform(0.5, 2.0)
            while time.monotonic() < until and on_disk():
                last_seen = time.time()
                time.sleep(0.05)
        ok = False
        for attempt in range(300):
            subject = f"agent {name}: fact {n} (try {attempt})"
            if on_disk():
                last_seen = time.time()
            run_retrying("add", FILE)
            res = run_retrying("commit", "-q", "-m", subject)
            if res.returncode == 0:
                log = git(root, "log", "-n", "60", "--format=%H %s", agent=True).stdout.splitlines()
                oid = next((ln.split(" ", 1)[0] for ln in log if ln.split(" ", 1)[1:] == [subject]), None)
                if oid is None:
                    oid = (
                        git(
                            root, "log", "-n", "1", "--format=%H", "--fixed-strings", f"--grep={subject}", agent=True
                        ).stdout.strip()
                        or None
                    )
                if oid:
                    commits.append(oid)
            head_text = git(root, "show", f"HEAD:{FILE}", agent=True).stdout
            if fid in facts_in(head_text):
                ok = True
                break
            if not on_disk():  # not committed and not in the file: look again in 50 ms
                detected = time.time()
                time.sleep(0.05)
                if fid in facts_in(git(root, "show", f"HEAD:{FILE}", agent=True).stdout) or on_disk():
                    transient.append(fid)  # a file seen mid-rewrite, or committed just now: not a loss
                    continue
                # The uncommitted line is gone from the work tree: a loss (a real agent would not
                # notice; here it writes the line again so the run goes on).
                vanished.append({"fact": fid, "last_seen": last_seen, "detected": detected})
                with open(root / FILE, "a", encoding="utf-8") as f:
                    f.write(fact_line(fid, "agent") + "\n")
                last_seen = time.time()
            time.sleep(0.01 + rng.random() * 0.02)
        if ok:
            landed.append(fid)
            latencies.append(time.monotonic() - started)
        else:
            gave_up.append(fid)
        if stop.exists():
            break
        time.sleep(interval * (0.5 + rng.random()))
    out.write_text(
        json.dumps(
            {
                "name": name,
                "commits": commits,
                "facts": landed,
                "latencies": latencies,
                "vanished": vanished,
                "transient": transient,
                "retries": dict(retries),
                "gave_up": gave_up,
            }
        )
    )


# ---------------------------------------------------------------------------------------------
# Setup


def make_repos(base: Path) -> tuple[Path, dict[str, Path]]:
    bare = base / "memory.git"
    git(base, "init", "-q", "--bare", "-b", "main", str(bare), check=True)
    seed = base / "seed"
    git(base, "init", "-q", "-b", "main", str(seed), check=True)
    lines = ["# Notes", ""]
    for c in CLONES:
        lines += [fact_line(f"e-{c}-{j}", "seed") for j in range(SEED_EDIT)]
        lines += [fact_line(f"k-{c}-{j}", "seed") for j in range(SEED_FORGET)]
    files = {
        "MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n",
        FILE: "\n".join(lines) + "\n",
        ".gitattributes": "*.md merge=amr\n",
    }
    for rel, text in files.items():
        (seed / rel).write_text(text)
    git(seed, "add", "--", *files, check=True)
    git(
        seed,
        "-c",
        "user.name=seed",
        "-c",
        "user.email=seed@example.test",
        "commit",
        "-q",
        "-m",
        "Create memory repo",
        check=True,
    )
    git(seed, "push", "-q", str(bare), "main:main", check=True)
    clones = {}
    for c in CLONES:
        dest = base / f"clone-{c}"
        git(base, "clone", "-q", str(bare), str(dest), check=True)
        git(dest, "config", "user.name", f"amr user {c}", check=True)
        git(dest, "config", "user.email", f"user-{c}@example.test", check=True)
        clones[c] = dest
    return bare, clones


# ---------------------------------------------------------------------------------------------
# The bench


class Ops:
    """Timed calls of one kind: latencies, landed, refusals by reason, the longest wait for a landing."""

    def __init__(self, started: float):
        self.started = started
        self.ms: list[float] = []
        self.landed = 0
        self.refused: Counter = Counter()
        self.statuses: Counter = Counter()
        self.last_landed = started
        self.longest_wait = 0.0
        self.streak = 0
        self.longest_streak = 0
        self.extra: Counter = Counter()

    def record(self, ms: float, ok: bool, reason: str | None = None, status: str | None = None) -> None:
        self.ms.append(ms)
        if status is not None:
            self.statuses[status] += 1
        now = time.monotonic()
        if ok:
            self.landed += 1
            self.longest_wait = max(self.longest_wait, now - self.last_landed)
            self.last_landed = now
            self.streak = 0
        else:
            if reason is not None:
                self.refused[reason] += 1
            self.streak += 1
            self.longest_streak = max(self.longest_streak, self.streak)

    def close(self, ended: float) -> None:
        self.longest_wait = max(self.longest_wait, ended - self.last_landed)

    def summary(self) -> dict:
        return {
            "count": len(self.ms),
            "landed": self.landed,
            "refused": sum(self.refused.values()),
            "p50_ms": _r(pct(self.ms, 50)),
            "p95_ms": _r(pct(self.ms, 95)),
            "max_ms": _r(max(self.ms, default=None)),
            "longest_wait_for_landing_s": round(self.longest_wait, 2),
            "longest_refusal_streak": self.longest_streak,
            "reasons": dict(self.refused.most_common()),
            "statuses": dict(self.statuses),
            **dict(self.extra),
        }


def _r(v: float | None) -> float | None:
    return None if v is None else round(v, 1)


_WATCH: dict = {"log": [], "roots": {}, "current": threading.local()}


def _watch_worktree_writes(clones: dict[str, Path], current: threading.local) -> list:
    """Log every call of the amr functions that write a clone's work tree (the gate's
    ``_move_checked_out``; before the gate took them over, ``commit._write_worktree`` and
    ``merging.advance_branch``), with the kind of amr call it ran in, so a line an agent lost can
    be put next to the write that dropped it. Only wraps the functions; nothing else changes."""
    import functools
    import importlib

    _WATCH.update(log=[], roots={str(p.resolve()): c for c, p in clones.items()}, current=current)

    def wrap(fn, label):
        @functools.wraps(fn)
        def inner(repo, *args, **kwargs):
            w0 = time.time()
            outcome = "ok"
            try:
                return fn(repo, *args, **kwargs)
            except BaseException as exc:
                outcome = type(exc).__name__
                raise
            finally:
                c = _WATCH["roots"].get(str(Path(getattr(repo, "root", "")).resolve()), "?")
                kind = getattr(_WATCH["current"], "kind", None) or "?"
                _WATCH["log"].append((c, kind, label, w0, time.time(), outcome))

        inner._bench_wrapped = True  # type: ignore[attr-defined]
        return inner

    targets = [
        ("amr_tui.git.gate", "_move_checked_out"),
        ("amr_tui.git.commit", "_write_worktree"),
        ("amr_tui.git.merging", "advance_branch"),
        ("amr_tui.services.sync.run", "advance_branch"),
        ("amr_tui.services.sync.run", "integrate"),
    ]
    for modname, attr in targets:
        mod = importlib.import_module(modname)
        fn = getattr(mod, attr, None)
        if fn is not None and not getattr(fn, "_bench_wrapped", False):
            setattr(mod, attr, wrap(fn, attr))
    return _WATCH["log"]


def run_bench(
    seconds: float = 60.0,
    agents: int = 3,
    interval: float = 0.1,
    *,
    linger: float = 0.15,
    seed: int = 1,
    base: Path | None = None,
    log=None,
) -> dict:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from amr_tui.services.history.service import HistoryService
    from amr_tui.services.session import editing
    from amr_tui.services.session.session import Session
    from amr_tui.services.sync.run import sync
    from amr_tui.services.workspace import discover

    say = log or (lambda _msg: None)
    # The merge driver git runs during a sync (python -m amr_tui) must be this same code.
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    import amr_tui

    rng = random.Random(seed)
    base = Path(base or tempfile.mkdtemp(prefix="amr-starve-"))
    bare, clones = make_repos(base)
    stop = base / "stop"
    env = _clean_env({"PYTHONPATH": str(ROOT)})
    procs = []
    for c in CLONES:
        for i in range(agents):
            name = f"{c}{i}"
            procs.append(
                (
                    name,
                    subprocess.Popen(
                        [
                            sys.executable,
                            str(Path(__file__).resolve()),
                            "--agent",
                            name,
                            "--root",
                            str(clones[c]),
                            "--stop",
                            str(stop),
                            "--out",
                            str(base / f"agent-{name}.json"),
                            "--interval",
                            str(interval),
                            "--linger",
                            str(linger),
                            "--seed",
                            str(seed * 1000 + sum(map(ord, name))),
                        ],
                        env=env,
                    ),
                )
            )
    session = Session(discover([clones[c] for c in CLONES]))
    session.load()
    mount_of = {}
    for c in CLONES:
        mount_of[c] = next(n for n in session.names if session.mount(n).root.resolve() == clones[c].resolve())
    services = {c: HistoryService(clones[c]) for c in CLONES}

    started = time.monotonic()
    ops = {k: Ops(started) for k in ("save", "forget", "restore")}
    syncs = {c: Ops(started) for c in CLONES}
    mine: dict[str, str] = {}  # edit fact id -> the tag of its last landed save
    state: dict[str, str] = {f"k-{c}-{j}": "present" for c in CLONES for j in range(SEED_FORGET)}
    amr_commits: dict[str, list[str]] = {c: [] for c in CLONES}
    errors: list[str] = []
    end_at = started + seconds
    done = threading.Event()

    calls: list[tuple[str, str, float, float]] = []  # (kind, clone, wall start, wall end): to tell who lost a line
    current = threading.local()  # the kind of amr call this thread is in
    writes = _watch_worktree_writes(clones, current)  # (clone, kind, function, wall start, wall end, outcome)

    def timed(name: str, c: str, fn):
        """Call ``fn``; a refusal is counted here. Returns (result or None, ms)."""
        kind = ops[name]
        t0, w0 = time.monotonic(), time.time()
        current.kind = name
        try:
            out = fn()
        except Exception as exc:  # a refusal: its reason is counted
            kind.record((time.monotonic() - t0) * 1000, False, f"{type(exc).__name__}: {mask(exc)}")
            return None, 0.0
        finally:
            current.kind = None
            calls.append((name, c, w0, time.time()))
        return out, (time.monotonic() - t0) * 1000

    def do_save(c: str, k: int) -> None:
        of = session.open(mount_of[c], FILE)
        cands = [
            e
            for e in of.doc.entries
            if (m := FACT.match(of.doc.lines[e.line - 1].text)) and m.group(1).startswith(f"e-{c}-")
        ]
        entry = rng.choice(cands)
        fid = FACT.match(of.doc.lines[entry.line - 1].text).group(1)
        tag = f"u{k}"
        saved, ms = timed("save", c, lambda: editing.replace_entry_line(session, of, entry.line, fact_line(fid, tag)))
        if saved is None:
            return
        ops["save"].record(ms, True)
        mine[fid] = tag
        if saved.head:
            amr_commits[c].append(saved.head)
        if saved.foreign:
            ops["save"].extra["saves_that_kept_a_foreign_uncommitted_edit"] += 1
        if saved.merged:
            ops["save"].extra["saves_merged_onto_a_newer_commit"] += 1
        if not saved.committed:
            ops["save"].extra["saves_not_committed"] += 1

    def do_forget(c: str) -> None:
        svc = services[c]
        head = svc.repo.head()
        text = (svc.blobs.read(head, FILE) or b"").decode()
        cands = []
        for no, line in enumerate(text.splitlines(), 1):
            m = FACT.match(line)
            if m and m.group(1).startswith(f"k-{c}-") and state.get(m.group(1)) == "present":
                cands.append((no, m.group(1)))
        if not cands:
            ops["forget"].extra["skipped_nothing_to_forget"] += 1
            return
        no, fid = rng.choice(cands)
        done, ms = timed("forget", c, lambda: forget(svc, FILE, no, reason="starvation bench", by="bench"))
        if done is None:
            return
        ops["forget"].record(ms, True)
        state[fid] = "absent"
        amr_commits[c].append(done.oid)

    def do_restore(c: str) -> None:
        svc = services[c]
        t0 = time.monotonic()
        try:
            facts = svc.forgotten()
        except Exception as exc:
            errors.append(f"forgotten() in clone {c}: {type(exc).__name__}: {exc}")
            return
        ops["restore"].extra["forgotten_list_ms_total"] += int((time.monotonic() - t0) * 1000)
        cands = []
        for f in facts:
            m = FACT.match((f.line or "").strip())
            if m and m.group(1).startswith(f"k-{c}-") and state.get(m.group(1)) == "absent":
                cands.append((f, m.group(1)))
        if not cands:
            ops["restore"].extra["skipped_nothing_forgotten"] += 1
            return
        fact, fid = rng.choice(cands)
        oid, ms = timed("restore", c, lambda: restore(svc, fact))
        if oid is None:
            return
        ops["restore"].record(ms, True)
        state[fid] = "present"
        amr_commits[c].append(oid)

    def write_loop() -> None:
        k = 0
        try:
            while time.monotonic() < end_at:
                for c in CLONES:
                    for op in ("save", "forget", "restore"):
                        if time.monotonic() >= end_at:
                            return
                        k += 1
                        try:
                            if op == "save":
                                do_save(c, k)
                            elif op == "forget":
                                do_forget(c)
                            else:
                                do_restore(c)
                        except Exception as exc:  # the bench's own bug: report it, keep going
                            errors.append(f"{op} in clone {c}: {type(exc).__name__}: {exc}")
                        time.sleep(0.02)
        finally:
            done.set()
            for o in ops.values():
                o.close(time.monotonic())

    def sync_loop(c: str) -> None:
        try:
            _sync_loop(c)
        finally:
            syncs[c].close(time.monotonic())

    def _sync_loop(c: str) -> None:
        current.kind = "sync"
        while not done.is_set():
            t0, w0 = time.monotonic(), time.time()
            try:
                res = sync(clones[c])
            except Exception as exc:
                calls.append(("sync", c, w0, time.time()))
                syncs[c].record(
                    (time.monotonic() - t0) * 1000, False, f"raised {type(exc).__name__}: {mask(exc)}", status="raised"
                )
                time.sleep(0.1)
                continue
            ms = (time.monotonic() - t0) * 1000
            calls.append(("sync", c, w0, time.time()))
            ok = res.status in ("synced", "up-to-date")
            syncs[c].record(ms, ok, None if ok else f"{res.status}: {mask(res.message)}", status=res.status)
            if ok and res.merges:
                syncs[c].extra["merges"] += res.merges
            time.sleep(0.1)

    say(f"bench in {base}: {agents} agents per clone x {len(CLONES)} clones, {seconds:.0f} s")
    threads = [
        threading.Thread(target=write_loop, name="writes"),
        *(threading.Thread(target=sync_loop, args=(c,), name=f"sync-{c}") for c in CLONES),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    # Stop the agents (each commits what it holds first), then sync until the clones agree.
    stop.write_text("stop")
    agent_fail = []
    for name, p in procs:
        try:
            p.wait(timeout=300)
        except subprocess.TimeoutExpired:
            p.kill()
            agent_fail.append(f"agent {name} did not stop")
        if p.returncode:
            agent_fail.append(f"agent {name} exited {p.returncode}")
    say("agents stopped; final syncs")
    final: Counter = Counter()
    converged = False
    for _round in range(15):
        heads = set()
        for c in CLONES:
            try:
                res = sync(clones[c])
            except Exception as exc:
                final[f"raised {type(exc).__name__}"] += 1
                errors.append(f"final sync of clone {c} raised {type(exc).__name__}: {exc}")
                heads.add(None)
                continue
            final[res.status] += 1
            heads.add(res.head)
        tip = git(bare, "rev-parse", "refs/heads/main").stdout.strip()
        if heads == {tip}:
            converged = True
            break
        time.sleep(0.2)

    # Losses.
    agents_out = {}
    for name, _p in procs:
        path = base / f"agent-{name}.json"
        agents_out[name] = (
            json.loads(path.read_text())
            if path.exists()
            else {
                "commits": [],
                "facts": [],
                "latencies": [],
                "vanished": [],
                "transient": [],
                "retries": {},
                "gave_up": [],
            }
        )
    all_facts = [f for a in agents_out.values() for f in a["facts"]]
    losses: dict[str, list] = {}
    per_clone = {}
    for c in [*CLONES, "bare"]:
        where = bare if c == "bare" else clones[c]
        head_text = git(where, "show", f"main:{FILE}").stdout
        counts = facts_in(head_text)
        tags = tags_in(head_text)
        reach = set(git(where, "rev-list", "main").stdout.split())
        own = [n for n in agents_out if c == "bare" or n.startswith(c)]
        unreachable = [x for n in own for x in agents_out[n]["commits"] if x not in reach]
        amr_unreach = [x for cc in CLONES if c in ("bare", cc) for x in amr_commits[cc] if x not in reach]
        facts_check = all_facts if converged or c == "bare" else [f for n in own for f in agents_out[n]["facts"]]
        missing = [f for f in facts_check if counts[f] == 0]
        dup = [f for f in facts_check if counts[f] > 1]
        edits = [
            (fid, tag, tags.get(fid))
            for fid, tag in mine.items()
            if (converged or c == "bare" or fid.startswith(f"e-{c}-")) and tags.get(fid) != tag
        ]
        fr = [
            (fid, st, counts[fid])
            for fid, st in state.items()
            if (converged or c == "bare" or fid.startswith(f"k-{c}-")) and counts[fid] != (1 if st == "present" else 0)
        ]
        fsck = git(where, "fsck", "--no-dangling")
        status = "" if c == "bare" else git(where, "status", "--porcelain").stdout
        per_clone[c] = {
            "head": git(where, "rev-parse", "main").stdout.strip()[:12],
            "commits": len(reach),
            "unreachable_agent_commits": unreachable,
            "unreachable_amr_commits": amr_unreach,
            "missing_agent_facts": missing,
            "duplicated_agent_facts": dup,
            "lost_user_edits": edits,
            "forget_restore_wrong": fr,
            "fsck_clean": fsck.returncode == 0,
            "fsck": (fsck.stdout + fsck.stderr).strip()[:300],
            "status": status.strip()[:300],
        }
        for key in (
            "unreachable_agent_commits",
            "unreachable_amr_commits",
            "missing_agent_facts",
            "duplicated_agent_facts",
            "lost_user_edits",
            "forget_restore_wrong",
        ):
            if per_clone[c][key]:
                losses.setdefault(f"{c}: {key}", per_clone[c][key])
        if not per_clone[c]["fsck_clean"]:
            losses[f"{c}: fsck"] = [per_clone[c]["fsck"]]
        if status:
            losses[f"{c}: work tree not clean at the end"] = [status[:300]]
    vanished = [dict(v, agent=n) for n, a in agents_out.items() for v in a["vanished"]]
    blamed: Counter = Counter()
    for v in vanished:  # the amr calls in the agent's clone that ran while the line went missing
        during = sorted(
            {k for k, c, w0, w1 in calls if c == v["agent"][0] and w0 <= v["detected"] and w1 >= v["last_seen"]}
        )
        v["window_ms"] = round((v["detected"] - v["last_seen"]) * 1000)
        v["amr_calls_in_window"] = during
        v["worktree_writes_in_window"] = [
            f"{kind} {fn} {round((w0 - v['last_seen']) * 1000)}..{round((w1 - v['last_seen']) * 1000)} ms {outcome}"
            for c, kind, fn, w0, w1, outcome in list(writes)
            if c == v["agent"][0] and w0 <= v["detected"] and w1 >= v["last_seen"]
        ]
        blamed["+".join(during) or "no amr call"] += 1
    if vanished:
        losses["agents: uncommitted line vanished from the work tree"] = [
            f"{v['fact']} (gone within {v['window_ms']} ms; amr calls then: {', '.join(v['amr_calls_in_window']) or 'none'}; "
            f"work-tree writes then: {'; '.join(v['worktree_writes_in_window']) or 'none'})"
            for v in vanished
        ]
    gave_up = [f for a in agents_out.values() for f in a["gave_up"]]
    if gave_up:
        losses["agents: fact never landed"] = gave_up
    if not converged:
        losses["clones did not converge after the final syncs"] = [dict(final)]
    if agent_fail:
        losses["agents failed"] = agent_fail

    for c in CLONES:  # each sync round: how long from reading the tip to moving the branch, and how that went
        rounds = [w for w in writes if w[0] == c and w[2] == "integrate" and w[1] == "sync"]
        moves = [w for w in writes if w[0] == c and w[2] == "advance_branch" and w[1] == "sync"]
        gaps, outcomes = [], Counter()
        for _c, _k, _f, w0, w1, outcome in rounds:
            inner = [m for m in moves if w0 <= m[3] <= w1]
            if inner:
                gaps.append((inner[0][3] - w0) * 1000)
                outcomes[f"branch move {inner[0][5]}"] += 1
            else:
                outcomes[f"no branch move ({outcome})"] += 1
        syncs[c].extra["rounds"] = len(rounds)
        syncs[c].extra["round_outcomes"] = dict(outcomes)
        syncs[c].extra["tip_to_branch_move_p50_ms"] = _r(pct(gaps, 50))
    agent_lat = [x * 1000 for a in agents_out.values() for x in a["latencies"]]
    retries: Counter = Counter()
    for a in agents_out.values():
        retries.update(a["retries"])
    result = {
        "commit": code_version(),
        "amr_tui": str(Path(amr_tui.__file__).parent),
        "seconds": seconds,
        "agents_per_clone": agents,
        "interval": interval,
        "linger": linger,
        "ops": {k: o.summary() for k, o in ops.items()},
        "sync": {c: {**s.summary(), "ok": s.landed, "busy": s.statuses.get("busy", 0)} for c, s in syncs.items()},
        "agents": {
            "count": len(procs),
            "commits": sum(len(a["commits"]) for a in agents_out.values()),
            "facts": len(all_facts),
            "fact_p50_ms": _r(pct(agent_lat, 50)),
            "fact_p95_ms": _r(pct(agent_lat, 95)),
            "fact_max_ms": _r(max(agent_lat, default=None)),
            "retries": dict(retries.most_common(8)),
            "lines_seen_missing_for_a_moment": sum(len(a.get("transient", [])) for a in agents_out.values()),
            "vanished_lines_by_amr_calls_running": dict(blamed),
        },
        "final_syncs": dict(final),
        "converged": converged,
        "clones": per_clone,
        "losses": {k: v[:10] for k, v in losses.items()},
        "loss_count": sum(len(v) for v in losses.values()),
        "bench_errors": errors[:20],
        "base": str(base),
    }
    for s in services.values():
        s.close()
    return result


def table(r: dict) -> str:
    out = [
        f"amr starvation bench at {r['commit']}: {r['seconds']:.0f} s, {r['agents_per_clone']} agents per clone "
        f"x 2 clones every ~{r['interval'] * 1000:.0f} ms ({r['agents']['commits']} agent commits, "
        f"{r['agents']['facts']} facts; agent fact p50/p95/max {r['agents']['fact_p50_ms']}/"
        f"{r['agents']['fact_p95_ms']}/{r['agents']['fact_max_ms']} ms)",
        f"{'op':<10}{'count':>7}{'landed':>8}{'refused':>9}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}"
        f"{'max wait s':>12}{'streak':>8}",
    ]
    rows = [(k, o) for k, o in r["ops"].items()] + [(f"sync {c}", s) for c, s in r["sync"].items()]
    for name, o in rows:
        out.append(
            f"{name:<10}{o['count']:>7}{o['landed']:>8}{o['refused']:>9}{o['p50_ms'] or '-':>9}"
            f"{o['p95_ms'] or '-':>9}{o['max_ms'] or '-':>9}{o['longest_wait_for_landing_s']:>12}"
            f"{o['longest_refusal_streak']:>8}"
        )
    for c, s in r["sync"].items():
        out.append(
            f"sync {c}: "
            + ", ".join(f"{k} {v}" for k, v in sorted(s["statuses"].items()))
            + (f"; merges {s['merges']}" if s.get("merges") else "")
            + f"; rounds {s.get('rounds')}: {s.get('round_outcomes')}, tip read to branch move p50 "
            f"{s.get('tip_to_branch_move_p50_ms')} ms"
        )
    for name, o in rows:
        for reason, n in o["reasons"].items():
            out.append(f"  {name} refused {n}x: {reason}")
    extras = {
        k: {x: v for x, v in o.items() if x.startswith(("saves_", "skipped_", "forgotten_"))}
        for k, o in r["ops"].items()
    }
    out.append("notes: " + ("; ".join(f"{k} {x}={v}" for k, d in extras.items() for x, v in d.items()) or "-"))
    out.append(f"final syncs: {r['final_syncs']}, converged {r['converged']}; agent retries: {r['agents']['retries']}")
    if r["agents"]["vanished_lines_by_amr_calls_running"]:
        out.append(
            f"agent lines lost from the work tree, by the amr calls running in that clone then: "
            f"{r['agents']['vanished_lines_by_amr_calls_running']}"
        )
    fs = ", ".join(f"{c} {'clean' if v['fsck_clean'] else 'NOT CLEAN'}" for c, v in r["clones"].items())
    out.append(f"losses: {r['loss_count']} ; fsck: {fs}")
    for k, v in r["losses"].items():
        out.append(f"  LOSS {k}: {v}")
    for e in r["bench_errors"]:
        out.append(f"  bench error: {e}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--agents", type=int, default=3, help="agent processes per clone")
    p.add_argument("--interval", type=float, default=0.1)
    p.add_argument("--linger", type=float, default=0.15, help="share of agent lines left uncommitted 0.5-2 s")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json")
    p.add_argument(
        "--keep", action="store_true", help="keep the work folder (it is kept anyway when something was lost)"
    )
    p.add_argument("--agent")
    p.add_argument("--root")
    p.add_argument("--stop")
    p.add_argument("--out")
    args = p.parse_args(argv)
    if args.agent is not None:
        agent_main(Path(args.root), args.agent, Path(args.stop), Path(args.out), args.interval, args.linger, args.seed)
        return 0
    result = run_bench(
        args.seconds,
        args.agents,
        args.interval,
        linger=args.linger,
        seed=args.seed,
        log=lambda m: print(m, file=sys.stderr),
    )
    print(table(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    starved = [k for k, o in result["ops"].items() if o["landed"] == 0] + [
        f"sync {c}" for c, s in result["sync"].items() if s["landed"] == 0
    ]
    if result["loss_count"] or args.keep:
        print(f"work folder kept: {result['base']}", file=sys.stderr)
    else:
        shutil.rmtree(result["base"], ignore_errors=True)
    return 1 if result["loss_count"] or starved else 0


if __name__ == "__main__":
    sys.exit(main())
