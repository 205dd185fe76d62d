"""amr verify [REPO...] [--code PATH] [--json] and amr usage [REPO] [--json] (docs/verify.md)

The run of the commands; its parsers are in cli/parsers/verify.py."""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
from pathlib import Path

from amr_tui.cli.output import emit_json, error, paint, safe, use_colour
from amr_tui.services.config import load_config
from amr_tui.services.usage import UsageReport, usage_report
from amr_tui.services.verify.coderepo import code_sources
from amr_tui.services.verify.run import EntryCheck, VerifyReport, verify_mount
from amr_tui.services.workspace import Mount, discover

_STYLE = {"gone": "error", "moved": "warning", "holds": "dim", "due": "info"}


def _today(value: str | None) -> _dt.date:
    return _dt.date.fromisoformat(value) if value else _dt.date.today()


def run(args: argparse.Namespace) -> int:
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
