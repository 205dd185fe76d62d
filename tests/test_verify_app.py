"""The Stale? queue and the side panel in the app, driven with keys (Pilot), against the
scenario's memory repo beside its real code repo."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from amr_tui.app import make_app
from amr_tui.core.tombstones import parse_tombstones
from amr_tui.services.config import Config
from amr_tui.services.usage import record
from tests.driver import TMUX_SIZE, record_notes, running
from tests.verifyscenario import build_code_repo, build_memory, git

TODAY = dt.date(2026, 11, 2)


@pytest.fixture
def scenario(tmp_path: Path) -> tuple[Path, Path]:
    code = build_code_repo(tmp_path / "payments")
    return code, build_memory(tmp_path / "memory-payments", code)


def app_on(memory: Path, code: Path):
    app = make_app([memory], config=Config(code={"memory-payments": [code]}), poll_interval=0.2, today=TODAY)
    record_notes(app)
    return app


async def open_queue(drive):
    from amr_tui.screens.stale import StaleScreen

    await drive.press("v")
    await drive.until(lambda: isinstance(drive.app.screen, StaleScreen) and drive.app.screen.reports, what="the queue")
    return drive.app.screen


async def to_row(drive, screen, path: str, line: int) -> None:
    at = next(i for i, r in enumerate(screen.rows) if (r.check.path, r.check.line) == (path, line))
    screen.query_one("#stale-list").focus()
    await drive.press("g", *(["j"] * at))
    await drive.until(lambda: screen._highlighted() == (path, line), what=f"{path}:{line} highlighted")


@pytest.mark.slow
async def test_the_queue_lists_stale_then_due_facts_and_each_key_writes_one_commit(scenario) -> None:
    code, memory = scenario
    async with running(app_on(memory, code), TMUX_SIZE) as drive:
        screen = await open_queue(drive)
        stale = [(r.check.path, r.check.line, r.check.status) for r in screen.rows if not r.due]
        assert stale[:3] == [("MEMORY.md", 4, "moved"), ("MEMORY.md", 5, "moved"), ("MEMORY.md", 6, "gone")]
        assert len(stale) == 8
        assert [(r.check.path, r.check.line) for r in screen.rows if r.due] == [
            ("backend.md", 3),
            ("backend.md", 8),
            ("backend.md", 9),
        ]
        text = await drive.shown("8 facts whose evidence no longer holds, 3 not verified lately")
        assert "renamed to lib/cache/redis.ts in 8f1296c on 2026-07-10" in text
        count = len(git(memory, "rev-list", "HEAD").split())

        # c on a fact whose evidence does not hold asks first; no writes nothing
        await to_row(drive, screen, "MEMORY.md", 6)
        await drive.press("c")
        await drive.asked("Its evidence does not hold. Stamp it verified anyway?")
        await drive.press("n")
        await drive.settled()
        assert len(git(memory, "rev-list", "HEAD").split()) == count

        # c: a due fact is stamped verified, in one commit naming the code it was checked against
        await to_row(drive, screen, "backend.md", 8)
        await drive.press("c")
        await drive.until(lambda: "verified: 2026-11-02]" in (memory / "backend.md").read_text(), what="the stamp")
        # the gate writes the file before it moves the branch: wait for the commit, not the file
        await drive.until(
            lambda: "Verified-against: payments ce1b27c" in git(memory, "log", "-1", "--format=%B"), what="the commit"
        )
        await drive.until(
            lambda: ("backend.md", 8) not in {(r.check.path, r.check.line) for r in screen.rows}, what="requeued"
        )

        # s: supersede, the moved path already rewritten where it is now
        await to_row(drive, screen, "MEMORY.md", 4)
        await drive.press("s")
        await drive.until(lambda: drive.app.screen.__class__.__name__ == "TextPromptScreen", what="the prompt")
        value = drive.app.screen.query_one("#prompt-input").value
        assert value == "The redis client lives in `lib/cache/redis.ts`; import `getRedisClient` from there"
        await drive.press("enter")
        await drive.until(lambda: (memory / ".amr/forgotten.md").exists(), what="the tombstone")
        (stone,) = parse_tombstones((memory / ".amr/forgotten.md").read_bytes())
        assert stone.reason == "superseded" and "lib/cache/redis.ts" in (stone.superseded_by or "")

        # x: forget, with the evidence as the reason offered
        await drive.settled()
        await to_row(drive, screen, "backend.md", 10)
        await drive.press("x")
        await drive.until(lambda: drive.app.screen.__class__.__name__ == "PromptScreen", what="the reason")
        assert "script lint (npm) gone in 0fcc382" in drive.app.screen.query_one("#prompt-input").value
        await drive.press("enter")
        await drive.until(lambda: "npm run lint" not in (memory / "backend.md").read_text(), what="forgotten")

        # e: edit the line as written
        await drive.settled()
        await to_row(drive, screen, "MEMORY.md", 5)
        await drive.press("e")
        await drive.until(lambda: drive.app.screen.__class__.__name__ == "TextPromptScreen", what="the edit")
        inp = drive.app.screen.query_one("#prompt-input")
        inp.value = inp.value.replace("bun run migrate", "bun run db:migrate")
        await drive.press("enter")
        await drive.until(lambda: "bun run db:migrate" in (memory / "MEMORY.md").read_text(), what="edited")
        await drive.settled()
        assert len(git(memory, "rev-list", "HEAD").split()) == count + 4
        assert git(memory, "status", "--porcelain") == ""
        await drive.until(lambda: len([r for r in screen.rows if not r.due]) == 5, what="three fewer stale facts")
        await drive.press("escape")
        await drive.until(lambda: len(drive.app.screen.session.written) == 4, what="z can undo them")


@pytest.mark.slow
async def test_enter_opens_the_fact_and_the_side_panel_says_whether_it_holds(scenario) -> None:
    code, memory = scenario
    record(
        memory,
        [("backend.md", "Nightly reconciliation calls `reconcile_day` in src/payments/ledger.py:10")] * 1,
        at="2026-10-29T09:00:00+00:00",
    )
    record(
        memory,
        [("backend.md", "Nightly reconciliation calls `reconcile_day` in src/payments/ledger.py:10")],
        at="2026-10-30T09:00:00+00:00",
    )
    async with running(app_on(memory, code), TMUX_SIZE) as drive:
        await drive.shown("8 facts may be stale")  # judged in the background after the load
        screen = await open_queue(drive)
        await to_row(drive, screen, "backend.md", 4)
        await drive.press("enter")
        await drive.until(
            lambda: getattr(getattr(drive.app.screen, "current", None), "path", None) == "backend.md", what="opened"
        )
        await drive.until(lambda: drive.view.cursor_line == 4, what="the fact's line")
        await drive.shown("moved: symbol reconcile_day")
        shown = str(drive.app.screen.query_one("#entry-checks").render())
        assert "moved: symbol reconcile_day \u2014 renamed to reconcile_ledger_day in ae00adf on 2026-09-02" in shown
        assert "holds: path src/payments/ledger.py" in shown
        assert "never verified" in shown
        assert "read by agents 2 times, last 3 days ago" in shown
        from amr_tui.core.search.query import SYNTAX
        from amr_tui.screens.help import collect_bindings

        rows = [row for _title, group in collect_bindings(drive.app, drive.app.screen) for row in group]
        assert ("v", "Stale? (check against code)") in rows  # ? lists it
        assert any(words.startswith("is:stale") for words, _ in SYNTAX)
        await drive.press("ctrl+p")
        await drive.pilot.press(*"Stale")
        await drive.shown("Stale? queue")
        await drive.press("escape")
        await drive.until(lambda: drive.app.screen.__class__.__name__ == "MainScreen", what="the palette closed")
        queue = await open_queue(drive)
        queue_rows = [row for _title, group in collect_bindings(drive.app, queue) for row in group]
        for key in ("c", "e", "s", "x"):
            assert any(k == key for k, _ in queue_rows), key


@pytest.mark.slow
async def test_dream_now_then_the_review_says_why_and_whether_new_entries_hold(scenario) -> None:
    from amr_tui.screens.dreams.screen import DreamListScreen, RunReviewScreen

    code, memory = scenario
    async with running(app_on(memory, code), TMUX_SIZE) as drive:
        await drive.press("V")
        await drive.until(lambda: isinstance(drive.app.screen, DreamListScreen), what="the dreams list")
        await drive.shown("No pending dreaming runs")
        await drive.press("ctrl+n")
        await drive.until(lambda: drive.app.screen.cards, what="a run made by Dream now", timeout=60)
        ((repo, run),) = drive.app.screen.cards
        assert repo == "memory-payments" and run.summary.startswith("drop 5 entries whose evidence is gone")
        assert git(memory, "rev-parse", "main").strip() == git(memory, "rev-parse", f"{run.branch}^").strip()
        await drive.press("enter")
        await drive.until(lambda: isinstance(drive.app.screen, RunReviewScreen), what="the review")
        review = drive.app.screen
        await drive.until(lambda: review.checks, what="the new entries checked", timeout=60)
        changes = review.query_one("#review-changes")

        def listed() -> str:
            return "\n".join(str(changes.get_option_at_index(i).prompt) for i in range(changes.option_count))

        await drive.until(lambda: "why: evidence moved: path lib/redis.ts moved" in listed(), what="the reason listed")
        assert "evidence holds: path lib/cache/redis.ts" in listed()
        assert "source: https://example.com/sessions/2 (a URL: not fetched)" in listed()
