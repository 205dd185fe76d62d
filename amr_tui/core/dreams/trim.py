"""The trim pass: a dreaming run that brings MEMORY.md under its agent's load budget (pure).

``trim(files, limits, ...)`` returns a ``DreamResult`` (the same steps ``clean.dream`` makes, one
commit each) that never deletes a fact; each step is taken only while MEMORY.md is still over the
target, 90% of its agent's limits (``core.budget.NEAR``: room to grow, so a trimmed MEMORY.md is
not near its budget and trimming again finds nothing to do):

1. **merge**: near-duplicate entries of MEMORY.md merged into one, keeping every ``source``
   (``clean.merge_duplicates`` on MEMORY.md alone);
2. **move**: plain entries of MEMORY.md (not Index lines), from the bottom up, moved whole (with
   their nested lines) to a topic file named after their section (``notes.md`` when they have
   none), appended there, each such file linked from the Index once;
3. **index**: the Index shortened by folder: the lines that link the files of one folder
   (``projects/…``; in Claude Code's flat folder, one kind: ``feedback_…``) moved, as they are,
   to that folder's index file, and one line linking it put in their place; the largest group
   first.

Every line moved is written elsewhere byte for byte; links stay valid (an AMR ``[[path]]`` is from
the root; a Claude Code index file sits beside the files it links). Each step's message says the
budget before and after, as the run's review shows it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from amr_tui.core.budget import NEAR, Limits, gauge, index_section, measure, use
from amr_tui.core.dreams.clean import DreamResult, DreamStep, State, merge_duplicates
from amr_tui.core.format.edit import entry_span
from amr_tui.core.format.parser import BOM, Document, parse
from amr_tui.core.paths import MEMORY_FILE

_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True, slots=True)
class Budget:
    """What trimming holds MEMORY.md to, and for whom (for the messages)."""

    limits: Limits
    who: str = "agents"  # "Claude Code"
    markdown_links: bool = False  # the index links with [Title](file.md) (Claude Code), not [[path]]


def _lines(doc: Document) -> list[tuple[str, str]]:
    return [(ln.text, ln.eol) for ln in doc.lines]


def _bytes(lines: list[tuple[str, str]], bom: bool) -> bytes:
    return ((BOM if bom else "") + "".join(t + e for t, e in lines)).encode("utf-8", "surrogateescape")


def _fits(data: bytes, budget: Budget, target: float) -> bool:
    cut = measure(data, budget.limits)
    return cut.cut_line is None and use(cut, budget.limits) <= target


def _slug(text: str) -> str:
    return _SLUG.sub("-", text.lower()).strip("-")[:40] or "notes"


def _is_index_line(doc: Document, number: int, budget: Budget) -> bool:
    entry = doc.entry_at(number)
    if entry is None or not entry.links:
        return False
    if number in index_section(doc):
        return True
    return budget.markdown_links and any(lk.label is not None for lk in entry.links)


def _eol(doc: Document) -> str:
    return next((ln.eol for ln in doc.lines if ln.eol), "\n")


def _link(budget: Budget, path: str, title: str, note: str) -> str:
    if budget.markdown_links:
        return f"- [{title}]({path}) \u2014 {note}"
    target = path[:-3] if path.endswith(".md") else path
    return f"- [[{target}]]: {note}"


def _add_index_lines(data: bytes, new_lines: list[str], budget: Budget) -> bytes:
    """MEMORY.md with ``new_lines`` at the end of its Index (at the end of the file when it has none:
    Claude Code's index is the file)."""
    doc = parse(data, MEMORY_FILE, check=False)
    lines = _lines(doc)
    eol = _eol(doc)
    if lines and lines[-1][1] == "":
        lines[-1] = (lines[-1][0], eol)
    section = index_section(doc)
    at = len(lines)
    if section:
        last = max((e.line for e in doc.entries if e.line in section), default=section.start - 1)
        at = entry_span(doc, doc.entry_at(last))[1] if doc.entry_at(last) else last  # type: ignore[arg-type]
    elif not budget.markdown_links:
        if lines and lines[-1][0].strip():
            lines.append(("", eol))
        lines.append(("## Index", eol))
        at = len(lines)
    lines[at:at] = [(t, eol) for t in new_lines]
    return _bytes(lines, doc.bom)


def _append(state: State, path: str, texts: list[str], title: str) -> bool:
    """Append ``texts`` to ``path`` (made with a ``# title`` heading when new). True: it is new."""
    old = state.files.get(path)
    if old is None:
        body = f"# {title}\n\n" + "".join(t + "\n" for t in texts)
        state.set(path, body.encode("utf-8", "surrogateescape"))
        return True
    text = old.decode("utf-8", "surrogateescape")
    if text and not text.endswith("\n"):
        text += "\n"
    state.set(path, (text + "".join(t + "\n" for t in texts)).encode("utf-8", "surrogateescape"))
    return False


def _step(state: State, name: str, before: bytes, changed: set[str], actions: list[str], budget: Budget) -> DreamStep:
    after = state.files[MEMORY_FILE] or b""
    was, now = measure(before, budget.limits), measure(after, budget.limits)
    said = f"{gauge(MEMORY_FILE, was, budget.limits)} \u2192 {gauge(MEMORY_FILE, now, budget.limits)}"
    title = {
        "merge": "merge near-duplicate entries of MEMORY.md",
        "move": "move entries of MEMORY.md to topic files",
        "index": "shorten the MEMORY.md Index by folder",
    }[name]
    message = f"dream: {title} ({said})\n\n" + "".join(f"- {a}\n" for a in actions)
    message += f"\nBudget ({budget.who}): {said}\n"
    return DreamStep(name, message, {p: state.files[p] for p in sorted(changed)}, actions)


def _merge(state: State, budget: Budget) -> DreamStep | None:
    before = state.files[MEMORY_FILE] or b""
    alone = State({MEMORY_FILE: before})
    step = merge_duplicates(alone)
    if step is None:
        return None
    state.set(MEMORY_FILE, alone.files[MEMORY_FILE] or b"")
    return _step(state, "merge", before, {MEMORY_FILE}, step.actions, budget)


def _move(state: State, budget: Budget, target: float) -> DreamStep | None:
    before = state.files[MEMORY_FILE] or b""
    doc = parse(before, MEMORY_FILE, check=False)
    title_line = next((ln for ln, lvl, _t in doc.headings if lvl == 1), None)
    movable = [
        e
        for e in doc.entries
        if e.depth == 0 and e.text and not _is_index_line(doc, e.line, budget) and e.line not in index_section(doc)
    ]
    if not movable:
        return None
    taken: dict[str, list[tuple[int, int]]] = {}  # target file -> spans moved there
    titles: dict[str, str] = {}
    drop: set[int] = set()
    actions: list[str] = []
    for entry in reversed(movable):  # from the bottom: what is past the cut goes first
        first, last = entry_span(doc, entry)
        section = entry.section if entry.section and entry.section_level > 1 else None
        if entry.section_level == 1 and title_line is not None:
            section = None
        path = f"{_slug(section)}.md" if section else "notes.md"
        if path == MEMORY_FILE.lower():
            path = "notes.md"
        taken.setdefault(path, []).append((first, last))
        titles.setdefault(path, section or "Notes")
        drop.update(range(first, last + 1))
        actions.append(f"moved MEMORY.md:{entry.line} to {path}: {entry.text[:60]}")
        kept = [(t, e) for i, (t, e) in enumerate(_lines(doc), 1) if i not in drop]
        index = [
            _link(budget, p, titles[p], f"{len(s)} entr{'y' if len(s) == 1 else 'ies'} moved from MEMORY.md")
            for p, s in taken.items()
            if not _linked(doc, p)
        ]
        trial = _add_index_lines(_bytes(kept, doc.bom), index, budget) if index else _bytes(kept, doc.bom)
        if _fits(trial, budget, target):
            break
    lines = _lines(doc)
    for path, spans in taken.items():
        texts = [lines[i - 1][0] for first, last in sorted(spans) for i in range(first, last + 1)]
        _append(state, path, texts, titles[path])
    kept = [(t, e) for i, (t, e) in enumerate(lines, 1) if i not in drop]
    index = [
        _link(budget, p, titles[p], f"{len(s)} entr{'y' if len(s) == 1 else 'ies'} moved from MEMORY.md")
        for p, s in taken.items()
        if not _linked(doc, p)
    ]
    data = _bytes(kept, doc.bom)
    state.set(MEMORY_FILE, _add_index_lines(data, index, budget) if index else data)
    return _step(state, "move", before, {MEMORY_FILE, *taken}, list(reversed(actions)), budget)


def _linked(doc: Document, path: str) -> bool:
    stem = path[:-3] if path.endswith(".md") else path
    return any(lk.target in (path, stem) for lk in doc.links)


def _group_of(target: str, budget: Budget) -> str | None:
    """The folder (AMR) or the kind (Claude Code's ``feedback_x.md``) an Index link belongs to."""
    if "/" in target:
        return target.rsplit("/", 1)[0]
    if budget.markdown_links and "_" in target:
        return target.split("_", 1)[0]
    return None


def _index(state: State, budget: Budget, target: float) -> DreamStep | None:
    before = state.files[MEMORY_FILE] or b""
    doc = parse(before, MEMORY_FILE, check=False)
    groups: dict[str, list[int]] = {}
    for entry in doc.entries:
        if entry.depth != 0 or not _is_index_line(doc, entry.line, budget) or len(entry.links) != 1:
            continue
        if entry_span(doc, entry) != (entry.line, entry.line):
            continue
        group = _group_of(entry.links[0].target, budget)
        if group is not None:
            groups.setdefault(group, []).append(entry.line)
    ranked = sorted(((g, ls) for g, ls in groups.items() if len(ls) >= 3), key=lambda x: (-len(x[1]), x[0]))
    if not ranked:
        return None
    lines = _lines(doc)
    replace: dict[int, str] = {}
    drop: set[int] = set()
    changed = {MEMORY_FILE}
    actions: list[str] = []
    for group, numbers in ranked:
        path = f"{group}-index.md" if budget.markdown_links else f"{group}/index.md"
        if path in state.files and state.files[path] is not None and not budget.markdown_links:
            path = f"{group}/index-of-{_slug(group)}.md"
        title = f"{group.capitalize()} notes" if budget.markdown_links else f"Index of {group}/"
        _append(state, path, [lines[n - 1][0] for n in numbers], title)
        changed.add(path)
        replace[numbers[0]] = _link(budget, path, title, f"{len(numbers)} links, one per file")
        drop.update(numbers[1:])
        actions.append(f"moved {len(numbers)} Index lines of {group} to {path}, linked from MEMORY.md:{numbers[0]}")
        trial = [(replace.get(i, t), e) for i, (t, e) in enumerate(lines, 1) if i not in drop]
        if _fits(_bytes(trial, doc.bom), budget, target):
            break
    kept = [(replace.get(i, t), e) for i, (t, e) in enumerate(lines, 1) if i not in drop]
    state.set(MEMORY_FILE, _bytes(kept, doc.bom))
    return _step(state, "index", before, changed, actions, budget)


def trim(files: Mapping[str, bytes | None], budget: Budget) -> DreamResult:
    """The steps that bring MEMORY.md under ``budget`` (none when it fits and is not near it)."""
    result = DreamResult()
    data = files.get(MEMORY_FILE)
    if data is None or not budget.limits.bounded:
        return result
    start = measure(data, budget.limits)
    if start.cut_line is None and use(start, budget.limits) < NEAR:
        return result
    target = NEAR  # under the cut, with room to grow: a trimmed MEMORY.md is not "near" its budget
    state = State(files)
    steps: tuple[Callable[[], DreamStep | None], ...] = (
        lambda: _merge(state, budget),
        lambda: _move(state, budget, target),
        lambda: _index(state, budget, target),
    )
    for run in steps:
        if _fits(state.files[MEMORY_FILE] or b"", budget, target):
            break
        step = run()
        if step is not None:
            result.steps.append(step)
    return result


__all__ = ["Budget", "trim"]
