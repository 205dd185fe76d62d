"""Figures measured on whole processes: start-up through a pty, `amr search` vs fzf, `amr lint` vs rg."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from pty_probe import Check, probe_screen
from rows import Row, median, pending, row, run_process, skipped

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
AMR = str(VENV_BIN / "amr")
HELLO = [sys.executable, str(Path(__file__).resolve().parent / "hello_app.py")]
STARTUP_RATIO = 1.3
SIZE_RATIO = 1.2
MILLION = 1_000_000
RSS_LIMIT_MB = 250.0
LINT_RATIO = 15.0
SEARCH_RATIO = 1.0
QUERIES = ("redis port", "postgres max conn", "alice timezone", "deploy friday staging", "kubernets")


def _first_entry(root: Path) -> str:
    """The start of MEMORY.md's first entry as the entry view draws it (its text, no metadata)."""
    for line in (root / "MEMORY.md").read_text().splitlines():
        if line.startswith("- "):
            return line[2:].split(" [source:", 1)[0][:24]
    raise ValueError(f"{root}/MEMORY.md has no entry")


def _repo_row(lines: list[str], name: str) -> int:
    """The screen line of the tree's row for repo ``name`` with MEMORY.md on the row under it, or -1."""
    for i, line in enumerate(lines[:-1]):
        if line.startswith("\u25bc " + name) and "MEMORY.md" in lines[i + 1].split("\u2595", 1)[0]:
            return i
    return -1


def amr_checks(root: Path) -> dict[str, Check]:
    """What the start-up rows time on amr's screen, each from process start."""
    name, entry = root.name, _first_entry(root)

    def useful(lines: list[str]) -> bool:  # (a) the tree's repo row, MEMORY.md under it, MEMORY.md's first lines
        text = "\n".join(lines)
        return _repo_row(lines, name) >= 0 and "What this agent remembers" in text and entry in text

    def tree(lines: list[str]) -> bool:  # (b) every row and the repo's badge (its branch: git status read)
        at = _repo_row(lines, name)
        return at >= 0 and " main" in lines[at].split("\u2595", 1)[0]

    def status(*needles: str) -> Check:
        return lambda lines: any(n in line for line in lines[-3:] for n in needles)

    return {
        "useful": useful,
        "indexing": status("Indexing "),
        "tree": tree,
        "search": status("Search ready:", "items indexed"),  # (c) the whole index searchable
        "lint": status("items indexed"),  # (d) the repo-wide lint done, its marks drawn with that frame
    }


def hello_useful(lines: list[str]) -> bool:
    """The hello-world app's first useful frame: its tree's root row with MEMORY.md under it, and the footer."""
    return (
        any(a.startswith("\u25bc memory") and "MEMORY.md" in b for a, b in zip(lines, lines[1:]))
        and "Quit" in (lines[-1])
    )


def startup(repos: dict[int, Path], repeats: int, million: Path | None = None) -> list[Row]:
    """Process start to what the user sees, through a pty, the screen read by a VT parser:
    (a) the first useful frame, (b) tree complete, (c) search complete, (d) lint marks shown;
    hello-world measured the same way; runs interleaved. ``million``: the 1M corpus too, timed
    to (c) (its repo lint takes half a minute more: docs/scale.md)."""
    repos = {**repos, MILLION: million} if million is not None else dict(repos)
    sizes = sorted(repos)
    hello: list[float] = []
    seen: dict[int, dict[str, list[float]]] = {n: {} for n in sizes}
    hwm: dict[int, list[float]] = {n: [] for n in sizes}
    errors: list[str] = []
    checks = {n: amr_checks(repos[n]) for n in sizes}
    for _ in range(repeats):
        p = probe_screen(HELLO, {"useful": hello_useful}, timeout=30)
        (hello.append(p.seen["useful"]) if "useful" in p.seen else errors.append("hello: " + p.error))
        for n in sizes:
            until, timeout = ("search", 180) if n >= MILLION else ("lint", 120)
            p = probe_screen([AMR, str(repos[n])], checks[n], until=until, timeout=timeout)
            for k, t in p.seen.items():
                seen[n].setdefault(k, []).append(t)
            if "lint" in p.seen and p.vm_hwm_mb:
                hwm[n].append(p.vm_hwm_mb)
            if p.error:
                errors.append(f"amr {n:,}: {p.error}")
    hello_hwm = probe_screen(HELLO, {"useful": hello_useful}, timeout=30).vm_hwm_mb
    note = "; ".join(sorted(set(errors)))[:300]
    h = median(hello) if hello else None

    def med(n: int, k: str) -> float | None:
        return median(seen[n][k]) if seen[n].get(k) else None

    what = "hello-world Textual app (Header, Tree, Footer): its tree's rows painted, same pty"
    rows = []
    for n in sizes:
        rows.append(
            row(
                f"Start-up (a): first useful frame, amr on {n:,} entries (pty): the tree's repo row with "
                "MEMORY.md under it and MEMORY.md's first lines painted",
                _ms(med(n, "useful")),
                "ms",
                baseline=_ms(h),
                baseline_what=what,
                ratio_limit=STARTUP_RATIO,
                note=f"median of {len(seen[n].get('useful', []))}; the screen read through a VT parser "
                f"(bench/vt_screen.py). {note}".strip(),
            )
        )
    small, big = sizes[0], sizes[-1]
    if big >= MILLION and len(sizes) > 1:
        big = sizes[-2]  # memory and lint: at the largest size waited to the end
    rows.append(
        row(
            f"Start-up (a) does not grow with the repo: amr on {sizes[-1]:,} vs {small:,} entries",
            _ms(med(sizes[-1], "useful")),
            "ms",
            baseline=_ms(med(small, "useful")),
            baseline_what=f"amr's first useful frame on {small:,} entries",
            ratio_limit=SIZE_RATIO,
        )
    )
    for key, figure in (
        ("tree", "(b) tree complete: every row and the repo's badge (git status)"),
        ("search", "(c) search complete: every file parsed and indexed"),
        ("lint", "(d) lint marks shown: the repo-wide lint done"),
    ):
        for n in sizes:
            if key == "lint" and n >= MILLION:
                continue  # not waited for: docs/scale.md times the 1M repo lint
            rows.append(
                row(
                    f"Start-up {figure}, amr on {n:,} entries",
                    _ms(med(n, key)),
                    "ms",
                    baseline=_ms(h),
                    baseline_what="hello-world's first useful frame",
                    note=f"median of {len(seen[n].get(key, []))}",
                )
            )
    shown = [len(seen[n].get("indexing", [])) for n in sizes if n < MILLION]
    rows.append(
        Row(
            "Start-up: indexing progress visible ('Indexing n of m files' in the status line)",
            1.0 if shown[-1] == repeats else 0.0,
            "yes/no",
            target="shown",
            met=shown[-1] == repeats,
            note=", ".join(
                f"{n:,}: seen in {k} of {repeats} runs"
                for n, k in zip([s for s in sizes if s < MILLION], shown, strict=True)
            ),
        )
    )
    if hwm[big]:
        rows.append(
            row(
                f"Peak memory of the app with {big:,} entries, after indexing and lint (VmHWM)",
                max(hwm[big]),
                "MB",
                baseline=hello_hwm,
                baseline_what="hello-world app VmHWM",
                limit=RSS_LIMIT_MB,
            )
        )
    else:
        rows.append(
            pending(
                f"Peak memory of the app with {big:,} entries, after indexing and lint (VmHWM)",
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
        ours, theirs, cold, cold_fzf = [], [], [], []
        data = lines_file[size].read_bytes()
        for q in QUERIES:
            # cold and fzf interleaved, so the machine's load falls on both alike
            for _ in range(repeats):
                cold.append(run_process([AMR, "search", q, str(repo), "--limit", "20", "--no-cache"])[0])
                cold_fzf.append(run_process([fzf, "--filter", q], stdin=data)[0])
            run_process([AMR, "search", q, str(repo), "--limit", "1"])  # the cache is written (once per repo)
            time.sleep(2.0)  # the child that writes it after a cold answer
            ours.append(
                median([run_process([AMR, "search", q, str(repo), "--limit", "20"])[0] for _ in range(repeats)])
            )
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
                f"(stats) and loads its index cache",
            )
        )
        rows.append(
            row(
                f"`amr search` without its cache (a fresh clone) vs `fzf --filter`, {size:,} entries",
                _ms(median(cold)),
                "ms",
                baseline=_ms(median(cold_fzf)),
                baseline_what="fzf --filter on the same lines (stdin), interleaved",
                ratio_limit=SEARCH_RATIO if size >= 100_000 else None,
                note=f"--no-cache: only the lines that can match are indexed (services/search/cold.py); "
                f"median of {len(cold)} runs over {len(QUERIES)} queries",
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
