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


def put_back(root: Path, rel: str, left: bytes, original: bytes) -> bool:
    """Write ``original`` back over the file if it still holds ``left`` (what the editor left).

    False, and nothing written, when the file changed again meanwhile (an agent, another editor).
    """
    from amr_tui.git.worktree import atomic_write

    if read_bytes(root, rel) != left:
        return False
    atomic_write(root, rel, original)
    return True
