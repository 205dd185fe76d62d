"""Pilot tests of the app's sync (`S`) against an authenticated server (git-http-backend behind
lighttpd with HTTP Basic auth on 127.0.0.1, tests/httpgitserver.py), credentials from git's own
credential store in the test's HOME."""

from __future__ import annotations

import os
from pathlib import Path

from textual.widgets import Static

from amr_tui.core.textsafety import make_visible
from tests.driver import WIDE_SIZE, app_for, notes, running, screen_text, wait_for
from tests.httpgitserver import PASSWORD, USER, WRONG_PASSWORD, http_git_server, store_credentials  # noqa: F401
from tests.synchelpers import append, clone, commit_all, git

BASE = "# Memory\n\n- Deploys happen on Tuesdays [source: https://e.com/s/1]\n\n## Index\n"


def _home() -> Path:
    return Path(os.environ["HOME"])


def _sync_notes(app) -> list[tuple[str, str]]:
    return [(str(n.title), str(n.message)) for n in notes(app) if str(n.title).startswith("Sync")]


def _status(app) -> str:
    return str(app.screen.query_one("#status", Static).render())


async def _press_sync(pilot, app) -> tuple[str, str]:
    await pilot.press("S")
    await wait_for(pilot, lambda: _sync_notes(app), timeout=30, what="sync result")
    return _sync_notes(app)[0]


async def test_sync_with_wrong_stored_password_says_authentication_failed(http_git_server, tmp_path):  # noqa: F811
    store_credentials(_home(), http_git_server, USER, PASSWORD)
    url = http_git_server.create("appmem", {"MEMORY.md": BASE}, work=tmp_path)
    (tmp_path / "a").mkdir()
    mine = clone(url, tmp_path / "a" / "appmem", name="Me", driver=True)
    append(mine, "MEMORY.md", "- My own fact [source: https://e.com/s/3]")
    mine_head = commit_all(mine, "me: fact")
    store_credentials(_home(), http_git_server, USER, WRONG_PASSWORD)
    app = app_for([mine], poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        title, message = await _press_sync(pilot, app)
        assert title == "Sync: auth", (title, message)
        expected = make_visible(
            f"authentication failed for remote 'origin' ({url}): the server refused the credentials"
        )
        assert message.startswith(expected), message
        await wait_for(pilot, lambda: "authentication failed for remote 'origin'" in _status(app), what="status line")
        assert _status(app).startswith("appmem: authentication failed"), _status(app)
        shown = screen_text(app)
        everything = [shown, _status(app), *(f"{n.title} {n.message}" for n in notes(app))]
        for text in everything:
            assert PASSWORD not in text and WRONG_PASSWORD not in text, text
    assert not http_git_server.reachable("appmem", mine_head)
    assert git(mine, "status", "--porcelain").stdout == ""


async def test_sync_through_the_authenticated_server(http_git_server, tmp_path):  # noqa: F811
    store_credentials(_home(), http_git_server, USER, PASSWORD)
    url = http_git_server.create("appok", {"MEMORY.md": BASE}, work=tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    mine = clone(url, tmp_path / "a" / "appok", name="Me", driver=True)
    other = clone(url, tmp_path / "b" / "appok", name="Agent", driver=True)
    append(other, "MEMORY.md", "- Agent fact from another clone [source: https://e.com/s/2]")
    commit_all(other, "agent: fact")
    git(other, "push", "-q", "origin", "main")
    append(mine, "MEMORY.md", "- My own fact [source: https://e.com/s/3]")
    commit_all(mine, "me: fact")
    app = app_for([mine], poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        title, message = await _press_sync(pilot, app)
        assert title == "Sync: synced", (title, message)
        for text in [screen_text(app), *(str(n.message) for n in notes(app))]:
            assert PASSWORD not in text
    served = http_git_server.read("appok", "MEMORY.md")
    assert "Agent fact from another clone" in served and "My own fact" in served
