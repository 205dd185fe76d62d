"""Helpers for Pilot tests of the app."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from amr_tui.app import AmrApp, make_app
from amr_tui.services.config import Config


def app_for(paths: list[Path], **kw) -> AmrApp:
    return make_app(paths, config=Config(), poll_interval=kw.pop("poll_interval", 0.2), **kw)


async def wait_for(pilot, cond: Callable[[], object], timeout: float = 30.0, what: str = "condition"):
    """Let the app run until cond() is truthy (workers run in threads, so poll)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        await pilot.pause(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def screen_text(app: AmrApp) -> str:
    """Plain text of what is on screen now, line by line (what the terminal would get)."""
    return "\n".join("".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips())


async def settle(pilot, seconds: float = 0.3) -> None:
    await pilot.pause(seconds)
    await asyncio.sleep(0)


async def shown(pilot, app: AmrApp, *needles: str, timeout: float = 30.0) -> str:
    """Wait until every needle is on screen (rendering lags behind state under load)."""
    await wait_for(pilot, lambda: all(n in screen_text(app) for n in needles), timeout=timeout,
                   what="on screen: " + ", ".join(repr(n) for n in needles))
    return screen_text(app)


def git(root, *args: str) -> str:
    """Plain git in a test repo (set-up, and playing an agent)."""
    import subprocess

    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def cur(app: AmrApp):
    """The file open on the main screen."""
    return app.screen.current


async def ready(pilot, app: AmrApp) -> None:
    """Until the first file is open and the initial indexing is done."""
    await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None and not app.screen.indexing,
                   what="open")


async def open_file(pilot, app: AmrApp, repo: str, path: str) -> None:
    from amr_tui.screens.main.screen import Place

    app.screen.open_place(Place(repo, path, 0))
    await wait_for(pilot, lambda: cur(app) and (cur(app).repo, cur(app).path) == (repo, path), what=path)
