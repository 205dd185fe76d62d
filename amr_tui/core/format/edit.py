"""Pure edits of a memory file: every function takes a Document and returns new bytes.

Only the lines an edit names change; every other byte (line endings, BOM, undecodable
bytes) is kept.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable

from amr_tui.core.format.metadata import format_metadata
from amr_tui.core.format.parser import BOM, SEPARATOR, Document, parse
from amr_tui.core.format.rules import diag, rebuild_line
from amr_tui.core.model import Diagnostic, Entry, Line, LineKind, Link
from amr_tui.core.paths import MEMORY_FILE
from amr_tui.core.secrets import redact_secrets


def dominant_eol(doc: Document) -> str:
    crlf = sum(1 for ln in doc.lines if ln.eol == "\r\n")
    lf = sum(1 for ln in doc.lines if ln.eol == "\n")
    return "\r\n" if crlf > lf else "\n"


def _encode(doc: Document, lines: list[tuple[str, str]]) -> bytes:
    text = (BOM if doc.bom else "") + "".join(t + e for t, e in lines)
    return text.encode("utf-8", "surrogateescape")


def _pairs(doc: Document) -> list[tuple[str, str]]:
    return [(ln.text, ln.eol) for ln in doc.lines]


def replace_line(doc: Document, line: int, new_text: str) -> bytes:
    if "\n" in new_text or "\r" in new_text:
        raise ValueError("an entry is one line: the new text holds a line break")
    pairs = _pairs(doc)
    if not 1 <= line <= len(pairs):
        raise IndexError(f"line {line} is outside the file (1..{len(pairs)})")
    pairs[line - 1] = (new_text, pairs[line - 1][1])
    return _encode(doc, pairs)


def insert_lines(doc: Document, after: int, texts: list[str]) -> bytes:
    """Insert lines after line ``after`` (0 = at the top)."""
    for t in texts:
        if "\n" in t or "\r" in t:
            raise ValueError("an entry is one line: the new text holds a line break")
    pairs = _pairs(doc)
    if not 0 <= after <= len(pairs):
        raise IndexError(f"line {after} is outside the file")
    eol = dominant_eol(doc)
    if after == len(pairs) and pairs and pairs[-1][1] == "":
        pairs[-1] = (pairs[-1][0], eol)
        new = [(t, eol) for t in texts]
        new[-1] = (new[-1][0], "")  # the file had no final newline: keep it that way
    else:
        new = [(t, eol) for t in texts]
    pairs[after:after] = new
    return _encode(doc, pairs)


def delete_lines(doc: Document, first: int, last: int | None = None) -> bytes:
    last = first if last is None else last
    pairs = _pairs(doc)
    if not 1 <= first <= last <= len(pairs):
        raise IndexError(f"lines {first}..{last} are outside the file")
    had_final_eol = pairs[-1][1] != ""
    del pairs[first - 1 : last]
    if pairs and last == len(_pairs(doc)) and not had_final_eol:
        pairs[-1] = (pairs[-1][0], "")
    return _encode(doc, pairs)


def find_entry(doc: Document, raw: str, near: int = 0) -> Entry | None:
    """The entry whose first line is exactly ``raw``, the one nearest line ``near`` when the
    file holds that line more than once; None when no entry has that text.

    An entry named by its text (and so by its hash) is found again in another version of the
    file, whatever was inserted or removed above it: a line number alone names a different
    entry once an agent has changed the file."""
    best: Entry | None = None
    for entry in doc.entries:
        if doc.lines[entry.line - 1].text != raw:
            continue
        if best is None or abs(entry.line - near) < abs(best.line - near):
            best = entry
    return best


def entry_span(doc: Document, entry: Entry) -> tuple[int, int]:
    """First and last line of an entry with its nested sub-entries and continuation lines."""
    last = entry.line
    for ln in doc.lines[entry.line :]:
        if ln.kind.value in ("continuation",):
            last = ln.number
            continue
        sub = doc.entry_at(ln.number)
        if sub is not None and sub.depth > entry.depth and len(sub.indent) > len(entry.indent):
            last = ln.number
            continue
        if not ln.text.strip():
            nxt = doc.entry_at(ln.number + 1)
            if nxt is not None and nxt.depth > entry.depth:
                continue
        break
    return entry.line, last


def new_entry_line(text: str, metadata: list[tuple[str, str]] | None = None, *, like: Entry | None = None) -> str:
    """One entry's line, shaped like ``like`` (its indent and marker; no marker for a §
    paragraph), a ``-`` bullet otherwise."""
    indent = like.indent if like else ""
    marker = like.marker if like and like.marker in ("-", "*", "+", "") else "-"
    text = " ".join(text.split())
    meta = format_metadata(metadata or [])
    body = " ".join(part for part in (text, meta) if part)
    if not marker:
        return f"{indent}{body}"
    return f"{indent}{marker} {body}" if body else f"{indent}{marker}"


def _is_separator(line: Line) -> bool:
    return line.text.strip() == SEPARATOR


def removal_span(doc: Document, entry: Entry) -> tuple[int, int]:
    """The lines that removing an entry deletes: its span, and for a § paragraph one of the
    § lines beside it (the one after it; the one before when it is the last), so the file
    keeps one separator between each two entries."""
    first, last = entry_span(doc, entry)
    if entry.marker or not doc.paragraphs:
        return first, last
    lines = doc.lines
    k = last  # 0-based: the line after the span
    while k < len(lines) and not lines[k].text.strip():
        k += 1
    if k < len(lines) and _is_separator(lines[k]):
        return first, k + 1
    k = first - 2
    while k >= 0 and not lines[k].text.strip():
        k -= 1
    if k >= 0 and _is_separator(lines[k]):
        return k + 1, last
    return first, last


def new_entry_lines(doc: Document, after: int, lines: list[str]) -> list[str]:
    """The lines that add an entry's ``lines`` after line ``after`` (0: at the top): the lines
    themselves, and in a § paragraph file the § that parts them from the entry above
    (or below, at the top of the file)."""
    if not doc.paragraphs:
        return lines
    above = next((ln for ln in reversed(doc.lines[:after]) if ln.text.strip()), None)
    below = next((ln for ln in doc.lines[after:] if ln.text.strip()), None)
    if above is not None and not _is_separator(above):
        return [SEPARATOR, *lines]
    if below is not None and not _is_separator(below):
        return [*lines, SEPARATOR]
    return lines


def entry_lines(doc: Document, entry: Entry, into: Document | None = None) -> list[str]:
    """An entry's lines (with its sub-entries and continuation), moved to the top level; its
    first line reads as entries do in ``into``: a bullet in a Markdown file, a bare paragraph
    in a § paragraph file."""
    first, last = entry_span(doc, entry)
    cut = len(entry.indent)
    lines = [doc.lines[i - 1].text for i in range(first, last + 1)]
    lines = [ln[cut:] if ln[:cut].strip() == "" else ln for ln in lines]
    if into is not None and (not entry.marker) != into.paragraphs:
        body = lines[0][entry.content_start - cut :]
        lines[0] = body if into.paragraphs else f"- {body}"
    return lines


def set_metadata(line_text: str, entry: Entry, key: str, value: str | None) -> str:
    """Set (or remove, with None) a key; the first occurrence is replaced, repeats kept."""
    items = [(m.key, m.value) for m in entry.metadata]
    lower = key.lower()
    idx = next((i for i, (k, _) in enumerate(items) if k.lower() == lower), None)
    if value is None:
        items = [(k, v) for k, v in items if k.lower() != lower]
    elif idx is None:
        items.append((key, value))
    else:
        items[idx] = (items[idx][0], value)
    return rebuild_line(line_text, entry, items)


def today_iso(today: _dt.date | None = None) -> str:
    return (today or _dt.date.today()).isoformat()


def parse_line(line_text: str, path: str = MEMORY_FILE, *, paragraph: bool = False) -> Document:
    """One would-be entry line parsed on its own; ``paragraph``: as an entry of a §
    paragraph file (a bare line is no entry in a Markdown file)."""
    end = "\n" + SEPARATOR + "\n" if paragraph else "\n"
    return parse((line_text + end).encode("utf-8", "surrogateescape"), path)


def entry_text(line_text: str, path: str = MEMORY_FILE, *, paragraph: bool = False) -> str:
    """The fact an entry line states (no marker, no metadata); the line itself when it is none."""
    doc = parse_line(line_text, path, paragraph=paragraph)
    return doc.entries[0].text if doc.entries else line_text.strip()


def check_line(
    line_text: str,
    path: str = MEMORY_FILE,
    link_ok: Callable[[Link], bool] | None = None,
    *,
    paragraph: bool = False,
) -> tuple[Entry | None, list[Diagnostic]]:
    """Parse one would-be entry line on its own: what the editor validates as you type
    (``paragraph``: a line of a § paragraph file, see :func:`parse_line`).

    ``link_ok`` (the repo's resolver, when the caller has one): a ``[[link]]`` it does not find
    is a warning (AMR010) as lint would give it; a ``[[`` never closed is one in any case."""
    doc = parse_line(line_text, path, paragraph=paragraph)
    entry = doc.entries[0] if doc.entries else None
    diags = [d for d in doc.diagnostics if d.code not in ("AMR023",)]
    if entry is not None and link_ok is not None:
        for link in entry.links:
            if link.target.strip() and not link_ok(link):
                diags.append(diag("AMR010", f"{link.written} names no file in this repo", 1, link.column))
    opened = line_text.rfind("[[")
    if opened != -1 and line_text.find("]]", opened) == -1:
        diags.append(diag("AMR010", "[[ is never closed with ]]: the link goes nowhere", 1, opened + 1))
    return entry, diags


def summarise(text: str, width: int = 60) -> str:
    """One short line of ``text`` for a commit subject or a notice: a credential in it is
    replaced by a placeholder first (``core.secrets.redact_secrets``), so none reaches a message."""
    text = redact_secrets(" ".join(text.split()))
    return text if len(text) <= width else text[: width - 1] + "\u2026"


_FRONT_MATTER_SHOWN = ("name", "title", "description", "type", "tags", "limit", "scope")


def front_matter_fields(doc: Document) -> list[tuple[int, str, str]]:
    """(line, key, value) of the front matter's plain ``key: value`` lines that memory formats
    use (Claude Code's ``name``, ``description``, ``type``; Letta's ``description``, ``limit``;
    basic-memory's ``title``, ``type``, ``tags``): the file's metadata, shown and searched."""
    if not doc.front_matter:
        return []
    first, last = doc.front_matter
    out: list[tuple[int, str, str]] = []
    for line in doc.lines[first : last - 1]:  # between the --- lines
        key, sep, value = line.text.partition(":")
        key = key.strip()
        if sep and key in _FRONT_MATTER_SHOWN and value.strip():
            out.append((line.number, key, value.strip().strip("'\"")))
    return out


def searchable_lines(doc: Document, *, prose: bool = False) -> list[tuple[int, str]]:
    """(line, text) of what the search index holds of a file: each entry with text and each
    heading; with ``prose`` (a memory format that writes paragraphs: Claude Code's topic files,
    Hermes' ``\u00a7`` paragraphs, memory banks), each line of running text too, and the front
    matter's name, description and title."""
    out = [(e.line, e.text) for e in doc.entries if e.text]
    out += [(ln, text) for ln, _level, text in doc.headings if text]
    if not prose:
        out.sort()
        return out

    out += [(ln, f"{key}: {value}") for ln, key, value in front_matter_fields(doc) if key != "limit"]
    for line in doc.lines:
        if line.kind in (LineKind.TEXT, LineKind.CONTINUATION, LineKind.QUOTE):
            text = line.text.strip()
            if text and text != "\u00a7":
                out.append((line.number, text))
    out.sort()
    return out
