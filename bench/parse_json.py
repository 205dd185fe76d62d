"""`amr parse FILE --json` on a 100,000-entry file, beside a baseline from the same run.

The baseline is a Python process that reads the JSON `amr parse` printed and prints it again with
`json.dumps` (the same data, the same `indent=2`): what printing that many objects costs at all.
Each figure is the median of `--repeat` process runs (wall clock, and CPU: user + system of the
child), run in turn so load on the machine hits both alike; read the ratios.

    .venv/bin/python bench/parse_json.py                      # this checkout
    .venv/bin/python bench/parse_json.py --root /work/main    # another checkout (e.g. before a fix)
    .venv/bin/python bench/parse_json.py --profile            # cProfile of one run, top 15 by cumulative time
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENTRIES = 100_000
WORDS = "release freeze deploy redis cache token metrics alert".split()


def write_file(path: Path, entries: int = ENTRIES) -> None:
    """A memory file of ``entries`` one-line facts with a source and a date (under amr's 8 MiB)."""
    lines = ["# Big\n", "\n"]
    for i in range(entries):
        words = " ".join(WORDS[(i * k + k) % len(WORDS)] for k in (1, 3, 5))
        lines.append(f"- F{i} {words} [source: https://e.co/{i}; added: 2026-01-02]\n")
    path.write_text("".join(lines), encoding="utf-8")


def timed(argv: list[str], out: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one run, its stdout to ``out``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with out.open("wb") as sink:
        subprocess.run(argv, stdout=sink, check=True, env=env, cwd=out.parent)  # cwd: no checkout on sys.path
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=None, help="run amr from this checkout (default: the installed one)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="print a cProfile of one run instead")
    args = ap.parse_args()
    env = dict(os.environ)
    if args.root is not None:
        env["PYTHONPATH"] = str(args.root.resolve())
    with tempfile.TemporaryDirectory(prefix="amr-parse-bench-") as tmp:
        folder = Path(tmp)
        memory = folder / "big.md"
        write_file(memory)
        amr = [sys.executable, "-m", "amr_tui", "parse", str(memory), "--json"]
        if args.profile:
            prof = folder / "parse.prof"
            subprocess.run(
                [sys.executable, "-m", "cProfile", "-o", str(prof), *amr[1:]],
                stdout=subprocess.DEVNULL,
                check=True,
                env=env,
                cwd=folder,
            )
            import pstats

            pstats.Stats(str(prof)).sort_stats("cumulative").print_stats(15)
            return 0
        printed = folder / "amr.json"
        again = folder / "again.json"
        baseline = [
            sys.executable,
            "-c",
            "import json, sys; data = json.load(open(sys.argv[1])); "
            "sys.stdout.write(json.dumps(data, ensure_ascii=True, indent=2) + '\\n')",
            str(printed),
        ]
        timed(amr, printed, env)  # warm the disk cache; the baseline reads what this printed
        runs: dict[str, list[tuple[float, float]]] = {"amr": [], "baseline": []}
        for _ in range(args.repeat):
            runs["amr"].append(timed(amr, printed, env))
            runs["baseline"].append(timed(baseline, again, env))
        size = memory.stat().st_size
        print(f"amr parse --json, {ENTRIES:,} entries ({size / 2**20:.1f} MiB), median of {args.repeat}:")
        for what in ("wall", "cpu"):
            k = 0 if what == "wall" else 1
            a = statistics.median(r[k] for r in runs["amr"])
            b = statistics.median(r[k] for r in runs["baseline"])
            print(
                f"  {what:>4}: amr {a:6.2f} s   baseline (json.dumps of the same data) {b:6.2f} s   ratio {a / b:5.2f}"
            )
        print(f"  output {printed.stat().st_size / 2**20:.1f} MiB; root: {args.root or 'installed'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
