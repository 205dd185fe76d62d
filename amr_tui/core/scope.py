"""Where a fact holds: the ``scope`` metadata key (pure).

The seed article's recommendation: "this repo", "this task" and "every project" are different
facts. An entry says which with ``[scope: VALUE]`` (a file says it for all its entries in its
front matter, ``scope: VALUE``; an entry's own key wins). ``VALUE`` is one of

* ``global``: every project, everywhere;
* ``project:NAME``: one project (by its folder's name, the name of its git repo);
* ``repo``: the code repository this memory is kept for (Claude Code's per-project memory, a
  memory folder inside a project);
* ``task`` / ``session``: the task or session that wrote it, no later one;
* a path glob (``src/payments/**``, ``docs/*.md``, ``*.sql``): work on those files.

:func:`parse_scope` reads a value (or says what it takes); :func:`applies` says whether a scope
holds for a session working in :class:`Here` (True, False, or None when it cannot tell).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from amr_tui.core.model import ParsedFile

SCOPE_KEY = "scope"
KINDS = ("global", "project", "repo", "task", "session", "path")
USAGE = "scope takes global, project:NAME, repo, task, session or a path glob (src/payments/**)"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True, slots=True)
class Scope:
    kind: str  # one of KINDS
    value: str = ""  # the project's name, or the glob
    raw: str = ""  # as written

    def __str__(self) -> str:
        if self.kind == "project":
            return f"project:{self.value}"
        if self.kind == "path":
            return self.value
        return self.kind


def parse_scope(value: str) -> Scope | str:
    """The scope ``value`` names, or a message saying what a scope takes."""
    raw = value
    v = value.strip()
    low = v.lower()
    if low in ("global", "repo", "task", "session"):
        return Scope(low, "", raw)
    if low.startswith("project:"):
        name = v[len("project:") :].strip()
        if not _NAME.fullmatch(name):
            return f"project: needs the project's name, e.g. project:payments, not {v!r}"
        return Scope("project", name, raw)
    if v and ("/" in v or any(ch in v for ch in "*?[") or v.startswith(".")) and " " not in v:
        if v.startswith("/") or ".." in v.split("/"):
            return f"a path scope is a glob from the project's root, such as src/payments/**, not {v!r}"
        return Scope("path", v, raw)
    return f"{USAGE}, not {v!r}"


@dataclass(frozen=True, slots=True)
class Here:
    """Where a session works, as far as it is known (None: not known)."""

    project: str | None = None  # the project's name (its folder, or its git repo's)
    path: str | None = None  # the working folder, relative to the project's root ("" at the root)
    own_repo: bool | None = None  # the memory is this project's own (Claude Code's per-project folder)
    new_session: bool = True  # a session starting now (task and session facts are from earlier ones)


def folder_of(glob: str) -> str:
    """The folder a path glob is about: its parts before the first with a wildcard."""
    parts = []
    for part in glob.split("/"):
        if any(ch in part for ch in "*?["):
            break
        parts.append(part)
    if parts and "/" not in glob.rstrip("/") and not glob.endswith("/"):
        parts = []  # a file name or a pattern at the root (``*.sql``, ``notes.md``): anywhere
    return "/".join(p for p in parts if p)


def applies(scope: Scope | None, here: Here) -> bool | None:
    """Whether a fact of ``scope`` holds for a session in ``here``: True, False, or None (not known).

    An entry with no scope is the memory's own (None scope: True). A path glob holds when the
    working folder is inside what it names, or above it (the session may work on those files)."""
    if scope is None or scope.kind == "global":
        return True
    if scope.kind == "project":
        if here.project is None:
            return None
        return here.project.casefold() == scope.value.casefold()
    if scope.kind == "repo":
        return here.own_repo
    if scope.kind in ("task", "session"):
        return False if here.new_session else None
    if here.path is None:
        return None
    folder = folder_of(scope.value)
    at = here.path.strip("/")
    if not folder or not at:
        return True
    return at == folder or at.startswith(folder + "/") or folder.startswith(at + "/")


def describe(scope: Scope | None) -> str:
    """For a side panel or a chip: ``every project``, ``project payments``, ``this repo``..."""
    if scope is None:
        return "this memory (no scope)"
    return {
        "global": "every project",
        "repo": "this repo",
        "task": "the task that wrote it",
        "session": "the session that wrote it",
    }.get(scope.kind, f"project {scope.value}" if scope.kind == "project" else f"files {scope.value}")


def filter_error(wanted: str) -> str | None:
    """What is wrong with the finder's ``scope:WANTED`` (None: it can run)."""
    if wanted.strip().lower() in ("project", "path"):
        return None
    read = parse_scope(wanted)
    return read if isinstance(read, str) else None


def matches(wanted: str, value: str) -> bool:
    """The finder's ``scope:WANTED`` holds for an entry whose scope is ``value``: the same scope
    (letter case aside); ``scope:project`` is any project's, ``scope:path`` any path glob's."""
    w = " ".join(wanted.lower().split())
    read = parse_scope(value)
    if isinstance(read, str):
        return False
    if w in ("project", "path"):
        return read.kind == w
    return str(read).lower() == w or (read.kind == "project" and w == f"project:{read.value.lower()}")


def repo_for(scope: Scope | None, repos: list[str], here: str) -> str | None:
    """The mounted repo a ``project:NAME`` fact belongs in, when it is not ``here``: the repo named
    NAME, else ``memory-NAME`` / ``NAME-memory``, else the one repo whose name ends in ``-NAME``."""
    if scope is None or scope.kind != "project":
        return None
    name = scope.value.casefold()
    by_fold = {r.casefold(): r for r in repos}
    for cand in (name, f"memory-{name}", f"{name}-memory"):
        found = by_fold.get(cand)
        if found is not None:
            return found if found != here else None
    ends = [r for r in repos if r.casefold().endswith("-" + name)]
    return ends[0] if len(ends) == 1 and ends[0] != here else None


def scope_of(entry_values: list[str], file_value: str | None = None) -> Scope | str | None:
    """An entry's scope: its own ``scope`` key (the first), else its file's; None when neither."""
    value = entry_values[0] if entry_values else file_value
    if value is None:
        return None
    return parse_scope(value)


__all__ = [
    "KINDS",
    "SCOPE_KEY",
    "USAGE",
    "Here",
    "Scope",
    "applies",
    "describe",
    "filter_error",
    "folder_of",
    "matches",
    "parse_scope",
    "repo_for",
    "scope_of",
]


_FRONT_SCOPE = re.compile(r"^scope[ \t]*:[ \t]*(.*?)[ \t]*$")


def file_scope(doc: ParsedFile) -> str:
    """The ``scope:`` a file's front matter gives all its entries ("" for none; an entry's own
    ``scope`` key wins)."""
    if not doc.front_matter:
        return ""
    first, last = doc.front_matter
    for line in doc.lines[first : last - 1]:
        m = _FRONT_SCOPE.match(line.text)
        if m:
            return m.group(1).strip("\"'")
    return ""
