"""Handing a file to the user's $EDITOR (the app is suspended around this call)."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from amr_tui.git.worktree import safe_path
from amr_tui.services.workspace import read_bytes


def run_editor(root: Path, rel: str) -> tuple[bytes | None, str | None]:
    """Run $VISUAL or $EDITOR on the file; returns (new bytes, error)."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        full = safe_path(root, rel)
        argv = [*shlex.split(editor), str(full)]
        subprocess.run(argv, check=False)
    except (OSError, ValueError) as exc:
        return None, f"Could not run {editor}: {exc}"
    return read_bytes(root, rel), None
