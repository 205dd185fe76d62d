"""Review mode end to end: an `amr mcp --review` server writes two facts (status
"pending_review", on dreams/inbox-<today>), then the app's dream review (Pilot) accepts one entry
and rejects the other; main's HEAD has the accepted fact and not the rejected one, and the run
leaves the pending list once it is decided. Real git, a real server, the real app."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import Implementation
from textual.widgets import OptionList

from amr_tui.screens.dreams.screen import DreamListScreen, RunReviewScreen
from amr_tui.services.dreams.service import DreamService
from tests.driver import WIDE_SIZE, app_for, git, running, shown, wait_for

KEEP = "The nightly backup of the billing database runs at 02:00 UTC"
DROP = "The design team moved its standup to Thursday afternoons"


@contextlib.asynccontextmanager
async def mcp_client(repo: Path, *args: str) -> AsyncIterator[ClientSession]:
    """One `amr mcp REPO ARGS...` server over stdio, the client named "reviewer-test"."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "amr_tui", "mcp", str(repo), *args], env=dict(os.environ), cwd=str(repo)
    )
    async with stdio_client(params) as (read, write):
        client = Implementation(name="reviewer-test", version="1")
        async with ClientSession(read, write, client_info=client) as session:
            await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, **args: Any) -> dict[str, Any]:
    res = await session.call_tool(tool, args)
    assert not res.is_error, res.content
    assert isinstance(res.structured_content, dict), res
    return res.structured_content


def head_text(root: Path, rel: str) -> str:
    return git(root, "show", f"main:{rel}")


@pytest.mark.slow
async def test_review_mode_writes_reach_the_review_screen_and_decisions_reach_main(make_repo) -> None:
    root = make_repo(
        "memory",
        {
            "MEMORY.md": "# Memory\n\n## Index\n\n- [[inbox]]: facts agents remembered\n",
            "inbox.md": "# Inbox\n\n- The wiki lives on the intranet [source: https://example.com/s/1]\n",
        },
    )
    main_before = git(root, "rev-parse", "main").strip()
    run = f"inbox-{dt.date.today().isoformat()}"
    async with mcp_client(root, "--review", "memory") as session:
        replies = [
            await call(session, "memory_remember", text=text, path="inbox.md", source="https://example.com/r")
            for text in (KEEP, DROP)
        ]
    for reply in replies:
        assert reply["status"] == "pending_review", reply
        assert reply["review_run"] == run and reply["branch"] == f"dreams/{run}", reply
    # main did not move; the pending branch holds both facts, one commit each
    assert git(root, "rev-parse", "main").strip() == main_before
    assert KEEP not in head_text(root, "inbox.md") and DROP not in head_text(root, "inbox.md")
    pending = git(root, "show", f"dreams/{run}:inbox.md")
    assert KEEP in pending and DROP in pending
    assert git(root, "rev-list", "--count", f"main..dreams/{run}").strip() == "2"
    assert git(root, "status", "--porcelain") == ""

    app = app_for([root], poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        await pilot.press("V")
        await wait_for(
            pilot, lambda: isinstance(app.screen, DreamListScreen) and app.screen.cards, timeout=20, what="runs"
        )
        assert [(repo, r.id) for repo, r in app.screen.cards] == [("memory", run)]
        await shown(pilot, app, run)
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, RunReviewScreen) and app.screen.review and app.screen.changes,
            timeout=20,
            what="the review",
        )
        review = app.screen
        assert [f.path for f in review.review.files] == ["inbox.md"]
        by_text = {c.new.text if c.new else "": c for c in review.changes}
        keep = next(c for t, c in by_text.items() if t.startswith(KEEP))
        drop = next(c for t, c in by_text.items() if t.startswith(DROP))
        assert len(review.changes) == 2
        changes = review.query_one("#review-changes", OptionList)
        changes.focus()
        changes.highlighted = review.changes.index(keep)
        await pilot.pause(0.2)
        await pilot.press("a")
        changes.highlighted = review.changes.index(drop)
        await pilot.pause(0.2)
        await pilot.press("r")
        assert review.accepted == {keep.id} and review.rejected == {drop.id}
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: KEEP in head_text(root, "inbox.md"), timeout=20, what="the accepted fact on main")
        # the rejection was saved when r was pressed, so applying the accepted change decides
        # every change of the run: it is closed and leaves the pending list (tests/test_dream_threeway.py)
        await wait_for(pilot, lambda: isinstance(app.screen, DreamListScreen), timeout=20, what="back to the list")
        await wait_for(pilot, lambda: not app.screen.cards, timeout=20, what="the run off the pending list")

    text = head_text(root, "inbox.md")
    assert KEEP in text and DROP not in text
    assert "The wiki lives on the intranet" in text
    assert (root / "inbox.md").read_text() == text  # the work tree was brought forward
    assert git(root, "status", "--porcelain") == ""
    service = DreamService(root)
    assert service.runs() == []
    assert [(r.id, r.state) for r in service.runs(closed=True)] == [(run, "accepted")]  # part of it reached main
    service.close()
    assert f"dreams/{run}" not in git(root, "branch", "--list")
    # the accepted fact's commit is on main, after main_before, and names the run
    log = git(root, "log", "--format=%B", f"{main_before}..main")
    assert f"Dream-Run: {run}" in log
