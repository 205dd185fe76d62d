"""Agent memory on this machine: the folders other agents keep their memory in, found where
they put it (``amr discover``, the welcome screen).

* Claude Code's auto memory: ``~/.claude/projects/<project>/memory`` (a MEMORY.md index);
* Letta's memfs: ``~/.letta/**/memfs`` and ``~/.letta/agents/*/memory`` folders of Markdown blocks;
* basic-memory's home: ``~/basic-memory`` (or ``$BASIC_MEMORY_HOME``);
* the repos named in amr's config.

Only folders that hold Markdown are listed; nothing is read beyond that, nothing is written.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from amr_tui.services.workspace import holds_markdown, repo_style


@dataclass(frozen=True, slots=True)
class Found:
    path: Path
    agent: str  # "Claude Code", "Letta", "basic-memory", "configured"
    style: str  # the memory format, as ``workspace.repo_style`` reads it
    git: bool  # the folder is the top of a git repo (history, review, undo)


def _candidates(home: Path) -> Iterable[tuple[str, Path]]:
    projects = home / ".claude" / "projects"
    if projects.is_dir():
        for project in sorted(projects.iterdir()):
            yield "Claude Code", project / "memory"
    letta = home / ".letta"
    if letta.is_dir():
        for dirpath, dirnames, _files in os.walk(letta):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            if Path(dirpath).name in ("memfs", "memory") and Path(dirpath) != letta:
                dirnames[:] = []
                yield "Letta", Path(dirpath)
            if dirpath.count(os.sep) - str(letta).count(os.sep) > 4:
                dirnames[:] = []
    basic = Path(os.environ.get("BASIC_MEMORY_HOME", home / "basic-memory"))
    yield "basic-memory", basic


def discover_memory(home: Path | None = None, configured: Iterable[Path] = ()) -> list[Found]:
    """The memory folders of this machine's agents (and the configured repos), each once."""
    home = home if home is not None else Path.home()
    out: list[Found] = []
    seen: set[Path] = set()
    for agent, path in [*_candidates(home), *(("configured", p) for p in configured)]:
        path = path.expanduser()
        try:
            real = path.resolve()
        except OSError:
            continue
        if real in seen or not path.is_dir() or not holds_markdown(path):
            continue
        seen.add(real)
        out.append(Found(path, agent, repo_style(path), (path / ".git").exists()))
    return out
