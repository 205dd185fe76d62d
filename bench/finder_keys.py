"""Finder keystrokes in the app (issue 44, point 2): real keys through Pilot, at 100k and 1M.

    .venv/bin/python bench/finder_keys.py [--sizes 100000,1000000] [--warm]

The app is started on a corpus of ``bench/gen.py`` (``size_repo``, or ``million_repo`` at
1,000,000), the first indexing ("ready") and the start's background work ("settled": lint, the
unreviewed count, the history check) are waited for, ``/`` opens the finder, and the 14 typed scripts of
``bench/bench_search.py`` are typed one key at a time with ``pilot.press``. A keystroke's time
is from the press to the finder showing the hits of the query as typed (``shown_query`` equal
to the input's value: the key handled, the search run in its worker, the results posted and
the list rebuilt). The baseline, in the same process right after: the library's
``SearchSession`` over the same keystrokes (what the finder's worker calls), so the ratio is the
app's own cost around a search. Each size runs in a child process (its peak RSS its own). The
caches are the bench's (``bench/out/cache``); without ``--warm`` the start reads every file.
Nothing here asserts a threshold.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

OUT = HERE / "out"
TARGET_P95_MS = 30.0


def _pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[max(0, min(len(s) - 1, round(p / 100 * (len(s) - 1))))]


def _corpus(size: int) -> Path:
    import gen

    corpora = OUT / "corpora"
    return gen.million_repo(corpora) if size >= gen.MILLION else gen.size_repo(corpora, size)


def _type(app: object, ch: str) -> None:
    """Post the key of ``ch`` to ``app`` as the terminal driver posts a key it read ("\\b" is a
    backspace): not ``pilot.press``, which then waits for the whole screen to be idle (~80 ms a
    key in a hello-world app on this machine)."""
    from textual import events
    from textual.keys import _character_to_key

    if ch == "\b":
        app.post_message(events.Key("backspace", "\x7f"))  # type: ignore[attr-defined]
    else:
        app.post_message(events.Key(_character_to_key(ch), ch))  # type: ignore[attr-defined]


async def type_keys(
    app: Any, inp: Any, shown: Callable[[], str], script: str, after: Callable[[], None] | None = None
) -> list[float]:
    """Type ``script`` ("\\b" a backspace) into ``inp`` of ``app`` a key at a time; each key's
    milliseconds until the input holds what is typed and ``shown()`` says it is on screen
    (``after()`` runs after each key)."""
    times: list[float] = []
    typed = ""
    for ch in script:
        typed = typed[:-1] if ch == "\b" else typed + ch
        t0 = time.perf_counter()
        _type(app, ch)
        while inp.value != typed or shown() != typed:
            await asyncio.sleep(0.0005)
        times.append((time.perf_counter() - t0) * 1000)
        if after is not None:
            after()
    return times


def hello_keys(script: str) -> list[float]:
    """The same keys typed the same way into a hello-world app (an Input whose text a Label
    shows): what Textual itself costs a key, the baseline of the app's figure."""
    from textual.app import App, ComposeResult
    from textual.widgets import Input, Label

    class Hello(App[None]):
        shown = ""

        def compose(self) -> ComposeResult:
            yield Input()
            yield Label()

        def on_input_changed(self, event: Input.Changed) -> None:
            self.query_one(Label).update(event.value)
            self.shown = event.value

    times: list[float] = []

    async def go() -> None:
        app = Hello()
        async with app.run_test(size=(130, 38)) as pilot:
            inp = app.query_one(Input)
            inp.focus()
            await pilot.pause()
            times.extend(await type_keys(app, inp, lambda: app.shown, script))

    asyncio.run(go())
    return times


def child(size: int) -> dict[str, float]:
    from bench_search import SCRIPTS
    from textual.worker import WorkerState

    from amr_tui.app import make_app
    from amr_tui.screens.finder import FinderScreen
    from amr_tui.services.config import Config

    root = _corpus(size)
    app = make_app([root], config=Config(), poll_interval=60)
    res: dict[str, float] = {}

    async def go() -> None:
        t = time.perf_counter()
        async with app.run_test(size=(130, 38)) as pilot:
            screen = app.screen
            while getattr(screen, "current", None) is None or screen.indexing:
                await asyncio.sleep(0.05)
            res["ready_s"] = time.perf_counter() - t
            # the start's background work (lint, the unreviewed count, the history check) done:
            # the keys measure typing, not typing against the start (an agent's burst is point 5)
            while any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers):
                await asyncio.sleep(0.1)
            res["settled_s"] = time.perf_counter() - t
            await pilot.press("slash")
            while not isinstance(app.screen, FinderScreen):
                await asyncio.sleep(0.005)
            finder = app.screen
            inp = finder.query_one("Input")
            times: list[float] = []
            for script in SCRIPTS:
                inp.value = ""
                await pilot.pause()
                times.extend(await type_keys(app, inp, lambda: finder.shown_query, script))
            res["app_p50_ms"] = statistics.median(times)
            res["app_p95_ms"] = _pct(times, 95)
            res["app_max_ms"] = max(times)
            res["keys"] = float(len(times))
            # the baseline: the library's SearchSession over the same keystrokes, same process
            from figures_core import keystroke_times

            session = app.session
            assert session is not None
            lib = keystroke_times(session, 200)
            res["lib_p50_ms"] = statistics.median(lib)
            res["lib_p95_ms"] = _pct(lib, 95)
            res["entries"] = float(len(session.index))

    asyncio.run(go())
    hello = hello_keys("".join(SCRIPTS))
    res["hello_p50_ms"] = statistics.median(hello)
    res["hello_p95_ms"] = _pct(hello, 95)
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM"):
            res["peak_rss_mb"] = int(line.split()[1]) / 1024
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--warm", action="store_true", help="start from the bench's caches (a restart)")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child)))
        return 0
    env = dict(os.environ, XDG_CACHE_HOME=str(OUT / "cache"))
    if not args.warm:
        env["AMR_NO_CACHE"] = "1"
    print(f"load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores; {'warm' if args.warm else 'cold'} start")
    print(
        "| entries | ready | settled | app p50 | app p95 | app max | library p50 | library p95 | hello-world p95 "
        "| app/library p95 | peak RSS |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(size)], env=env, capture_output=True, text=True, check=False
        )
        if out.returncode:
            print(out.stderr[-3000:], file=sys.stderr)
            return 1
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"| {int(r['entries']):,} | {r['ready_s']:.1f} s | {r['settled_s']:.0f} s | {r['app_p50_ms']:.1f} ms | {r['app_p95_ms']:.1f} ms "
            f"| {r['app_max_ms']:.0f} ms | {r['lib_p50_ms']:.1f} ms | {r['lib_p95_ms']:.1f} ms | {r['hello_p95_ms']:.1f} ms "
            f"| {r['app_p95_ms'] / r['lib_p95_ms']:.2f}x | {r['peak_rss_mb']:.0f} MB |"
        )
    print(f"({int(r['keys'])} keystrokes per size; target p95 <= {TARGET_P95_MS:.0f} ms at 1M, in the app)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
