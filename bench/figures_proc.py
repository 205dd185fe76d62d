"""Figures measured on whole processes: start-up through a pty, `amr search` vs fzf, `amr lint` vs rg."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from pty_probe import probe
from rows import Row, median, pending, row, run_process, skipped

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
AMR = str(VENV_BIN / "amr")
HELLO = [sys.executable, str(Path(__file__).resolve().parent / "hello_app.py")]
FOOTER = b"Quit"  # the footer's text for the q binding: both apps show it in the last row
STARTUP_RATIO = 1.3
SIZE_RATIO = 1.2
RSS_LIMIT_MB = 250.0
LINT_RATIO = 15.0
SEARCH_RATIO = 1.0
QUERIES = ("redis port", "postgres max conn", "alice timezone", "deploy friday staging", "kubernets")


def startup(small: Path, large: Path, repeats: int) -> list[Row]:
    """Process start to first frame: hello-world, amr on 1k, amr on 100k (interleaved runs)."""
    hello, amr_small, amr_large, index_done, hwm, progress, errors = [], [], [], [], [], [], []
    paint = []  # amr 100k: the first full-screen frame of any content (a loading indicator counts)
    for _ in range(repeats):
        p = probe(HELLO, FOOTER, timeout=30)
        (hello.append(p.first_frame_s) if p.error == "" else errors.append("hello: " + p.error))
        p = probe([AMR, str(small)], FOOTER, later=(b"items indexed",), timeout=60)
        (amr_small.append(p.first_frame_s) if p.first_frame_s else errors.append("amr 1k: " + p.error))
        p = probe([AMR, str(large)], FOOTER, later=(b"Indexing", b"items indexed"), timeout=60)
        if p.first_frame_s:
            amr_large.append(p.first_frame_s)
        if p.first_paint_s:
            paint.append(p.first_paint_s)
        progress.append("Indexing" in p.seen)
        if "items indexed" in p.seen:
            index_done.append(p.seen["items indexed"])
            if p.vm_hwm_mb:
                hwm.append(p.vm_hwm_mb)
        if p.error:
            errors.append("amr 100k: " + p.error)
    hello_hwm = probe(HELLO, FOOTER, timeout=30).vm_hwm_mb
    note = "; ".join(sorted(set(errors)))[:300]
    h, s, big = (median(x) if x else None for x in (hello, amr_small, amr_large))
    rows = [
        row(
            "Start-up: process start to first frame, amr on 100k entries (pty)",
            _ms(big),
            "ms",
            baseline=_ms(h),
            baseline_what="hello-world Textual app (Header, Tree, Footer), same pty",
            ratio_limit=STARTUP_RATIO,
            note=(
                f"median of {len(amr_large)}; first frame = footer text painted (the first full-screen frame of any "
                f"content came after {_ms(median(paint)) if paint else '—'} ms). {note}"
            ).strip(),
        ),
        row(
            "Start-up does not grow with the repo: amr on 100k vs amr on 1k",
            _ms(big),
            "ms",
            baseline=_ms(s),
            baseline_what="amr on the 1,000-entry repo",
            ratio_limit=SIZE_RATIO,
            note=f"median of {len(amr_small)}",
        ),
        Row(
            "Start-up: indexing progress visible ('Indexing n/m files…' in the status line)",
            1.0 if progress and all(progress) else 0.0,
            "yes/no",
            target="shown",
            met=bool(progress and all(progress)),
            note=f"seen in {sum(progress)} of {len(progress)} runs; index complete after {median(index_done):.1f} s"
            if index_done
            else f"seen in {sum(progress)} of {len(progress)} runs",
        ),
    ]
    if hwm:
        rows.append(
            row(
                "Peak memory of the app with 100k entries, after indexing (VmHWM)",
                max(hwm),
                "MB",
                baseline=hello_hwm,
                baseline_what="hello-world app VmHWM",
                limit=RSS_LIMIT_MB,
            )
        )
    else:
        rows.append(
            pending(
                "Peak memory of the app with 100k entries, after indexing (VmHWM)",
                "the app never reported 'items indexed'",
                f"< {RSS_LIMIT_MB:g} MB",
            )
        )
    return rows


def _ms(seconds: float | None) -> float | None:
    return round(seconds * 1000, 1) if seconds is not None else None


def cli_search(repos: dict[int, Path], lines_file: dict[int, Path], repeats: int) -> list[Row]:
    fzf = shutil.which("fzf")
    if fzf is None:
        return [
            skipped(
                "`amr search` vs `fzf --filter`",
                "fzf is not installed (apt-get install -y fzf)",
                f"ratio <= {SEARCH_RATIO:g}",
            )
        ]
    rows = []
    for size, repo in repos.items():
        ours, theirs, cold = [], [], []
        for q in QUERIES:
            cold.append(run_process([AMR, "search", q, str(repo), "--limit", "20", "--no-cache"])[0])
            run_process([AMR, "search", q, str(repo), "--limit", "1"])  # the cache is written (once per repo)
            ours.append(
                median([run_process([AMR, "search", q, str(repo), "--limit", "20"])[0] for _ in range(repeats)])
            )
            data = lines_file[size].read_bytes()
            theirs.append(median([run_process([fzf, "--filter", q], stdin=data)[0] for _ in range(repeats)]))
        rows.append(
            row(
                f"`amr search` vs `fzf --filter`, {size:,} entries, process to process",
                _ms(sum(ours) / len(ours)),
                "ms",
                baseline=_ms(sum(theirs) / len(theirs)),
                baseline_what="fzf --filter on the same lines (stdin)",
                ratio_limit=SEARCH_RATIO if size >= 100_000 else None,
                note=f"mean over {len(QUERIES)} queries, median of {repeats} runs each; amr walks the repo "
                f"(stats) and loads its index cache; without the cache (--no-cache: parse and index "
                f"every file) {_ms(sum(cold) / len(cold))} ms",
            )
        )
    return rows


def cli_lint(repo: Path, repeats: int) -> list[Row]:
    rg = shutil.which("rg")
    cold = median([run_process([AMR, "lint", "--no-cache", str(repo)])[0] for _ in range(repeats)])
    run_process([AMR, "lint", str(repo)])  # the cache is written
    ours = median([run_process([AMR, "lint", str(repo)])[0] for _ in range(repeats)])
    if rg is None:
        return [
            skipped(
                "`amr lint` vs `rg`",
                "ripgrep is not installed (apt-get install -y ripgrep)",
                f"ratio <= {LINT_RATIO:g}",
            )
        ]
    theirs = median([run_process([rg, "-c", "^- ", "-g", "*.md", str(repo)])[0] for _ in range(repeats)])
    nodup = median([run_process([AMR, "lint", "--no-cache", "--no-duplicates", str(repo)])[0] for _ in range(repeats)])
    one = _one_file_changed(repo, repeats)
    return [
        row(
            "`amr lint` over 100k entries vs `rg -c '^- '` over the same files (repo unchanged since the last lint)",
            _ms(ours),
            "ms",
            baseline=_ms(theirs),
            baseline_what="rg -c '^- ' -g '*.md'",
            ratio_limit=LINT_RATIO,
            note=f"median of {repeats}; amr walks the repo (stats), asks git only if a .gitattributes exists, "
            f"and prints the findings its cache holds",
        ),
        row(
            "`amr lint` over 100k entries after one file changed (the others' facts from the cache)",
            _ms(one),
            "ms",
            baseline=_ms(theirs),
            baseline_what="rg -c '^- ' -g '*.md'",
            note=f"median of {repeats}; the changed file and MEMORY.md parsed, every repo-wide check run again",
        ),
        row(
            "`amr lint` over 100k entries, every file parsed (--no-cache, or a fresh clone)",
            _ms(cold),
            "ms",
            baseline=_ms(theirs),
            baseline_what="rg -c '^- ' -g '*.md'",
            note=f"median of {repeats}; --no-duplicates: {nodup * 1000:.0f} ms",
        ),
    ]


def _one_file_changed(repo: Path, repeats: int) -> float:
    """`amr lint` right after one topic file gained an entry (restored afterwards, mtime included)."""
    import os

    target = min(p for p in repo.rglob("*.md") if p.name != "MEMORY.md" and ".git" not in p.parts)
    original, st = target.read_bytes(), target.stat()
    times = []
    try:
        for k in range(repeats):
            target.write_bytes(original + f"- Bench edit {k}: the cache sees a new entry\n".encode())
            old = time.time_ns() - 3_600_000_000_000 + k  # older than the racy window, new to the cache
            os.utime(target, ns=(old, old))
            times.append(run_process([AMR, "lint", str(repo)])[0])
    finally:
        target.write_bytes(original)
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    return median(times)
