"""A writer that opened the file before amr swapped it in and writes a moment later: its line
reaches the displaced inode after the swap, and amr waits for it (the inode is held open by
another process) before it merges what landed there back into the file."""

from __future__ import annotations

import subprocess
import sys
import time

from amr_tui.git import GitRepo
from amr_tui.git.gate import Change

SLOW_APPENDER = r"""
import sys, time
path, line = sys.argv[1], sys.argv[2]
with open(path, "a") as f:       # opened before amr's swap
    print("open", flush=True)
    time.sleep(0.4)              # ... and written after it
    f.write(line + "\n")
"""


def test_a_line_written_to_the_displaced_file_after_the_swap_is_kept(make_repo):
    root = make_repo(files={"MEMORY.md": "# Memory\n\n- first fact\n\n## Index\n"})
    repo = GitRepo(root)
    before = (root / "MEMORY.md").read_bytes()
    agent = subprocess.Popen(
        [sys.executable, "-c", SLOW_APPENDER, str(root / "MEMORY.md"), "- a late agent fact"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert agent.stdout is not None and agent.stdout.readline().strip() == "open"
    t = time.monotonic()
    repo.write_files(
        [Change("MEMORY.md", before, before.replace(b"- first fact\n", b"- first fact, edited\n"), repo.head())],
        "Edit entry",
    )
    agent.wait(timeout=10)
    text = (root / "MEMORY.md").read_text()
    assert "- first fact, edited" in text
    assert "- a late agent fact" in text, text  # it went to the displaced inode, after the swap
    assert time.monotonic() - t < 5
