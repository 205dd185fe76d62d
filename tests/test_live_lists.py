"""Lists that show what git holds follow it while they are open (issue 38, 7): the dreaming runs
(V), the activity review (A) and the forgotten facts (F) are read again when a run is made or
decided, a commit lands or the review mark moves elsewhere (another shell, an agent). Each looks at
a cheap signature of the refs it shows (``amr_tui.git.watch.watch_signature``: stats and ref
files, no git process) at the app's poll interval, and reads the list again only when it changed,
keeping the row the cursor was on and what was typed to filter."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList

from amr_tui.services.activity.service import ActivityService
from amr_tui.services.dreams.service import DreamService
from tests.driver import app_for, running, wait_for
from tests.historyhelpers import branch_commit, commit

POLL = 0.2


def _cards(app) -> list[tuple[str, str]]:
    return [(repo, run.id) for repo, run in app.screen.cards]


@pytest.mark.slow
async def test_the_run_list_shows_a_run_made_and_drops_one_decided_while_it_is_open(demo: list[Path]) -> None:
    """`amr dream` from another shell while V is open did not show up; `amr dreams reject RUN`
    elsewhere left the run listed."""
    from amr_tui.screens.dreams.screen import DreamListScreen

    alice, bob = demo
    app = app_for(demo, poll_interval=POLL)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("V")
        await wait_for(pilot, lambda: isinstance(app.screen, DreamListScreen) and app.screen.cards, what="runs")
        assert _cards(app) == [("memory-alice", "2026-10-07-nightly")]
        app.screen.query_one(OptionList).focus()
        await pilot.press(*"nightly")  # a filter typed: kept when the list is read again
        branch_commit(
            bob, "dreams/2026-12-07-agent", {"oncall.md": "# On-call\n\n- Swaps go in the calendar\n"}, "dream: x"
        )
        await wait_for(pilot, lambda: len(app.screen.cards) == 2, what="the new run listed")
        assert ("memory-bob", "2026-12-07-agent") in _cards(app)
        options = app.screen.query_one(OptionList)
        assert options.typed == "nightly" and options.option_count == 1  # the filter is still on
        await pilot.press("escape")  # clears the filter
        await wait_for(pilot, lambda: options.option_count == 2, what="the filter cleared")
        DreamService(alice).reject("2026-10-07-nightly")  # decided elsewhere (amr dreams reject)
        await wait_for(pilot, lambda: _cards(app) == [("memory-bob", "2026-12-07-agent")], what="the run dropped")
        assert isinstance(app.screen, DreamListScreen)


@pytest.mark.slow
async def test_the_activity_review_follows_commits_and_a_mark_moved_elsewhere(make_repo) -> None:
    from amr_tui.screens.activity import ActivityScreen

    repo = make_repo(
        "memory", {"MEMORY.md": "# Memory\n\n- Deploys on Tuesdays [source: https://e.co/1]\n\n## Index\n"}
    )
    ActivityService(repo).mark_reviewed()
    app = app_for([repo], poll_interval=POLL)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("A")
        await wait_for(pilot, lambda: isinstance(app.screen, ActivityScreen), what="the activity review")
        screen = app.screen
        await wait_for(pilot, lambda: screen.activity is not None, what="read")
        assert screen.activity.count == 0
        commit(
            repo,
            {
                "MEMORY.md": "# Memory\n\n- Deploys on Tuesdays [source: https://e.co/1]\n- Freeze on Fridays\n\n## Index\n"
            },
            "agent: freeze",
            name="Agent Smith",
        )
        await wait_for(pilot, lambda: screen.activity and screen.activity.count == 1, what="the agent's commit shown")
        ActivityService(repo).mark_reviewed()  # `amr activity --mark` in another shell
        await wait_for(pilot, lambda: screen.activity and screen.activity.count == 0, what="the mark followed")
        assert app.screen is screen


@pytest.mark.slow
async def test_the_forgotten_facts_follow_a_deletion_made_elsewhere(make_repo) -> None:
    from amr_tui.screens.forgotten import ForgottenScreen

    memory = "# Memory\n\n- Redis runs on port 6380 [source: https://e.co/r]\n- Deploys on Tuesdays\n\n## Index\n"
    repo = make_repo("memory", {"MEMORY.md": memory})
    app = app_for([repo], poll_interval=POLL)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("F")
        await wait_for(pilot, lambda: isinstance(app.screen, ForgottenScreen), what="the forgotten facts")
        screen = app.screen
        await wait_for(
            pilot, lambda: "0 forgotten facts" in str(screen.query_one("#forgotten-status").render()), what="read"
        )
        commit(
            repo,
            {"MEMORY.md": memory.replace("- Redis runs on port 6380 [source: https://e.co/r]\n", "")},
            "drop redis",
        )
        await wait_for(
            pilot, lambda: [f.text for f in screen.facts] == ["Redis runs on port 6380"], what="the fact listed"
        )
        assert app.screen is screen
