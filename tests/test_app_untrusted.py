"""Memory text is data: markup, click actions and terminal escapes appear literally and run nothing."""

from __future__ import annotations

import re

import pytest

from amr_tui.screens.finder import FinderScreen
from amr_tui.widgets.entry_view import EntryView
from tests.driver import app_for, notes, screen_text, tree_files, wait_for
from tests.hostilehelpers import rendered

PAYLOADS = [
    "\x1b]52;c;aGVsbG8=\x07 clipboard write",
    "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
    "\x1b[2J\x1b[31mred and cleared",
    "C1 CSI \x9b2J here",
    "bidi \u202egnp.exe\u202c trick",
    "closing tag [/bold] crashes markup",
    "[@click=app.quit]click to quit[/]",
    "[link=https://evil.example]a link[/link]",
    "[bold red]styled?[/bold red]",
    "- [/",
    "nul \x00 byte",
]

ESCAPES = re.compile("[\x1b\x9b\x90-\x9f\x07\x00\u202e]")


@pytest.fixture
def evil_repo(make_repo):
    entries = "".join(f"- {p} [source: https://example.com/s/{i}]\n" for i, p in enumerate(PAYLOADS))
    return make_repo(
        "evil",
        {
            "MEMORY.md": "# Memory [/b]\n\n" + entries + "\n## Index\n- [[weird]]\n",
            "notes/[@click=app.quit]x[b].md": "- file name with markup [@click=app.bell]\n",
            "weird.md": "- \x1b[6n cursor report request\n",
        },
    )


@pytest.mark.slow
async def test_hostile_entries_render_literally(evil_repo):
    app = app_for([evil_repo])
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        await pilot.pause(0.2)
        text = screen_text(app)
        for literal in (
            "[/bold]",
            "[@click=app.quit]click to quit[/]",
            "[link=https://evil.example]",
            "[bold red]styled?",
        ):
            assert literal in text, literal
        assert not ESCAPES.search(rendered(app))
        # walk the cursor over every line and click every link-ish spot: nothing runs, nothing crashes
        view = app.screen.query_one(EntryView)
        for _ in range(len(PAYLOADS) + 4):
            await pilot.press("j")
        await pilot.press("tab", "enter")
        await pilot.pause(0.3)
        assert app.is_running
        assert not ESCAPES.search(rendered(app))
        assert view.doc is not None and app.screen.current is not None


@pytest.mark.slow
async def test_hostile_file_names_and_finder(evil_repo):
    app = app_for([evil_repo])
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        await wait_for(pilot, lambda: len(app.session.index) > 5, what="index")
        from amr_tui.widgets.file_tree import MemoryTree

        tree = app.screen.query_one(MemoryTree)
        await wait_for(
            pilot,
            lambda: any(
                str(n.label).removesuffix(" orphan") == "[@click=app.quit]x[b].md" for n in tree_files(tree).values()
            ),
            what="file name shown literally",
        )
        await pilot.press("slash")
        await pilot.press(*"click")
        await wait_for(pilot, lambda: isinstance(app.screen, FinderScreen) and app.screen.hits, what="hits")
        await pilot.pause(0.2)
        assert "[@click=app.quit]" in screen_text(app)
        assert not ESCAPES.search(rendered(app))
        await pilot.press("escape")
        await pilot.press("ctrl+p")
        await pilot.press(*"click to")
        await pilot.pause(0.8)
        assert app.is_running
        assert not ESCAPES.search(rendered(app))


async def test_notifications_show_markup_literally(evil_repo):
    app = app_for([evil_repo], poll_interval=0.2)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        (evil_repo / "[red]new[-red]\x1b[2J.md").write_text("- x\n")
        await wait_for(pilot, lambda: any("new" in str(n.message) for n in notes(app)), what="notification")
        await pilot.pause(0.2)
        assert "[red]new[-red]" in screen_text(app)
        assert not ESCAPES.search(rendered(app))


async def test_dialog_bodies_keep_their_lines_and_show_a_line_break_inside_repo_text(evil_repo):
    """A dialog's own line breaks are line breaks (they showed as ␊ once); a line break inside
    repo text (a file named "a\\nb.md") stays a visible stand-in, on its own line of the body."""
    from amr_tui.core.textsafety import make_visible
    from amr_tui.screens.dialogs import ConfirmScreen

    app = app_for([evil_repo], poll_interval=60)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        body = make_visible("notes/evil\nname.md [/b] \x1b[2J") + "\n\nDelete it anyway?"
        await app.push_screen(ConfirmScreen("Delete file?", body, "Delete"))
        await pilot.pause(0.2)
        lines = screen_text(app).splitlines()
        first = next(i for i, line in enumerate(lines) if "notes/evil" in line)
        assert "\u240a" in lines[first] and "name.md [/b]" in lines[first]  # the name's own break, visible
        assert "Delete it anyway?" in lines[first + 2] and not lines[first + 1].strip(" █▌▐│")
        assert "\u240a\u240a" not in screen_text(app)
        assert not ESCAPES.search(rendered(app))
