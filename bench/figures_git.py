"""History and review figures on the 5,000-commit repo (services.history, services.dreams)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from gen import manifest
from rows import Row, median, pending, row, run_process

TIMELINE_RATIO = 1.2
FIRST_PAGE_MS = 100.0
REVIEW_MS = 500.0


def _line_of(root: Path, path: str, text: str) -> int:
    for n, line in enumerate((root / path).read_text().split("\n"), 1):
        if text in line:
            return n
    raise LookupError(f"{text!r} not in {path}")


def history(root: Path, repeats: int) -> list[Row]:
    m = manifest(root)
    tracked = m["tracked"]
    try:
        from amr_tui.services.history import HistoryService
    except ImportError:
        return [pending("History: an entry's timeline vs `git log -S`", "services.history not available",
                        f"ratio <= {TIMELINE_RATIO:g}"),
                pending("History: first page of a file's history", "services.history not available", f"< {FIRST_PAGE_MS:g} ms")]
    service = HistoryService(root)
    try:
        line = _line_of(root, tracked["file"], tracked["text"])
        service.entry_timeline(tracked["file"], line)  # warm the blob reader process
        times, events = [], 0
        for _ in range(repeats):
            t = time.perf_counter()
            tl = service.entry_timeline(tracked["file"], line)
            times.append(time.perf_counter() - t)
            events = len(getattr(tl, "events", []) or [])
        base = median([run_process(["git", "log", "-S", tracked["text"], "--format=%H"], cwd=str(root))[0]
                       for _ in range(repeats)])
        busiest = m["busiest_file"]
        pages = []
        for _ in range(repeats):
            t = time.perf_counter()
            page = service.file_history(busiest, limit=50)
            pages.append(time.perf_counter() - t)
        page_base = median([run_process(["git", "log", "-n", "50", "--format=%H %an %s", "--", busiest], cwd=str(root))[0]
                            for _ in range(repeats)])
    finally:
        service.close()
    return [
        row("History: an entry's timeline (added, reworded, moved) on 5,000 commits", round(median(times) * 1000, 1), "ms",
            baseline=round(base * 1000, 1), baseline_what="git log -S '<the same text>'", ratio_limit=TIMELINE_RATIO,
            note=f"median of {repeats}; {events} events found (added at commit {tracked['commits']['added']}, "
                 f"reworded {tracked['commits']['reworded']}, moved {tracked['commits']['moved']})"),
        row(f"History: first page (50) of a file with {m['busiest_commits']} commits", round(median(pages) * 1000, 1), "ms",
            baseline=round(page_base * 1000, 1), baseline_what="git log -n 50 -- <file>", limit=FIRST_PAGE_MS,
            note=f"median of {repeats}; {len(page.items)} items"),
    ]


def review(root: Path, repeats: int) -> list[Row]:
    m = manifest(root)
    branch = m["dream_branch"]
    try:
        from amr_tui.screens.review import RunReviewScreen
        from amr_tui.services.dreams import DreamService
    except ImportError as exc:
        return [pending("Review: a 100-file dreaming run painted after opening", f"not available ({exc})",
                        f"< {REVIEW_MS:g} ms")]
    from textual.app import App

    from amr_tui.app import styles_dir

    class Host(App[None]):
        CSS_PATH = [str(styles_dir() / "app.tcss")]

    painted, filled = [], []

    async def once() -> None:
        service = DreamService(root)
        run = service.run(branch)
        app = Host()
        async with app.run_test(size=(120, 36)) as pilot:
            t = time.perf_counter()
            screen = RunReviewScreen(service, "history", run, False)
            await app.push_screen(screen)
            await pilot.pause()
            painted.append(time.perf_counter() - t)
            deadline = t + 60
            while getattr(screen, "review", None) is None and time.perf_counter() < deadline:
                await pilot.pause(0.005)
            await pilot.pause()
            filled.append(time.perf_counter() - t)
        service.close()

    for _ in range(repeats):
        asyncio.run(once())
    base = median([run_process(["git", "diff", "--stat", f"main...{branch}"], cwd=str(root))[0] for _ in range(repeats)])
    return [
        row(f"Review: a {m['dream_files']}-file dreaming run, its files and entry-level summary painted after opening",
            round(median(filled) * 1000, 1), "ms", baseline=round(base * 1000, 1),
            baseline_what="git diff --stat main...dreams/<id>", limit=REVIEW_MS,
            note=f"median of {repeats}, headless 120x36; the screen itself first paints after {median(painted) * 1000:.0f} ms"),
    ]
