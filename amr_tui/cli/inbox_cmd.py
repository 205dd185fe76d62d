"""amr inbox [REPO...] [--json] [--max-age DAYS]: everything waiting for review, oldest first"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from amr_tui.cli.output import emit_json, error, paint, safe, use_colour
from amr_tui.core.inbox import DEFAULT_MAX_AGE_DAYS, Pending, age_text, overdue  # pure: no parser, no git

if TYPE_CHECKING:  # annotations only: the services are imported when the command runs
    from amr_tui.services.inbox import RepoInbox

# Lazy imports: each command imports the layers it runs when it runs, so that building the parser
# (`amr --help`, `amr <command>`) loads this module alone (tests/test_startup_path.py).

COMMANDS = ("inbox",)
_KIND = {"activity": "agent commit", "dream": "dreaming run", "review": "review-mode writes"}
_WHERE = {
    "activity": "`amr activity` (A in the app)",
    "dream": "`amr dreams show RUN` (V in the app)",
    "review": "`amr dreams show RUN` (V in the app)",
}


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "inbox",
        help="everything waiting for review across the repos, oldest first; exit 1 when any is too old",
        description=(
            "List everything that waits for a person in each memory repo, oldest first, with its age: "
            "agents' commits not reviewed yet (amr activity), pending dreaming runs, and agents' writes "
            "waiting on a review-mode dreams/inbox-<date> branch (amr mcp --review). Exit 1 when anything "
            f"has waited longer than --max-age days (the config's [inbox] max_age_days, default "
            f"{DEFAULT_MAX_AGE_DAYS}), so CI or a cron job can nag; 0 otherwise; 2 on an error."
        ),
    )
    p.add_argument("repos", nargs="*", type=Path, metavar="REPO", help="memory repos (default: ., else the config's)")
    p.add_argument("--max-age", type=int, metavar="DAYS", help="how long a thing may wait (default: the config's)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from amr_tui.services.config import load_config  # the repos and the limit: when the command runs
    from amr_tui.services.inbox import repo_inbox
    from amr_tui.services.workspace import discover, looks_like_memory_root

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
