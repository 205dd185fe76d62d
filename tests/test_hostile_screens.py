"""The injection corpus through every screen.

The hostile repo (``hostilehelpers.make_hostile_repo``) carries every payload in entries,
metadata, link targets, headings, file names, commit messages, author names, branch names
(the checked-out one shows in the tree badge), a dreaming run and the repo's folder name.
Each :class:`Visit` drives the app to one screen; after each one: no crash, the app still runs,
no forbidden character reaches the compositor, and clicking ``[@click=app.quit]`` quits nothing.

A new screen is one line in VISITS.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from amr_tui.git.errors import ConflictError
from amr_tui.screens.conflict import ConflictScreen
from amr_tui.screens.main.screen import MainScreen, Place
from tests.driver import HOSTILE_SIZE, app_for, click_text, notes, running, wait_for
from tests.hostilehelpers import (
    LITERALS,
    PAYLOADS,
    file_name_for,
    forbidden_in,
    make_hostile_repo,
    rendered,
    screen_lines,
)

pytestmark = pytest.mark.slow  # the slow tier: `pytest -m slow` (README)

REPO_DIR = "m\x1b[2J"


@dataclass(frozen=True)
class Visit:
    name: str
    keys: tuple[str, ...] = ()
    path: str = "MEMORY.md"  # file to open first
    line: int = 0  # put the cursor on this line first (0: leave it)
    push: Callable[[], object] | None = None  # a screen to push instead of keys
    wait: float = 0.2
    shows: str = ""  # visible text that proves the screen was reached
    screen: str = ""  # class name of the screen on top afterwards
    notes: str = ""  # text one of the notifications must hold


def _conflict() -> ConflictScreen:
    ours = "".join(f"- mine {p}\r\n" for p in PAYLOADS.values()).encode("utf-8", "surrogateescape")
    theirs = "".join(f"- theirs {p}\r\n" for p in PAYLOADS.values()).encode("utf-8", "surrogateescape")
    return ConflictScreen(
        ConflictError(
            "notes/\x1b[2J[@click=app.quit].md", ours=ours, base=b"", theirs=theirs, merged=ours + theirs, head=None
        )
    )


HOSTILE_NAME = "names/" + file_name_for("osc52", PAYLOADS["osc52"])


def _sync_conflict():
    """A sync stopped on conflicts whose entries, path, remote and branch carry payloads."""
    from types import SimpleNamespace as NS

    from amr_tui.screens.sync_conflict import SyncConflictScreen

    conflicts = [
        NS(
            index=i,
            entry=f"{name}: {p}",
            reason=p,
            ours=(f"- mine {p}",),
            base=(f"- base {p}",),
            theirs=(f"- theirs {p}",),
        )
        for i, (name, p) in enumerate(PAYLOADS.items())
    ]
    pending = NS(
        files=[NS(path="notes/\x1b[2J[@click=app.quit].md", conflicts=conflicts, whole_file=False)],
        remote="origin\x1b]52;c;eA==\x07",
        branch="main\u202e",
        root=Path("/nonexistent"),
    )
    return SyncConflictScreen(pending, "m\x1b[2J")


VISITS: list[Visit] = [
    Visit("tree-entries-side-panel", shows="AMR017 ESC in the text"),
    Visit("raw-lines", keys=("r",), shows="- osc52: clip \u241b]52;c;aGVsbG8=\u2407 write [source:"),
    Visit("walk-tab-follow", keys=("j",) * 15 + ("tab", "tab", "enter")),
    Visit("broken-link-confirm", line=15, keys=("tab", "enter"), screen="ConfirmScreen", shows="[[\u241b[2J]]"),
    Visit("source-not-web", line=16, keys=("enter",), notes="Not a web link"),
    Visit(
        "source-confirm",
        line=17,
        keys=("enter",),
        screen="ConfirmScreen",
        shows="https://evil.example/<U+202E>x<U+009B>2J",
    ),
    Visit("nul-file", path="nul.md", shows="nul \u2400 byte"),
    Visit("big-line", path="big.md", keys=("j", "k", "r"), shows="AAAAAAAAAAAAAAAAAAAA"),
    Visit("big-line-editor", path="big.md", line=1, keys=("e", "home"), shows="\u258a  big AAAA"),
    Visit("finder", keys=("slash", *"click"), screen="FinderScreen", shows="[@click=app.quit]click to quit[/]"),
    Visit("palette", keys=("ctrl+p", *"click to"), wait=0.6, shows="[@click=app.quit]click to quit"),
    Visit("help", keys=("question_mark",), screen="HelpScreen"),
    Visit("entry-editor", line=3, keys=("e", "home"), shows="\u258a  osc52: clip \u241b]52;c;aGVsbG8=\u2407 write"),
    Visit("entry-editor-bidi", line=7, keys=("e", "home"), shows="\u258a  bidi: bidi \ufffdgnp.exe\ufffd"),
    Visit("delete-entry-confirm", line=4, keys=("d",), screen="ConfirmScreen", shows="osc8: \u241b]8;;https://evil"),
    Visit("move-entry-choice", line=5, keys=("m",), screen="ChoiceScreen", shows="names/osc52-clip \u241b]52"),
    Visit("capture-prompt", keys=("c", *"[/bold] x"), screen="TextPromptScreen", shows="[/bold] x"),
    Visit("new-file-prompt", keys=("n",), screen="PromptScreen", shows="New file in m\u241b[2J"),
    Visit("hostile-file", path=HOSTILE_NAME, shows="file named after osc52"),
    Visit(
        "rename-prompt",
        path=HOSTILE_NAME,
        keys=("R", "home"),
        screen="PromptScreen",
        shows="names/osc52-clip \u241b]52;c;aGVsbG8=\u2407 write.md",
    ),
    Visit("delete-file-confirm", path=HOSTILE_NAME, keys=("D",), screen="ConfirmScreen", shows="will be deleted"),
    Visit(
        "file-editor-markup",
        path="notes/[@click=app.quit]x[b].md",
        keys=("E",),
        screen="FileEditScreen",
        shows="file name with markup [@click=app.bell]",
    ),
    Visit("file-editor-refuses-controls", keys=("E",), notes="control characters"),
    Visit("conflict", push=_conflict, screen="ConflictScreen", shows="- mine clip \u241b]52;c;aGVsbG8=\u2407"),
    Visit("conflict-save-refused", push=_conflict, keys=("ctrl+s",), screen="ConflictScreen", notes="stand-ins"),
    Visit("file-history", path="journal.md", keys=("h",), wait=0.6, shows="[@click=app.quit]click"),
    Visit("fact-history", line=3, keys=("H",), wait=0.6),
    Visit("forgotten", keys=("F",), wait=0.6),
    Visit("dream-review", keys=("V",), wait=0.6, shows="evil-<U+202E>-run"),
    Visit("dream-review-open", keys=("V", "enter"), wait=0.6, shows="dreamt clip \u241b]52;c;aGVsbG8="),
    Visit("share", keys=("P",), wait=0.8, screen="ShareScreen"),
    Visit("sync", keys=("S",), wait=0.8, notes="up to date"),
    Visit(
        "sync-conflict",
        push=_sync_conflict,
        keys=("down", "down", "e", "home"),
        screen="TextPromptScreen",
        shows="- mine \u241b[2J\u241b[31mred",
    ),
    Visit(
        "sync-conflict-list",
        push=_sync_conflict,
        keys=("down",),
        screen="SyncConflictScreen",
        shows="origin\u241b]52;c;eA==\u2407",
    ),
]


@pytest.fixture(scope="module")
def hostile_repo(tmp_path_factory) -> Path:
    return make_hostile_repo(tmp_path_factory.mktemp("hostile") / REPO_DIR)


async def _back_to_main(pilot, app) -> None:
    for _ in range(6):
        if isinstance(app.screen, MainScreen) and not app.screen.editor.display:
            return
        await pilot.press("escape")
        await pilot.pause(0.02)
        if not isinstance(app.screen, MainScreen) and type(app.screen).__name__ == "ConfirmScreen":
            # "Discard what you typed?" and the like: discard (y); any other question: no
            await pilot.press("y" if app.screen.title_text.startswith("Discard") else "n")
            await pilot.pause(0.02)


async def _visit(pilot, app, visit: Visit, problems: list[str]) -> None:
    screen = app.screen
    assert isinstance(screen, MainScreen)
    cur = screen.current
    if cur is None or cur.path != visit.path:
        screen.open_place(Place(cur.repo if cur else screen.session.names[0], visit.path, 0), record=False)
        await wait_for(pilot, lambda: screen.current and screen.current.path == visit.path, what=f"{visit.name}: open")
    if visit.line:
        screen.view.cursor_line = visit.line
        await pilot.pause(0.05)
    if visit.push is not None:
        app.push_screen(visit.push())
        await pilot.pause(0.2)
    for key in visit.keys:
        await pilot.press(key)
    await pilot.pause(visit.wait)
    lines = "\n".join(screen_lines(app))
    for _ in range(50):  # on a loaded machine the screen may take a moment longer to show it
        if not visit.shows or visit.shows in lines:
            break
        await pilot.pause(0.1)
        lines = "\n".join(screen_lines(app))
    if visit.shows and visit.shows not in lines:
        problems.append(f"{visit.name}: {visit.shows!r} is not on screen ({type(app.screen).__name__})")
    if visit.notes and not any(visit.notes in str(n.message) for n in notes(app)):
        problems.append(f"{visit.name}: no notification says {visit.notes!r}")
    if visit.screen and type(app.screen).__name__ != visit.screen:
        problems.append(f"{visit.name}: expected {visit.screen} on top, found {type(app.screen).__name__}")
    bad = forbidden_in(rendered(app))
    if bad:
        problems.append(f"{visit.name} ({type(app.screen).__name__}): raw controls reach the screen: {bad}")
    if await click_text(pilot, app, "[@click=app.quit]"):
        await pilot.pause(0.1)
    if not app.is_running or app.return_code is not None:
        problems.append(f"{visit.name}: the app stopped")
        return
    await _back_to_main(pilot, app)


def _groups(n: int) -> list[list[Visit]]:
    return [VISITS[i::n] for i in range(n)]


@pytest.mark.parametrize("group", _groups(3), ids=lambda g: "+".join(v.name for v in g[:2]) + "...")
async def test_every_screen_shows_hostile_text_literally(hostile_repo: Path, group: list[Visit]) -> None:
    app = app_for([hostile_repo], poll_interval=60)
    problems: list[str] = []
    async with running(app, HOSTILE_SIZE, ready=False) as drive:
        pilot = drive.pilot
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, timeout=30, what="open")
        await pilot.pause(0.3)
        for visit in group:
            await _visit(pilot, app, visit, problems)
        assert app.is_running
    assert not problems, "\n".join(problems)


async def test_entries_file_names_and_branch_appear_literally(hostile_repo: Path) -> None:
    app = app_for([hostile_repo], poll_interval=60)
    async with running(app, HOSTILE_SIZE, ready=False) as drive:
        pilot = drive.pilot
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, timeout=30, what="open")
        await pilot.pause(0.3)
        text = "\n".join(screen_lines(app))
        missing = [name for name, literal in LITERALS.items() if literal not in text and name != "nul"]
        assert not missing, f"not shown literally: {missing}"
        badge = next(ln for ln in screen_lines(app) if "\u25bc m\u241b[2J" in ln)  # the repo's folder name
        assert "evil<U+202E>" in badge  # and its checked-out branch (cut to the tree's width)
        assert not forbidden_in(rendered(app))
        for needle in ("[link=https://evil.example]", "[@click=app.quit]"):
            if app.screen.current.path != "MEMORY.md":  # a click in the tree opens that file
                app.screen.open_place(Place(app.screen.session.names[0], "MEMORY.md", 0))
                await wait_for(pilot, lambda: needle in "\n".join(screen_lines(app)), what=needle)
            assert await click_text(pilot, app, needle), needle
            await pilot.pause(0.2)
            assert app.is_running and app.return_code is None
        app.screen.open_place(Place(app.screen.session.names[0], "nul.md", 0))
        await wait_for(pilot, lambda: LITERALS["nul"] in "\n".join(screen_lines(app)), what="the NUL file")
        assert not forbidden_in(rendered(app))


async def test_notifications_with_hostile_names(hostile_repo: Path, tmp_path: Path) -> None:
    """Notifications: a new hostile file arrives while the app runs, then a save of it fails."""
    import shutil

    repo = tmp_path / REPO_DIR
    shutil.copytree(hostile_repo, repo, symlinks=True)
    app = app_for([repo], poll_interval=0.2)
    async with running(app, HOSTILE_SIZE, ready=False) as drive:
        pilot = drive.pilot
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, timeout=30, what="open")
        name = "[red]new[-red] \x1b]52;c;eA==\x07 \u202e.md"
        (repo / name).write_text("- arrived\n")
        await wait_for(pilot, lambda: any("new" in str(n.message) for n in notes(app)), what="notification")
        await pilot.pause(0.2)
        note = next(str(n.message) for n in notes(app) if "new" in str(n.message))
        assert "[red]new[-red] \u241b]52;c;eA==\u2407 <U+202E>.md" in note
        assert "[red]new" in "\n".join(screen_lines(app))
        assert not forbidden_in(rendered(app))
        assert app.is_running
