"""amr activity [REPO] [--since REV] [--json], amr activity mark-reviewed [REPO]

The run of the command; its parser is in cli/parsers/activity.py."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from amr_tui.cli.output import commit_json, emit_json, error, paint, safe, use_colour
from amr_tui.core.diff.entries import EntryChange
from amr_tui.core.diff.text import change_json, describe
from amr_tui.git.errors import AmrGitError
from amr_tui.services.activity.model import Activity, ActivityCommit, ActivityError
from amr_tui.services.activity.service import ActivityService
from amr_tui.services.workspace import discover


def _root(path: Path) -> Path:
    root = discover([path])[0].root  # any folder of Markdown memory, with or without MEMORY.md
    if not (root / ".git").exists():
        raise FileNotFoundError(
            f"{root} is a plain folder, not the top of a git repo: it has no history to review "
            "(git init there, and commit, to start one)"
        )
    return root


def _commit_json(c: ActivityCommit) -> dict[str, object]:
    past_cut = {"pushed": list(c.pushed), "landed": list(c.landed), "cut": c.cut}
    return {**commit_json(c.oid, c.author_name, c.author_email, c.date, c.subject), "past_cut": past_cut}


def _json(name: str, activity: Activity, change_json: Callable[[EntryChange], dict[str, Any]]) -> dict[str, object]:
    return {
        "repo": name,
        "head": activity.head,
        "since": activity.start,
        "since_reason": activity.start_reason,
        "user": activity.user_email,
        "count": activity.count,
        "own_commits": activity.own_commits,
        "changes": [{**change_json(c.change), **_commit_json(c.commit)} for c in activity.changes],
        "commits": [
            {**_commit_json(c), "changes": [change_json(ch) for ch in c.diff.changes]} for c in activity.commits
        ],
    }


def run_activity(args: argparse.Namespace) -> int:
    rest = list(args.args)
    mark = bool(rest) and rest[0] == "mark-reviewed"
    if mark:
        rest.pop(0)
    if len(rest) > 1:
        error("name one repo")
        return 2
    try:
        root = _root(Path(rest[0]) if rest else Path("."))
        service = ActivityService(root)
        if mark:
            oid = service.mark_reviewed(args.since)
            if args.json:
                emit_json({"repo": root.name, "reviewed": oid})
            else:
                print(f"{safe(root.name)}: reviewed up to {(oid or '(nothing yet)')[:7]}.")
            return 0
        activity = service.activity(args.since)
        if args.by:
            activity = activity.written_by(args.by)
    except (FileNotFoundError, ValueError, AmrGitError, ActivityError) as exc:
        error(str(exc))
        return 2
    if args.json:
        emit_json(_json(root.name, activity, change_json))
        return 0
    _print(root.name, activity, describe)
    return 0


def _print(name: str, activity: Activity, describe: Callable[[EntryChange], str]) -> None:
    colour = use_colour(sys.stdout)
    start = (activity.start or "")[:7] or "the first commit"
    since = {
        "mark": f"since the review mark ({start})",
        "mark (off this branch)": f"since the review mark (off this branch; from {start})",
        "since": f"since {start}",
        "root": "from the first commit (no review mark yet)",
    }.get(activity.start_reason, activity.start_reason)
    if not activity.commits:
        print(f"{safe(name)}: nothing unreviewed {since}.")
        return
    n = activity.count
    print(
        paint(
            f"{safe(name)}: {n} unreviewed entry change{'s' if n != 1 else ''} in {len(activity.commits)} "
            f"commit{'s' if len(activity.commits) != 1 else ''} by others, {since}",
            "bold",
            colour,
        )
    )
    for c in activity.commits:
        mine = [ac.change for ac in activity.changes if ac.commit is c]
        head = f"{c.short} {c.date.date().isoformat()} {c.author_name} <{c.author_email}>  {c.subject}"
        print(paint(safe(head), "yellow", colour))
        for ch in mine:
            print(f"  {safe(describe(ch))}  [{ch.id}]")
        if c.pushed or c.landed:
            print(paint(f"  {safe(c.past_cut())}", "warning", colour))
        if not mine:
            print("  (no entry change left as it was: changed again later, or no entries)")
    print("`amr activity mark-reviewed` marks them reviewed; in the app, A reviews them side by side.")
