"""Handing a file to the user's $EDITOR (the app is suspended around this call)."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from amr_tui.git.worktree import safe_path
from amr_tui.services import writegate
from amr_tui.services.workspace import read_bytes


def _run(root: Path, rel: str) -> str | None:
    """Run $VISUAL or $EDITOR on the file (inside the root: ``safe_path``); an error, or None."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        full = safe_path(root, rel)
        argv = [*shlex.split(editor), str(full)]
        subprocess.run(argv, check=False)
    except (OSError, ValueError) as exc:
        return f"Could not run {editor}: {exc}"
    return None


def run_editor(root: Path, rel: str) -> tuple[bytes | None, str | None]:
    """Run $VISUAL or $EDITOR on the file; returns (new bytes, error)."""
    error = _run(root, rel)
    return (None, error) if error else (read_bytes(root, rel), None)


def _stamp(root: Path, rel: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(safe_path(root, rel))
    except (OSError, ValueError):
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def run_editor_unread(root: Path, rel: str) -> tuple[bool, str | None]:
    """Run $VISUAL or $EDITOR on a file too large for amr to load; returns (whether the file
    changed on disk, by its inode, mtime and size; error). Nothing of the file is read."""
    before = _stamp(root, rel)
    error = _run(root, rel)
    return (False, error) if error else (_stamp(root, rel) != before, None)


def put_back(root: Path, rel: str, left: bytes, original: bytes) -> bool:
    """Write ``original`` back over the file if it still holds ``left`` (what the editor left).

    False, and nothing written, when the file changed again meanwhile (an agent, another editor).
    """
    return writegate.put_back(root, rel, left, original)
