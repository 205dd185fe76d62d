"""What an agent loads of a memory repo when a session starts, read from disk (``amr loads``,
the app's cut line and gauge, ``memory_load``, the dream check and the trim pass).

The budgets themselves are pure data in ``core.budget``, and which agent reads a mounted repo is
``services.budgets``; this module adds what needs the disk: the files that agent reads and what
falls past its cut (:func:`repo_loads`), where it stops loading one file (:func:`file_cut_of`),
Claude Code's memory folder for a working folder (:func:`claude_memory_folder`), and where a
session works, for scopes (:func:`here_of`).
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from amr_tui.core.budget import FileCut, LoadPlan, Profile, file_cut, plan, targets
from amr_tui.core.format.edit import front_matter_fields
from amr_tui.core.format.parser import Document, parse
from amr_tui.core.scope import SCOPE_KEY, Here, Scope, applies, parse_scope
from amr_tui.services.budgets import profile_of
from amr_tui.services.workspace import Mount, list_files, read_bytes


def file_cut_of(
    mount: Mount, path: str, data: bytes, doc: Document | None, today: _dt.date | None = None
) -> FileCut | None:
    """Where the agent that reads ``mount`` stops loading ``path`` at session start, with its gauge
    (None when that agent does not read the file at start): the viewer's cut line and header."""
    return file_cut(profile_of(mount), path, data, doc, today or _dt.date.today())


def claude_memory_folder(cwd: Path, home: Path | None = None) -> Path:
    """Where Claude Code keeps the auto memory of a session started in ``cwd``:
    ``~/.claude/projects/<the folder's path, every character but letters and digits a ->/memory``
    (``$CLAUDE_CONFIG_DIR`` replaces ``~/.claude``)."""
    base = Path(os.environ["CLAUDE_CONFIG_DIR"]) if os.environ.get("CLAUDE_CONFIG_DIR") else None
    if base is None:
        base = (home if home is not None else Path.home()) / ".claude"
    key = re.sub(r"[^A-Za-z0-9]", "-", str(cwd.resolve()))
    return base / "projects" / key / "memory"


def project_root(cwd: Path) -> Path:
    """The project a session in ``cwd`` works on: the nearest folder above it holding ``.git``,
    else ``cwd`` itself."""
    cwd = cwd.resolve()
    for cand in (cwd, *cwd.parents):
        if (cand / ".git").exists():
            return cand
    return cwd


def here_of(cwd: Path, memory_root: Path, *, home: Path | None = None) -> Here:
    """Where a session started in ``cwd`` works, for the scopes of ``memory_root``'s facts."""
    root = project_root(cwd)
    rel = cwd.resolve().relative_to(root).as_posix()
    memory = memory_root.resolve()
    own = (
        memory in (claude_memory_folder(cwd, home).resolve(), claude_memory_folder(root, home).resolve())
        or memory == root
        or memory.is_relative_to(root)
    )
    return Here(root.name, "" if rel == "." else rel, own)


@dataclass(frozen=True, slots=True)
class Scoped:
    """An entry with a scope, of a file the agent reads."""

    path: str
    line: int
    text: str
    scope: Scope | None  # None: the value could not be read (``error`` says why)
    error: str | None
    loaded: bool  # before the cut
    applies: bool | None  # for the session asked about (None: not known, or no --cwd)


@dataclass(slots=True)
class RepoLoads:
    mount: Mount
    profile: Profile
    plan: LoadPlan
    git: bool  # a git repo: history, review and undo (a plain folder has none)
    scoped: list[Scoped] = field(default_factory=list)

    @property
    def cut(self) -> bool:
        """Something the agent reads does not load whole."""
        return any(f.cut is not None and f.cut.cut_line is not None for f in self.plan.files)


def repo_loads(
    mount: Mount,
    profile: Profile,
    *,
    today: _dt.date | None = None,
    here: Here | None = None,
    files: list[str] | None = None,
) -> RepoLoads:
    """What ``profile``'s agent loads of ``mount`` at session start, what falls past the cut, and
    the scopes of the entries it reads (whether each holds ``here``, when that is given)."""
    today = today or _dt.date.today()
    listed = files if files is not None else list_files(mount.root)[0]
    wanted = [p for p, _read, present in targets(profile, listed, today) if present]
    contents = {p: read_bytes(mount.root, p) for p in wanted}
    docs: dict[str, Document] = {}

    def parsed(path: str, data: bytes) -> Document:
        doc = docs[path] = parse(data, path, check=False)
        return doc

    found = plan(profile, listed, contents, today=today, parsed=parsed)
    out = RepoLoads(mount, profile, found, (mount.root / ".git").exists())
    have = set(listed)
    topic_scopes: dict[str, str | None] = {}

    def topic_scope(path: str) -> str | None:
        """The ``scope`` in the front matter of a topic file an Index line links (Claude Code's)."""
        if path not in topic_scopes:
            data = read_bytes(mount.root, path) if path in have else None
            doc = parse(data[:4096], path, check=False) if data else None
            topic_scopes[path] = (
                next((v for _ln, k, v in front_matter_fields(doc) if k == SCOPE_KEY), None) if doc else None
            )
        return topic_scopes[path]

    for fl in found.files:
        doc = docs.get(fl.path)
        if doc is None or fl.cut is None:
            continue
        file_scope = next((v for _ln, k, v in front_matter_fields(doc) if k == SCOPE_KEY), None)
        folder = fl.path.rsplit("/", 1)[0] + "/" if "/" in fl.path else ""
        for entry in doc.entries:
            values = entry.meta(SCOPE_KEY)
            value = values[0] if values else file_scope
            if value is None:  # an Index line: the scope of the topic file it links
                value = next(
                    (s for lk in entry.links if lk.label is not None and (s := topic_scope(folder + lk.target))),
                    None,
                )
            if value is None:
                continue
            read = parse_scope(value)
            scope = read if not isinstance(read, str) else None
            loaded = fl.cut.cut_line is None or entry.line < fl.cut.cut_line
            out.scoped.append(
                Scoped(
                    fl.path,
                    entry.line,
                    entry.text,
                    scope,
                    read if isinstance(read, str) else None,
                    loaded,
                    applies(scope, here) if here is not None and scope is not None else None,
                )
            )
    return out


__all__ = [
    "RepoLoads",
    "Scoped",
    "claude_memory_folder",
    "file_cut_of",
    "here_of",
    "project_root",
    "repo_loads",
]
