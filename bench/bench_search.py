"""Benchmark of amr_tui.core.search against a plain rapidfuzz scan, in the same run.

    .venv/bin/python bench/bench_search.py [--sizes 1000,10000,100000] [--json PATH] [--quick]

For each corpus size (synthetic, bench/corpus.py, ~50 entries per file) it times:

* the full index build (``set_file`` per file) and the memory the index holds (tracemalloc,
  measured on a second build so the timings are not slowed by it);
* ``set_file`` on one file: same content, one entry edited, the whole file replaced;
* a scripted typing session: realistic queries typed one character at a time (typos,
  backspaces, multi-word, a path), timed per keystroke with a ``SearchSession`` (what the
  UI uses), with fresh ``SearchIndex.search`` calls, and with a session while a file is
  re-indexed every 4th keystroke;
* the baseline: ``rapidfuzz.process.extract(query, texts, scorer=fuzz.WRatio, limit=20)``
  over the same entry texts, on the same keystrokes (a spread sample of them at large
  sizes, to keep the run short).

Only ratios are meaningful across machines; nothing here asserts a threshold.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from corpus import entry_texts, generate_files, iter_index_input  # noqa: E402

from amr_tui.core.search.index import SearchIndex, SearchSession  # noqa: E402

# Each script is what the user types; "\b" is a backspace.
SCRIPTS = [
    "redis port",
    "postgers\b\b\bres max conn",
    "kubernets",
    "alice timezone",
    "deploy friday staging",
    "infra/amber",
    "rediscache",
    "conection\b\b\b\b\bnnection pool",
    "port 6379",
    "vault secret prod",
    "eng-42",
    "prefers tabs",
    "WorkerPixel",
    "migrated snowflake",
]
LIMIT = 50


def keystrokes(script: str) -> list[str]:
    out: list[str] = []
    cur = ""
    for ch in script:
        cur = cur[:-1] if ch == "\b" else cur + ch
        if cur:
            out.append(cur)
    return out


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(p / 100 * (len(s) - 1))))
    return s[k]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def build(inputs: list[tuple[str, str, list[tuple[int, str]]]]) -> SearchIndex:
    idx = SearchIndex()
    for repo, path, ents in inputs:
        idx.set_file(repo, path, ents)
    return idx


def index_memory(inputs: list[tuple[str, str, list[tuple[int, str]]]]) -> float:
    gc.collect()
    tracemalloc.start()
    idx = build(inputs)
    gc.collect()
    used = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del idx
    return round(used / 1e6, 1)


def time_calls(fn, args_list) -> list[float]:
    out = []
    for a in args_list:
        t = time.perf_counter()
        fn(a)
        out.append(time.perf_counter() - t)
    return out


def run_size(n: int, repeats: int, baseline_max: int) -> dict[str, object]:
    files = generate_files(n, seed=7)
    inputs = list(iter_index_input(files))
    texts = entry_texts(files)
    gc.collect()
    t = time.perf_counter()
    idx = build(inputs)
    build_s = time.perf_counter() - t
    mem_mb = index_memory(inputs)

    # set_file on one file of ~50 entries, in an index of n entries
    repo, path, ents = inputs[len(inputs) // 2]
    others = [x[2] for x in inputs[: len(inputs) // 2]][:40]

    def edit_one(k: int) -> None:
        changed = list(ents)
        line, text = changed[k % len(changed)]
        changed[k % len(changed)] = (line, f"{text} edited {k}")
        idx.set_file(repo, path, changed)

    same = time_calls(lambda k: idx.set_file(repo, path, ents), range(20))
    one = time_calls(edit_one, range(20))
    whole = time_calls(lambda k: idx.set_file(repo, path, others[k % len(others)]), range(20))
    idx.set_file(repo, path, ents)

    keys = [k for s in SCRIPTS for k in keystrokes(s)]
    gc.collect()
    session_times: list[float] = []
    for _ in range(repeats):
        for script in SCRIPTS:
            sess = SearchSession(idx)
            session_times += time_calls(lambda q: sess.search(q, LIMIT), keystrokes(script))
    fresh_times: list[float] = []
    for _ in range(repeats):
        fresh_times += time_calls(lambda q: idx.search(q, LIMIT), keys)
    # typing while another file is re-indexed every 4th keystroke (invalidates the session)
    edit_times: list[float] = []
    step = 0
    for script in SCRIPTS:
        sess = SearchSession(idx)
        for q in keystrokes(script):
            step += 1
            if step % 4 == 0:
                edit_one(step)
            t = time.perf_counter()
            sess.search(q, LIMIT)
            edit_times.append(time.perf_counter() - t)
    idx.set_file(repo, path, ents)

    from rapidfuzz import fuzz, process

    sample = keys if len(keys) <= baseline_max else keys[:: max(1, len(keys) // baseline_max)][:baseline_max]
    gc.collect()
    base_times = time_calls(lambda q: process.extract(q, texts, scorer=fuzz.WRatio, limit=20), sample)
    ours_on_sample = []
    for q in sample:  # the same keystrokes, fresh, for a like-for-like ratio
        t = time.perf_counter()
        idx.search(q, LIMIT)
        ours_on_sample.append(time.perf_counter() - t)

    return {
        "entries": len(texts),
        "items": len(idx),
        "files": len(inputs),
        "vocabulary": len(idx._vocab),
        "build_s": round(build_s, 3),
        "index_mb": mem_mb,
        "set_file_same_ms": ms(statistics.median(same)),
        "set_file_one_edit_ms": ms(statistics.median(one)),
        "set_file_whole_ms": ms(statistics.median(whole)),
        "set_file_whole_max_ms": ms(max(whole)),
        "keystrokes": len(session_times),
        "session_p50_ms": ms(pct(session_times, 50)),
        "session_p95_ms": ms(pct(session_times, 95)),
        "session_max_ms": ms(max(session_times)),
        "fresh_p50_ms": ms(pct(fresh_times, 50)),
        "fresh_p95_ms": ms(pct(fresh_times, 95)),
        "edits_p50_ms": ms(pct(edit_times, 50)),
        "edits_p95_ms": ms(pct(edit_times, 95)),
        "baseline_keystrokes": len(sample),
        "baseline_p50_ms": ms(pct(base_times, 50)),
        "baseline_p95_ms": ms(pct(base_times, 95)),
        "ratio_p50": round(pct(base_times, 50) / max(pct(ours_on_sample, 50), 1e-9), 1),
        "ratio_p95": round(pct(base_times, 95) / max(pct(ours_on_sample, 95), 1e-9), 1),
    }


ROWS = [
    ("entries", "entries"),
    ("items (entries + file names)", "items"),
    ("vocabulary (tokens)", "vocabulary"),
    ("full build, s", "build_s"),
    ("index memory, MB (tracemalloc)", "index_mb"),
    ("set_file, same content, ms (median)", "set_file_same_ms"),
    ("set_file, one entry edited, ms (median)", "set_file_one_edit_ms"),
    ("set_file, whole file replaced, ms (median / max)", "set_file_whole_ms"),
    ("keystrokes timed (session)", "keystrokes"),
    ("**keystroke p50 / p95 / max, ms (SearchSession)**", "session_p50_ms"),
    ("keystroke p50 / p95, ms (fresh SearchIndex.search)", "fresh_p50_ms"),
    ("keystroke p50 / p95, ms (session, re-index every 4th key)", "edits_p50_ms"),
    ("baseline WRatio p50 / p95, ms (keystrokes sampled)", "baseline_p50_ms"),
    ("**speed-up vs baseline, p50 / p95 (same keystrokes)**", "ratio_p50"),
]
PAIRS = {
    "set_file_whole_ms": "set_file_whole_max_ms",
    "session_p50_ms": ("session_p95_ms", "session_max_ms"),
    "fresh_p50_ms": "fresh_p95_ms",
    "edits_p50_ms": "edits_p95_ms",
    "baseline_p50_ms": ("baseline_p95_ms", "baseline_keystrokes"),
    "ratio_p50": "ratio_p95",
}


def cell(res: dict[str, object], key: str) -> str:
    extra = PAIRS.get(key)
    if extra is None:
        return str(res[key])
    if key == "baseline_p50_ms":
        return f"{res[key]} / {res['baseline_p95_ms']} (n={res['baseline_keystrokes']})"
    if isinstance(extra, tuple):
        return " / ".join(str(res[k]) for k in (key, *extra))
    suffix = "x" if key.startswith("ratio") else ""
    return f"{res[key]}{suffix} / {res[extra]}{suffix}"


def table(results: dict[int, dict[str, object]]) -> str:
    sizes = list(results)
    head = "| measure | " + " | ".join(f"{s:,} entries" for s in sizes) + " |"
    sep = "|---|" + "---|" * len(sizes)
    lines = [head, sep]
    for label, key in ROWS:
        lines.append(f"| {label} | " + " | ".join(cell(results[s], key) for s in sizes) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--repeats", type=int, default=3, help="typing sessions per size")
    ap.add_argument("--baseline-max", type=int, default=24, help="baseline keystrokes at most")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--quick", action="store_true", help="sizes 1000,10000 and one repeat")
    args = ap.parse_args(argv)
    sizes = [1000, 10000] if args.quick else [int(s) for s in args.sizes.split(",")]
    repeats = 1 if args.quick else args.repeats
    t0 = time.perf_counter()
    results: dict[int, dict[str, object]] = {}
    for n in sizes:
        results[n] = run_size(n, repeats, args.baseline_max)
        print(f"... {n:,} entries done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    print(f"Search benchmark (python {sys.version.split()[0]}, limit={LIMIT}, {len(SCRIPTS)} typed queries)\n")
    print(table(results))
    if args.json:
        Path(args.json).write_text(json.dumps({str(k): v for k, v in results.items()}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
