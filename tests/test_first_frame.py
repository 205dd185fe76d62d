"""The first frame Textual renders for ``amr PATH`` is the one it writes, and it shows the tree's
rows and MEMORY.md's lines, laid out at the entry view's width.

Both failed before (found through a pty, issue 14): the main screen was pushed from the app's
``on_mount``, so Textual's start-up batch waited for its whole mount while the screen rendered a
frame that was dropped (``_batch_count`` 1) and rendered again; and the entry view laid its
rows out on its Resize event, which comes after the first frame, so that frame showed MEMORY.md
as two lines wrapped at ten cells. Recorded here at ``App._display``, where Textual hands every
frame over to be written (headless: to be dropped), on the real app and a real repo.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual._compositor import LayoutUpdate

from amr_tui.app import make_app
from amr_tui.screens.main.screen import MainScreen
from amr_tui.services.config import Config

LONG = "- The staging deploy runs from the release branch " + "and waits for the smoke tests " * 3


def _memory() -> str:
    return (
        "# Memory\n\nWhat this agent remembers.\n\n## Index\n\n- [[notes]]: the notes\n"
        f"{LONG}[source: s1; added: 2026-01-01]\n- The last entry of the file\n"
    )


def _lines(update: LayoutUpdate) -> list[str]:
    return ["".join(strip.text for strip in line) for line in update.strips]


async def _first_frames(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[int, Any]], int]:
    """Every frame rendered at start-up, with Textual's batch count as it was; and how many
    screens the app had then (the main screen is its first: 1)."""
    app = make_app([root], config=Config())
    frames: list[tuple[int, Any]] = []
    textual_display: Callable[[Any, Any], None] = app._display

    def record(screen: Any, renderable: Any) -> None:
        if renderable is not None:
            frames.append((app._batch_count, renderable))
        textual_display(screen, renderable)

    monkeypatch.setattr(app, "_display", record)
    async with app.run_test(size=(130, 38)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        screens = len(app.screen_stack)
    return frames, screens


async def test_the_first_frame_rendered_is_written_and_shows_the_tree_and_memory(
    make_repo: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo("memory", {"MEMORY.md": _memory(), "notes.md": "# Notes\n\n- a fact\n"})
    frames, screens = await _first_frames(root, monkeypatch)
    assert frames, "no frame rendered"
    batched, first = frames[0]
    assert batched == 0, "the first frame was rendered inside Textual's start-up batch, and dropped"
    assert isinstance(first, LayoutUpdate)  # the whole screen
    lines = _lines(first)
    tree = [line.split("\u2595", 1)[0] for line in lines]
    assert any(row.startswith("\u25bc memory") for row in tree), lines
    assert any("MEMORY.md" in row for row in tree) and any("notes.md" in row for row in tree), lines
    text = "\n".join(lines)
    assert "What this agent remembers." in text, text
    assert "The last entry of the file" in text, text  # every line, after the one that wraps
    # The long entry wraps at the view's width, not at ten cells.
    assert "The staging deploy runs from the release branch" in text, text
    assert screens == 1  # no empty default screen under it, laid out at every resize
