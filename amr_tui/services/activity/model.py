"""The records of an activity review, and the "reviewed up to" mark.

The mark is ``amr/reviewed.json`` inside the repo's git dir (as the dream review keeps its
viewed marks in ``amr/viewed.json``): ``{"commit": <oid or null>, "date": <ISO time>}``. A null
commit means "reviewed nothing yet, start at the root". It imports nothing from
``amr_tui.services``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from amr_tui.core.diff.entries import EntryChange, EntryDiff

REVIEWED_FILE = "amr/reviewed.json"  # inside the git dir, never in the work tree
TRAILER_REVERT = "Activity-Revert"  # the commit whose change (or all of it) a revert undoes
TRAILER_ENTRY = "Activity-Entry"  # the entry change id a one-entry revert undoes


class ActivityError(Exception):
    """An activity-review operation amr will not do; ``str()`` says why and what to do."""


@dataclass(frozen=True, slots=True)
class ActivityCommit:
    """One commit by someone other than the user, with its own entry diff (parent -> commit)."""

    oid: str
    parent: str | None  # None: a root commit (compared with nothing)
    author_name: str
    author_email: str
    date: datetime
    subject: str
    diff: EntryDiff
    # What the commit did to the load budget of the file the repo's agent loads (core.budget):
    # entries that loaded before and are past the cut now, and new ones written past it.
    pushed: tuple[str, ...] = ()
    landed: tuple[str, ...] = ()
    cut: str = ""  # "Claude Code stops loading MEMORY.md before line 201 (200 lines or 25 KB)"

    @property
    def short(self) -> str:
        return self.oid[:7]

    def writer(self, name: str) -> bool:
        """``name`` (folded) is part of the author's name or email."""
        want = " ".join(name.casefold().split())
        return want in " ".join(self.author_name.casefold().split()) or want in self.author_email.casefold()

    def past_cut(self) -> str:
        """``pushed 2 entries past the cut (…): "A", "B"; 1 new entry landed past it: "C"``, or ""."""
        parts = []
        if self.pushed:
            n = len(self.pushed)
            parts.append(
                f"pushed {n} entr{'y' if n == 1 else 'ies'} past the load budget's cut: " + _quoted(self.pushed)
            )
        if self.landed:
            n = len(self.landed)
            parts.append(f"wrote {n} new entr{'y' if n == 1 else 'ies'} past it: " + _quoted(self.landed))
        return ("; ".join(parts) + (f" ({self.cut})" if self.cut else "")) if parts else ""


def _quoted(texts: tuple[str, ...], most: int = 3) -> str:
    shown = ", ".join(f'"{t[:60]}"' for t in texts[:most])
    return shown + (f" and {len(texts) - most} more" if len(texts) > most else "")


@dataclass(frozen=True, slots=True)
class ActivityChange:
    """An entry change of the activity as a whole (start -> HEAD), with the last commit by
    someone else that touched one of its lines."""

    change: EntryChange
    commit: ActivityCommit


@dataclass(slots=True)
class Activity:
    """Everything others committed since ``start`` (exclusive) up to ``head``."""

    head: str | None
    start: str | None  # the commit the review starts after; None: from the root (everything)
    start_reason: str  # "mark", "since", "root", "the last N commits (no review yet)", "mark (off this branch)"
    user_email: str | None  # the repo's git identity: commits by any other author are listed
    commits: list[ActivityCommit]  # others' commits, oldest first (merges left out)
    together: EntryDiff  # start -> HEAD over the files others' commits touched
    changes: list[ActivityChange] = field(default_factory=list)  # together's changes that are others'
    own_commits: int = 0  # the user's own commits in the range (not listed)

    @property
    def count(self) -> int:
        """Unreviewed entry changes: what the tree shows."""
        return len(self.changes)

    def change(self, change_id: str, commit: str | None = None) -> tuple[EntryChange, str | None, EntryDiff] | None:
        """``(change, base commit of its diff, diff)`` by id: in ``commit``'s own diff when given,
        else in the changes as a whole, else in any commit's diff."""
        if commit is None:
            for c in self.changes:
                if c.change.id == change_id:
                    return c.change, self.start, self.together
        for ac in self.commits:
            if commit is not None and not ac.oid.startswith(commit):
                continue
            found = ac.diff.by_id(change_id)
            if found is not None:
                return found, ac.parent, ac.diff
        return None

    @property
    def authors(self) -> list[str]:
        """The authors of others' commits, in the order they first committed."""
        return list(dict.fromkeys(c.author_name for c in self.commits))

    def written_by(self, name: str) -> Activity:
        """Only the commits (and their changes) whose author's name or email holds ``name``."""
        commits = [c for c in self.commits if c.writer(name)]
        keep = {c.oid for c in commits}
        return Activity(
            self.head,
            self.start,
            self.start_reason,
            self.user_email,
            commits,
            self.together,
            [c for c in self.changes if c.commit.oid in keep],
            self.own_commits,
        )

    def commit(self, oid: str) -> ActivityCommit | None:
        matches = [c for c in self.commits if c.oid.startswith(oid)] if len(oid) >= 4 else []
        return matches[0] if len(matches) == 1 else None
