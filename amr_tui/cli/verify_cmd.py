"""amr verify [REPO...] [--code PATH] [--json] and amr usage [REPO] [--json] (docs/verify.md)"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from amr_tui.cli.output import emit_json, error, paint, safe, use_colour

if TYPE_CHECKING:  # annotations only: the services are imported when a command runs (start-up of `amr`)
    from amr_tui.services.usage import UsageReport
    from amr_tui.services.verify.run import EntryCheck, VerifyReport

# Lazy imports: each command imports the layers it runs when it runs, so that building the parser
# (`amr --help`, `amr <command>`) loads this module alone (tests/test_startup_path.py).

COMMANDS = ("verify", "usage")
_STYLE = {"gone": "error", "moved": "warning", "holds": "dim", "due": "info"}


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "verify",
        help="list facts whose evidence no longer holds in the code they cite",
        description=(
            "Check each fact of memory repos against the code it cites: the paths, symbols, config names, "
            "package.json scripts, make targets, modules, commits and branches an entry names. Each holds "
            "(at the code repo's HEAD), moved (a rename git knows: where to) or is gone (since which commit "
            'and day). The code repo is --code PATH, the config\'s [repo."NAME"] code, or, for a Claude Code '
            "memory folder, its project. Nothing from the code repo is run; nothing is written. Exit 0 when "
            "every fact holds, 1 when some do not, 2 on an error."
        ),
    )
    p.add_argument("repos", nargs="*", type=Path, help="memory repos, or a folder holding several (default: .)")
    p.add_argument(
        "--code", action="append", default=[], type=Path, metavar="PATH", help="the code checkout (repeatable)"
    )
    p.add_argument("--json", action="store_true", help='print {"entries": [...], "repos": [...]}')
    p.add_argument("--all", action="store_true", help="list every fact with evidence, those that hold too")
    p.add_argument(
        "--due",
        action="store_true",
        help="also list facts that hold but were not verified (or added) within [verify] every (90 days)",
    )
    p.add_argument("--today", metavar="YYYY-MM-DD", help=argparse.SUPPRESS)
    p.set_defaults(func=run)

    u = sub.add_parser(
        "usage",
        help="entries by when agents last read them through amr mcp",
        description=(
            "List a memory repo's entries by when agents last read them through `amr mcp` (loaded, found by a "
            "search, or read with their file), least recently first; never-read entries first. Reads are "
            "recorded in the user data folder, never in the repo. Agents that read memory without amr are not "
            "counted: for a repo amr mcp never served, the count is unknown, not zero."
        ),
    )
    u.add_argument("repo", nargs="?", type=Path, default=Path("."), help="the memory repo (default: .)")
    u.add_argument("--json", action="store_true", help="print a JSON object")
    u.add_argument("--limit", type=int, default=0, help="at most N entries (default: all)")
    u.set_defaults(func=run)


def _today(value: str | None) -> _dt.date:
    return _dt.date.fromisoformat(value) if value else _dt.date.today()


def run(args: argparse.Namespace) -> int:
    from amr_tui.services.config import load_config
    from amr_tui.services.usage import usage_report
    from amr_tui.services.verify.coderepo import code_sources
    from amr_tui.services.verify.run import verify_mount
    from amr_tui.services.workspace import Mount, discover

    if args.command == "usage":
        try:
            mounts = discover([args.repo])
        except (FileNotFoundError, ValueError) as exc:
            error(str(exc))
            return 2
        if len(mounts) != 1:
            error("name one memory repo")
            return 2
        return _usage(args, usage_report(mounts[0]))

    def judge(m: Mount) -> VerifyReport:
        return verify_mount(m, code_sources(m, cfg, args.code), today=today, every=cfg.verify_every)

    try:
        today = _today(args.today)
        mounts = discover(args.repos or [Path(".")])
    except (FileNotFoundError, ValueError) as exc:
        error(str(exc))
        return 2
    if not mounts:
        error("no memory repo found")
        return 2
    cfg = load_config()
    reports = [verify_mount(m, code_sources(m, cfg, args.code), today=today, every=cfg.verify_every) for m in mounts]
    errors = [e for r in reports for e in r.errors]
    if args.json:
        emit_json(_json(reports, args))
    else:
        _print(reports, args)
    for e in errors:
        error(e)
    if errors and not any(r.heads for r in reports):
        return 2
    return 1 if any(r.stale for r in reports) else 0


def _shown(report: VerifyReport, args: argparse.Namespace) -> list[EntryCheck]:
    if args.all:
        return list(report.entries)
    return [e for e in report.entries if e.stale or (args.due and e.due)]


def _json(reports: list[VerifyReport], args: argparse.Namespace) -> dict[str, object]:
    return {
        "entries": [e.to_json() for r in reports for e in _shown(r, args)],
        "repos": [
            {
                "repo": r.repo,
                "code": [{"path": str(s.path), "why": s.why} for s in r.sources],
                "heads": r.heads,
                "checked": len(r.entries),
                "stale": len(r.stale),
                "due": len(r.due),
                "errors": r.errors,
            }
            for r in reports
        ],
    }


def _print(reports: list[VerifyReport], args: argparse.Namespace) -> None:
    colour = use_colour(sys.stdout)
    several = len(reports) > 1
    for r in reports:
        prefix = f"{r.repo}/" if several else ""
        for e in _shown(r, args):
            status = e.status or "unknown"
            if not e.stale and e.due:
                status = "due"
            head = f"{paint(safe(prefix + e.path), 'path', colour)}:{e.line}: {paint(status, _STYLE.get(status, ''), colour)}"
            print(f"{head}: {safe(e.text)}")
            if status == "due":
                when = (
                    f"last verified {e.verified}" if e.verified else f"added {e.added}" if e.added else "never verified"
                )
                print(f"    {when}")
            for c in e.checks:
                if c.verdict.status == "unknown" and not args.all:
                    continue
                print(f"    {safe(c.evidence.label)}: {c.verdict.status}: {safe(c.verdict.detail)}")
        against = ", ".join(f"{name} at {head[:7]}" for name, head in r.heads.items()) or "no code repo"
        stale, due = len(r.stale), len(r.due)
        note = f"; {due} due for a check" if args.due else ""
        print(
            f"{safe(r.repo)}: {stale} of {len(r.entries)} fact{'s' if len(r.entries) != 1 else ''} with evidence "
            f"no longer hold{'s' if stale == 1 else ''}{note} (against {safe(against)})",
            file=sys.stderr,
        )


def _usage(args: argparse.Namespace, report: UsageReport) -> int:
    rows = report.rows[: args.limit] if args.limit > 0 else report.rows
    if args.json:
        emit_json(
            {
                "repo": report.repo,
                "known": report.known,
                "since": report.since,
                "entries": [r.to_json() for r in rows],
            }
        )
        return 0
    if not report.known:
        print(
            f"{safe(report.repo)}: amr mcp never served this repo: how often agents read its entries is unknown "
            "(agents that read memory without amr are not counted)",
            file=sys.stderr,
        )
    for row in rows:
        reads = "unknown" if row.reads is None else f"{row.reads} read{'s' if row.reads != 1 else ''}"
        last = row.last[:10] if row.last else "never"
        print(f"{safe(row.path)}:{row.line}: {reads}, last {last}: {safe(row.text)}")
    if report.known:
        print(
            f"{safe(report.repo)}: reads recorded by amr mcp since {report.since[:10] if report.since else '?'}",
            file=sys.stderr,
        )
    return 0


__all__ = ["add_parsers"]
