"""The lines an agent's write is made of, and how an entry is found again: pure helpers of
:mod:`.memory` on parsed documents (no git, no session state).

* :func:`locate` is the entry-level compare-and-swap: the entry on a line whose text has the
  hash the agent read, else the one entry in the file with that hash, else a "stale" reply.
* :func:`new_line` and :func:`edited_line` make one entry line (``added`` filled, metadata kept
  or replaced) and lint it on its own.
* :func:`append_point`, :func:`with_index_link`, :func:`title_of`: where a new entry goes, the
  Index line that links a new file, and a new file's heading.
* :func:`budget_cut`: where the budget an agent loads MEMORY.md under stops (``core.budget``).
"""

from __future__ import annotations

import datetime as _dt

from amr_tui.core.budget import AMR, Limits, first_unloaded
from amr_tui.core.format.edit import entry_span, insert_lines, new_entry_line, parse_line
from amr_tui.core.format.metadata import parse_metadata
from amr_tui.core.format.parser import Document, parse
from amr_tui.core.lint.repo import INDEX_HEADING
from amr_tui.core.model import Diagnostic, Entry, Severity
from amr_tui.services.agent.model import DiagnosticOut, EntryOut, WriteResult, entry_hash
from amr_tui.services.session.session import OpenFile

INBOX_FILE = "inbox.md"  # where a fact goes when no Index topic matches it
INBOX_HEADING = "# Inbox"
INBOX_INDEX_LINE = "- [[inbox]]: facts agents remembered that no topic matched yet; file them into topics"


def new_line(text: str, source: str | None, path: str, today: _dt.date) -> tuple[str, Entry | None, list[Diagnostic]]:
    """The entry line for ``text``: one line, a ``- `` marker, ``added`` filled, ``source`` set."""
    body = " ".join(text.split())
    if body[:2] in ("- ", "* ", "+ "):
        body = body[2:].strip()
    parsed = parse_metadata(body)
    items = [(m.key, m.value) for m in parsed.items] if parsed.items else []
    plain = body[: parsed.meta_start].strip() if parsed.items else body
    if source and not any(k.lower() == "source" for k, _ in items):
        items.append(("source", " ".join(source.split())))
    if not any(k.lower() == "added" for k, _ in items):
        items.append(("added", today.isoformat()))
    line = new_entry_line(plain, items)
    doc = parse((line + "\n").encode("utf-8", "surrogateescape"), path)
    entry = doc.entries[0] if doc.entries else None
    diags = [d for d in doc.diagnostics if d.code != "AMR023"]
    if entry is not None and not entry.text.strip(" -*+"):
        diags.append(Diagnostic("AMR000", Severity.ERROR, "the fact is empty", 1, 1))
    return line, entry, diags


def budget_cut(doc: Document, size: int, limits: Limits | None = None) -> int:
    """The first line an agent does not load under ``limits`` (amr's 200 lines or 25 KB by
    default), 0 when the file fits."""
    del size  # measured from the document's own bytes
    read = AMR.entry
    return first_unloaded(doc.to_bytes(), limits or (read.limits if read else Limits())) or 0


def locate(of: OpenFile, line: int, hash: str) -> tuple[Entry, str] | WriteResult:
    """The entry on ``line`` whose text has ``hash``; else the one entry in the file with that
    hash (lines were inserted above it); else a "stale" reply with the entry there now."""
    doc = of.doc
    if doc is None:
        return WriteResult("stale", f"{of.path} does not exist any more; nothing was written.", of.repo, of.path)
    if 1 <= line <= len(doc.lines):
        entry = doc.entry_at(line)
        if entry is not None and entry.line == line and entry_hash(doc.lines[line - 1].text) == hash:
            return entry, doc.lines[line - 1].text
    same = [e for e in doc.entries if entry_hash(doc.lines[e.line - 1].text) == hash]
    if len(same) == 1:
        return same[0], doc.lines[same[0].line - 1].text
    current = None
    if 1 <= line <= len(doc.lines):
        entry = doc.entry_at(line)
        if entry is not None:
            current = EntryOut.of(entry, doc.lines[entry.line - 1].text)
    now = f"it now reads {current.raw!r}" if current else "there is no entry on that line now"
    many = f" ({len(same)} entries have that hash; name the line)" if same else ""
    return WriteResult(
        "stale",
        f"The entry at {of.path}:{line} changed since it was read ({now}){many}; nothing was written. "
        "Read it again and retry with the current hash.",
        of.repo,
        of.path,
        current=current,
    )


def edited_line(raw: str, entry: Entry, text: str, path: str) -> tuple[str | None, list[Diagnostic]]:
    """The entry's line with ``text`` as its fact: metadata given in ``text`` replaces the
    entry's, else the entry keeps its own; the marker and indentation stay."""
    body = " ".join(text.split())
    if body[:2] in ("- ", "* ", "+ "):
        body = body[2:].strip()
    parsed = parse_metadata(body)
    if parsed.items:
        items = [(m.key, m.value) for m in parsed.items]
        plain = body[: parsed.meta_start].strip()
    else:
        items = [(m.key, m.value) for m in entry.metadata]
        plain = body
    new = new_entry_line(plain, items, like=entry)
    doc = parse_line(new.lstrip(), path, paragraph=not entry.marker)
    diags = [d for d in doc.diagnostics if d.code != "AMR023"]
    if not doc.entries or not doc.entries[0].text:
        return None, [*diags, Diagnostic("AMR000", Severity.ERROR, "the fact is empty", 1, 1)]
    del raw
    return new, diags


def refused_by_lint(repo: str, path: str, diags: list[Diagnostic], what: str) -> WriteResult:
    errors = [d for d in diags if d.severity is Severity.ERROR] or diags
    said = "; ".join(f"{d.code} {d.message}" for d in errors[:5]) or "it is not one entry line"
    return WriteResult(
        "refused",
        f"The linter refused it ({said}): {what}.",
        repo,
        path,
        diagnostics=[DiagnosticOut.of(d) for d in diags],
    )


def append_point(doc: Document) -> int:
    """The line after which a new top-level entry goes: after the last entry's block (its
    nested lines included), else after the last non-blank line."""
    tops = [e for e in doc.entries if e.depth == 0]
    if tops:
        return entry_span(doc, max(tops, key=lambda e: e.line))[1]
    for ln in reversed(doc.lines):
        if ln.text.strip():
            return ln.number
    return 0


def title_of(path: str) -> str:
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return " ".join(stem.replace("_", " ").replace("-", " ").split()).capitalize() or "Notes"


def with_index_link(memory: Document, path: str) -> bytes:
    """MEMORY.md with a link to ``path`` at the end of its Index (an Index made if it has none)."""
    target = path[:-3] if path.endswith(".md") else path
    line = INBOX_INDEX_LINE if path == INBOX_FILE else f"- [[{target}]]"
    start = next((ln for ln, lvl, t in memory.headings if lvl == 2 and t == INDEX_HEADING), None)
    if start is None:
        tail = "\n" if memory.lines and memory.lines[-1].text.strip() else ""
        return memory.to_bytes() + f"{tail}\n## {INDEX_HEADING}\n\n{line}\n".encode()
    end = next((ln for ln, lvl, _t in memory.headings if ln > start and lvl <= 2), len(memory.lines) + 1)
    after = start
    for e in memory.entries:
        if start < e.line < end and e.depth == 0:
            after = entry_span(memory, e)[1]
    if after == start:
        return insert_lines(memory, start, ["", line])
    return insert_lines(memory, after, [line])


__all__ = [
    "INBOX_FILE",
    "INBOX_HEADING",
    "append_point",
    "budget_cut",
    "edited_line",
    "locate",
    "new_line",
    "refused_by_lint",
    "title_of",
    "with_index_link",
]
