"""What accepting (part of) a dreaming run would break, before it is committed.

A reviewer who accepts a run's new topic file but not its Index change, or the deletion of a
file but not the rewrite of the links to it, leaves main with broken ``[[links]]`` and files
nothing reaches; one who accepts an entry main reworded since the run started keeps both
versions. ``accept_problems`` computes the files exactly as the accept would write them
(``.write.plan``: the same three-way and entry-by-entry results, on main's tip now) and
compares main before and after, reporting only what the accept itself would break. Each
``Problem`` has a kind, so the screen can offer the choice that mends it:

* ``versions``: an accepted entry change whose entry main changed since the run started, where
  main's version would stay beside the run's (``accept(..., replace=...)`` replaces it instead);
  ``dropped``: one whose entry main deleted since, which the accept would write back;
* ``duplicate``: a line the accept writes that says the same as another entry (same normalised
  text in any file, or a near duplicate in its file as lint's AMR015 judges it);
* ``link``: a link in a file the accept changes that resolves on main today (or is new) and
  would name no file afterwards; or a link in a file the accept leaves alone that names a file
  the accept deletes (found with ``git grep`` on main, then parsed: a link in code does not count);
* ``index``: a link MEMORY.md's Index holds today to a file that stays, gone afterwards (or
  MEMORY.md itself deleted);
* ``unreachable``: a new Markdown note that no file links to afterwards (MEMORY.md cannot reach it);
* ``budget``: MEMORY.md over the load budget afterwards, longer than it is today.

Only git objects are read: the work tree, the index and the refs are untouched.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from amr_tui.core import fuzzy
from amr_tui.core.budget import first_unloaded
from amr_tui.core.diff.similarity import same_fact
from amr_tui.core.format.links import LinkState, link_text_for, resolve
from amr_tui.core.format.parser import Document, is_markdown, parse
from amr_tui.core.lint.facts import normalise_text
from amr_tui.core.lint.repo import (
    MEMORY_FILE,
    NEAR_DUPLICATE_MIN_CHARS,
    NEAR_DUPLICATE_THRESHOLD,
    index_lines,
    is_memory_note,
)
from amr_tui.core.model import Link
from amr_tui.core.paths import in_amr_folder
from amr_tui.git import history as gh
from amr_tui.services.budgets import profile_of
from amr_tui.services.dreams.model import RunReview, RunSource
from amr_tui.services.dreams.write import plan

MAX_NEAR_CHECKED = 1000  # lines written that are compared for near duplicates (each against its file)
MAX_NAMES = 200  # deleted or new files looked up in the unchanged ones (one git grep); beyond that, only changed files


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    line: int  # 0 for the file as a whole
    message: str
    kind: str = "link"  # "versions", "dropped", "duplicate", "link", "index", "unreachable" or "budget"
    change: str = ""  # the entry change it comes from ("versions" and "dropped")

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
    replace: Collection[str] = (),
    delete: Collection[str] = (),
) -> list[Problem]:
    """What ``service.accept(name, files=..., entries=..., edits=..., replace=..., delete=...)``
    would break if it ran now (nothing is written): two versions of one entry first, then
    duplicates, then what ``problems_of`` finds."""
    p = plan(service, name, files=list(files), entries=list(entries))
    main = service.main_tip()
    if main is None:
        return []
    changes = p.changes(service, main, edits or {}, replace)
    changes.update({path: None for path in delete if path in changes})
    versions = _two_versions(service, main, p.review, p.entries, replace, changes)
    said = {(v.path, v.line) for v in versions}  # main's and the run's version are near duplicates too
    duplicates = [d for d in _duplicates(service, main, changes) if (d.path, d.line) not in said]
    return [*versions, *duplicates, *problems_of(service, main, changes)]


def _after(service: RunSource, main: str, changes: dict[str, bytes | None], path: str) -> bytes | None:
    return changes[path] if path in changes else service.blobs.read(main, path)


def _two_versions(
    service: RunSource,
    main: str,
    review: RunReview,
    ids: list[str],
    replace: Collection[str],
    changes: dict[str, bytes | None],
) -> list[Problem]:
    out: list[Problem] = []
    for cid in ids:
        mine, change = review.main_now.get(cid), review.change(cid)
        if change is None or change.new is None:
            continue
        if mine is None and cid in review.main_changed:  # main dropped the entry since the run started
            new = _after(service, main, changes, change.new.path)
            lines = [ln.text for ln in parse(new, change.new.path, check=False).lines] if new is not None else []
            if change.new.raw in lines:
                out.append(
                    Problem(
                        change.new.path,
                        lines.index(change.new.raw) + 1,
                        f"{service.main} dropped this entry since the run started; the accept writes "
                        f"the run's \u201c{change.new.text}\u201d back",
                        "dropped",
                        cid,
                    )
                )
            continue
        if mine is None or cid in replace:
            continue
        data = _after(service, main, changes, mine.path)
        if data is None:
            continue
        kept = next((k + 1 for k, ln in enumerate(parse(data, mine.path, check=False).lines) if ln.text == mine.raw), 0)
        if not kept:
            continue  # main's version goes anyway (the change merges it, or main dropped it since)
        new = _after(service, main, changes, change.new.path)
        lines = [ln.text for ln in parse(new, change.new.path, check=False).lines] if new is not None else []
        at = lines.index(change.new.raw) + 1 if change.new.raw in lines else 0
        where = f"line {kept}" if mine.path == change.new.path else f"{mine.path}:{kept}"
        out.append(
            Problem(
                change.new.path,
                at,
                f"two versions of one entry: {service.main}'s ({where}) \u201c{mine.text}\u201d "
                f"and the run's \u201c{change.new.text}\u201d",
                "versions",
                cid,
            )
        )
    return out


def _duplicates(service: RunSource, main: str, changes: dict[str, bytes | None]) -> list[Problem]:
    """Entries the accept writes that repeat another entry: the same normalised text anywhere in
    the files it changes or in the files it leaves alone (those found with one ``git grep`` of the
    lines' texts on main, then parsed: a copy in code does not count), or a near duplicate in the
    same file (for the first ``MAX_NEAR_CHECKED`` lines written; a whole rewrite of a large repo is
    checked exactly only). Texts that differ in a number, version or date are two facts."""
    fuzz, process = fuzzy.fuzz, fuzzy.process

    written: list[tuple[str, int, str, str]] = []  # path, line, normalised text, text as written
    by_norm: dict[str, list[tuple[str, int]]] = {}  # every entry afterwards
    in_file: dict[str, list[tuple[int, str]]] = {}
    for path, data in sorted(changes.items()):
        if data is None or not is_markdown(path) or in_amr_folder(path):
            continue
        old = service.blobs.read(main, path)
        before = {ln.text for ln in parse(old, path, check=False).lines} if old is not None else set()
        doc = parse(data, path, check=False)
        for entry in doc.entries:
            norm = normalise_text(entry.text)
            if not norm:
                continue
            by_norm.setdefault(norm, []).append((path, entry.line))
            in_file.setdefault(path, []).append((entry.line, norm))
            if doc.lines[entry.line - 1].text not in before:
                written.append((path, entry.line, norm, entry.text))
    # The files the accept leaves alone that may hold a written line's text: one git grep.
    lonely = [text.strip() for path, line, norm, text in written if len(by_norm[norm]) == 1][:MAX_NAMES]
    if lonely:
        for other in sorted(gh.grep_fixed(service.repo, main, *lonely)):
            if other in changes or not is_markdown(other) or in_amr_folder(other):
                continue
            data = service.blobs.read(main, other)
            for entry in parse(data, other, check=False).entries if data is not None else ():
                norm = normalise_text(entry.text)
                if norm in by_norm:
                    by_norm[norm].append((other, entry.line))
    out: list[Problem] = []
    for k, (path, line, norm, _text) in enumerate(written):
        same = next((x for x in by_norm[norm] if x != (path, line)), None)
        if same is None and k < MAX_NEAR_CHECKED and len(norm) >= NEAR_DUPLICATE_MIN_CHARS:
            others = {ln: n for ln, n in in_file[path] if ln != line}
            near = process.extract(
                norm, others, scorer=fuzz.token_sort_ratio, score_cutoff=NEAR_DUPLICATE_THRESHOLD, limit=None
            )
            # confirmed as every "same fact" is (similarity.same_fact: both long enough, the same
            # numbers, versions and dates): another number is another fact
            best = next((m for m in near if same_fact(norm, m[0]) is not None), None)
            same = (path, best[2]) if best is not None else None
        if same is not None:
            where = f"line {same[1]}" if same[0] == path else f"{same[0]}:{same[1]}"
            out.append(Problem(path, line, f"says the same as {where}", "duplicate"))
    return out


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
                problems.append(Problem(path, link.line, f"{link.written} would name no file"))

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
                problems.append(Problem(path, link.line, f"{link.written} would name no file (the accept deletes it)"))

    problems.extend(_entry_point(service, main, changes, before, after))
    for path in sorted(new_notes):
        if path not in reached:
            problems.append(
                Problem(path, 0, "new file that no file links to: MEMORY.md would not reach it", "unreachable")
            )
    return problems


def _entry_point(
    service: RunSource, main: str, changes: dict[str, bytes | None], before: _Files, after: _Files
) -> list[Problem]:
    """MEMORY.md's Index links lost (to files that stay) and its load budget, after the accept."""
    if MEMORY_FILE not in changes:
        return []
    new = changes[MEMORY_FILE]
    if new is None:
        return [Problem(MEMORY_FILE, 0, "the accept deletes MEMORY.md, the memory's entry point", "index")]
    old = service.blobs.read(main, MEMORY_FILE)
    was = parse(old, MEMORY_FILE, check=False) if old is not None else None
    now = parse(new, MEMORY_FILE, check=False)

    def indexed(doc: Document, files: _Files) -> dict[str, Link]:
        section = index_lines(doc)
        out: dict[str, Link] = {}
        for link in doc.links:
            target = files.target(link.target) if link.line in section else None
            if target is not None:
                out.setdefault(target, link)
        return out

    out: list[Problem] = []
    if was is not None:
        kept = indexed(now, after)
        for target, link in sorted(indexed(was, before).items()):
            if target not in kept and target in after.paths:
                out.append(
                    Problem(
                        MEMORY_FILE,
                        link.line,
                        f"the Index would lose {link.written} ({target} stays)",
                        "index",
                    )
                )
    profile = profile_of(service.mount)  # the agent that reads this repo, and its budget
    read = profile.entry
    cut = first_unloaded(new, read.limits) if read is not None and read.limits.bounded else None
    if read is not None and cut is not None and (was is None or len(new) > len(old or b"")):
        out.append(
            Problem(
                MEMORY_FILE,
                cut,
                f"would be {len(now.lines)} lines and {len(new)} bytes, over the load budget: "
                f"{profile.verb('read', start=False)} only the first {read.limits.describe()} (line {cut} on is cut)",
                "budget",
            )
        )
    return out
