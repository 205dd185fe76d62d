"""What a new user sees in the first seconds on the 1,000,000-entry corpus, captured in tmux.

Opens ``amr`` on ``bench/out/corpora/repo-1000000`` (``gen.million_repo``, built once) in a
130x38 tmux window and, as a user would, reads and moves at once: at 0.6 s ``j`` (a line down in
MEMORY.md), at 0.7 s ``1`` (focus the tree) and Down three times, at 1.2 s Enter (open the file
under the tree's cursor). Captures the screen at 0.5 s, 1 s and 3 s, when the status line says
the search is ready (every file indexed) and when the repo lint is done, and writes them with the
times to docs/million-captures.md (the row under the tree's cursor is marked with ``>``, read
from the colours of ``capture-pane -e``).

    .venv/bin/python bench/million_captures.py [--out docs/million-captures.md]
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen  # noqa: E402

ROOT = HERE.parent
SESSION = "amr-million"
AMR = str(ROOT / ".venv" / "bin" / "amr")
# The tree's cursor row: Textual's Tree paints it with the cursor's background (bold, bg 32 here).
_CURSOR = re.compile(r"\x1b\[1m\x1b\[38;5;\d+m\x1b\[48;5;32m")


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def _capture() -> str:
    """The pane's text, the tree row holding the cursor marked with '>' in its first column."""
    plain = _tmux("capture-pane", "-p", "-t", SESSION).splitlines()
    coloured = _tmux("capture-pane", "-p", "-e", "-t", SESSION).splitlines()
    out = []
    for k, line in enumerate(plain):
        mark = k < len(coloured) and _CURSOR.search(coloured[k].split("\u2595", 1)[0]) is not None
        out.append((">" + line[1:]) if mark and line else line)
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "million-captures.md")
    args = ap.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is not installed", file=sys.stderr)
        return 2
    repo = gen.million_repo(HERE / "out" / "corpora")
    import compileall  # an installed package carries its bytecode: time the code, not its compiling

    compileall.compile_dir(str(ROOT / "amr_tui"), quiet=1)
    _tmux("kill-session", "-t", SESSION)
    env = f"cd {ROOT} && HOME={os.environ.get('HOME', '/root')} {AMR} {repo}"
    t0 = time.monotonic()
    subprocess.run(["tmux", "new-session", "-d", "-s", SESSION, "-x", "130", "-y", "38", env], check=True)

    def at(t: float) -> None:
        wait = t0 + t - time.monotonic()
        if wait > 0:
            time.sleep(wait)

    shots: list[tuple[str, float, str]] = []

    def shot(label: str) -> str:
        text = _capture()
        shots.append((label, time.monotonic() - t0, text))
        return text

    at(0.5)
    shot("0.5 s: the tree and MEMORY.md")
    at(0.6)
    _tmux("send-keys", "-t", SESSION, "j")
    at(0.7)
    _tmux("send-keys", "-t", SESSION, "1", "Down", "Down", "Down")
    at(1.0)
    shot("1 s: moved a line in MEMORY.md, focused the tree and moved three rows down (the '>' row)")
    at(1.2)
    _tmux("send-keys", "-t", SESSION, "Enter")
    at(3.0)
    shot("3 s: the file under the tree's cursor opened (parsed on demand) while indexing goes on")
    indexed = linted = None
    while time.monotonic() - t0 < 300:
        text = _capture()
        status = text.splitlines()[-2] if text.count("\n") >= 1 else ""
        if indexed is None and ("Search ready" in status or "items indexed" in status):
            indexed = shot("indexing complete: the status line says the search covers every file")
        if "items indexed" in status:
            linted = shot("repo lint done: every mark in place")
            break
        time.sleep(0.25)
    _tmux("kill-session", "-t", SESSION)
    lines = [
        "# The 1,000,000-entry corpus in tmux: the first seconds",
        "",
        f"`bench/million_captures.py`, {_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC, 2 cores; `amr` on "
        f"`{repo.relative_to(ROOT)}` (20,150 files, 5,000 commits: `gen.million_repo`) in a 130x38 tmux "
        "window. Times are from the tmux command to the capture. Keys: `j` at 0.6 s, `1` and Down x3 at "
        "0.7 s, Enter at 1.2 s.",
        "",
    ]
    if indexed is None or linted is None:
        lines += ["**The run ended before the status line reported the end of indexing or lint.**", ""]
    for label, when, text in shots:
        lines += [f"## {label} (captured at {when:.2f} s)", "", "```text", text.rstrip(), "```", ""]
    args.out.write_text("\n".join(lines))
    for label, when, _text in shots:
        print(f"{when:7.2f} s  {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
