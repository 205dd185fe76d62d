"""Issue 16, section 5: the tree's width and a theme picked in the app are kept in the config."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from amr_tui.app import make_app
from amr_tui.services.config import load_config, save_settings
from amr_tui.widgets.file_tree import MemoryTree
from tests.driver import TMUX_SIZE, record_notes, running

USER_CONFIG = """# my amr config
repos = ["~/agent-memory"]   # the repos I use
read_only = ["memory-team"]
theme = "textual-dark"

[keys]
"main.find" = "slash,ctrl+f"
"""


def test_save_settings_keeps_the_users_other_keys_and_comments(tmp_path: Path) -> None:
    path = tmp_path / "amr" / "config.toml"
    assert save_settings(path, tree_width=30) is None  # no file yet: made
    assert tomllib.loads(path.read_text()) == {"tree_width": 30}
    path.write_text(USER_CONFIG)
    assert save_settings(path, theme='textual-light "x"', tree_width=40) is None
    text = path.read_text()
    assert "# my amr config" in text and "# the repos I use" in text
    data = tomllib.loads(text)
    assert data == {
        "repos": ["~/agent-memory"],
        "read_only": ["memory-team"],
        "theme": 'textual-light "x"',
        "tree_width": 40,
        "keys": {"main.find": "slash,ctrl+f"},
    }
    assert text.index("tree_width") < text.index("[keys]")  # a top-level key, not one of [keys]
    assert save_settings(path, tree_width=44) is None
    assert tomllib.loads(path.read_text())["tree_width"] == 44 and path.read_text().count("tree_width") == 1
    cfg = load_config(path)
    assert cfg.tree_width == 44 and cfg.keys == {"main.find": "slash,ctrl+f"}
    broken = "theme = \n"
    path.write_text(broken)
    assert save_settings(path, tree_width=30) is not None
    assert path.read_text() == broken  # a file that is not TOML is left alone


@pytest.mark.slow
async def test_tree_width_and_theme_are_remembered(demo, tmp_path: Path) -> None:
    """> and < make the tree wider and narrower; the width, and a theme picked in the app (the
    command palette sets App.theme), are written to the config and used at the next start."""
    path = tmp_path / "config.toml"
    path.write_text(USER_CONFIG)
    app = make_app(demo, config=load_config(path), poll_interval=60)
    record_notes(app)
    async with running(app) as drive:
        pilot = drive.pilot
        tree = app.screen.query_one(MemoryTree)
        start = tree.outer_size.width
        await pilot.press("greater_than_sign", "greater_than_sign", "greater_than_sign", "less_than_sign")
        await pilot.pause()
        assert tree.outer_size.width == start + 4
        await drive.until(lambda: "tree_width" in path.read_text(), what="the width saved")
        await drive.settled()
        assert tomllib.loads(path.read_text())["tree_width"] == start + 4
        app.theme = "textual-light"
        await drive.until(lambda: 'theme = "textual-light"' in path.read_text(), what="the theme saved")
        await drive.settled()
    data = tomllib.loads(path.read_text())
    assert data["theme"] == "textual-light" and data["keys"] == {"main.find": "slash,ctrl+f"}
    assert data["repos"] == ["~/agent-memory"]
    again = make_app(demo, config=load_config(path), poll_interval=60)
    async with running(again) as drive:
        pilot = drive.pilot
        await pilot.pause()
        assert again.theme == "textual-light"
        assert again.screen.query_one(MemoryTree).outer_size.width == start + 4


def _luminance(color) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = color.triplet if color.triplet is not None else color.get_truecolor()
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def _contrast(fg, bg) -> float:
    a, b = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


async def test_light_theme_keeps_the_cursor_line_and_line_numbers_readable(demo) -> None:
    """In textual-light the cursor line's text and the line numbers stand out from their
    background (they were dark text on dark blue, and white numbers on light grey)."""
    from tests.driver import app_for, screen_strips

    app = app_for(demo, poll_interval=60)
    async with running(app, TMUX_SIZE) as drive:
        app.theme = "textual-light"
        await drive.to_line(3)
        await drive.settled()
        view = drive.view
        left = view.region.x
        rows = screen_strips(app)
        worst: list[tuple[float, str]] = []
        for y in range(view.region.y, view.region.bottom):
            x = 0
            for seg in rows[y]:
                start, x = x, x + len(seg.text)
                if not seg.text.strip() or start < left or start >= view.region.right or seg.style is None:
                    continue
                fg, bg = seg.style.color, seg.style.bgcolor
                if fg is None or bg is None:
                    continue
                worst.append((_contrast(fg, bg), seg.text))
        cursor_text = [c for c, text in worst if "Alice leads" in text or "short bullet" in text]
        numbers = [c for c, text in worst if text.strip().isdigit()]
        assert cursor_text and numbers
        assert min(cursor_text) >= 3.0, worst
        assert min(numbers) >= 3.0, [(c, t) for c, t in worst if t.strip().isdigit()]
