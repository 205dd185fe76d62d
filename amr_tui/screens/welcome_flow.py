"""From the welcome screen to the main screen: the demo, a new memory repo, or folders found.

:func:`welcome` is one async worker that asks each question in turn (``push_screen_wait``);
building the demo, reading a folder for the preview and creating the repo run in a thread, so
the UI thread never waits on git or the disk. Each way back (a question cancelled, a repo that
could not be made) shows the welcome screen again.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from amr_tui.core.textsafety import make_visible
from amr_tui.screens.dialogs import ConfirmScreen, PromptScreen
from amr_tui.screens.welcome import WelcomeScreen
from amr_tui.services.config import config_path
from amr_tui.services.workspace import Mount, discover
from amr_tui.widgets.safe import notify_text

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.app import App

_WHERE_HELP = (
    "The folder you named, else the current one (empty, or a git repo of notes, which is adopted), or "
    "another one, such as "
    "~/agent-memory. git init, MEMORY.md with an ## Index, one commit (as the agent skill does). You "
    "see what will be written before anything is."
)


async def welcome(
    app: App[int], merge_driver: bool, start: Callable[[list[Mount]], None], *, where: Path | None = None
) -> None:
    """Until the user opens something (``start`` shows it) or leaves (the app exits). ``where``:
    the folder named on the command line that holds no memory, offered for a new repo (else the
    current folder)."""
    while True:
        choice = await app.push_screen_wait(WelcomeScreen(str(config_path())))
        if choice is not None and choice.startswith("open\0"):
            mounts: list[Mount] | None = await asyncio.to_thread(discover, [Path(p) for p in choice.split("\0")[1:]])
        elif choice == "init":
            mounts = await _create(app, merge_driver, where or Path.cwd())
        elif choice == "demo":
            mounts = await asyncio.to_thread(_demo)
        else:
            app.exit(0)
            return
        if mounts:
            start(mounts)
            return


def _demo() -> list[Mount]:
    from amr_tui.services.demo import build_demo  # only when the welcome screen asks for it

    return discover(build_demo(Path(tempfile.mkdtemp(prefix="amr-demo-"))))


async def _create(app: App[int], merge_driver: bool, where: Path) -> list[Mount] | None:
    """Ask where (``where`` first), show exactly what will be written there, and write it only on yes; with no git
    identity, ask for one for the new repo only (its own config, never the global one)."""
    from amr_tui.services.init import (
        InitError,
        InitNoIdentityError,
        init_memory_repo,
        preview_init,
    )  # git: only when a repo is created

    value = await app.push_screen_wait(PromptScreen("Create a memory repo at", value=str(where), help_text=_WHERE_HELP))
    if not value:
        return None
    folder = Path(value).expanduser()
    try:
        shown = await asyncio.to_thread(preview_init, folder, merge_driver=merge_driver)
    except InitError as exc:
        notify_text(app, str(exc), title="Not created", severity="error", timeout=10)
        return None
    if not await app.push_screen_wait(ConfirmScreen("Create this memory repo?", shown, "Create", "Cancel")):
        return None
    identity: tuple[str, str] | None = None
    while True:
        try:
            root = await asyncio.to_thread(init_memory_repo, folder, identity=identity, merge_driver=merge_driver)
        except InitNoIdentityError as exc:
            if identity is None:  # as the main screen does: ask, and keep it in this repo only
                identity = await _identity(app, exc.where)
                if identity is not None:
                    continue
                return None
            notify_text(app, str(exc), title="Not created", severity="error", timeout=10)
            return None
        except InitError as exc:
            notify_text(app, str(exc), title="Not created", severity="error", timeout=10)
            return None
        return await asyncio.to_thread(discover, [root.path])


async def _identity(app: App[int], where: str) -> tuple[str, str] | None:
    answer = await app.push_screen_wait(
        PromptScreen(
            f"Git needs a name and email to commit in {make_visible(where)}",
            placeholder="Your Name <you@example.com>",
            help_text="Saved in this repo's own config (never your global config).",
        )
    )
    if answer and "<" in answer:
        name, email = answer.split("<", 1)
        return name.strip(), email.strip(" >")
    if answer:
        notify_text(app, "Write it as: Name <email>", severity="warning")
    return None
