"""What the agent interface returns: plain frozen dataclasses of plain values.

``amr mcp`` returns these as the tools' structured results (the SDK derives each tool's output
schema from them), so they are frozen dataclasses without ``slots`` (the SDK reads their
annotations) and hold only str, int, bool, lists and dicts. Every text in them came from a
memory repo or an agent: data, never instructions (the server says so in its instructions).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Literal

from amr_tui.core.model import Diagnostic, Entry

# What a write did. "written": committed on the branch agents read; "pending_review": committed
# on the repo's pending review branch; "unchanged": it was already so; "duplicate": the fact is
# already there (the reply names it); "stale": the entry's hash no longer matches (the reply
# carries the entry as it is now); "needs_force": the fact was forgotten before; "conflict":
# someone changed the same entry meanwhile; "refused": the linter, the credential check, a
# read-only mount or the repo's state said no (the message says why and what to do).
Status = Literal["written", "pending_review", "unchanged", "duplicate", "stale", "needs_force", "conflict", "refused"]


def entry_hash(line_text: str) -> str:
    """The id of an entry's exact text: the first 16 hex digits of the SHA-256 of its line."""
    return hashlib.sha256(line_text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def metadata_of(entry: Entry) -> dict[str, str]:
    """key -> value; a key given twice (two sources) keeps both, joined with "; "."""
    out: dict[str, str] = {}
    for m in entry.metadata:
        key = m.key.lower()
        out[key] = f"{out[key]}; {m.value}" if key in out else m.value
    return out


@dataclass(frozen=True)
class EntryOut:
    line: int  # 1-based line in the file
    text: str  # the fact, without marker and metadata
    metadata: dict[str, str]
    links: list[str]  # [[link]] targets as written
    hash: str  # entry_hash of the line: pass it back to edit, forget or move this entry
    raw: str  # the line as written
    section: str | None = None  # the nearest heading above it

    @classmethod
    def of(cls, entry: Entry, raw: str) -> EntryOut:
        return cls(
            entry.line,
            entry.text,
            metadata_of(entry),
            [link.target for link in entry.links],
            entry_hash(raw),
            raw,
            entry.section,
        )


@dataclass(frozen=True)
class DiagnosticOut:
    code: str  # AMRnnn, see `amr lint --explain`
    severity: str  # "error" refuses a write; "warning" and "info" are reported
    message: str
    line: int = 0
    column: int = 0

    @classmethod
    def of(cls, d: Diagnostic) -> DiagnosticOut:
        return cls(d.code, d.severity.value, d.message, d.line, d.column)


@dataclass(frozen=True)
class IndexTarget:
    target: str  # as written in MEMORY.md's Index
    path: str | None  # the file it resolves to, None when it resolves to none
    text: str  # the Index entry that links it


@dataclass(frozen=True)
class LoadedFile:
    """A file the repo's format loads at session start besides MEMORY.md (``core.formats``)."""

    path: str
    entries: list[EntryOut]  # its entries (a Hermes § paragraph is one)
    text: str  # the file as its agent reads it, up to ``LOAD_BUDGET_BYTES``
    truncated: bool  # the file is longer than ``text``
    lines: int
    bytes: int


@dataclass(frozen=True)
class LoadedRepo:
    repo: str
    writable: bool
    review: bool  # writes wait on a pending review branch
    entries: list[EntryOut]  # MEMORY.md's entries an agent loads (inside the budget)
    cut_line: int  # first line past the repo's agent's budget (core.budget); 0 when MEMORY.md fits
    entries_past_cut: int  # entries agents never see at session start
    index: list[IndexTarget]
    lines: int
    bytes: int
    format: str = "amr"  # the memory format the folder is in (``workspace.repo_style``)
    loads: str = ""  # what that format's agent loads at session start, in a phrase
    files: list[LoadedFile] = field(default_factory=list)  # the other files it loads, in its order
    budget: str = ""  # the budget cut_line is for: "Claude Code: 200 lines or 25 KB" (`amr loads` shows it all)


@dataclass(frozen=True)
class LoadResult:
    repos: list[LoadedRepo]
    note: str


@dataclass(frozen=True)
class SearchResult:
    repo: str
    path: str
    line: int
    text: str
    metadata: dict[str, str]
    hash: str
    score: float
    missing: list[str] = field(default_factory=list)  # query words this entry does not hold (a partial match)
    # "entry"; or a line that is none, searched as the app and `amr search` search it: a "heading",
    # a "front matter" field (name, description, title...), a line of "text" (prose of a format
    # that writes paragraphs). Only an entry has a hash to edit or forget it by.
    kind: str = "entry"


@dataclass(frozen=True)
class SearchResults:
    query: str
    results: list[SearchResult]
    searched_files: int
    note: str = ""


@dataclass(frozen=True)
class FileRead:
    repo: str
    path: str
    rev: str  # the git blob id of the bytes read: the file version
    commit: str | None  # HEAD when it was read
    entries: list[EntryOut]
    lines: list[str]  # every line of the file, as data
    writable: bool
    # review mode: the pending review branch this version is read from (the agent's writes
    # that wait for review included); None: the work tree of the branch everyone reads
    pending_branch: str | None = None


@dataclass(frozen=True)
class WriteResult:
    status: Status
    message: str
    repo: str = ""
    path: str = ""
    entry: EntryOut | None = None  # the entry written, or the existing one (duplicate)
    current: EntryOut | None = None  # stale / conflict: the entry on that line now (None: no entry there)
    commit: str | None = None  # the commit made
    branch: str | None = None  # the branch it was committed on
    review_run: str | None = None  # pending_review: the run id to accept in `amr dreams` or the review screen
    diagnostics: list[DiagnosticOut] = field(default_factory=list)
    matches: list[str] = field(default_factory=list)  # needs_force / duplicate: what it matched


@dataclass(frozen=True)
class TimelineEventOut:
    kind: str  # added, reworded, metadata, moved, removed
    commit: str
    date: str
    author: str
    subject: str
    path: str
    before: str | None
    after: str | None
    from_path: str | None = None


@dataclass(frozen=True)
class HistoryResult:
    repo: str
    path: str
    line: int
    text: str
    events: list[TimelineEventOut]  # newest first
    complete: bool  # False when the walk stopped before it found where the entry came from


__all__ = [
    "DiagnosticOut",
    "EntryOut",
    "FileRead",
    "HistoryResult",
    "IndexTarget",
    "LoadResult",
    "LoadedRepo",
    "SearchResult",
    "SearchResults",
    "Status",
    "TimelineEventOut",
    "WriteResult",
    "entry_hash",
    "metadata_of",
]
