"""amr's benchmark harness: every figure of "Fast at 100,000 facts", each next to a baseline
taken in the same run (these machines are noisy, so only same-run ratios mean much).

    .venv/bin/python bench/run.py                 # everything (a few minutes on 2 cores)
    .venv/bin/python bench/run.py --quick         # one repeat of each figure
    .venv/bin/python bench/run.py --only search,lint
    .venv/bin/python bench/run.py --write-docs    # also rewrite docs/benchmarks.md

Corpora are built once under bench/out/corpora (deterministic, real git: see bench/gen.py).
Results: a Markdown table on stdout and bench/out/results.json (figure, value, baseline,
ratio, target, met). Nothing here is part of the test suite.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import gen  # noqa: E402
from rows import Row  # noqa: E402

SECTIONS = ("startup", "index", "search", "relevance", "lint", "history", "review", "scroll")
SIZES = (1_000, 10_000, 100_000)


def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import textual

    git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    return {
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": str(os.cpu_count()),
        "cpu": cpu,
        "python": platform.python_version(),
        "textual": textual.__version__,
        "git": git.replace("git version ", ""),
        "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
    }


def corpora(out: Path) -> tuple[dict[int, Path], Path, dict[int, Path]]:
    dest = out / "corpora"
    dest.mkdir(parents=True, exist_ok=True)
    repos = {n: gen.size_repo(dest, n) for n in SIZES}
    history = gen.history_repo(dest)
    lines = {}
    for n, root in repos.items():  # every line of every Markdown file: what fzf filters
        path = dest / f"lines-{n}.txt"
        if not path.exists():
            with path.open("wb") as fh:
                for md in sorted(root.rglob("*.md")):
                    if ".git" not in md.parts:
                        fh.write(md.read_bytes())
        lines[n] = path
    return repos, history, lines


def fmt(v: float | None) -> str:
    if v is None:
        return "—"
    return f"{v:,.2f}" if abs(v) < 10 else f"{v:,.0f}" if abs(v) >= 1000 else f"{v:,.1f}"


def table(rows: list[Row]) -> str:
    out = ["| figure | value | baseline (same run) | ratio | target | met |", "|---|---:|---|---:|---|:---:|"]
    for r in rows:
        value = f"{fmt(r.value)} {r.unit}" if r.value is not None else r.note.split(":")[0]
        base = f"{fmt(r.baseline)} {r.unit} ({r.baseline_what})" if r.baseline is not None else r.baseline_what or "—"
        ratio = f"{r.ratio:.2f}x" if r.ratio is not None else "—"
        met = {True: "yes", False: "**no**", None: "—"}[r.met]
        out.append(f"| {r.figure} | {value} | {base} | {ratio} | {r.target or '—'} | {met} |")
    return "\n".join(out)


def notes(rows: list[Row]) -> str:
    return "\n".join(f"- {r.figure}: {r.note}" for r in rows if r.note)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--only", default=",".join(SECTIONS), help="comma-separated: " + ", ".join(SECTIONS))
    ap.add_argument("--quick", action="store_true", help="one repeat per figure")
    ap.add_argument("--write-docs", action="store_true", help="write the table to docs/benchmarks.md")
    args = ap.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(only) - set(SECTIONS)
    if unknown:
        ap.error(f"unknown sections: {', '.join(sorted(unknown))}")
    reps = 1 if args.quick else 3
    t0 = time.perf_counter()
    info = machine()
    say = lambda msg: print(f"[{time.perf_counter() - t0:5.0f} s] {msg}", file=sys.stderr, flush=True)  # noqa: E731
    # An installed package carries its bytecode (pip compiles it); an editable checkout run with
    # PYTHONDONTWRITEBYTECODE would compile every changed module in every timed process.
    import compileall

    compileall.compile_dir(str(HERE.parent / "amr_tui"), quiet=1)
    say("building corpora (cached)…")
    repos, history, lines = corpora(args.out)
    rows: list[Row] = []

    def section(name: str, fn, *a):
        if name not in only:
            return None
        say(f"{name}…")
        try:
            got = fn(*a)
        except Exception as exc:  # a broken figure is a row, not a crashed run
            rows.append(Row(f"{name}: error", None, "", note=f"error: {type(exc).__name__}: {exc}"[:300]))
            return None
        if isinstance(got, tuple):
            rows.extend(got[0])
            return got[1]
        rows.extend(got)
        return None

    import figures_core as fc
    import figures_git as fg
    import figures_proc as fp

    million = gen.million_repo(args.out / "corpora") if "startup" in only else None  # built once, then cached
    section("startup", fp.startup, repos, 2 if args.quick else 5, million)
    sessions = {}
    if "index" in only or "search" in only:
        big = section("index", fc.indexing, repos[100_000], 1 if args.quick else 2) if "index" in only else None
        if big is not None:
            section("index", fc.reindex, big, repos[100_000])
        for n in SIZES:
            if n == 100_000 and big is not None:
                sessions[n] = big
            elif "search" in only:
                sessions[n] = fc.load_timed(repos[n])[0]
    if sessions:
        section("search", fc.search, sessions, 4 if args.quick else 8)
    sessions.clear()
    section("search", fp.cli_search, {n: repos[n] for n in SIZES}, lines, reps)
    import figures_relevance as fr

    section("relevance", fr.relevance)
    section("lint", fp.cli_lint, repos[100_000], reps)
    section("history", fg.history, history, reps)
    section("review", fg.review, history, reps)
    section("scroll", fc.scrolling)
    elapsed = time.perf_counter() - t0
    say(f"done in {elapsed:.0f} s")
    head = (
        f"{info['date']} · {info['nproc']} CPUs ({info['cpu']}) · Python {info['python']} · "
        f"Textual {info['textual']} · git {info['git']} · load average at start {info['load']}"
    )
    print(f"# amr benchmarks\n\n{head}\n\n{table(rows)}\n\nNotes:\n{notes(rows)}\n")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(
        json.dumps({"machine": info, "seconds": round(elapsed, 1), "rows": [r.to_json() for r in rows]}, indent=2)
        + "\n"
    )
    if args.write_docs:
        doc = HERE.parent / "docs" / "benchmarks.md"
        doc.write_text(_doc(info, rows, elapsed))
        say(f"wrote {doc}")
    return 0


def _doc(info: dict[str, str], rows: list[Row], elapsed: float) -> str:
    return f"""# Benchmarks

The last run of `bench/run.py` (issue 6, "Fast at 100,000 facts"). Every figure sits next to a
baseline measured in the same run on the same machine; the corpora are deterministic real git
repos built by `bench/gen.py` (1,000 / 10,000 / 100,000 entries, ~50 per file, MEMORY.md with an
Index; a 5,000-commit history; a 100-file dreaming run). How every cost grows from 1,000 to
1,000,000 entries: [docs/scale.md](scale.md) (`bench/scale.py`). Rerun with:

```sh
.venv/bin/python bench/run.py --write-docs
```

- Date: {info["date"]}
- Machine: {info["nproc"]} CPUs, {info["cpu"]}; load average at start {info["load"]}
- Python {info["python"]}, Textual {info["textual"]}, git {info["git"]}
- Run time: {elapsed:.0f} s

{table(rows)}

## Notes

{notes(rows)}
"""


if __name__ == "__main__":
    raise SystemExit(main())
