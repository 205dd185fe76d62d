"""Line-local checks: everything that can be said about a file without its repo.

Repo-level checks (broken links, orphans, duplicates, MEMORY.md) live in core.lint.
Every code is listed in CODES with its severity; docs/format.md explains each.
"""

from __future__ import annotations

import datetime as _dt
import re
from functools import lru_cache

from amr_tui.core.format.links import (
    LEAVES_ROOT,
    code_spans,
    heading_known,
    link_spans,
    split_heading,
    unsafe_reason,
)
from amr_tui.core.format.metadata import (
    AFTER_BANG,
    AFTER_BRACKET,
    NOT_LAST,
    VALUE_BRACKETS,
    MetaParse,
    escape_value,
    format_metadata,
    parse_metadata,
    read_group,
)
from amr_tui.core.model import WHITESPACE, Diagnostic, Entry, Fix, Line, LineEdit, LineKind, ParsedFile, Severity
from amr_tui.core.paths import has_md_suffix
from amr_tui.core.secrets import WORDED_KINDS, find_secrets, secret_line_candidates
from amr_tui.core.shared import EMPTY
from amr_tui.core.textsafety import describe, find_controls, find_invisible, name_invisible

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

# Severity, by one rule (docs/format.md section 6): an error only where two careful readers would
# read different entry text or metadata from the same bytes (AMR017, AMR018, AMR026); otherwise a
# warning or info. AMR016 is the one exception: the save guards ask before saving an error, and a
# credential must never be saved without that question (docs/security.md, promise 11).

CODES: dict[str, tuple[Severity, str]] = {
    "AMR001": (W, "missing MEMORY.md"),
    "AMR002": (W, "MEMORY.md has no ## Index"),
    "AMR003": (W, "MEMORY.md over the load budget"),
    "AMR004": (W, "entry spans several lines"),
    "AMR005": (W, "empty metadata item"),
    "AMR006": (W, "several metadata brackets"),
    "AMR007": (W, "unescaped ';' inside a metadata value"),
    "AMR008": (W, "date is not a real YYYY-MM-DD date"),
    "AMR009": (W, "source is not a link"),
    "AMR010": (W, "broken link"),
    "AMR011": (W, "link names a Markdown file with .md"),
    "AMR012": (W, "link leaves the memory root"),
    "AMR013": (W, "file not reachable from MEMORY.md"),
    "AMR014": (W, "duplicate entry"),
    "AMR015": (INFO, "near-duplicate entry"),
    "AMR016": (E, "looks like a credential"),
    "AMR017": (E, "control character or bidi override"),
    "AMR018": (E, "file is not UTF-8"),
    "AMR019": (W, "entry has no text"),
    "AMR020": (INFO, "trailing bracket is not metadata"),
    "AMR021": (W, "key given twice"),
    "AMR022": (W, "metadata key is not lower case"),
    "AMR023": (INFO, "nested entry"),
    "AMR024": (INFO, "bullet is not '-'"),
    "AMR025": (W, "empty metadata value"),
    "AMR026": (E, "metadata cannot be read"),
    "AMR027": (W, "merge driver named but not configured"),
    "AMR028": (INFO, "front matter is not part of the format"),
    "AMR029": (W, "empty link"),
    "AMR030": (W, "resurrected fact"),
    "AMR031": (W, "metadata is not at the end of the entry"),
    "AMR032": (W, "link names no heading of its file"),
    "AMR033": (INFO, "possible contradiction"),
    "AMR034": (W, "file too large to read"),
    "AMR035": (W, "invisible character inside a word"),
    "AMR036": (W, "placeholder entry"),
}

DATE_KEYS = ("added", "expires", "updated")
SINGLE_KEYS = ("added", "expires", "updated")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_URI_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")


_UNCLOSED = re.compile(r"\[\s*[A-Za-z][A-Za-z0-9_.-]*\s*:(?!/)[^\]]*$")
_UNPARSABLE = {
    VALUE_BRACKETS: "metadata holds '[' or ']' inside a value; write them as %5B and %5D",
    NOT_LAST: "metadata must end the entry: the brackets after it make it part of the text",
    AFTER_BRACKET: "metadata right after ']' reads as a Markdown reference link; put a space before '['",
    AFTER_BANG: "metadata right after '!' reads as a Markdown image; put a space before '['",
}


def diag(
    code: str, message: str, line: int, column: int = 0, fix: Fix | None = None, end_column: int = 0
) -> Diagnostic:
    return Diagnostic(code, CODES[code][0], message, line, column, fix, end_column)


def is_real_date(value: str) -> bool:
    if not _DATE_RE.match(value):
        return False
    try:
        _dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


_real_date = lru_cache(maxsize=8192)(is_real_date)  # dates repeat: a few hundred distinct in a repo
_LOWER_KEYS = frozenset(("source", "added", "expires", "updated", "confidence", "author", "session"))


def rebuild_line(
    line_text: str, entry: Entry, items: list[tuple[str, str]] | None = None, *, marker: str | None = None
) -> str:
    """The entry's line with its metadata rewritten as one canonical group."""
    head = line_text[: entry.meta_start].rstrip(WHITESPACE)
    if items is None:
        items = [(m.key, m.value) for m in entry.metadata]
    meta = format_metadata(items)
    new = f"{head} {meta}" if meta else head
    if marker is not None:
        new = entry.indent + marker + new[len(entry.indent) + 1 :]
    return new


def check_document(
    doc: ParsedFile, metas: dict[int, MetaParse] | None = None, text: str | None = None, *, problems_only: bool = False
) -> list[Diagnostic]:
    """Every line-local finding of a parsed file (a ``core.format.parser.Document``).

    ``metas`` (each entry's metadata parse, by line) and ``text`` (the decoded file) are what
    the parser already has; without them they are computed again. ``problems_only``: ``metas``
    holds only the unusual reads, and an entry missing from it had a clean one.
    """
    out: list[Diagnostic] = []
    if not doc.utf8:
        out.append(diag("AMR018", "file is not valid UTF-8; amr opens it read-only and keeps its bytes", 0))
    if doc.front_matter:
        out.append(
            diag("AMR028", "YAML front matter is not part of the Agent Memory Repo format", doc.front_matter[0], 1)
        )
    pasted: tuple[int, int, int, str] | None = None  # a run of terminal output: (index in out, first, last, char)
    for line in doc.lines:
        if line.text.isprintable() and line.text.isascii():
            continue
        if not line.text.isprintable():
            controls = find_controls(line.text)
            if _RTL.search(line.text) and all(ch in _DIRECTION_MARKS for _o, ch in controls):
                controls = []  # a right-to-left line's direction marks: how mixed-direction text is written
            for offset, ch in controls[:1]:
                if doc.utf8 or not (0xDC80 <= ord(ch) <= 0xDCFF):
                    colours = _only_colours(line.text)
                    if colours and pasted is not None and line.number - pasted[2] <= _PASTE_GAP:
                        pasted = (pasted[0], pasted[1], line.number, pasted[3])  # the same pasted output
                        continue
                    if pasted is not None:
                        _say_pasted(out, pasted)
                    pasted = (len(out), line.number, line.number, ch) if colours else None
                    out.append(diag("AMR017", f"{describe(ch)} in the text", line.number, offset + 1))
        for offset, ch in find_invisible(line.text)[:1]:
            out.append(
                diag(
                    "AMR035",
                    f"{name_invisible(ch)} inside a word: it draws nothing, so the word is not what it shows",
                    line.number,
                    offset + 1,
                )
            )
    if pasted is not None:
        _say_pasted(out, pasted)
    for link in doc.links:
        if not link.target.strip(WHITESPACE):
            heading = split_heading(link.raw)
            if not heading:
                out.append(diag("AMR029", f"{link.written} names no file", link.line, link.column))
            elif not heading_known(heading, [t for _ln, _lvl, t in doc.headings]):
                out.append(
                    diag("AMR032", f"{link.written}: this file has no heading '{heading}'", link.line, link.column)
                )
        elif (why := unsafe_reason(link.target)) is not None:
            if why == LEAVES_ROOT and link.label is not None and link.target.startswith("../"):
                continue  # a Markdown link from a memory folder to its project's files ([x](../../CLAUDE.md))
            out.append(diag("AMR012", f"{link.written}: {why}; amr never opens it", link.line, link.column))
        elif link.label is None and has_md_suffix(link.target):  # a Markdown link needs its .md
            line_text = doc.lines[link.line - 1].text
            new_raw = link.raw.replace(link.target, link.target[:-3], 1)
            fixed = line_text[: link.start] + "[[" + new_raw + "]]" + line_text[link.end :]
            out.append(
                diag(
                    "AMR011",
                    f"write [[{link.target[:-3]}]]: omit .md for Markdown files",
                    link.line,
                    link.column,
                    Fix("drop .md", (LineEdit(link.line, fixed),)),
                )
            )
    lines = doc.lines
    for entry in doc.entries:
        meta = metas.get(entry.line) if metas is not None else None
        if meta is None and problems_only:
            meta = _CLEAN_WITH if entry.meta_groups else _CLEAN_WITHOUT
        found = _check_entry(lines[entry.line - 1].text, entry, meta)
        if found:
            entry.diagnostics = found
            out.extend(found)
        else:
            entry.diagnostics = EMPTY
    for line in _secret_lines(lines, doc.text if text is None else text):
        if line.kind is not LineKind.BLANK:
            seen: set[str] = set()
            for m in find_secrets(line.text):
                if line.text[m.start : m.end] in seen:
                    continue  # the same credential again on its line: one finding says it
                seen.add(line.text[m.start : m.end])
                out.append(
                    diag(
                        "AMR016",
                        credential_message(m.kind),
                        line.number,
                        m.start + 1,
                    )
                )
    out.sort(key=lambda d: (d.line, d.column, d.code))
    return out


def credential_message(kind: str) -> str:
    """AMR016's message for a credential of ``kind`` (``core.secrets.KINDS``)."""
    article = "an" if kind[:1] in "AEIOU" else "a"
    return f"looks like {article} {kind}; memory must not hold credentials"


_WORDED_MESSAGES = frozenset(credential_message(k) for k in WORDED_KINDS)


def is_worded_credential(d: Diagnostic) -> bool:
    """An AMR016 found by the words around a value (``core.secrets.WORDED_KINDS``), not by its shape."""
    return d.code == "AMR016" and d.message in _WORDED_MESSAGES


# A terminal's output pasted with its colours holds colour codes (``ESC[32m``) and backspaces on
# many lines: one finding says so for the whole paste. Any other control (a clipboard
# write, a screen clear, a bidi override) is a finding on its own line.
_COLOUR = re.compile(r"\x1b\[[0-9;]*m")
_PASTED_CONTROLS = frozenset("\x08")  # a CR stays one finding per line (the conformance cases)
# The marks that set the direction of neutral characters (LRM, RLM, ALM): they reorder nothing
# the way an override or an isolate does, and right-to-left text (Hebrew, Arabic) uses them.
_DIRECTION_MARKS = frozenset("\u200e\u200f\u061c")
_RTL = re.compile("[\u0590-\u05ff\u0600-\u06ff\u0750-\u077f\u0780-\u07bf\ufb1d-\ufdff\ufe70-\ufeff]")
_PASTE_GAP = 3  # lines without one that still belong to the same pasted output


def _only_colours(text: str) -> bool:
    """Whether every control character of ``text`` is a colour code's, a carriage return or a backspace."""
    rest = _COLOUR.sub("", text)
    return all(ch in _PASTED_CONTROLS for _o, ch in find_controls(rest))


def _say_pasted(out: list[Diagnostic], pasted: tuple[int, int, int, str]) -> None:
    """The run's one AMR017, at its first line, saying how far the pasted output goes."""
    at, first, last, ch = pasted
    if last > first:
        d = out[at]
        out[at] = diag(
            "AMR017",
            f"{describe(ch)} in the text, and on lines down to {last}: a terminal's output pasted with its "
            "control codes? (they can redraw or hide what a terminal shows)",
            d.line,
            d.column,
        )


_CLEAN_WITH = MetaParse([], 0, [(0, 0)], [], [], None, False)  # one clean group (positions unused)
_CLEAN_WITHOUT = MetaParse([], 0, [], [], [], None, False)  # no metadata


def _secret_lines(lines: list[Line], text: str) -> list[Line]:
    """Lines that may hold a credential (core.secrets' literal prefilter)."""
    picked = secret_line_candidates(text)
    if picked is None:
        return lines
    return [lines[i] for i in picked if i < len(lines)]


def _check_entry(line_text: str, entry: Entry, meta: MetaParse | None = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    n = entry.line
    content = line_text[entry.content_start :]
    if meta is None:
        meta = parse_metadata(content)
    base = entry.content_start
    if entry.multiline:
        out.append(
            diag("AMR004", "entry continues on the next lines; an entry is one line (the rest is not part of it)", n, 1)
        )
    if not entry.text:
        out.append(diag("AMR019", "entry has no text" if entry.metadata else "empty entry", n, 1))
    if entry.depth > 0:
        out.append(
            diag(
                "AMR023",
                f"indented bullet: read as its own entry under line {entry.parent_line}",
                n,
                len(entry.indent) + 1,
            )
        )
    if entry.marker in ("*", "+"):
        fixed = entry.indent + "-" + line_text[len(entry.indent) + 1 :]
        out.append(
            diag(
                "AMR024",
                f"use '-' for entries, not '{entry.marker}'",
                n,
                len(entry.indent) + 1,
                Fix("use '-'", (LineEdit(n, fixed),)),
            )
        )
    if meta.trailing_non_meta:
        a, _ = meta.trailing_non_meta
        out.append(diag("AMR020", "trailing bracket has no 'key: value', so it is part of the text", n, base + a + 1))
    if meta.unparsable:
        if meta.unparsable_reason != NOT_LAST:  # only brackets after it: AMR031 says so, with a fix
            out.append(diag("AMR026", _UNPARSABLE[meta.unparsable_reason], n, base + meta.unparsable_at + 1))
    elif not meta.groups and (open_at := _UNCLOSED.search(content)) is not None:
        out.append(diag("AMR026", "metadata bracket is never closed: end it with ']'", n, base + open_at.start() + 1))
    text = entry.text
    if "[" in text and ":" in text:
        out.extend(_misplaced_metadata(line_text, entry, meta))
    if len(meta.groups) > 1:
        out.append(
            diag(
                "AMR006",
                f"{len(meta.groups)} metadata brackets; amr reads them as one list",
                n,
                base + meta.groups[1][0] + 1,
                Fix("merge into one bracket", (LineEdit(n, rebuild_line(line_text, entry)),)),
            )
        )
    for a, _ in meta.joined_items:
        fixed_items = [(m.key, m.value) for m in entry.metadata]
        out.append(
            diag(
                "AMR007",
                "';' inside a value splits it; write it as %3B",
                n,
                base + a + 1,
                Fix("escape ';' as %3B", (LineEdit(n, rebuild_line(line_text, entry, fixed_items)),)),
            )
        )
    for a, _ in meta.empty_items:
        out.append(
            diag(
                "AMR005",
                "empty item between ';' separators",
                n,
                base + a + 1,
                Fix("remove the empty item", (LineEdit(n, rebuild_line(line_text, entry)),)),
            )
        )
    seen: set[str] = set()
    for item in entry.metadata:
        col = item.start + 1
        key = item.key
        lower = key if key in _LOWER_KEYS else key.lower()
        if key != lower:
            items = [(m.key.lower() if m is item else m.key, m.value) for m in entry.metadata]
            out.append(
                diag(
                    "AMR022",
                    f"key '{item.key}' is read as '{lower}'; write keys in lower case",
                    n,
                    col,
                    Fix("lower-case the key", (LineEdit(n, rebuild_line(line_text, entry, items)),)),
                )
            )
        if lower in SINGLE_KEYS and lower in seen:
            out.append(diag("AMR021", f"'{lower}' given more than once", n, col))
        seen.add(lower)
        if not item.value:
            out.append(diag("AMR025", f"'{item.key}' has no value", n, col))
            continue
        if lower in DATE_KEYS and not _real_date(item.value):
            out.append(diag("AMR008", f"{lower}: '{item.value}' is not a real YYYY-MM-DD date", n, col))
        if lower == "source" and not _URI_RE.match(item.value.replace("%3B", ";")):
            out.append(
                diag("AMR009", f"source '{item.value}' is not a link (expected a URL such as https://...)", n, col)
            )
    return out


_FORMAT_KEYS = frozenset(("source", "added", "expires", "updated"))  # the spec's keys and the dates amr checks
_GROUP = re.compile(r"\[([^\[\]]*)\]")


def _misplaced_metadata(line_text: str, entry: Entry, meta: MetaParse) -> list[Diagnostic]:
    """AMR031: ``[key: value]`` groups in the entry's text, which metadata must end (docs/format.md 5.5).

    A group counts when it reads as metadata and either only bracket groups follow it (the
    parser's NOT_LAST), or it names a key of the format (``source``, ``added``, ``expires``,
    ``updated``), or it holds two or more ``key: value`` items. Groups in inline code, inside
    ``[[links]]``, and Markdown link text, reference links and images (``[t](u)``, ``[t][r]``,
    ``![t]``) are text. ``[note: here] and more words`` is prose.
    """
    cs, ms = entry.content_start, entry.meta_start
    body = line_text[cs:ms]
    skip = (code_spans(body) if "`" in body else []) + (link_spans(body) if "[[" in body else [])
    stranded = meta.unparsable_at if meta.unparsable and meta.unparsable_reason == NOT_LAST else -1
    unreadable = meta.unparsable_at if meta.unparsable and meta.unparsable_reason != NOT_LAST else -1
    found: list[tuple[int, int, str]] = []
    for m in _GROUP.finditer(body):
        a, b = m.span()
        if a == unreadable or any(x <= a < y for x, y in skip):
            continue
        if a > 0 and body[a - 1] in "!]":  # an image, or the label of a reference link
            continue
        after = body[b : b + 1]
        if after == "(" or (after == "[" and not body.startswith("[[", b)):  # link text: [t](u), [t][r]
            continue
        items = read_group(m.group(1))
        if items is None:
            continue
        if a != stranded and len(items) < 2 and items[0].key.lower() not in _FORMAT_KEYS:
            continue
        found.append((a, b, "brackets" if a == stranded else "text"))
    if not found:
        return []
    # One fix for the line: every such group moves, in its order, in front of the metadata that is read.
    fix = Fix(
        "move the metadata to the end", (LineEdit(entry.line, _moved(line_text, entry, [(a, b) for a, b, _ in found])),)
    )
    return [
        diag(
            "AMR031",
            f"metadata must end the entry: with {what} after it, it is read as text; move it to the end",
            entry.line,
            cs + a + 1,
            fix,
        )
        for a, _b, what in found
    ]


def _moved(line_text: str, entry: Entry, spans: list[tuple[int, int]]) -> str:
    """The entry's line with the groups at ``spans`` of its text moved to the end (before any metadata read)."""
    cs, ms = entry.content_start, entry.meta_start
    body = line_text[cs:ms]
    words, groups, at = [], [], 0
    for a, b in spans:
        words.append(body[at:a].strip(WHITESPACE))
        groups.append(body[a:b])
        at = b
    words.append(body[at:].strip(WHITESPACE))
    text = " ".join(w for w in words if w)
    tail = line_text[ms:].strip(WHITESPACE)
    return line_text[:cs] + " ".join(part for part in (text, *groups, tail) if part)


__all__ = [
    "CODES",
    "check_document",
    "credential_message",
    "diag",
    "escape_value",
    "is_real_date",
    "is_worded_credential",
    "rebuild_line",
]
