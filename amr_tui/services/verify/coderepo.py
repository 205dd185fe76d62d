"""Which code checkout a memory repo's facts are about.

In order: the paths given on the command line (``--code PATH``); the config's
``[repo."NAME"] code = [...]`` (by the repo's name or its folder); and for a Claude Code memory
folder (``~/.claude/projects/<project>/memory``) the project it belongs to, found from the
folder's name. Claude Code names that folder after the project's path with every character that
is not a letter or a digit written ``-`` (``/home/joe/src/my_app`` is ``-home-joe-src-my-app``), so
the name is read back by walking the file system from ``/``: at each level, the entries whose
name, written the same way, continues the rest.
"""

from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from amr_tui.services.config import Config, code_for
from amr_tui.services.workspace import Mount

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")
MAX_ENTRIES = 2000  # a folder with more entries than this is not listed while decoding


@dataclass(frozen=True, slots=True)
class CodeSource:
    path: Path
    why: str  # "--code", "config", "Claude Code project folder"


def claude_project_name(folder: Path) -> str | None:
    """The ``-home-joe-src-payments`` of a Claude Code memory folder (``.../.claude/projects/
    <name>/memory``, or the project folder itself), else None."""
    parts = folder.resolve().parts if folder.exists() else folder.parts
    if len(parts) >= 3 and parts[-1] == "memory" and parts[-3] == "projects":
        name = parts[-2]
    elif len(parts) >= 2 and parts[-2] == "projects":
        name = parts[-1]
    else:
        return None
    return name if name.startswith("-") and (len(parts) < 4 or ".claude" in parts) else None


def encode(name: str) -> str:
    """How Claude Code writes a path component in a project folder's name."""
    return _NOT_ALNUM.sub("-", name)


def _candidates(rest: str) -> list[str]:
    """The folder names the start of ``rest`` could be: up to four dash-separated parts with each
    separator written as ``-``, ``_``, ``.`` or a space (what ``encode`` folds to ``-``), and up to
    twelve parts written with one of them throughout (``test_a_project_in_a_folder``)."""
    parts = rest.split("-")
    out: list[str] = []
    for k in range(1, min(len(parts), 12) + 1):
        choices = itertools.product("-_. ", repeat=k - 1) if k <= 4 else ((s,) * (k - 1) for s in "-_. ")
        for seps in choices:
            name = parts[0] + "".join(s + p for s, p in zip(seps, parts[1:k], strict=True))
            if name and name not in (".", ".."):
                out.append(name)
    return out


def decode_project(name: str, root: Path = Path("/")) -> Path | None:
    """The folder a Claude Code project name stands for: the first one, searching from ``root``,
    whose path written Claude Code's way is ``name``; preferring a git work tree."""
    if not name.startswith("-"):
        return None
    found: list[Path] = []

    def walk(folder: Path, rest: str, depth: int) -> None:
        if len(found) >= 4 or depth > 40:
            return
        if not rest:
            found.append(folder)
            return
        truncated = False
        try:
            with os.scandir(folder) as it:
                entries = []
                for i, e in enumerate(it):
                    if i >= MAX_ENTRIES:
                        truncated = True
                        break
                    entries.append(e)
        except OSError:
            return
        names = [(e.name, e.path) for e in entries]
        if truncated:  # too many to list (/tmp, a home folder): ask for the names it could be
            names += [(n, str(folder / n)) for n in _candidates(rest) if os.path.isdir(folder / n)]
        for entry_name, entry_path in sorted(set(names), key=lambda e: -len(e[0])):  # longest first: my-app before my
            try:
                if not os.path.isdir(entry_path):
                    continue
            except OSError:
                continue
            enc = encode(entry_name)
            if rest == enc:
                walk(Path(entry_path), "", depth + 1)
            elif rest.startswith(enc + "-"):
                walk(Path(entry_path), rest[len(enc) + 1 :], depth + 1)

    walk(root, name[1:], 0)
    for path in found:
        if (path / ".git").exists():
            return path
    return found[0] if found else None


def code_sources(mount: Mount, config: Config | None = None, explicit: list[Path] | None = None) -> list[CodeSource]:
    """The code checkouts of one mounted memory repo (see the module docstring)."""
    if explicit:
        return [CodeSource(p.expanduser(), "--code") for p in explicit]
    if config is not None:
        configured = code_for(config, mount.name, mount.root)
        if configured:
            return [CodeSource(p, "config") for p in configured]
    name = claude_project_name(mount.root)
    if name is not None:
        project = decode_project(name)
        if project is not None:
            return [CodeSource(project, "Claude Code project folder")]
    return []


__all__ = ["CodeSource", "claude_project_name", "code_sources", "decode_project", "encode"]
