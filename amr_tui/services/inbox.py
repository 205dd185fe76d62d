"""Everything waiting for review in a mounted repo, with its age (``amr inbox``, the tree's badge).

Three kinds of pending things (``core.inbox.Pending``):

* **activity**: commits by someone else (agents) with entry changes the user has not reviewed
  (``services.activity``), one item per commit, counting its entry changes, aged from the
  commit's author date;
* **dream**: a pending dreaming run (``services.dreams``), aged from its first commit;
* **review**: an agent's writes waiting on a review-mode ``dreams/inbox-<date>`` branch
  (``amr mcp --review``), counting its commits (one per write).

A folder that is not a git repo has no history, so nothing in it can wait: it is named in
``RepoInbox.note``.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field

from amr_tui.core.inbox import Pending
from amr_tui.git.errors import AmrGitError
from amr_tui.services.activity.model import ActivityError
from amr_tui.services.activity.service import ActivityService
from amr_tui.services.dreams.model import INBOX_STEM, DreamError
from amr_tui.services.dreams.service import DreamService
from amr_tui.services.workspace import Mount


@dataclass(slots=True)
class RepoInbox:
    repo: str
    items: list[Pending] = field(default_factory=list)
    note: str = ""  # why nothing could be read (not a git repo, git refused)


def activity_pending(name: str, activity: ActivityService) -> list[Pending]:
    """Others' commits with unreviewed entry changes, one item each."""
    found = activity.activity()
    by_commit: dict[str, list[int]] = {}
    commits = {}
    for n, change in enumerate(found.changes):
        by_commit.setdefault(change.commit.oid, []).append(n)
        commits[change.commit.oid] = change.commit
    return [
        Pending(name, "activity", oid, c.subject, len(by_commit[oid]), c.date, c.author_name)
        for oid, c in commits.items()
    ]


def dream_pending(name: str, dreams: DreamService, now: _dt.datetime) -> list[Pending]:
    """Pending dreaming runs, and review-mode write branches (their commits counted)."""
    out: list[Pending] = []
    for run in dreams.runs():
        review = run.id.startswith(INBOX_STEM)
        first = run.commits[-1].info if run.commits else None
        out.append(
            Pending(
                name,
                "review" if review else "dream",
                run.id,
                run.summary,
                len(run.commits) if review else 1,
                run.started or now,
                first.author_name if first else "",
            )
        )
    return out


def repo_inbox(
    mount: Mount,
    *,
    activity: ActivityService | None = None,
    dreams: DreamService | None = None,
    now: _dt.datetime | None = None,
) -> RepoInbox:
    """What waits in ``mount`` (the services given are used, else made and closed here)."""
    now = now or _dt.datetime.now(_dt.UTC)
    if not (mount.root / ".git").exists():
        return RepoInbox(mount.name, note="a plain folder, not a git repo: no history, so nothing can wait for review")
    own_activity, own_dreams = activity is None, dreams is None
    try:
        activity = activity or ActivityService(mount)
        dreams = dreams or DreamService(mount)
        items = activity_pending(mount.name, activity) + dream_pending(mount.name, dreams, now)
    except (AmrGitError, ActivityError, DreamError, ValueError) as exc:
        return RepoInbox(mount.name, note=str(exc))
    finally:
        if own_activity and activity is not None:
            activity.close()
        if own_dreams and dreams is not None:
            dreams.close()
    items.sort(key=lambda p: p.since)
    return RepoInbox(mount.name, items)


__all__ = ["RepoInbox", "activity_pending", "dream_pending", "repo_inbox"]
