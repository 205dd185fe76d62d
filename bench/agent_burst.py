"""An agent committing every 100 ms while a person types (issue 44, point 5).

    .venv/bin/python bench/agent_burst.py [--size 1000000] [--commits 100]

A clone of the ``bench/gen.py`` corpus (``git clone --local``: the corpus itself is never
written) is opened in the app (polling every second, as ``amr`` does); once the start's
background work is done, ``/`` opens the finder and a thread plays an agent: every 100 ms it
appends a fact to one of the topic files and commits it with plain git. Meanwhile the 14 typed
scripts of ``bench_search.py`` are typed into the finder again and again, as ``finder_keys.py``
types them. Printed: the keystroke p50/p95 during the burst (and before it, in the same run,
as the baseline), how long each committed fact took to be in the session (its lint facts and
index: what the view and the finder show), the commits made, and the peak RSS. Nothing here
asserts a threshold.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from finder_keys import _corpus, _pct, type_keys  # noqa: E402

AGENT = {
    "GIT_AUTHOR_NAME": "Burst Agent",
    "GIT_AUTHOR_EMAIL": "agent@example.test",
    "GIT_COMMITTER_NAME": "Burst Agent",
    "GIT_COMMITTER_EMAIL": "agent@example.test",
}


def _agent(root: Path, commits: int, every: float, done: dict[str, float], stop: threading.Event) -> None:
    """Append one fact a commit to a topic file, every ``every`` seconds; ``done``: text -> time."""
    files = sorted(str(p.relative_to(root)) for p in root.glob("*/*.md"))[:200]
    rng = random.Random(7)
    env = dict(os.environ, **AGENT)
    for k in range(commits):
        if stop.is_set():
            return
        t = time.perf_counter()
        rel = rng.choice(files)
        text = f"Burst fact {k}: the zyzzyva-{k} relay listens on port {20000 + k}"
        with open(root / rel, "a", encoding="utf-8") as fh:
            fh.write(f"- {text}\n")
        subprocess.run(["git", "add", "--", rel], cwd=root, env=env, check=True)
        subprocess.run(["git", "commit", "-q", "-m", f"agent: burst {k}"], cwd=root, env=env, check=True)
        done[text] = time.perf_counter()
        time.sleep(max(0.0, every - (time.perf_counter() - t)))


def run(size: int, commits: int, every: float) -> dict[str, float]:
    from bench_search import SCRIPTS
    from textual.worker import WorkerState

    from amr_tui.app import make_app
    from amr_tui.screens.finder import FinderScreen
    from amr_tui.services.config import Config

    work = Path(tempfile.mkdtemp(prefix="amr-burst-"))
    root = work / "memory"
    subprocess.run(["git", "clone", "-q", "--local", str(_corpus(size)), str(root)], check=True)
    app = make_app([root], config=Config(), poll_interval=1.0)
    res: dict[str, float] = {}
    done: dict[str, float] = {}
    seen: dict[str, float] = {}
    stop = threading.Event()

    def in_session() -> None:
        session = app.session
        if session is None:
            return
        state = next(iter(session.repos.values()))
        with session.lock:
            texts = {t for f in state.facts.values() for t in f.texts if t.startswith("Burst fact")}
        for text in done.keys() - seen.keys():
            if text in texts:
                seen[text] = time.perf_counter()

    async def go() -> None:
        async with app.run_test(size=(130, 38)) as pilot:
            while getattr(app.screen, "current", None) is None or app.screen.indexing:
                await asyncio.sleep(0.1)
            while any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers):
                await asyncio.sleep(0.1)
            await pilot.press("slash")
            while not isinstance(app.screen, FinderScreen):
                await asyncio.sleep(0.005)
            finder = app.screen
            inp = finder.query_one("Input")

            async def type_scripts(until: float | None) -> list[float]:
                """The scripts once (``until`` None), or again and again until that time has passed
                and every committed fact is in the session."""
                times: list[float] = []
                while True:
                    for script in SCRIPTS:
                        inp.value = ""
                        await pilot.pause()
                        times += await type_keys(app, inp, lambda: finder.shown_query, script, in_session)
                        if until is not None and time.perf_counter() > until and len(seen) == len(done):
                            return times
                    if until is None:
                        return times

            quiet = await type_scripts(None)
            agent = threading.Thread(target=_agent, args=(root, commits, every, done, stop), daemon=True)
            t = time.perf_counter()
            agent.start()
            busy = await type_scripts(t + commits * every)
            agent.join(timeout=120)
            deadline = time.perf_counter() + 30
            while len(seen) < len(done) and time.perf_counter() < deadline:
                in_session()
                await asyncio.sleep(0.05)
            stop.set()
            res["burst_s"] = time.perf_counter() - t
            res["quiet_p50_ms"], res["quiet_p95_ms"] = statistics.median(quiet), _pct(quiet, 95)
            res["busy_p50_ms"], res["busy_p95_ms"] = statistics.median(busy), _pct(busy, 95)
            res["busy_max_ms"] = max(busy)
            lags = [seen[k] - done[k] for k in seen]
            res["commits"] = float(len(done))
            res["seen"] = float(len(seen))
            if lags:
                res["lag_p50_s"], res["lag_p95_s"], res["lag_max_s"] = (
                    statistics.median(lags),
                    _pct(lags, 95),
                    max(lags),
                )
            session = app.session
            res["entries"] = float(len(session.index)) if session is not None else 0.0

    asyncio.run(go())
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM"):
            res["peak_rss_mb"] = int(line.split()[1]) / 1024
    subprocess.run(["rm", "-rf", str(work)], check=False)
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--commits", type=int, default=100)
    ap.add_argument("--every", type=float, default=0.1, help="seconds between the agent's commits")
    args = ap.parse_args(argv)
    os.environ.setdefault("XDG_CACHE_HOME", str(HERE / "out" / "cache"))
    print(f"load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores; {args.size:,} entries (a clone)")
    r = run(args.size, args.commits, args.every)
    print(
        f"keys before the burst: p50 {r['quiet_p50_ms']:.1f} ms, p95 {r['quiet_p95_ms']:.1f} ms\n"
        f"keys during it:        p50 {r['busy_p50_ms']:.1f} ms, p95 {r['busy_p95_ms']:.1f} ms, "
        f"max {r['busy_max_ms']:.0f} ms\n"
        f"commits {int(r['commits'])} in {r['burst_s']:.1f} s; in the session: {int(r['seen'])}, "
        f"lag p50 {r.get('lag_p50_s', float('nan')):.2f} s, p95 {r.get('lag_p95_s', float('nan')):.2f} s, "
        f"max {r.get('lag_max_s', float('nan')):.2f} s (target: the view current within 2 s)\n"
        f"peak RSS {r['peak_rss_mb']:.0f} MB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
