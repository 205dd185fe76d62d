"""Keys typed in one burst are read in the order typed, none lost (widgets/type_ahead.py).

The reproductions are the issue's, pressed in tmux on ``amr demo``: ``e``, ``Home``, ``Alpha ``,
``Enter`` in one read saved "No change"; ``e`` right after a save with its text and Enter was
lost too. Here the keys go to the app in one go (``burst``: no wait between them, as the
terminal driver posts the keys of one read), and, in ``test_a_burst_through_a_real_terminal``,
as one write to a real pty running ``amr``.

The property: a burst of any mix of keys ends where the same keys typed one at a time, each
waited for, end (the files, the commits, the editor).
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amr_tui.screens.finder import FinderScreen
from tests.driver import AppDriver, app_for, burst, git, running, said

ENTRY = "Payments and website share a 2026-10-15 launch deadline"


async def to_entry(drive: AppDriver, text: str) -> int:
    """Put the cursor on the entry starting with ``text``; its line."""
    line = next(e.line for e in drive.current.doc.entries if e.text.startswith(text))
    await drive.to_line(line)
    return line


def committed_line(root: Path, path: str, line: int) -> str:
    return git(root, "show", f"HEAD:{path}").splitlines()[line - 1]


async def test_edit_key_cursor_keys_text_and_enter_in_one_burst(driver: AppDriver, demo: list[Path]) -> None:
    line = await to_entry(driver, ENTRY)
    burst(driver, "e", "home", *"Alpha ", "enter")
    await driver.until(lambda: said(driver.app, "Edit entry in MEMORY.md"), what="the save")
    assert committed_line(demo[0], "MEMORY.md", line).startswith(f"- Alpha {ENTRY} [source:")


async def test_edit_right_after_a_save_with_its_text_in_the_same_burst(driver: AppDriver, demo: list[Path]) -> None:
    line = await to_entry(driver, ENTRY)
    before = len(git(demo[0], "log", "--format=%H").split())
    burst(driver, "e", "home", *"Beta ", "enter", "e", "home", *"Gamma ", "enter")
    await driver.until(
        lambda: len(git(demo[0], "log", "--format=%H").split()) == before + 2, what="two commits, one per save"
    )
    await driver.settled()
    assert committed_line(demo[0], "MEMORY.md", line).startswith(f"- Gamma Beta {ENTRY} [source:")
    assert not driver.screen.editor.display


async def test_finder_query_enter_and_an_edit_in_one_burst(driver: AppDriver, demo: list[Path]) -> None:
    """``/``, the words, Enter (the top hit of those words, not of a word still being typed), then
    an edit of the entry found, in one burst."""
    burst(driver, "slash", *"bun every", "enter", "e", "end", *" (checked)", "enter")
    await driver.until(lambda: said(driver.app, "Edit entry in tooling/bun.md"), what="the save")
    text = git(demo[0], "show", "HEAD:tooling/bun.md")
    assert "never npm" in text and "(checked)" in text, text


async def test_enter_in_the_finder_waits_for_the_results_of_what_was_typed(driver: AppDriver) -> None:
    await driver.press("slash")
    await driver.until(lambda: isinstance(driver.app.screen, FinderScreen), what="the finder")
    finder = driver.app.screen
    burst(driver, *"redis", "enter")
    await driver.until(lambda: driver.app.screen is not finder, what="the finder closed on a hit")
    await driver.until(lambda: driver.current.path == "backend/redis.md", what="the file found for redis")


async def test_keys_typed_while_a_file_opens_act_on_that_file(driver: AppDriver, demo: list[Path]) -> None:
    """Enter on a link, then ``j`` and ``e`` and text and Enter: they act on the file the link
    opens, once it is open, as typed slowly."""
    main = driver.screen
    await driver.to_line(next(n for n, ln in enumerate(driver.current.doc.lines, 1) if "[[tooling/bun]]" in ln.text))
    burst(driver, "enter", "g", "j", "j", "e", "end", *" for sure", "enter")
    await driver.until(lambda: said(driver.app, "Edit entry in tooling/bun.md"), what="the save")
    assert main.current.path == "tooling/bun.md"
    assert "] for sure\n" in git(demo[0], "show", "HEAD:tooling/bun.md")


async def test_the_whole_file_editor_takes_a_burst_whole(driver: AppDriver, demo: list[Path]) -> None:
    burst(driver, "E", *"Top ", "ctrl+s")
    await driver.until(lambda: git(demo[0], "show", "HEAD:MEMORY.md").startswith("Top # Memory"), what="the save")


async def test_a_prompt_takes_a_burst_whole(driver: AppDriver, demo: list[Path]) -> None:
    """``n`` (a new file: its name asked for), the name and Enter, in one burst."""
    burst(driver, "n", *"burst-note", "enter")
    await driver.until(lambda: (demo[0] / "burst-note.md").exists(), what="the new file")


async def test_accept_apply_and_the_answer_to_its_question_in_one_burst(driver: AppDriver, demo: list[Path]) -> None:
    """In the dream review, ``a`` (accept the first change), ctrl+s (apply: it checks, then asks
    about the link the accept would break) and enter ("Apply anyway") typed at once: enter
    waits for the question the check asks."""
    from amr_tui.screens.dreams.screen import DreamListScreen, RunReviewScreen

    head = git(demo[0], "rev-parse", "main").strip()
    await driver.press("V")
    await driver.until(lambda: isinstance(driver.app.screen, DreamListScreen), what="the runs")
    await driver.settled()
    await driver.press("enter")
    await driver.until(lambda: isinstance(driver.app.screen, RunReviewScreen), what="the run's review")
    await driver.settled()
    burst(driver, "a", "ctrl+s", "enter")
    await driver.until(lambda: git(demo[0], "rev-parse", "main").strip() != head, what="the accept committed")
    assert git(demo[0], "log", "-1", "--format=%s", "main").startswith("Accept 1 entry change from dreaming run")


# ------------------------------------------------------------------ the property
# Keys that type, move, open or close an editor, save, cancel, delete (a question), find; and
# letters bound to nothing on the main screen.
KEYS = [
    "e",
    "o",
    "d",
    "y",  # yes to the delete question (a letter of the text in an editor)
    "slash",
    "j",
    "k",
    "home",
    "end",
    "left",
    "backspace",
    "enter",
    "escape",
    "a",
    "i",
    "u",
    "w",
    " ",
]


async def _type(demo: list[Path], keys: list[str], *, at_once: bool) -> tuple[str, list[str], str | None]:
    """The keys typed on a fresh app over ``demo``: (MEMORY.md on disk, the commit subjects,
    the entry editor's text if it is open)."""
    app = app_for(demo, poll_interval=60)
    async with running(app) as drive:
        await to_entry(drive, ENTRY)
        main = drive.screen
        if at_once:
            burst(drive, *keys)
        else:
            for key in keys:
                await drive.press("space" if key == " " else key)
                await drive.settled()
        await drive.settled()
        await drive.pilot.pause(0.05)
        await drive.settled()
        editor = main.editor.query_one("#editor-input").value if main.editor.display else None
        return (
            (demo[0] / "MEMORY.md").read_text(),
            git(demo[0], "log", "--format=%s").splitlines(),
            editor,
        )


@pytest.mark.slow
@pytest.mark.parametrize("share", [1, 2])  # two items of 8 examples each: two test workers share the 16
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keys=st.lists(st.sampled_from(KEYS), min_size=2, max_size=14).map(lambda ks: ["e", *ks]))
async def test_a_burst_ends_where_the_same_keys_typed_slowly_end(
    share: int, keys: list[str], tmp_path_factory: pytest.TempPathFactory, _demo_template: Path
) -> None:
    import shutil

    from amr_tui.services.demo import REPOS

    results = []
    for at_once in (False, True):
        dest = tmp_path_factory.mktemp("burst") / "vm"
        shutil.copytree(_demo_template, dest, symlinks=True)
        results.append(await _type([dest / name for name in REPOS], keys, at_once=at_once))
    slow, fast = results
    assert fast == slow, keys


# ------------------------------------------------------------------ a real terminal
def _read_until(fd: int, needle: bytes, seen: bytearray, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return False
            seen += chunk
            if needle in seen:
                return True
    return False


@pytest.mark.slow
def test_a_burst_through_a_real_terminal(demo: list[Path]) -> None:
    """``amr`` in a pty of 130×38; the burst written as one write, as tmux ``send-keys`` does."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: amr on the demo repos
        os.execvpe(
            sys.executable,
            [sys.executable, "-m", "amr_tui", *[str(p) for p in demo]],
            {**os.environ, "TERM": "xterm-256color", "COLUMNS": "130", "LINES": "38"},
        )
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 38, 130, 0, 0))
        seen = bytearray()
        assert _read_until(fd, b"indexed", seen, 60), seen[-2000:].decode(errors="replace")
        time.sleep(0.5)
        _read_until(fd, b"\x00", seen, 0.5)  # drain the frames painted meanwhile
        before = git(demo[0], "log", "--format=%s")
        # j: to the second entry; then the first reproduction and the second, in one write.
        os.write(fd, b"j" + b"e\x1b[HAlpha \r" + b"e\x1b[F Gamma\r")
        end = time.monotonic() + 30
        while time.monotonic() < end and git(demo[0], "log", "--format=%s").count("\n") < before.count("\n") + 2:
            _read_until(fd, b"\x00", seen, 0.2)
        text = git(demo[0], "show", "HEAD:MEMORY.md")
        assert f"- Alpha {ENTRY} [source:" in text and "] Gamma\n" in text, text
    finally:
        os.kill(pid, signal.SIGTERM)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        os.close(fd)
        subprocess.run(["stty", "sane"], check=False, stdin=subprocess.DEVNULL, capture_output=True)
