"""Timing of the history service on a generated 5,000-commit memory repo.

    .venv/bin/python scripts/bench_history.py [--commits 5000] [--files 200] [--keep DIR]

Builds the repo with ``git fast-import`` (fixed authors and dates, deterministic), then measures,
best of 5 runs each:

* ``git log -S<text>`` for the text of one entry, run directly (the baseline);
* ``HistoryService.entry_timeline`` for that entry (added early, reworded halfway, moved to
  another file later, while hundreds of other commits touch both files);
* the first page (50 commits) of ``HistoryService.file_history`` for a file touched by about half
  of all commits;
* ``HistoryService.forgotten`` (walks every patch) once, cold.

Prints one line per measurement. Timings depend on the machine; nothing here asserts on them.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from amr_tui.services.history.service import HistoryService  # noqa: E402

TARGET_V1 = "The payments ledger posts entries through ledger.post_entry() only"
TARGET_V2 = "The payments ledger posts every entry through ledger.post_entry(), never directly"
WORDS = (
    "cache deploy ledger invoice staging redis bun migration schema review tailwind pricing rollback "
    "incident pager budget token session query index cursor worker queue retry timeout"
).split()


def generate(root: Path, commits: int, nfiles: int) -> None:
    rng = random.Random(42)
    files: dict[str, list[str]] = {"MEMORY.md": ["# Memory", "", "## Index"]}
    topics = [f"topics/t{n:03d}.md" for n in range(nfiles)] + [
        "projects/payments.md",
        "backend/ledger.md",
        "journal.md",
    ]
    for t in topics:
        files[t] = [f"# {t}", ""]
        files["MEMORY.md"].append(f"- [[{t[:-3]}]]")
    out = bytearray()
    mark = 0

    def emit(i: int, changed: list[str], message: str) -> None:
        nonlocal mark
        when = 1_780_000_000 + i * 600
        out.extend(
            f"commit refs/heads/main\ncommitter Agent {i % 7} <agent{i % 7}@example.test> {when} +0000\n".encode()
        )
        msg = message.encode()
        out.extend(b"data %d\n" % len(msg) + msg + b"\n")
        if i == 0:
            pass
        for path in changed:
            body = ("\n".join(files[path]) + "\n").encode()
            out.extend(f"M 100644 inline {path}\n".encode() + b"data %d\n" % len(body) + body + b"\n")
        mark += 1

    emit(0, list(files), "Create memory repo")
    for i in range(1, commits):
        changed: list[str] = []
        sentence = " ".join(rng.choice(WORDS) for _ in range(8))
        line = f"- Note {i}: {sentence} [source: https://example.com/sessions/{i}; added: 2026-01-01]"
        hot = "journal.md" if i % 2 else rng.choice(["projects/payments.md", "backend/ledger.md"] + topics[:20])
        files[hot].append(line)
        if len(files[hot]) > 150:
            del files[hot][2]
        changed.append(hot)
        if i % 3 == 0:
            t = rng.choice(topics[:-3])
            files[t].append(line.replace("Note", "Fact"))
            changed.append(t)
        if i == 100:
            files["projects/payments.md"].append(f"- {TARGET_V1} [source: https://example.com/sessions/100]")
            changed.append("projects/payments.md")
        if i == commits // 2:
            pay = files["projects/payments.md"]
            k = next(n for n, x in enumerate(pay) if TARGET_V1 in x)
            pay[k] = f"- {TARGET_V2} [source: https://example.com/sessions/{i}]"
            changed.append("projects/payments.md")
        if i == commits * 4 // 5:
            pay = files["projects/payments.md"]
            k = next(n for n, x in enumerate(pay) if TARGET_V2 in x)
            files["backend/ledger.md"].append(pay.pop(k))
            changed += ["projects/payments.md", "backend/ledger.md"]
        emit(i, sorted(set(changed)), f"Remember note {i}")
    # keep the two target files from trimming the target entry away: they are only appended to
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=bytes(out), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True)


def best(fn, runs: int = 5) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commits", type=int, default=5000)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--keep", type=Path, help="build the repo here and keep it")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="amr-bench-"))
    root = args.keep or tmp / "memory"
    try:
        if not (root / ".git").exists():
            t0 = time.perf_counter()
            generate(root, args.commits, args.files)
            print(f"generated {args.commits} commits in {time.perf_counter() - t0:.1f} s at {root}")
        ledger = (root / "backend/ledger.md").read_text().splitlines()
        line = next(n for n, x in enumerate(ledger, start=1) if TARGET_V2 in x)
        env = {**os.environ, "GIT_PAGER": "cat"}
        raw, _ = best(
            lambda: subprocess.run(
                ["git", "log", "--format=%H", f"-S{TARGET_V2}"], cwd=root, env=env, capture_output=True, check=True
            )
        )
        service = HistoryService(root)
        tl_time, timeline = best(lambda: service.entry_timeline("backend/ledger.md", line))
        kinds = [e.kind for e in timeline.events]
        page_time, page = best(lambda: service.file_history("journal.md", limit=50))
        hot = int(
            subprocess.run(
                ["git", "rev-list", "--count", "HEAD", "--", "journal.md"],
                cwd=root,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        t0 = time.perf_counter()
        facts = service.forgotten()
        forgotten_time = time.perf_counter() - t0
        print(f"git log -S (raw)            {raw * 1000:7.0f} ms")
        print(f"entry timeline              {tl_time * 1000:7.0f} ms  ratio {tl_time / raw:.2f}x  events {kinds}")
        print(f"file history, first page    {page_time * 1000:7.0f} ms  (50 of {hot} commits touching journal.md)")
        print(f"forgotten facts (cold walk) {forgotten_time * 1000:7.0f} ms  ({len(facts)} facts)")
        service.close()
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
