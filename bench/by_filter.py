"""What ``by:NAME`` costs at 100,000 entries (issue 41): the synthetic corpus (``bench/corpus.py``)
written as a git repo by four writers (each commit adds a quarter of the files), then ``amr search``
with and without ``by:``, each from a cold process, its cache built first. Prints seconds and the
ratio to a plain word query of the same run (no timing is asserted anywhere).

    python bench/by_filter.py [--entries 100000] [--dir /tmp/by-bench]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import generate_files, render_file  # noqa: E402

WRITERS = ("alice", "claude-code", "devin", "cursor")


def build(root: Path, entries: int) -> None:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    files = generate_files(entries, seed=0)
    (root / "MEMORY.md").write_text("# Memory\n\n## Index\n")
    per = (len(files) + len(WRITERS) - 1) // len(WRITERS)
    for k, name in enumerate(WRITERS):
        chunk = files[k * per : (k + 1) * per]
        for f in chunk:
            target = root / f.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(render_file(f))
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        env = {**os.environ, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": f"{name}@bench.example"}
        env.update(GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=f"{name}@bench.example")
        subprocess.run(["git", "commit", "-qm", f"{name} writes"], cwd=root, check=True, env=env)


def timed(root: Path, query: str) -> tuple[float, int]:
    start = time.perf_counter()
    res = subprocess.run(
        [sys.executable, "-m", "amr_tui", "search", query, str(root), "--limit", "20"],
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - start, len(res.stdout.splitlines())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/by-bench"))
    args = ap.parse_args()
    root = args.dir / "memory"
    build(root, args.entries)
    timed(root, "warmup")  # builds the search cache
    base, _ = timed(root, "deploy")
    print(f"{args.entries:,} entries, {len(WRITERS)} writers; `amr search deploy`: {base:.2f}s")
    for query in ("deploy by:alice", "by:nobody", "deploy by:nobody", "by:cursor"):
        took, hits = timed(root, query)
        print(f"  {query!r:22} {took:6.2f}s  x{took / base:5.1f}  ({hits} hits)")


if __name__ == "__main__":
    main()
