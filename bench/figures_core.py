"""In-process figures: indexing, re-indexing one file, search keystrokes, scrolling renders.

Everything here calls what the app calls (``Session.load``, ``Session.reload_files``,
``Session.search_session()``, ``EntryView.render_line``) on the corpora of ``bench/gen.py``.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from pathlib import Path

from rows import Row, median, pct, row

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# What a person types into the finder; "\b" is a backspace (the same scripts as bench_search).
from bench_search import SCRIPTS, keystrokes  # noqa: E402

from amr_tui.core.format.parser import parse  # noqa: E402
from amr_tui.services.workspace import discover, list_files, read_bytes  # noqa: E402

INDEX_LIMIT_S = 1.5
REINDEX_LIMIT_MS = 20.0
SEARCH_P95_LIMIT_MS = 30.0
FRAME_LIMIT_MS = 16.0


def _session(root: Path):
    from amr_tui.services.session.session import Session

    return Session(discover([root]))


def _baseline_read(root: Path) -> float:
    """Reading and splitting every Markdown file in Python: the floor under any index."""
    t = time.perf_counter()
    files, _ = list_files(root)
    for rel in files:
        if rel.endswith(".md"):
            data = read_bytes(root, rel)
            if data is not None:
                data.decode("utf-8", "surrogateescape").split("\n")
    return time.perf_counter() - t


def load_timed(root: Path, *, cache: bool = False):
    """Session.load on ``root``, split into its parts: (session, parts in seconds, progress calls).
    ``cache``: start from the caches a session wrote (``Session.save_caches``); else every file
    is read (``AMR_NO_CACHE``)."""
    session = _session(root)
    was = os.environ.get("AMR_NO_CACHE")
    os.environ["AMR_NO_CACHE"] = "0" if cache else "1"
    parts = {"relint": 0.0, "git": 0.0}

    def wrap(name, fn):
        def inner(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                parts[name] += time.perf_counter() - t

        return inner

    session.relint = wrap("relint", session.relint)  # type: ignore[method-assign]
    session.watch.refresh_info = wrap("git", session.watch.refresh_info)  # type: ignore[method-assign]
    calls: list[tuple[int, int]] = []
    gc.collect()
    t = time.perf_counter()
    c = time.process_time()
    try:
        session.load(progress=lambda d, n: calls.append((d, n)))
    finally:
        if was is None:
            del os.environ["AMR_NO_CACHE"]
        else:
            os.environ["AMR_NO_CACHE"] = was
    parts["total"] = time.perf_counter() - t
    parts["cpu"] = time.process_time() - c
    parts["parse_index"] = parts["total"] - parts["relint"] - parts["git"]
    del session.relint, session.watch.refresh_info
    return session, parts, calls


def indexing(root: Path, repeats: int = 2) -> tuple[list[Row], object]:
    runs = []
    session = None
    for _ in range(repeats):
        session = None
        gc.collect()
        session, parts, calls = load_timed(root)
        runs.append(parts)
    best = min(runs, key=lambda p: p["parse_index"])
    base = median([_baseline_read(root) for _ in range(3)])
    entries = sum(f.count for s in session.repos.values() for f in s.facts.values())
    rows = [
        row(
            f"Indexing: parse + search index of {entries:,} entries (Session.load without lint/git)",
            round(best["parse_index"], 3),
            "s",
            baseline=round(base, 3),
            baseline_what="read + split every file in Python",
            limit=INDEX_LIMIT_S,
            note=f"median of {repeats}: best shown; CPU {best['cpu']:.2f} s for the whole load; the finder "
            f"answers from here on (the app shows 'Search ready'), lint marks follow",
        ),
        row(
            "Indexing: whole Session.load (parse, index, repo lint, git status)",
            round(best["total"], 3),
            "s",
            baseline=round(base, 3),
            baseline_what="read + split every file in Python",
            note=f"repo lint {best['relint']:.2f} s, git {best['git']:.2f} s; progress calls: {len(calls)}",
        ),
    ]
    return rows, session


def reindex(session, root: Path) -> list[Row]:
    """One file edited on disk: what Session.reload_files costs, and the parse + index part of it."""
    repo = session.names[0]
    files = [f for f in session.files(repo) if "/" in f and f.endswith(".md")]
    path = files[len(files) // 2]
    full = root / path
    original = full.read_bytes()
    reload_ms, core_ms, poll_ms = [], [], []
    try:
        for k in range(5):
            full.write_bytes(
                original + f"- edited fact number {k} [source: https://example.com/s/{k}; added: 2026-05-01]\n".encode()
            )
            t = time.perf_counter()
            session.watch.reload_files(repo, [path])
            reload_ms.append((time.perf_counter() - t) * 1000)
            data = full.read_bytes()
            t = time.perf_counter()
            doc = parse(data, path)
            doc.diagnostics  # the per-file lint (run on first use)
            session.index.set_file(repo, path, [(e.line, e.text) for e in doc.entries if e.text])
            core_ms.append((time.perf_counter() - t) * 1000)
            full.write_bytes(
                original + f"- polled fact {k} [source: https://example.com/p/{k}; added: 2026-05-02]\n".encode()
            )
            os.utime(full, ns=(time.time_ns(), time.time_ns() + k))
            t = time.perf_counter()
            session.watch.poll()
            poll_ms.append((time.perf_counter() - t) * 1000)
    finally:
        full.write_bytes(original)
        session.watch.reload_files(repo, [path])
    base = median([_time_read(root, path) for _ in range(5)])
    listing, status = [], []
    for _ in range(5):
        t = time.perf_counter()
        list_files(root)
        listing.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        session.watch.refresh_info(repo)
        status.append((time.perf_counter() - t) * 1000)
    return [
        row(
            "Re-index one changed file: Session.reload_files (what the app runs on save)",
            round(median(reload_ms), 1),
            "ms",
            baseline=round(base, 2),
            baseline_what="read that file",
            limit=REINDEX_LIMIT_MS,
            note="median of 5; stat, parse, per-file lint, search index (no walk, no git)",
        ),
        row(
            "Re-index one changed file: Session.poll after an agent's write",
            round(median(poll_ms), 1),
            "ms",
            baseline=round(base, 2),
            baseline_what="read that file",
            limit=REINDEX_LIMIT_MS,
            note=f"median of 5; one walk with stats of every file (list alone {median(listing):.0f} ms), "
            f"a few stats under .git, then as reload_files",
        ),
        row(
            "Re-index one changed file: parse + per-file lint + search index only",
            round(median(core_ms), 2),
            "ms",
            baseline=round(base, 2),
            baseline_what="read that file",
            limit=REINDEX_LIMIT_MS,
            note="median of 5",
        ),
        row(
            "Repo badge after a change: git status (refresh_info), run after the re-index is shown",
            round(median(status), 1),
            "ms",
            baseline=round(base, 2),
            baseline_what="read that file",
            note="median of 5; only for repos whose files or .git state changed (or every 30 s)",
        ),
    ]


def _time_read(root: Path, path: str) -> float:
    t = time.perf_counter()
    read_bytes(root, path)
    return (time.perf_counter() - t) * 1000


def keystroke_times(session: object, limit: int, rounds: int = 1) -> list[float]:
    """Milliseconds of each keystroke of the typed scripts through the finder's ``LockedSearch``
    (``session.search_session()``), ``rounds`` times over."""
    times: list[float] = []
    for _ in range(rounds):
        for script in SCRIPTS:
            finder = session.search_session()  # type: ignore[attr-defined]
            for q in keystrokes(script):
                t = time.perf_counter()
                finder(q, limit)
                times.append((time.perf_counter() - t) * 1000)
    return times


def search(sessions: dict[int, object], baseline_keys: int) -> list[Row]:
    """Keystroke to results with the finder's LockedSearch, per corpus size; WRatio as baseline."""
    from rapidfuzz import fuzz, process

    rows = []
    for size, session in sessions.items():
        times = keystroke_times(session, 50, rounds=2)
        texts = [t for s in session.repos.values() for f in s.facts.values() for t in f.texts]
        keys = [k for s in SCRIPTS for k in keystrokes(s)]
        sample = keys[:: max(1, len(keys) // baseline_keys)][:baseline_keys]
        base = []
        for q in sample:
            t = time.perf_counter()
            process.extract(q, texts, scorer=fuzz.WRatio, limit=20)
            base.append((time.perf_counter() - t) * 1000)
        limit = SEARCH_P95_LIMIT_MS if size >= 100_000 else None
        rows.append(
            row(
                f"Search keystroke p95, {size:,} entries ({len(times)} keystrokes)",
                round(pct(times, 95), 2),
                "ms",
                baseline=round(pct(base, 95), 1),
                baseline_what=f"rapidfuzz WRatio scan, p95 of {len(sample)}",
                limit=limit,
                note=f"p50 {pct(times, 50):.2f} ms, max {max(times):.1f} ms; baseline p50 {pct(base, 50):.0f} ms",
            )
        )
    return rows


def scrolling(entries: int = 10_000) -> list[Row]:
    """Render a full 120x36 screen of EntryView per frame at 40 places in a 10,000-entry file.

    Baseline: a bare Line-API widget that renders the same lines as plain segments, timed
    the same way (Textual's floor for a virtualised view).
    """
    import asyncio

    from rich.segment import Segment
    from textual.app import App
    from textual.geometry import Size
    from textual.scroll_view import ScrollView
    from textual.strip import Strip

    from amr_tui.widgets.entry_view import EntryView

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from gen import render

    big = [
        f"- fact {i} about the {['api', 'cache', 'worker'][i % 3]} of service-{i % 97} see [[infra/x{i % 50}]] "
        f"[source: https://example.com/sessions/{i}; added: 2026-0{1 + i % 9}-1{i % 9}]"
        for i in range(entries)
    ]
    data = render("big/ten-thousand.md", big).encode()
    doc = parse(data, "big/ten-thousand.md")
    appended = parse(
        render("big/ten-thousand.md", [*big, "- one more fact from an agent"]).encode(), "big/ten-thousand.md"
    )
    result: dict[str, object] = {}

    class Plain(ScrollView):
        def on_mount(self) -> None:
            self.virtual_size = Size(120, len(doc.lines))

        def render_line(self, y: int) -> Strip:
            idx = int(self.scroll_y) + y
            text = doc.lines[idx].text if idx < len(doc.lines) else ""
            width = self.scrollable_content_region.width
            return Strip([Segment(text)]).crop(0, width).extend_cell_length(width)

    class Host(App[None]):
        def compose(self):
            yield EntryView(id="view")
            yield Plain(id="plain")

    def frames_of(view, pages: int = 40) -> list[float]:
        height = view.scrollable_content_region.height
        total = view.virtual_size.height
        out = []
        for k in range(pages):
            y = (k * total // pages) if k % 2 else min(total - height, k * height)
            view.scroll_to(y=y, animate=False, immediate=True)
            t = time.perf_counter()
            for line in range(height):
                view.render_line(line)
            out.append((time.perf_counter() - t) * 1000)
        return out

    async def presses(pilot) -> list[float]:
        out = []
        for _ in range(20):
            t = time.perf_counter()
            await pilot.press("pagedown")
            out.append((time.perf_counter() - t) * 1000)
        return out

    async def go() -> None:
        app = Host()
        async with app.run_test(size=(120, 36)) as pilot:
            view = app.query_one(EntryView)
            plain = app.query_one(Plain)
            plain.styles.height = 34
            view.styles.height = 34
            t = time.perf_counter()
            view.set_document(doc, {}, {})
            result["open_ms"] = (time.perf_counter() - t) * 1000
            t = time.perf_counter()
            view.set_document(appended, {}, {}, keep_cursor=True)  # what an agent's append triggers
            result["reload_ms"] = (time.perf_counter() - t) * 1000
            view.set_document(doc, {}, {})
            await pilot.pause()
            result["frames"] = frames_of(view)
            plain.display, view.display = True, False
            await pilot.pause()
            result["plain"] = frames_of(plain)
            plain.display, view.display = False, True
            view.focus()
            view.go_to_line(1)
            await pilot.pause()
            result["press"] = await presses(pilot)

    asyncio.run(go())
    frames, plain, press = result["frames"], result["plain"], result["press"]
    return [
        row(
            f"Scrolling a {entries:,}-entry file: worst frame (a full screen of EntryView.render_line)",
            round(max(frames), 2),
            "ms",
            baseline=round(max(plain), 2),
            baseline_what="bare Line-API view of the same lines, worst frame",
            limit=FRAME_LIMIT_MS,
            note=f"40 places; median frame {median(frames):.2f} ms; pagedown round trip via Pilot median "
            f"{median(press):.0f} ms, max {max(press):.0f} ms; "
            f"opening the file (set_document) {result['open_ms']:.0f} ms, again after an agent appended "
            f"an entry {result['reload_ms']:.0f} ms (unchanged lines keep their layout)",
        ),
    ]
