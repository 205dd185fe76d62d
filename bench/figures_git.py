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
        from amr_tui.services.history.service import HistoryService
    except ImportError:
        return [
            pending(
                "History: an entry's timeline vs `git log -S`",
                "services.history not available",
                f"ratio <= {TIMELINE_RATIO:g}",
            ),
            pending(
                "History: first page of a file's history", "services.history not available", f"< {FIRST_PAGE_MS:g} ms"
            ),
        ]
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
        base = median(
            [
                run_process(["git", "log", "-S", tracked["text"], "--format=%H"], cwd=str(root))[0]
                for _ in range(repeats)
            ]
        )
        busiest = m["busiest_file"]
        pages = []
        for _ in range(repeats):
            t = time.perf_counter()
            page = service.file_history(busiest, limit=50)
            pages.append(time.perf_counter() - t)
        page_base = median(
            [
                run_process(["git", "log", "-n", "50", "--format=%H %an %s", "--", busiest], cwd=str(root))[0]
                for _ in range(repeats)
            ]
        )
    finally:
        service.close()
    return [
        row(
            "History: an entry's timeline (added, reworded, moved) on 5,000 commits",
            round(median(times) * 1000, 1),
            "ms",
            baseline=round(base * 1000, 1),
            baseline_what="git log -S '<the same text>'",
            ratio_limit=TIMELINE_RATIO,
            note=f"median of {repeats}; {events} events found (added at commit {tracked['commits']['added']}, "
            f"reworded {tracked['commits']['reworded']}, moved {tracked['commits']['moved']})",
        ),
        row(
            f"History: first page (50) of a file with {m['busiest_commits']} commits",
            round(median(pages) * 1000, 1),
            "ms",
            baseline=round(page_base * 1000, 1),
            baseline_what="git log -n 50 -- <file>",
            limit=FIRST_PAGE_MS,
            note=f"median of {repeats}; {len(page.items)} items",
        ),
    ]


def review(root: Path, repeats: int) -> list[Row]:
    """Opening the review of the 100-file run on a cold DreamService (no entry diff, no history
    walk cached): when the file list shows the run's files, and when the whole entry-level summary
    (entry diff, changes main has, forgotten-fact marks) is in."""
    m = manifest(root)
    branch = m["dream_branch"]
    files_row = f"Review: a {m['dream_files']}-file dreaming run, its file list painted after opening"
    summary_row = "Review: the entry-level summary filled in (background)"
    try:
        from amr_tui.screens.dreams.screen import RunReviewScreen
        from amr_tui.services.dreams.service import DreamService
    except ImportError as exc:
        return [
            pending(files_row, f"not available ({exc})", f"< {REVIEW_MS:g} ms"),
            pending(summary_row, f"not available ({exc})"),
        ]
    from textual.app import App

    from amr_tui.app import styles_dir

    class Host(App[None]):
        CSS_PATH = [str(styles_dir() / "app.tcss"), str(styles_dir() / "screens.tcss")]

    listed, entries, filled, counts = [], [], [], []

    async def once() -> None:
        service = DreamService(root)
        run = service.run(branch, counts=False)  # the run as a card has it, without warming the entry diff
        app = Host()
        async with app.run_test(size=(120, 36)) as pilot:
            screen = RunReviewScreen(service, "history", run, False)
            seen: dict[str, float] = {}
            real = app._display

            def display(on, update) -> None:  # every frame the app sends (headless: composed, not written)
                real(on, update)
                if update is None or on is not screen:
                    return
                now = time.perf_counter()
                if "files" not in seen and screen.files and screen.files[0].path in update.render_segments(app.console):
                    seen["files"] = now
                if "summary" not in seen and screen.summary is not None:
                    seen["summary"] = now
                if "done" not in seen and screen.review is not None:
                    seen["done"] = now

            app._display = display
            t = time.perf_counter()
            await app.push_screen(screen)
            while "done" not in seen:
                if time.perf_counter() > t + 60 or screen.stage == "error":
                    raise TimeoutError(f"the review did not fill in (stage {screen.stage})")
                await pilot.pause(0.002)
            if "files" not in seen:
                raise AssertionError("no frame showed the run's files")
            listed.append(seen["files"] - t)
            entries.append(seen["summary"] - t)
            filled.append(seen["done"] - t)
            counts.append(len(screen.files))
        service.close()

    for _ in range(repeats):
        asyncio.run(once())
    base = median(
        [run_process(["git", "diff", "--stat", f"main...{branch}"], cwd=str(root))[0] for _ in range(repeats)]
    )
    return [
        row(
            files_row,
            round(median(listed) * 1000, 1),
            "ms",
            baseline=round(base * 1000, 1),
            baseline_what="git diff --stat main...dreams/<id>",
            limit=REVIEW_MS,
            note=f"median of {repeats}, headless 120x36, cold service; time to the first frame with the file "
            f"list ({counts[-1]} files, git's status and line counts) composed",
        ),
        row(
            summary_row,
            round(median(filled) * 1000, 1),
            "ms",
            baseline=round(base * 1000, 1),
            baseline_what="git diff --stat main...dreams/<id>",
            note=f"median of {repeats}, informational, time to the frame with it: entry changes and the ones main has shown after "
            f"{median(entries) * 1000:.0f} ms, then the forgotten-fact marks (the first walk of main's "
            "5,000 commits; cached per service after that); the file list stays usable meanwhile",
        ),
    ]
