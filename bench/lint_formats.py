"""The repo lint's time on the 100,000-entry bench repo, this tree against another commit's.

Issue 39 added checks to lint (whole wrapped facts, labels and fields left out of the duplicates,
placeholders, profile lookups). This times ``lint_repo`` over the parsed 100k repo (the line rules
and the repo checks; parsing is timed apart as the same run's baseline) in child processes that
alternate between this tree and ``--against`` (a commit, exported with ``git archive``), and prints
the medians and their ratio.

    .venv/bin/python bench/lint_formats.py --against 1decdf6 [--repeats 3] [--info]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = """
import gc, sys, time
from pathlib import Path
from amr_tui.services.workspace import Mount, load_snapshot
from amr_tui.core.lint.repo import lint_repo
repo = Path(sys.argv[1])
t0 = time.perf_counter(); snap = load_snapshot(Mount(repo.name, repo)); t1 = time.perf_counter()
found = lint_repo(snap, near_duplicates=sys.argv[2] == "info")
t2 = time.perf_counter()
print(t1 - t0, t2 - t1, len(found))
"""


def child(src: Path, repo: Path, level: str) -> tuple[float, float, int]:
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0"}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(repo), level], env=env, capture_output=True, text=True, check=True, cwd=src
    ).stdout.split()
    return float(out[0]), float(out[1]), int(out[2])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--against", required=True, help="the commit to compare with (e.g. the merge base)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--info", action="store_true", help="lint at info level (near duplicates, contradictions)")
    args = p.parse_args()
    from bench.gen import size_repo

    repo = size_repo(ROOT / "bench" / "out" / "corpora", 100_000)
    level = "info" if args.info else "warning"
    with tempfile.TemporaryDirectory(prefix="amr-lint-against-") as tmp:
        base = Path(tmp)
        archive = subprocess.run(["git", "archive", args.against, "amr_tui"], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
        runs: dict[str, list[tuple[float, float, int]]] = {"before": [], "now": []}
        for _ in range(args.repeats):
            runs["before"].append(child(base, repo, level))
            runs["now"].append(child(ROOT, repo, level))
    med = {
        k: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v), v[0][2]) for k, v in runs.items()
    }
    print(f"lint_repo on {repo.name} ({level} level), median of {args.repeats}, alternating runs:")
    for k, (parse_s, lint_s, n) in med.items():
        print(
            f"  {k:6} ({args.against if k == 'before' else 'this tree'}): parse {parse_s:6.2f} s, lint {lint_s:6.2f} s, "
            f"lint/parse {lint_s / parse_s:.2f}, {n} findings"
        )
    ratio = (med["now"][1] / med["now"][0]) / (med["before"][1] / med["before"][0])
    print(f"  lint time now / before, each against its own run's parse: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
