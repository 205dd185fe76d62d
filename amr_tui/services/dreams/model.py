"""The records of dreaming runs, and what the writing side needs of a repo's runs.

Dreaming runs are branches ``dreams/<run-id>``; decisions about them are refs under
``refs/amr/dreams/``. This module holds the names of those refs and trailers, the records a
review is made of (:class:`DreamRun`, :class:`RunReview`...) and :class:`RunSource`, the reading
side that :mod:`.write`, :mod:`.check` and :mod:`.make` work on (``DreamService`` in
:mod:`.service` is one). It imports nothing from ``amr_tui.services``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from amr_tui.core.diff.entries import EntryChange, EntryDiff, EntryRef
from amr_tui.git import GitRepo
from amr_tui.git import history as gh
from amr_tui.git.catfile import BlobReader

if TYPE_CHECKING:  # the protocol's annotation only: this module imports nothing from amr_tui.services
    from amr_tui.services.workspace import Mount

BRANCH_PREFIX = "dreams/"
INBOX_STEM = "inbox-"  # review mode's pending branch of agents' writes: dreams/inbox-<date>[-n]
DECISION_PREFIX = "refs/amr/dreams/"  # + "accepted/<id>" or "rejected/<id>"
TRAILER_RUN = "Dream-Run"
TRAILER_COMMIT = "Dream-Commit"
TRAILER_ACCEPTED = "Dream-Accepted"
TRAILER_UNDO = "Dream-Undo"


class DreamError(Exception):
    """A dreaming-run operation amr will not do; ``str()`` says why and what to do."""


@dataclass(frozen=True, slots=True)
class Decision:
    state: str  # "accepted" or "rejected"
    ref: str
    record: str  # the decision commit
    tip: str  # the run's tip when the decision was taken
    main_before: str | None
    main_after: str | None
    accept_commits: tuple[str, ...]
    date: datetime


@dataclass(slots=True)
class DreamRun:
    id: str
    branch: str
    state: str  # "pending", "accepted", "rejected"
    tip: str
    base: str | None
    main: str | None  # main's tip now
    commits: list[gh.LogEntry]  # base..tip, newest first
    files_changed: int = 0
    entries_added: int = 0
    entries_removed: int = 0
    main_moved: int = 0  # commits on main since the base
    accept_commits: list[str] = field(default_factory=list)  # commits on main naming this run
    decision: Decision | None = None

    @property
    def summary(self) -> str:
        subjects = [c.info.subject.removeprefix("dream: ") for c in reversed(self.commits)]
        return "; ".join(subjects) if subjects else "(no commits)"

    @property
    def started(self) -> datetime | None:
        return self.commits[-1].info.author_date if self.commits else None

    @property
    def based_on_main(self) -> bool:
        return self.base is not None and self.base == self.main


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """A file the run changes, as git sees it (no entry read yet)."""

    path: str
    status: str  # "added", "modified", "deleted"
    lines: tuple[int, int] | None  # (added, removed) text lines; None for a binary file
    viewed: bool


@dataclass(frozen=True, slots=True)
class FileReview:
    path: str
    status: str
    counts: dict[str, int]
    changes: tuple[str, ...]
    viewed: bool
    rejected: bool = False  # the reviewer rejected this file


@dataclass(slots=True)
class RunReview:
    run: DreamRun
    diff: EntryDiff
    files: list[FileReview]
    applied: set[str]  # ids of changes main already has
    rejected: set[str] = field(default_factory=set)  # ids rejected (directly, or by a rejected file)
    rejected_files: set[str] = field(default_factory=set)
    skipped: list[gh.SkippedBlob] = field(default_factory=list)  # files over MAX_PARSE_BYTES, not read
    now: EntryDiff | None = None  # main now -> tip (None: main has not moved, ``diff`` is it)
    now_map: dict[str, str] = field(default_factory=dict)  # ``now``'s change ids -> the run's
    main_changed: dict[str, str] = field(default_factory=dict)  # change id -> what main did to its entry
    contradictions: dict[str, list[str]] = field(default_factory=dict)  # change id -> "contradicts p:4 (A vs B)?"
    main_now: dict[str, EntryRef] = field(default_factory=dict)  # change id -> main's version of it now
    reasons: dict[str, str] = field(default_factory=dict)  # change id -> why the run made it (Dream-Reason)

    def change(self, change_id: str) -> EntryChange | None:
        return self.diff.by_id(change_id)


def run_id_of(name: str) -> str:
    """``dreams/x`` or ``x`` -> ``x``."""
    name = name.strip()
    if name.startswith("refs/heads/"):
        name = name[len("refs/heads/") :]
    return name[len(BRANCH_PREFIX) :] if name.startswith(BRANCH_PREFIX) else name


def trailer_values(body: str, key: str) -> list[str]:
    return [ln.split(":", 1)[1].strip() for ln in body.splitlines() if ln.startswith(key + ":")]


class RunSource(Protocol):
    """The reading side of one repo's dreaming runs, as accepting, checking and making runs use it."""

    @property
    def repo(self) -> GitRepo: ...

    @property
    def blobs(self) -> BlobReader: ...

    @property
    def mount(self) -> Mount:
        """The repo as mounted (its name and folder: which agent reads it, ``services.budgets``)."""
        ...

    @property
    def main(self) -> str:
        """The branch runs are reviewed against and accepted onto."""
        ...

    def main_tip(self) -> str | None: ...

    def run(self, name: str, *, counts: bool = True) -> DreamRun: ...

    def review(self, name: str | DreamRun, *, history: bool = True) -> RunReview: ...
