"""How amr's costs grow with the repo: every scale figure at 1k, 10k, 100k and 1M entries.

    .venv/bin/python bench/scale.py                  # ~9 minutes on 2 cores (the 1M corpus is built once, ~35 s)
    .venv/bin/python bench/scale.py --quick          # one child per size, one lint repeat
    .venv/bin/python bench/scale.py --write-docs     # also rewrite the table in docs/scale.md
    .venv/bin/python bench/scale.py --profile 1000000:index   # where parse + index + keystrokes go (memory, lint)

Each size's in-process figures run in a fresh child process (``--child SIZE``), so its peak
RSS (``VmHWM``) is that size's alone: the child does what ``bench/figures_core.py`` does,
with its functions (``load_timed``: ``Session.load`` split into parse + index, repo lint and
git; ``reindex``: ``Session.reload_files`` and ``Session.poll`` after one file changed;
``search``: the finder's ``Session.search_session()`` over the typed scripts of
``bench_search.py``). The children run interleaved (1k, 10k, 100k, 1M, then again), and
``amr lint`` (warm cache) and ``rg`` alternate run by run, so the shared machine's load falls
on every size and on both sides of a ratio alike.

Prints a table (one row per figure, one column per size, and how it grows: the log-log slope
from 100k to 1M: falls < -0.3 <= flat < 0.3 <= linear <= 1.15 < worse), writes ``bench/out/scale.json``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import gen  # noqa: E402
from rows import median, run_process  # noqa: E402

SIZES = (1_000, 10_000, 100_000, gen.MILLION)
DOC = HERE.parent / "docs" / "scale.md"
OUT = HERE / "out"
BEGIN, END = "<!-- scale-table:begin -->", "<!-- scale-table:end -->"

# Targets at 1M on 2 cores (issue 14), and the one at 100k.
TARGETS: dict[str, tuple[float, str]] = {
    "keystroke_p95_ms": (30.0, "<= 30 ms"),
    "index_s": (10.0, "<= 10 s"),
    "index_s_warm": (10.0, "<= 10 s"),
    "reload_ms": (20.0, "<= 20 ms"),
    "rss_mb": (1024.0, "<= 1 GB (<= 250 MB at 100k)"),
    "lint_ratio": (15.0, "<= 15x rg"),
}
RSS_100K_MB = 250.0


def vm(key: str) -> float:
    """A field of /proc/self/status in MB (VmHWM: the peak resident set so far)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def corpus(size: int) -> Path:
    dest = OUT / "corpora"
    dest.mkdir(parents=True, exist_ok=True)
    return gen.million_repo(dest) if size == gen.MILLION else gen.size_repo(dest, size)


# ------------------------------------------------------------------ one size, in a child
def child(size: int, warm: bool = False) -> dict[str, float]:
    """Load the session of one corpus and time what figures_core times; JSON on stdout.
    Cold (every file read), then the caches are written (timed) for the warm child; ``warm``:
    started from those caches."""
    from figures_core import load_timed, reindex, search

    from amr_tui.services.session.session import Session  # its imports' memory counts before the load

    root = corpus(size)
    gc.collect()
    before = vm("VmRSS")
    at_lint: list[float] = []
    lint_all = Session.lint_all

    def lint_all_seen(self: Session) -> None:  # the peak and CPU once parsed and indexed, before the repo lint
        at_lint.extend((vm("VmHWM"), time.process_time() - cpu0))
        lint_all(self)

    Session.lint_all = lint_all_seen  # type: ignore[method-assign]
    cpu0 = time.process_time()
    session, parts, _calls = load_timed(root, cache=warm)
    Session.lint_all = lint_all  # type: ignore[method-assign]
    out: dict[str, float] = {
        "index_s": parts["parse_index"],
        "load_s": parts["total"],
        "relint_s": parts["relint"],
        "git_s": parts["git"],
        "load_cpu_s": parts["cpu"],
        "rss_mb": vm("VmHWM"),
        "rss_index_mb": at_lint[0] if at_lint else float("nan"),
        "index_cpu_s": at_lint[1] if at_lint else float("nan"),
        "rss_imports_mb": before,
        "rss_now_mb": vm("VmRSS"),
        "entries": float(sum(f.count for s in session.repos.values() for f in s.facts.values())),
        "files": float(sum(len(s.files) for s in session.repos.values())),
    }
    rows = reindex(session, root)
    out["reload_ms"] = rows[0].value or float("nan")
    out["poll_ms"] = rows[1].value or float("nan")
    out["reindex_core_ms"] = rows[2].value or float("nan")
    out["status_ms"] = rows[3].value or float("nan")
    srow = search({size: session}, baseline_keys=1 if size >= gen.MILLION else 4)[0]
    out["keystroke_p95_ms"] = srow.value or float("nan")
    out["keystroke_p50_ms"] = float(srow.note.split("p50 ", 1)[1].split(" ms", 1)[0])
    out["keystroke_max_ms"] = float(srow.note.split("max ", 1)[1].split(" ms", 1)[0])
    out["wratio_p95_ms"] = srow.baseline or float("nan")
    out["rss_end_mb"] = vm("VmHWM")
    if not warm:
        t = time.perf_counter()
        session.save_caches()
        out["cache_write_s"] = time.perf_counter() - t
        out["rss_saved_mb"] = vm("VmHWM")
    return {(k + "_warm" if warm else k): v for k, v in out.items()}


def run_child(size: int, warm: bool = False) -> dict[str, float]:
    res = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", str(size), *(["--warm"] if warm else [])],
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
        env=dict(os.environ, XDG_CACHE_HOME=str(OUT / "cache")),  # the children's caches, not the user's
    )
    if res.returncode != 0:
        raise SystemExit(f"child {size} failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ lint vs rg, processes
def lint(repos: dict[int, Path], repeats: int) -> dict[int, dict[str, float]]:
    """`amr lint` with a warm cache vs `rg -c '^- '` over the same files, alternating run by run
    (the rg of figures_proc.cli_lint); the first, cold run (every file parsed) for the note."""
    import shutil

    from figures_proc import AMR, _one_file_changed

    rg = shutil.which("rg")
    out: dict[int, dict[str, float]] = {}
    for size, repo in repos.items():
        cold = run_process([AMR, "lint", "--no-cache", str(repo)])[0]
        run_process([AMR, "lint", str(repo)])  # the cache is written
        ours, theirs = [], []
        for _ in range(repeats):
            ours.append(run_process([AMR, "lint", str(repo)])[0])
            if rg:
                theirs.append(run_process([rg, "-c", "^- ", "-g", "*.md", str(repo)])[0])
        one = _one_file_changed(repo, max(1, repeats // 2))
        out[size] = {
            "lint_warm_ms": median(ours) * 1000,
            "rg_ms": median(theirs) * 1000 if theirs else float("nan"),
            "lint_cold_ms": cold * 1000,
            "lint_one_ms": one * 1000,
        }
        out[size]["lint_ratio"] = out[size]["lint_warm_ms"] / out[size]["rg_ms"]
    return out


# ------------------------------------------------------------------ the table
FIGURES: list[tuple[str, str, str]] = [
    # key, figure, unit
    ("index_s", "Full index: parse + search index (Session.load without repo lint / git)", "s"),
    ("index_cpu_s", "  its CPU time (the machine is shared: wall > CPU when loaded)", "s"),
    ("load_s", "Whole Session.load (parse, index, repo lint, git status)", "s"),
    ("relint_s", "  of which the repo-wide lint", "s"),
    ("keystroke_p95_ms", "Finder keystroke p95 (search_session over the typed scripts)", "ms"),
    ("keystroke_p50_ms", "Finder keystroke p50", "ms"),
    ("wratio_p95_ms", "  baseline: rapidfuzz WRatio scan of every entry, one query", "ms"),
    ("reload_ms", "Re-index one changed file: Session.reload_files (a save)", "ms"),
    ("poll_ms", "Re-index one changed file: Session.poll (an agent's write: walk + stats)", "ms"),
    ("status_ms", "Repo badge after a change: git status (refresh_info)", "ms"),
    ("rss_mb", "Peak RSS of a process that loaded the session (VmHWM)", "MB"),
    ("rss_index_mb", "  of which before the repo lint (parsed and indexed)", "MB"),
    ("rss_imports_mb", "  baseline: the same process before the load (imports only)", "MB"),
    ("index_s_warm", "Warm start: full index from the caches (Session.load without repo lint / git)", "s"),
    ("load_s_warm", "  whole Session.load from the caches", "s"),
    ("keystroke_p95_ms_warm", "  finder keystroke p95 on the index loaded from the cache", "ms"),
    ("rss_mb_warm", "  peak RSS of the warm start (VmHWM)", "MB"),
    ("cache_write_s", "Writing the caches after a cold start (Session.save_caches)", "s"),
    ("rss_saved_mb", "  peak RSS once written (VmHWM of the cold process)", "MB"),
    ("lint_warm_ms", "`amr lint`, warm cache (process to process)", "ms"),
    ("rg_ms", "  baseline: `rg -c '^- ' -g '*.md'` over the same files", "ms"),
    ("lint_ratio", "`amr lint` warm / rg", "x"),
    ("lint_one_ms", "`amr lint` after one file changed", "ms"),
    ("lint_cold_ms", "`amr lint --no-cache` (every file parsed)", "ms"),
]


def grows(values: dict[int, float]) -> str:
    """flat / linear / worse, from the log-log slope over the top decade (100k -> 1M)."""
    a, b = values.get(100_000), values.get(gen.MILLION)
    if not a or not b or math.isnan(a) or math.isnan(b) or a <= 0 or b <= 0:
        return "?"
    slope = math.log10(b / a)
    word = "falls" if slope < -0.3 else "flat" if slope < 0.3 else "linear" if slope <= 1.15 else "worse"
    return f"{word} ({b / a:.1f}x for 10x)"


def _fmt(v: float | None, unit: str) -> str:
    if v is None or math.isnan(v):
        return "—"
    if unit == "s":
        return f"{v:.2f} s"
    if unit == "x":
        return f"{v:.1f}x"
    if unit == "MB":
        return f"{v:.0f} MB"
    return f"{v:.1f} ms" if v < 100 else f"{v:.0f} ms"


def target_cell(key: str, values: dict[int, float]) -> str:
    if key not in TARGETS:
        return ""
    limit, text = TARGETS[key]
    v = values.get(gen.MILLION)
    met = v is not None and not math.isnan(v) and v <= limit
    if key == "rss_mb":
        v100 = values.get(100_000)
        met = met and v100 is not None and v100 <= RSS_100K_MB
    return f"{text}: {'met' if met else '**not met**'}"


def table(figures: dict[str, dict[int, float]], sizes: list[int]) -> str:
    head = ["figure", *[f"{s:,}" for s in sizes], "grows (100k→1M)", "target at 1M"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, name, unit in FIGURES:
        vals = figures.get(key, {})
        cells = [_fmt(vals.get(s), unit) for s in sizes]
        lines.append("| " + " | ".join([name, *cells, grows(vals), target_cell(key, vals)]) + " |")
    return "\n".join(lines)


def machine() -> str:
    cpu = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    return f"{os.cpu_count()} cores ({cpu}), Python {sys.version.split()[0]}"


def profile(size: int, what: str) -> str:
    """Where one size's time or memory goes, without the repo lint unless ``what`` says so.

    ``index``: parse + index, then the finder's keystrokes (run it under ``py-spy record``, or
    it prints cProfile's top functions); ``memory``: tracemalloc's top allocation sites once
    parsed and indexed, and again after the repo lint; ``lint``: cProfile of the repo lint."""
    import cProfile
    import io
    import pstats
    import tracemalloc

    from bench_search import SCRIPTS, keystrokes
    from figures_core import _session

    root = corpus(size)
    buf = io.StringIO()
    session = _session(root)
    if what == "memory":
        tracemalloc.start(1)
        session.scan()
        session.index_files()
        for label in ("parsed and indexed", "after the repo lint"):
            snap = tracemalloc.take_snapshot()
            total = sum(st.size for st in snap.statistics("filename"))
            buf.write(f"\ntracemalloc at {size:,} entries, {label}: {total / 2**20:.0f} MB traced\n")
            for st in snap.statistics("lineno")[:14]:
                buf.write(f"{st.size / 2**20:8.1f} MB {st.count:>10,} blocks  {st.traceback[0]}\n")
            if label == "parsed and indexed":
                session.lint_all()
        tracemalloc.stop()
        return buf.getvalue()
    prof = cProfile.Profile() if "PYSPY" not in os.environ else None
    if prof:
        prof.enable()
    t = time.perf_counter()
    session.scan()
    session.index_files()
    buf.write(f"parse + index of {size:,}: {time.perf_counter() - t:.1f} s\n")
    if what == "lint":
        t = time.perf_counter()
        session.lint_all()
        buf.write(f"repo lint: {time.perf_counter() - t:.1f} s\n")
    else:
        t = time.perf_counter()
        n = 0
        for script in SCRIPTS:
            finder = session.search_session()
            for q in keystrokes(script):
                finder(q, 50)
                n += 1
        buf.write(f"{n} keystrokes: {time.perf_counter() - t:.1f} s\n")
    if prof:
        prof.disable()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(25)
    return buf.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--warm", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="one child per size, one lint repeat")
    ap.add_argument("--write-docs", action="store_true", help="rewrite the table in docs/scale.md")
    ap.add_argument("--profile", metavar="SIZE:WHAT", help="profile one size: index, memory or lint (no table)")
    ap.add_argument("--million-twice", action="store_true", help="a second 1M child (~6 more minutes)")
    ap.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.warm)))
        return
    import compileall  # an installed package carries its bytecode: time the code, not its compiling

    compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "amr_tui"), quiet=1)
    if args.profile:
        size, what = args.profile.split(":")
        print(profile(int(size), what))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    started = time.perf_counter()
    load_at_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
    repos = {s: corpus(s) for s in sizes}
    rounds = 1 if args.quick else 2
    runs: dict[int, list[dict[str, float]]] = {s: [] for s in sizes}
    for k in range(rounds):  # interleaved: every size sees the machine's load alike
        for s in sizes:
            if k and s >= gen.MILLION and not args.million_twice:
                continue  # one 1M child (~6 minutes, most of it the repo lint) unless asked
            got = run_child(s)
            got.update(run_child(s, warm=True))  # from the caches the cold child wrote
            runs[s].append(got)
            print(f"  child {s:,}: {runs[s][-1]}", file=sys.stderr)
    lints = lint(repos, 2 if args.quick else 5)
    figures: dict[str, dict[int, float]] = {}
    for s in sizes:
        keys = runs[s][0].keys()
        for k in keys:
            vals = [r[k] for r in runs[s]]
            # RSS: the largest child; times: the median of the children
            figures.setdefault(k, {})[s] = max(vals) if k.startswith("rss") else median(vals)
        for k, v in lints[s].items():
            figures.setdefault(k, {})[s] = v
    text = table(figures, sizes)
    load_at_end = " ".join(f"{x:.2f}" for x in os.getloadavg())
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    header = (
        f"{stamp}; {machine()}; load average (1/5/15 min) {load_at_start} at the start, {load_at_end} at "
        f"the end; {rounds} child processes per size below 1M, {len(runs.get(gen.MILLION, []))} at 1M, interleaved; "
        f"{int(figures['entries'][sizes[-1]]):,} entries in {int(figures['files'][sizes[-1]]):,} files at the top; "
        f"run took {time.perf_counter() - started:.0f} s."
    )
    print(header)
    print(text)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "scale.json").write_text(
        json.dumps({"header": header, "runs": {str(s): runs[s] for s in sizes}, "lint": lints}, indent=2) + "\n"
    )
    if args.write_docs:
        doc = DOC.read_text()
        a, b = doc.index(BEGIN) + len(BEGIN), doc.index(END)
        DOC.write_text(doc[:a] + "\n" + header + "\n\n" + text + "\n" + doc[b:])


if __name__ == "__main__":
    main()
