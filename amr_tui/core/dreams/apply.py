"""Applying accepted entry changes of a dreaming run onto the current main (pure).

A run is reviewed as changes from its base to its tip (``core.diff.entries``); main may have moved
since. Accepting one entry change replays it on main's current files instead of copying the
run's files:

* every old line of the change (the entries it merges, moves, rewords or drops) is removed from
  main's version of its file, where it is still written exactly that way;
* the new line (or the reviewer's edited text) is written where the first old line was, when
  that is in the same file; otherwise after the line that precedes it in the run's version of
  the file (or before the line that follows it), else at the end. A file main does not have yet
  is created with the run's lines above its first entry (its heading) and the new line.

``applied(change, files)`` tells whether main already reads as the change would leave it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from amr_tui.core.diff.entries import EntryChange, refs_of
from amr_tui.core.format.edit import check_line
from amr_tui.core.format.parser import BOM, Document, parse


class EditError(ValueError):
    """An edited entry text that is not one valid entry line."""


def _lines(data: bytes | None, path: str) -> tuple[Document, list[tuple[str, str]]]:
    doc = parse(data or b"", path)
    return doc, [(ln.text, ln.eol) for ln in doc.lines]


def _encode(doc: Document, pairs: list[tuple[str, str]], default_eol: str) -> bytes:
    if pairs:
        for k in range(len(pairs) - 1):
            if pairs[k][1] == "":
                pairs[k] = (pairs[k][0], default_eol)
    return ((BOM if doc.bom else "") + "".join(t + e for t, e in pairs)).encode("utf-8", "surrogateescape")


def _eol(doc: Document) -> str:
    crlf = sum(1 for ln in doc.lines if ln.eol == "\r\n")
    lf = sum(1 for ln in doc.lines if ln.eol == "\n")
    return "\r\n" if crlf > lf else "\n"


def checked_text(text: str, path: str) -> str:
    """The reviewer's edited entry, as one entry line (``- `` added when the bullet is missing)."""
    text = text.strip("\r\n")
    if "\n" in text or "\r" in text:
        raise EditError("an entry is one line: the edited text holds a line break")
    line = text if text.lstrip()[:2] in ("- ", "* ", "+ ") else f"- {text.strip()}"
    entry, diags = check_line(line, path)
    if entry is None:
        raise EditError("the edited text is not an entry")
    errors = [d for d in diags if d.severity.value == "error"]
    if errors:
        raise EditError(f"the edited entry has an error: {errors[0].code} {errors[0].message}")
    return line


def as_edited(change: EntryChange, edited: str) -> EntryChange:
    """``change`` with the reviewer's edited entry (``checked_text``) as its new line: what the
    accept writes, for the review's list and the accept's commit message. Raises ``EditError``
    for a text that is not one valid entry line."""
    if change.new is None:
        return change
    line = checked_text(edited, change.new.path)
    refs = refs_of(parse(line.encode("utf-8", "surrogateescape"), change.new.path))
    if not refs:
        raise EditError("the edited text is not an entry")
    return dataclasses.replace(change, new=dataclasses.replace(refs[0], line=change.new.line))


def apply_change(
    files: Mapping[str, bytes | None],
    change: EntryChange,
    tip: Mapping[str, bytes | None],
    *,
    edited: str | None = None,
) -> dict[str, bytes | None]:
    """Main's files after applying ``change``: returns new bytes for each file it touched.

    ``files`` holds main's current bytes for (at least) every path of the change (None: the file
    does not exist on main); ``tip`` the run's version of the change's new file, for placement.
    """
    out: dict[str, bytes | None] = {}
    work: dict[str, list[tuple[str, str]]] = {}
    docs: dict[str, Document] = {}
    for path in change.paths:
        doc, pairs = _lines(files.get(path), path)
        docs[path], work[path] = doc, pairs
    new_line = None
    if change.new is not None:
        new_line = checked_text(edited, change.new.path) if edited is not None else change.new.raw
    slot: int | None = None
    for old in change.old:
        pairs = work[old.path]
        at = next((k for k, (t, _) in enumerate(pairs) if t == old.raw), None)
        if at is None:
            continue
        if change.new is not None and old.path == change.new.path and slot is None:
            slot = at
        del pairs[at]
        if slot is not None and change.new is not None and old.path == change.new.path and at < slot:
            slot -= 1
    if change.new is not None and new_line is not None:
        path = change.new.path
        pairs = work[path]
        if not any(t == new_line for t, _ in pairs):
            eol = _eol(docs[path]) if docs[path].lines else "\n"
            if files.get(path) is None and not pairs:
                pairs.extend(_preamble(tip.get(path), path, eol))
            if slot is not None:
                at = slot
            elif files.get(path) is None:
                at = len(pairs)  # a new file: its heading, then the entry
            else:
                at = _anchor(pairs, tip.get(path), path, change.new.line)
            pairs.insert(at, (new_line, eol))
    for path, pairs in work.items():
        doc = docs[path]
        eol = _eol(doc) if doc.lines else "\n"
        if files.get(path) is None and not pairs:
            continue
        data = _encode(doc, pairs, eol)
        if data != (files.get(path) or b"") or files.get(path) is None:
            out[path] = data
    return out


def _preamble(tip_data: bytes | None, path: str, eol: str) -> list[tuple[str, str]]:
    """The run's lines above its first entry: a new file starts with its heading."""
    if tip_data is None:
        return []
    doc = parse(tip_data, path)
    first = doc.entries[0].line if doc.entries else len(doc.lines) + 1
    return [(ln.text, eol) for ln in doc.lines[: first - 1]]


def _anchor(pairs: list[tuple[str, str]], tip_data: bytes | None, path: str, line: int) -> int:
    """Where to insert: after the run's previous non-blank line, else before its next one."""
    texts = [t for t, _ in pairs]
    if tip_data is not None:
        tip = parse(tip_data, path)
        gap = line >= 2 and line - 2 < len(tip.lines) and not tip.lines[line - 2].text.strip()
        for k in range(line - 2, -1, -1):
            t = tip.lines[k].text if k < len(tip.lines) else ""
            if t.strip() and t in texts:
                at = texts.index(t) + 1
                while gap and at < len(texts) and not texts[at].strip():
                    at += 1  # the run has a blank line above the entry: keep main's too
                return at
        for k in range(line, len(tip.lines)):
            t = tip.lines[k].text
            if t.strip() and t in texts:
                return texts.index(t)
    end = len(pairs)
    while end > 0 and not pairs[end - 1][0].strip():
        end -= 1
    return end


def applied(change: EntryChange, files: Mapping[str, bytes | None]) -> bool:
    """Main already reads as the change leaves it: old lines gone, the new line present."""
    texts: dict[str, set[str]] = {}
    for path in change.paths:
        data = files.get(path)
        texts[path] = {ln.text for ln in parse(data, path).lines} if data is not None else set()
    if change.new is not None and change.new.raw not in texts[change.new.path]:
        return False
    for old in change.old:
        if change.new is not None and old.raw == change.new.raw and old.path == change.new.path:
            continue
        if old.raw in texts[old.path]:
            return False
    return True
