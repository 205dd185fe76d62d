"""What accepting (part of) a dreaming run would break, before it is committed.

A reviewer who accepts a run's new topic file but not its Index change, or the deletion of a
file but not the rewrite of the links to it, leaves main with broken ``[[links]]`` and files
nothing reaches. ``accept_problems`` computes the files exactly as the accept would write them
(``.write.plan``: the same three-way and entry-by-entry results, on main's tip now) and
compares main before and after, reporting only what the accept itself would break:

* a link in a file the accept changes that resolves on main today (or is new) and would name
  no file afterwards;
* a link in a file the accept leaves alone that names a file the accept deletes (found with
  ``git grep`` on main, then parsed: a link in code does not count);
* a new Markdown note that no file links to afterwards (MEMORY.md cannot reach it).

Only git objects are read: the work tree, the index and the refs are untouched.
"""

from __future__ import annotations

from dataclasses import dataclass

from amr_tui.core.format.links import LinkState, link_text_for, resolve
from amr_tui.core.format.parser import is_markdown, parse
from amr_tui.core.lint.repo import MEMORY_FILE, is_memory_note
from amr_tui.git import history as gh
from amr_tui.services.dreams.model import RunSource
from amr_tui.services.dreams.write import plan

MAX_NAMES = 200  # deleted or new files looked up in the unchanged ones (one git grep); beyond that, only changed files


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    line: int  # 0 for the file as a whole
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else f"{self.path}: {self.message}"


class _Files:
    """A set of paths with its case map, for ``resolve``."""

    def __init__(self, paths: set[str]) -> None:
        self.paths = paths
        self.lower = {p.lower(): p for p in paths}

    def target(self, link_target: str) -> str | None:
        res = resolve(link_target, self.paths, self.lower)
        return res.path if res.state is LinkState.OK else None


def accept_problems(
    service: RunSource,
    name: str,
    *,
    files: list[str] | tuple[str, ...] = (),
    entries: list[str] | tuple[str, ...] = (),
    edits: dict[str, str] | None = None,
) -> list[Problem]:
    """The links and files that ``service.accept(name, files=..., entries=..., edits=...)`` would
    break if it ran now (nothing is written)."""
    p = plan(service, name, files=list(files), entries=list(entries))
    main = service.main_tip()
    if main is None:
        return []
    return problems_of(service, main, p.changes(service, main, edits or {}))


def problems_of(service: RunSource, main: str, changes: dict[str, bytes | None]) -> list[Problem]:
    """What writing ``changes`` (path -> new bytes, None to delete) on top of ``main`` breaks."""
    before = _Files(set(gh.tree_files(service.repo, main)))
    removed = {p for p, data in changes.items() if data is None}
    after = _Files((before.paths | {p for p, data in changes.items() if data is not None}) - removed)
    problems: list[Problem] = []
    reached: set[str] = set()  # files some link reaches afterwards

    for path, data in sorted(changes.items()):
        if data is None or not is_markdown(path):
            continue
        old = service.blobs.read(main, path)
        old_targets = {lk.target for lk in parse(old, path, check=False).links} if old is not None else set()
        already_broken = {t for t in old_targets if before.target(t) is None}
        for link in parse(data, path, check=False).links:
            found = after.target(link.target)
            if found is not None:
                reached.add(found)
            elif link.target not in already_broken:
                problems.append(Problem(path, link.line, f"[[{link.raw}]] would name no file"))

    new_notes = [
        p
        for p, data in changes.items()
        if data is not None and p not in before.paths and is_markdown(p) and p != MEMORY_FILE and is_memory_note(p)
    ]
    # Untouched files that may link to a deleted file, or to a new one: one git grep for all names.
    looked_up = [link_text_for(p) for p in [*sorted(removed), *sorted(p for p in new_notes if p not in reached)]]
    unchanged = (
        {p for p in gh.grep_fixed(service.repo, main, *looked_up[:MAX_NAMES]) if p not in changes and is_markdown(p)}
        if looked_up
        else set()
    )
    for path in sorted(unchanged):
        data = service.blobs.read(main, path)
        if data is None:
            continue
        for link in parse(data, path, check=False).links:
            found = after.target(link.target)
            if found is not None:
                reached.add(found)
            elif before.target(link.target) in removed:
                problems.append(Problem(path, link.line, f"[[{link.raw}]] would name no file (the accept deletes it)"))

    for path in sorted(new_notes):
        if path not in reached:
            problems.append(Problem(path, 0, "new file that no file links to: MEMORY.md would not reach it"))
    return problems
