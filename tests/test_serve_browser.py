"""amr serve in a real browser: Playwright driving Debian's chromium.

The page's terminal is a canvas, so the test reads what the app draws from the page's WebSocket
(an init script keeps every frame the page is sent; the escapes are stripped here) and waits after
each key for the text that key brings (a screen's list read, a row accepted, the question asked),
never for a quiet moment: under load a screen can sit on "Reading…" for seconds. A reviewer opens
the dream review (V, Enter), accepts one entry change (a, ctrl+s, Enter) and main gets the
accepting commit, read from git.

Without chromium or Playwright the test skips and says why; under CI=true it fails instead.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git

pytestmark = pytest.mark.slow  # the slow tier: `pytest -m slow` (README)

CHROMIUM = "/usr/bin/chromium"


def _need(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {reason} (.ci/run installs chromium; playwright is in the test extra)")
    pytest.skip(reason)


def _chromium() -> str:
    path = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if not path:
        _need("no chromium (apt-get install -y chromium)")
    assert path
    return path


def _status(url: str, headers: dict[str, str] | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=5) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.fixture
def served(demo: list[Path]) -> Iterator[tuple[str, Path]]:
    """`amr serve` on the demo's memory-alice (one pending dreaming run): (the printed URL, repo)."""
    repo = demo[0]
    assert repo.name == "memory-alice"
    proc = subprocess.Popen(
        [sys.executable, "-m", "amr_tui", "serve", str(repo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout or ()], daemon=True).start()
    try:
        try:
            first = lines.get(timeout=20)
        except queue.Empty:
            proc.kill()
            pytest.fail(f"amr serve printed no URL; stderr: {proc.stderr.read() if proc.stderr else ''}")
        m = re.search(r"http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]{20,}/", first)
        assert m, first
        yield m.group(0), repo
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        err = proc.stderr.read() if proc.stderr else ""
        assert "Traceback" not in err, err


# Kept by the page: every binary frame its terminal is sent, decoded (the app's output, escapes
# and all). Installed before textual.js runs, so its WebSocket is this one.
TAP = r"""
(() => {
  const Native = window.WebSocket;
  const decoder = new TextDecoder();
  window.__amrDrawn = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        if (typeof event.data !== "string") {
          window.__amrDrawn.push(decoder.decode(new Uint8Array(event.data), { stream: true }));
        }
      });
    }
  };
})();
"""
_ESCAPES = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[\]P_^][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.")


def _frames(page: Any) -> int:
    return int(page.evaluate("window.__amrDrawn.length"))


def _drawn(page: Any, since: int = 0) -> str:
    """The text the app drew from frame ``since`` on (cursor moves and styles taken out)."""
    return _ESCAPES.sub("", str(page.evaluate("(n) => window.__amrDrawn.slice(n).join('')", since)))


def _until_drawn(page: Any, since: int, marks: tuple[str, ...], what: str, timeout: float = 45.0) -> str:
    """Wait until one of ``marks`` is drawn (from frame ``since``); returns the one drawn."""
    deadline = time.monotonic() + timeout
    drawn = ""
    while time.monotonic() < deadline:
        drawn = _drawn(page, since)
        for mark in marks:
            if mark in drawn:
                return mark
        time.sleep(0.1)
    raise AssertionError(f"{what}: none of {marks} was drawn in {timeout} s; the last text drawn: {drawn[-800:]!r}")


def _press(page: Any, key: str, *marks: str) -> str:
    """Press ``key`` and wait for the text it brings."""
    since = _frames(page)
    page.keyboard.press(key)
    return _until_drawn(page, since, marks, f"after {key}")


def _main_head(repo: Path) -> str:
    return git(repo, "rev-parse", "main").strip()


def test_a_reviewer_accepts_a_dream_entry_in_a_browser(served: tuple[str, Path]) -> None:
    chromium = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need("no playwright (pip install playwright; it drives Debian's chromium, no playwright install)")
    url, repo = served
    base = url.split("/", 3)
    origin, token = "/".join(base[:3]), base[3].strip("/")

    # Only 127.0.0.1, and only under the token: the index, the websocket and the static files alike.
    assert url.startswith("http://127.0.0.1:")
    assert _status(url) == 200
    for path in ("/", "/ws", "/static/js/textual.js", f"/{token[:-1]}/", f"/{token}x/", f"/x{token}/ws"):
        assert _status(origin + path) == 403, path
    assert _status(url + "static/js/textual.js") == 200
    # Another origin, or a DNS name rebound to 127.0.0.1, is refused even with the token; a plain
    # GET of the WebSocket path is a short 400, not a traceback (issue 28 point 5).
    port = origin.rsplit(":", 1)[1]
    assert _status(url, {"Host": f"evil.example:{port}"}) == 403
    assert _status(url + "ws", {"Origin": "http://evil.example"}) == 403
    assert _status(url, {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"}) == 200
    assert _status(url + "ws") == 400

    head_before = _main_head(repo)
    memory_before = git(repo, "show", "main:MEMORY.md")
    assert "[[frontend/stack]]" not in memory_before

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            # Everything the page loads comes from this amr serve: a request elsewhere is recorded
            # (and stopped: the test stays on this machine).
            outside: list[str] = []

            def elsewhere(route: Any) -> None:
                outside.append(route.request.url)
                route.abort()

            page.route(re.compile(r"^(?!http://127\.0\.0\.1[:/]|ws://127\.0\.0\.1[:/]).*"), elsewhere)
            page.add_init_script(TAP)
            refused = page.goto(origin + "/")
            assert refused is not None and refused.status == 403
            page.goto(url)
            page.wait_for_function("document.body.classList.contains('-first-byte')", timeout=20_000)
            page.wait_for_selector("#terminal canvas", state="attached", timeout=10_000)
            assert outside == [], outside
            page.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
            _until_drawn(page, 0, ("items indexed",), "the app's load")

            _press(page, "V", "since it started")  # the pending runs, read
            _press(page, "Enter", "modified; 3 dropped, 1 new")  # the run's review, its files read
            assert _main_head(repo) == head_before  # looking changes nothing
            _press(page, "a", "✔")  # accept the first entry change: MEMORY.md's new [[frontend/stack]]
            # Apply: it asks first (the link names a file main lacks yet); "Apply anyway" is the first choice.
            if _press(page, "Control+s", "Apply anyway", "Committed") == "Apply anyway":
                _press(page, "Enter", "Committed")

            deadline = time.monotonic() + 15
            while _main_head(repo) == head_before and time.monotonic() < deadline:
                time.sleep(0.2)
        finally:
            browser.close()

    assert _main_head(repo) != head_before, "no commit on main after accepting in the browser"
    log = git(repo, "log", "-1", "--format=%s%n%b", "main")
    assert log.startswith("Accept 1 entry change from dreaming run 2026-10-07-nightly"), log
    assert git(repo, "rev-parse", "main~1").strip() == head_before
    memory_after = git(repo, "show", "main:MEMORY.md")
    assert "[[frontend/stack]]" in memory_after
    assert git(repo, "diff", "--name-only", head_before, "main").split() == ["MEMORY.md"]
    # Only that entry: the run's other changes are still pending (dev-port.md is still on main).
    assert "dev-port.md" in git(repo, "ls-tree", "--name-only", "main").split()


def test_serve_refuses_what_it_cannot_serve(make_repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing PATH, an unknown --read-only NAME and a bad port end before anything listens."""
    from amr_tui.cli.main import main

    repo = make_repo("memory-x")
    assert main(["serve", str(tmp_path / "missing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["serve", str(repo), "--read-only", "nope"]) == 2
    err = capsys.readouterr().err
    assert "--read-only nope" in err and "memory-x" in err
    assert main(["serve", str(repo), "--port", "70000"]) == 2
    assert "not a port" in capsys.readouterr().err


def test_the_served_command_runs_this_python_on_absolute_paths(make_repo, monkeypatch: pytest.MonkeyPatch) -> None:
    from amr_tui.cli.serve_cmd import _targets, app_command

    repo = make_repo("memory y")
    monkeypatch.chdir(repo.parent)
    targets = _targets(["memory y", "memory y/MEMORY.md:3"], ["memory y"])
    assert targets == [str(repo.resolve()), f"{(repo / 'MEMORY.md').resolve()}:3"]
    command = app_command(targets, ["memory y"])
    assert command.startswith(f"{sys.executable} -m amr_tui ")
    assert f"'{repo.resolve()}'" in command and command.endswith("--read-only 'memory y'")
