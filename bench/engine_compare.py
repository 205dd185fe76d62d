"""amr's hand-written SearchIndex against SQLite FTS5 and tantivy (issue 15, point 5).

    .venv/bin/python bench/engine_compare.py [--sizes 10000,100000] [--engines amr,fts5,tantivy]
        [--repeats 3] [--json PATH]

tantivy is a benchmark-only dependency (``.venv/bin/pip install tantivy``); without it its
column is left out. Every measurement of one engine at one size runs in its own subprocess
(``--worker``), so memory is the engine's alone:

* build: entries of ``bench/corpus.py`` (seed 7, as ``bench_search.py``) given as
  ``(repo, path, line, full line)`` to ``Engine.build`` (``bench/engines``), in memory;
* memory: the process's resident set after the build minus before it (RSS, so native
  SQLite / tantivy memory counts), and the peak (``ru_maxrss``) minus the same base;
* keystroke p50 / p95 / max: every prefix of ``bench_search.SCRIPTS`` (typos, backspaces,
  several words, a path), a fresh ``search(q, 50)`` per keystroke, ``--repeats`` times; for
  amr also through ``SearchSession`` (what the finder uses). These run in one process holding
  every engine, each keystroke going to each engine in turn (rotating order), so a busy
  machine slows them alike and the ratios hold;
* on disk: FTS5 built into a file (WAL) and tantivy into a folder, their size; amr's pickled
  cache (``searchcache.save``) of the same index; then, in a fresh process, the time to open
  it and answer a first query (``redis port``) with the page cache warm.

The table shows each figure with its ratio to amr's from the same run. Nothing asserts.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _p in (str(HERE), str(ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

FIRST_QUERY = "redis port"


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3  # KiB on Linux


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[max(0, min(len(s) - 1, round(p / 100 * (len(s) - 1))))]


def entries_for(n: int) -> list[tuple[str, str, int, str]]:
    from corpus import generate_files

    return [(cf.repo, cf.path, line, full) for cf in generate_files(n, seed=7) for line, _t, full in cf.entries]


def make_engine(name: str, path: Path | None = None):
    if name == "amr":
        from bench.engines import AmrEngine

        return AmrEngine()
    if name == "fts5":
        from bench.engines.fts5 import Fts5Engine

        return Fts5Engine(path)
    if name == "tantivy":
        from bench.engines.tantivy_engine import TantivyEngine

        return TantivyEngine(path)
    raise SystemExit(f"unknown engine {name}")


def worker_build(name: str, n: int, disk: Path) -> dict[str, object]:
    entries = entries_for(n)
    make_engine(name)  # imports done before the clock starts
    if name == "amr":
        import amr_tui.core.format.metadata  # noqa: F401  (strip_metadata imports it on first use)
        import amr_tui.core.search.index  # noqa: F401
    gc.collect()
    base, base_peak = rss_mb(), peak_mb()
    eng = make_engine(name)
    t = time.perf_counter()
    eng.build(entries)
    build_s = time.perf_counter() - t
    gc.collect()
    out: dict[str, object] = {
        "entries": len(entries),
        "build_s": round(build_s, 3),
        "rss_mb": round(rss_mb() - base, 1),
        "peak_mb": round(max(peak_mb(), base_peak) - base, 1),
    }
    del eng
    gc.collect()
    # the persistent variant
    if name == "amr":
        from amr_tui.services.batch import searchcache

        eng = make_engine("amr")
        eng.build(entries)
        t = time.perf_counter()
        target = disk / "search.pickle"
        searchcache.save(target, eng.index, {})
        out["disk_build_s"] = round(build_s + time.perf_counter() - t, 3)
        out["disk_mb"] = round(target.stat().st_size / 1e6, 1)
    else:
        eng = make_engine(name, disk / f"{name}.db" if name == "fts5" else disk / name)
        t = time.perf_counter()
        eng.build(entries)
        out["disk_build_s"] = round(time.perf_counter() - t, 3)
        files = [disk / f"{name}.db"] if name == "fts5" else list((disk / name).rglob("*"))
        files += list(disk.glob(f"{name}.db-*"))
        out["disk_mb"] = round(sum(f.stat().st_size for f in files if f.is_file()) / 1e6, 1)
        if name == "fts5":
            eng.close()
    return out


def worker_keys(names: list[str], n: int, repeats: int) -> dict[str, dict[str, object]]:
    """Keystroke timings of every engine, interleaved (each keystroke goes to every engine in
    turn, the order rotating) so that a busy machine slows them alike."""
    from bench_search import LIMIT, SCRIPTS, keystrokes

    from amr_tui.core.search.index import SearchSession

    entries = entries_for(n)
    engines = {}
    for name in names:
        engines[name] = make_engine(name)
        engines[name].build(entries)
    times: dict[str, list[float]] = {name: [] for name in [*names, "amr-session"]}
    turn = 0
    for _ in range(repeats):
        for script in SCRIPTS:
            sess = SearchSession(engines["amr"].index)
            calls = {name: (lambda q, e=eng: e.search(q, LIMIT)) for name, eng in engines.items()}
            calls["amr-session"] = lambda q: sess.search(q, LIMIT)
            order = list(calls)
            for q in keystrokes(script):
                turn += 1
                for name in order[turn % len(order) :] + order[: turn % len(order)]:
                    t = time.perf_counter()
                    calls[name](q)
                    times[name].append(time.perf_counter() - t)
    out: dict[str, dict[str, object]] = {}
    for name, ts in times.items():
        key = "amr" if name == "amr-session" else name
        prefix = "session" if name == "amr-session" else "key"
        out.setdefault(key, {}).update(
            {
                f"{prefix}_p50_ms": round(pct(ts, 50) * 1000, 2),
                f"{prefix}_p95_ms": round(pct(ts, 95) * 1000, 2),
                f"{prefix}_max_ms": round(max(ts) * 1000, 2),
                "keys": len(ts),
            }
        )
    return out


def worker_reopen(name: str, disk: Path) -> dict[str, object]:
    t = time.perf_counter()
    if name == "amr":
        from amr_tui.services.batch import searchcache

        imported = time.perf_counter()
        loaded = searchcache.load(disk / "search.pickle")
        assert loaded is not None, "the cache did not load"
        index = loaded[0]
        opened = time.perf_counter()
        hits = index.search(FIRST_QUERY, 50)
    elif name == "fts5":
        from bench.engines.fts5 import Fts5Engine

        imported = time.perf_counter()
        eng = Fts5Engine.open(disk / "fts5.db")
        opened = time.perf_counter()
        hits = eng.search(FIRST_QUERY, 50)
    else:
        from bench.engines.tantivy_engine import TantivyEngine

        imported = time.perf_counter()
        eng = TantivyEngine.open(disk / "tantivy")
        opened = time.perf_counter()
        hits = eng.search(FIRST_QUERY, 50)
    done = time.perf_counter()
    return {
        "import_ms": round((imported - t) * 1000, 1),
        "open_ms": round((opened - imported) * 1000, 1),
        "first_query_ms": round((done - opened) * 1000, 1),
        "reopen_ms": round((done - imported) * 1000, 1),
        "first_hits": len(hits),
    }


def run_worker(args: list[str]) -> dict[str, object]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", *args]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"worker {args} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


ROWS = [
    ("build, s (in memory)", "build_s"),
    ("memory after build, MB (RSS delta)", "rss_mb"),
    ("peak memory during build, MB (RSS delta)", "peak_mb"),
    ("**keystroke p95, ms** (fresh search)", "key_p95_ms"),
    ("keystroke p50, ms (fresh search)", "key_p50_ms"),
    ("keystroke max, ms (fresh search)", "key_max_ms"),
    ("keystroke p50 / p95 / max, ms (amr SearchSession)", "session"),
    ("persistent build, s (amr: build + pickle)", "disk_build_s"),
    ("on disk, MB", "disk_mb"),
    ("**reopen + first query, ms** (warm page cache)", "reopen_ms"),
    ("  of which open / first query, ms", "open_first"),
    ("  module imports, ms (not in the row above)", "import_ms"),
]


def cell(res: dict[str, object], base: dict[str, object], key: str) -> str:
    if key == "session":
        if "session_p50_ms" not in res:
            return "-"
        return f"{res['session_p50_ms']} / {res['session_p95_ms']} / {res['session_max_ms']}"
    if key == "open_first":
        return f"{res.get('open_ms', '-')} / {res.get('first_query_ms', '-')}"
    v = res.get(key)
    if v is None:
        return "n/a"
    b = base.get(key)
    if res is base or not isinstance(b, int | float) or not isinstance(v, int | float) or b == 0:
        return str(v)
    return f"{v} ({v / b:.1f}x)"


def table(results: dict[int, dict[str, dict[str, object]]], engines: list[str]) -> str:
    lines = []
    for n, per in results.items():
        lines.append(
            f"\n#### {n:,} entries (in brackets: engine / amr from the same run; below 1.0x the engine beats amr)\n"
        )
        lines.append("| measure | " + " | ".join(engines) + " |")
        lines.append("|---|" + "---|" * len(engines))
        for label, key in ROWS:
            lines.append(f"| {label} | " + " | ".join(cell(per[e], per["amr"], key) for e in engines) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--engines", default="amr,fts5,tantivy")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        kind, name, *rest = args.worker
        if kind == "build":
            res = worker_build(name, int(rest[0]), Path(rest[1]))
        elif kind == "keys":
            res = worker_keys(name.split(","), int(rest[0]), int(rest[1]))
        else:
            res = worker_reopen(name, Path(rest[0]))
        print(json.dumps(res))
        return 0
    engines = [e for e in args.engines.split(",") if e]
    if "tantivy" in engines:
        try:
            import tantivy  # noqa: F401
        except ImportError:
            print("tantivy is not installed (.venv/bin/pip install tantivy): left out", file=sys.stderr)
            engines.remove("tantivy")
    if "amr" not in engines:
        engines.insert(0, "amr")
    t0 = time.perf_counter()
    results: dict[int, dict[str, dict[str, object]]] = {}
    for n in [int(s) for s in args.sizes.split(",")]:
        per: dict[str, dict[str, object]] = {}
        for name in engines:
            with tempfile.TemporaryDirectory(prefix="amr-engines-") as tmp:
                res = run_worker(["build", name, str(n), tmp])
                res |= run_worker(["reopen", name, tmp])
            per[name] = res
            print(f"... {n:,} {name} done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
        for name, res in run_worker(["keys", ",".join(engines), str(n), str(args.repeats)]).items():
            per[name] |= res  # type: ignore[operator]
        print(f"... {n:,} keystrokes done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
        results[n] = per
    keys = statistics.mean(float(str(r["keys"])) for p in results.values() for r in p.values())
    print(
        f"Engines compared (python {sys.version.split()[0]}, sqlite {__import__('sqlite3').sqlite_version}, "
        f"limit 50, {keys:.0f} keystrokes per engine and size)"
    )
    print(table(results, engines))
    if args.json:
        Path(args.json).write_text(json.dumps({str(k): v for k, v in results.items()}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
