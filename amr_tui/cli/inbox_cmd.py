"""amr inbox [REPO...] [--json] [--max-age DAYS]: everything waiting for review, oldest first

The run of the command; its parser is in cli/parsers/inbox.py."""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
from pathlib import Path
from typing import Any

from amr_tui.cli.output import emit_json, error, paint, safe, use_colour
from amr_tui.core.inbox import Pending, age_text, overdue
from amr_tui.services.config import load_config
from amr_tui.services.inbox import RepoInbox, repo_inbox
from amr_tui.services.workspace import discover, looks_like_memory_root

_KIND = {"activity": "agent commit", "dream": "dreaming run", "review": "review-mode writes"}
_WHERE = {
    "activity": "`amr activity` (A in the app)",
    "dream": "`amr dreams show RUN` (V in the app)",
    "review": "`amr dreams show RUN` (V in the app)",
}


def run(args: argparse.Namespace) -> int:
    cfg = load_config()
    limit = args.max_age if args.max_age is not None else cfg.inbox_max_age_days
    if limit < 0:
        error("--max-age takes a number of days, 0 or more")
        return 2
    paths = list(args.repos) or ([Path(".")] if looks_like_memory_root(Path(".")) else list(cfg.repos))
    if not paths:
        error("no memory repo here and none in the config: name one (amr inbox REPO)")
        return 2
    try:
        mounts = discover(paths)
    except FileNotFoundError as exc:
        error(str(exc))
        return 2
    now = _dt.datetime.now(_dt.UTC)
    boxes = [repo_inbox(m, now=now) for m in mounts]
    items = sorted((p for b in boxes for p in b.items), key=lambda p: p.since)
    late = overdue(items, limit, now)
    if args.json:
        emit_json(
            {
                "max_age_days": limit,
                "count": sum(p.count for p in items),
                "oldest_days": items[0].age_days(now) if items else None,
                "overdue": len(late),
                "items": [_json(p, now, limit) for p in items],
                "repos": [{"repo": b.repo, "pending": sum(p.count for p in b.items), "note": b.note} for b in boxes],
            }
        )
    else:
        _print(boxes, items, late, now, limit)
    return 1 if late else 0


def _json(p: Pending, now: _dt.datetime, limit: int) -> dict[str, Any]:
    return {
        "repo": p.repo,
        "kind": p.kind,
        "ref": p.ref,
        "summary": p.summary,
        "count": p.count,
        "since": p.since.isoformat(),
        "age_days": p.age_days(now),
        "overdue": p.age_days(now) > limit,
        "who": p.who,
    }


def _print(boxes: list[RepoInbox], items: list[Pending], late: list[Pending], now: _dt.datetime, limit: int) -> None:
    colour = use_colour(sys.stdout)
    for b in boxes:
        if b.note:
            print(f"{safe(b.repo)}: {safe(b.note)}")
    if not items:
        print("Nothing waits for review.")
        return
    n = sum(p.count for p in items)
    head = f"{n} pending \u00b7 oldest {age_text(items[0].age_days(now))}"
    if late:
        head += f" \u00b7 {len(late)} older than {limit} days"
    print(paint(head, "bold", colour))
    for p in items:
        days = p.age_days(now)
        line = (
            f"  {age_text(days):>6}  {safe(p.repo)}  {_KIND[p.kind]} {safe(p.ref[:12] if p.kind == 'activity' else p.ref)}"
            f"  ({p.count} {'change' if p.kind == 'activity' else 'write' if p.kind == 'review' else 'run'}"
            f"{'s' if p.count != 1 else ''})  {safe(p.summary)}"
        )
        print(paint(line, "warning", colour) if days > limit else line)
    kinds = sorted({p.kind for p in items})
    print("Review them with " + "; ".join(dict.fromkeys(_WHERE[k] for k in kinds)) + ".")
