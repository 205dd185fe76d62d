"""Everything that waits for a person, and how long it has waited (pure).

A user found 77 memory and 164 skill writes pending for eight weeks, unnoticed: a review queue
rots when nothing says how old it is. Each :class:`Pending` thing (agents' unreviewed commits,
a pending dreaming run, an agent's writes waiting on a review-mode ``dreams/inbox-<date>``
branch) carries the time it started waiting; :func:`age_text` says it the way the tree does
(``9d``, ``2mo``), :func:`badge_text` the way the tree's repo row and the status line do
(``3 pending · oldest 9d``), and :func:`overdue` what is older than the configured limit.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass

KINDS = ("activity", "dream", "review")
DEFAULT_MAX_AGE_DAYS = 14


@dataclass(frozen=True, slots=True)
class Pending:
    repo: str
    kind: str  # "activity": an agent's commit not reviewed; "dream": a run; "review": a review-mode write branch
    ref: str  # the commit (activity) or the run id (dream, review)
    summary: str  # the commit's subject, or the run's summary (untrusted text)
    count: int  # entry changes (activity), 1 (a dream run), writes waiting (review)
    since: _dt.datetime  # when it started waiting (the commit's date, the run's first commit)
    who: str = ""  # the author (activity), or who made the run

    def age_days(self, now: _dt.datetime) -> int:
        return max(0, (now - self.since).days)


def age_text(days: int) -> str:
    """``today``, ``9d``, ``2mo``, ``1y``."""
    if days <= 0:
        return "today"
    if days < 60:
        return f"{days}d"
    if days < 730:
        return f"{days // 30}mo"
    return f"{days // 365}y"


def oldest(items: Sequence[Pending]) -> Pending | None:
    return min(items, key=lambda p: p.since, default=None)


def total(items: Sequence[Pending]) -> int:
    return sum(p.count for p in items)


def badge_text(count: int, oldest_since: _dt.datetime | None, now: _dt.datetime) -> str:
    """``3 pending · oldest 9d`` (``3 pending`` when the age is not known); empty with nothing."""
    if count <= 0:
        return ""
    if oldest_since is None:
        return f"{count} pending"
    return f"{count} pending \u00b7 oldest {age_text(max(0, (now - oldest_since).days))}"


def overdue(items: Sequence[Pending], max_age_days: int, now: _dt.datetime) -> list[Pending]:
    """What has waited longer than ``max_age_days`` days, oldest first."""
    return sorted((p for p in items if p.age_days(now) > max_age_days), key=lambda p: p.since)


__all__ = ["DEFAULT_MAX_AGE_DAYS", "KINDS", "Pending", "age_text", "badge_text", "oldest", "overdue", "total"]
