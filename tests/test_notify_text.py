"""Repo text in a notification is shown literally and visibly: widgets.safe.notify_text.

Textual's ``App.notify`` parses its message as markup unless told otherwise, so a file name
such as ``[@click=app.quit]`` would become a click action and ``[bold]x[/]`` would vanish into
a style; an ESC or a bidi override would reach the terminal. ``notify_text`` is the one way
the screens notify; the static check below keeps it so.
"""

from __future__ import annotations

import ast
from pathlib import Path

from textual.app import App
from textual.widgets._toast import Toast

from amr_tui.screens.share import ShareScreen
from amr_tui.widgets.safe import notify_text

HOSTILE = "[bold]x[/] [@click=app.quit]quit[/] clip \x1b]52;c;aGVsbG8=\x07 \u202eevil"
SHOWN = "[bold]x[/] [@click=app.quit]quit[/] clip \u241b]52;c;aGVsbG8=\u2407 <U+202E>evil"


def toast_texts(app: App) -> list[str]:
    """What each toast on screen draws (title, then message), as plain text."""
    return [toast.render().plain for toast in app.screen.query(Toast)]


def toast_actions(app: App) -> list[object]:
    """Every click action a toast's text carries (none may come from repo text)."""
    actions = []
    for toast in app.screen.query(Toast):
        for span in toast.render().spans:
            meta = getattr(span.style, "meta", None) or {}
            if "@click" in meta:
                actions.append(meta["@click"])
            if isinstance(span.style, str) and "@click" in span.style:
                actions.append(span.style)
    return actions


async def _toasts(pilot, app: App, count: int = 1) -> list[str]:
    for _ in range(100):
        texts = toast_texts(app)
        if len(texts) >= count:
            return texts
        await pilot.pause(0.02)
    raise AssertionError("no toast shown")


class Notifier(App[None]):
    pass


async def test_hostile_repo_text_is_shown_literally_and_visibly():
    app = Notifier()
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        notify_text(app, HOSTILE, title="Sync \u202e[b]t[/b]", severity="error", timeout=30)
        (text,) = await _toasts(pilot, app)
        assert text == "Sync <U+202E>[b]t[/b]\n" + SHOWN
        assert "\x1b" not in text and "\u202e" not in text
        assert toast_actions(app) == []
        (toast,) = app.screen.query(Toast)
        assert toast.has_class("-error")


async def test_severity_and_timeout_as_app_notify():
    app = Notifier()
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        notify_text(app, "plain words")
        notify_text(app, "careful", severity="warning", timeout=0.3)
        texts = await _toasts(pilot, app, 2)
        assert sorted(texts) == ["careful", "plain words"]
        classes = {toast.render().plain: toast.classes for toast in app.screen.query(Toast)}
        assert "-information" in classes["plain words"] and "-warning" in classes["careful"]
        for _ in range(100):  # the short one goes; the default timeout (App.NOTIFICATION_TIMEOUT) is longer
            await pilot.pause(0.05)
            if toast_texts(app) == ["plain words"]:
                break
        assert toast_texts(app) == ["plain words"]


async def test_several_lines_keep_their_breaks_and_nothing_else():
    app = Notifier()
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        notify_text(app, ["Saved notes.md\x1b[2J", "Merged with: a\nb.md [b]x[/b]"], title="Committed")
        (text,) = await _toasts(pilot, app)
        assert text == "Committed\nSaved notes.md\u241b[2J\nMerged with: a\u240ab.md [b]x[/b]"
        notify_text(app, "one\ntwo")  # one string: its line break is repo text, shown as a stand-in
        texts = await _toasts(pilot, app, 2)
        assert "one\u240atwo" in texts


class _Session:
    """Just enough of a session for the share screen: one repo with a hostile name, no files."""

    names = ["[bold]x[/]\x1b[31m"]

    def files(self, repo: str) -> list[str]:
        return []

    def mount(self, name: str) -> object:
        return None  # mounts are only looked at for what is selected: nothing here


async def test_share_screen_grant_write_shows_the_repo_name_literally(tmp_path: Path):
    app = Notifier()
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        app.push_screen(ShareScreen(_Session(), str(tmp_path)))
        await pilot.pause(0.1)
        await pilot.press("w")
        (text,) = await _toasts(pilot, app)
        assert text == "[bold]x[/]\u241b[31m: write granted for the session"
        assert toast_actions(app) == []


ROOT = Path(__file__).resolve().parent.parent
SCANNED = [
    *sorted((ROOT / "amr_tui" / "screens").rglob("*.py")),
    *sorted((ROOT / "amr_tui" / "widgets").rglob("*.py")),
    ROOT / "amr_tui" / "app.py",
]


def _direct_notify_uses(path: Path, root: Path = ROOT) -> list[str]:
    """``x.notify`` anywhere in ``path`` (a call, or handed on as in ``call_from_thread(app.notify, ...)``),
    but inside ``widgets.safe.notify_text`` itself."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    allowed: set[int] = set()
    if path.name == "safe.py" and path.parent.name == "widgets":
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "notify_text":
                allowed |= {id(sub) for sub in ast.walk(node)}
    where = path.relative_to(root)
    lines = sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "notify" and id(node) not in allowed
    )
    return [f"{where}:{line}" for line in lines]


def test_screens_notify_only_through_notify_text():
    """A screen or widget shows a notification only through notify_text, so repo text in it is
    never markup and never reaches the terminal raw."""
    assert len(SCANNED) > 20  # the walk found the screens and widgets
    found = [use for path in SCANNED for use in _direct_notify_uses(path)]
    assert found == [], "call widgets.safe.notify_text instead of .notify: " + ", ".join(found)


def test_the_static_check_sees_a_direct_notify(tmp_path: Path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f(self):\n    self.app.notify('x')\n    self.call_from_thread(self.app.notify, 'y')\n")
    assert len(_direct_notify_uses(sample, tmp_path)) == 2
