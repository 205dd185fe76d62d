"""amr dream [REPO] [--agent CMD] and amr dreams list|show|accept|reject|undo (docs/dreams.md)

The run of the commands; its parsers are in cli/parsers/dream.py."""

from __future__ import annotations

import argparse
import datetime as _dt
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path

from amr_tui.cli.output import ask, emit_json, error, paint, report_skipped, safe, skipped_json, use_colour
from amr_tui.core.diff.align import align
from amr_tui.core.diff.text import diff_json, summary_lines
from amr_tui.git.errors import AmrGitError
from amr_tui.services.budgets import current_budgets, profile_of
from amr_tui.services.config import load_config
from amr_tui.services.dreams.check import accept_problems
from amr_tui.services.dreams.evidence import builtin_with_evidence
from amr_tui.services.dreams.make import agent_dream, trim_dream
from amr_tui.services.dreams.model import Decision, DreamError, DreamRun
from amr_tui.services.dreams.schedule import ScheduleError, install, plan
from amr_tui.services.dreams.service import DreamService
from amr_tui.services.verify.coderepo import code_sources
from amr_tui.services.workspace import find_repo_root, style_of


def _service(path: Path) -> DreamService:
    root = find_repo_root(path)
    if root is None or not (root / ".git").exists():
        raise FileNotFoundError(f"{path} is not inside a memory repo with git")
    return DreamService(root)


def _fail(exc: Exception) -> int:
    error(str(exc))
    return 2


def _age(run: DreamRun) -> str:
    if run.started is None:
        return ""
    seconds = max(0, int((datetime.now(UTC) - run.started).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return "just now"


def run_json(run: DreamRun) -> dict[str, object]:
    return {
        "id": run.id,
        "branch": run.branch,
        "state": run.state,
        "summary": run.summary,
        "tip": run.tip,
        "base": run.base,
        "main": run.main,
        "commits": len(run.commits),
        "started": run.started.isoformat() if run.started else None,
        "files_changed": run.files_changed,
        "entries_added": run.entries_added,
        "entries_removed": run.entries_removed,
        "main_moved": run.main_moved,
        "based_on_main": run.based_on_main,
        "accept_commits": run.accept_commits,
        "decision": None if run.decision is None else _decision_json(run.decision),
    }


def _decision_json(decision: Decision) -> dict[str, object]:
    return {"state": decision.state, "ref": decision.ref, "record": decision.record, "date": decision.date.isoformat()}


def _card(run: DreamRun, colour: bool) -> list[str]:
    moved = (
        "based on main's tip"
        if run.based_on_main
        else f"main moved {run.main_moved} commit{'s' if run.main_moved != 1 else ''} since"
    )
    n = len(run.commits)
    head = (
        f"{paint(safe(run.branch), 'bold', colour)}  {run.state}  {n} commit{'s' if n != 1 else ''}, "
        f"{run.files_changed} file{'s' if run.files_changed != 1 else ''} changed, "
        f"+{run.entries_added} -{run.entries_removed} entries, {_age(run)}, {moved}"
    )
    lines = [head, f"  {safe(run.summary)}"]
    if run.accept_commits:
        n = len(run.accept_commits)
        lines.append(f"  partly accepted already ({n} commit{'s' if n != 1 else ''} on main)")
    return lines


def run_list(args: argparse.Namespace) -> int:
    try:
        service = _service(args.repo)
        runs = service.runs(closed=args.all)
    except (FileNotFoundError, AmrGitError, ValueError) as exc:
        return _fail(exc)
    if args.json:
        emit_json([run_json(r) for r in runs])
        return 0
    colour = use_colour(sys.stdout)
    for r in runs:
        print("\n".join(_card(r, colour)))
    if not runs:
        print("No pending dreaming runs.", file=sys.stderr)
    return 0


def run_show(args: argparse.Namespace) -> int:
    try:
        service = _service(args.repo)
        review = service.review(args.run, history=not args.no_history)
    except (FileNotFoundError, AmrGitError, DreamError, ValueError) as exc:
        return _fail(exc)
    report_skipped(review.skipped)
    odd = service.contradictions(review)
    cfg = load_config()
    service.code = lambda: code_sources(service.mount, cfg)  # new entries' evidence: the config's code
    checks = service.evidence_notes(review)
    if args.json:
        data = diff_json(review.diff)
        data["skipped"] = skipped_json(review.skipped)
        data["run"] = run_json(review.run)
        data["applied"] = sorted(review.applied)
        data["viewed"] = {f.path: f.viewed for f in review.files}
        data["rejected"] = sorted(review.rejected)
        data["main_changed"] = review.main_changed  # change id -> what main did to its entry since the run
        data["contradictions"] = odd  # change id -> ["contradicts path:line (A vs B)?"]
        data["reasons"] = review.reasons  # change id -> why the run made it (Dream-Reason)
        data["checks"] = {
            cid: [note for note, _warn in notes] for cid, notes in checks.items()
        }  # added/rewritten entries
        emit_json(data)
        return 0
    colour = use_colour(sys.stdout)
    print("\n".join(_card(review.run, colour)))
    for line in summary_lines(review.diff, applied=review.applied, rejected=review.rejected):
        print(safe(line))
    for cid, what in sorted(review.main_changed.items()):
        print(safe(f"  {cid}: {service.main} changed this since the run: {what}"))
    for cid, notes in sorted(odd.items()):
        for note in notes:
            print(safe(f"  {cid}: possible contradiction: {note}"))
    for cid, why in sorted(review.reasons.items()):
        print(safe(f"  {cid}: why: {why}"))
    for cid, found in sorted(checks.items()):
        for note, _warn in found:
            print(safe(f"  {cid}: {note}"))
    if args.file:
        print(f"--- {safe(args.file)}: base | run")
        for row in align(review.diff, args.file):
            left = safe(row.old_text) if row.old_text is not None else ""
            right = safe(row.new_text) if row.new_text is not None else ""
            print(f"{row.kind:<11} {left[:60]:<60} | {right[:60]}")
    return 0


def run_accept(args: argparse.Namespace) -> int:
    edits: dict[str, str] = {}
    for item in args.edit:
        cid, sep, text = item.partition("=")
        if not sep or not cid:
            error(f"--edit takes ID=TEXT, not {item!r}")
            return 2
        edits[cid.strip()] = text
    entries = list(dict.fromkeys([*args.entry, *edits, *args.replace]))
    replace = list(args.replace)
    try:
        service = _service(args.repo)
        problems = accept_problems(service, args.run, files=args.file, entries=entries, edits=edits, replace=replace)
        if args.check:
            for problem in problems:
                print(safe(str(problem)))
            print(f"The accept would break {len(problems)} thing(s)." if problems else "The accept breaks nothing.")
            return 1 if problems else 0
        clashes = [p for p in problems if p.kind in ("versions", "dropped")]
        if clashes and not args.keep_both:
            for problem in clashes:
                print(f"{safe(problem.change)}: {safe(str(problem))}", file=sys.stderr)
            error(
                f"{safe(service.main)} changed {len(clashes)} of these entries since the run started; nothing "
                "was committed. --replace ID takes the run's version instead of main's, --keep-both keeps "
                "both, or leave the entry out."
            )
            return 1
        result = service.accept(args.run, files=args.file, entries=entries, edits=edits, replace=replace)
    except (FileNotFoundError, AmrGitError, DreamError, ValueError) as exc:
        return _fail(exc)
    for problem in problems:  # the reviewer decided; say what is left to mend
        print(f"warning: {safe(str(problem))}", file=sys.stderr)
    if result.how == "fast-forward":
        print(f"Accepted run {safe(result.run)}: {safe(service.main)} fast-forwarded to {(result.commit or '')[:7]}.")
    elif result.how == "commit":
        print(
            f"Accepted {', '.join(safe(i) for i in result.items)} from run {safe(result.run)} as {(result.commit or '')[:7]} on {safe(service.main)}."
        )
    else:
        print(f"Nothing to do: {safe(service.main)} already has {', '.join(safe(i) for i in result.items)}.")
    if result.closed:
        print(f"Run {safe(result.run)} is closed (`amr dreams undo {safe(result.run)}` reopens it).")
    return 0


def run_reject(args: argparse.Namespace) -> int:
    try:
        service = _service(args.repo)
        if args.file or args.entry:
            service.reject_parts(args.run, files=args.file, changes=args.entry, rejected=not args.clear)
            what = ", ".join([*(safe(f) for f in args.file), *(safe(e) for e in args.entry)])
            print(
                f"{'No longer rejected' if args.clear else 'Rejected'}: {what}. Nothing was committed; "
                f"accepting the run leaves rejected parts out."
            )
            return 0
        ref = service.reject(args.run)
    except (FileNotFoundError, AmrGitError, DreamError, ValueError) as exc:
        return _fail(exc)
    print(f"Rejected. The run's commits are kept under {safe(ref)}; `amr dreams undo {safe(args.run)}` reopens it.")
    return 0


def run_undo(args: argparse.Namespace) -> int:
    try:
        note = _service(args.repo).undo(args.run)
    except (FileNotFoundError, AmrGitError, DreamError, ValueError) as exc:
        return _fail(exc)
    print(safe(note[:1].upper() + note[1:]) + ".")
    return 0


def run_dream(args: argparse.Namespace) -> int:
    try:
        today = _dt.date.fromisoformat(args.today) if args.today else None
    except ValueError:
        error(f"--today must be YYYY-MM-DD, not {args.today!r}")
        return 2
    if args.install_schedule:
        cfg = load_config()
        try:
            root = _service(args.repo).mount.root
            p = plan(root, agent=args.agent or cfg.dream_agent, every=cfg.dream_every, kind=args.schedule_with)
        except (FileNotFoundError, AmrGitError, DreamError, ValueError, ScheduleError) as exc:
            return _fail(exc)
        print(p.describe())
        if not args.yes and not ask("Add it? [y/N] "):
            print("Nothing was added.")
            return 1
        try:
            print(install(p, enable=not args.no_enable))
        except (ScheduleError, OSError) as exc:
            return _fail(exc)
        return 0
    try:
        service = _service(args.repo)
        if args.agent:
            argv = shlex.split(args.agent)
            outcome = agent_dream(service, argv, run_id=args.run_id, timeout=args.timeout, today=today)
            run = outcome.run
            if outcome.result.timed_out:
                error("the agent timed out")
            elif outcome.result.returncode != 0:
                error(f"the agent exited with status {outcome.result.returncode}")
            if outcome.leftovers:
                error("the agent left uncommitted changes; they were discarded with its work tree")
        elif args.trim:
            profile = current_budgets().named(args.budget) if args.budget else profile_of(service.mount)
            if profile is None:
                error(f"--budget {args.budget!r}: no such agent (amr loads --help lists them)")
                return 2
            run = trim_dream(service, profile, style=style_of(service.mount), today=today, run_id=args.run_id)
        else:
            run, notes = builtin_with_evidence(
                service, service.mount, load_config(), today=today, run_id=args.run_id, code=args.code or None
            )
            for note in notes:
                print(f"amr dream: {safe(note)}", file=sys.stderr)
    except (FileNotFoundError, AmrGitError, DreamError, ValueError) as exc:
        return _fail(exc)
    if args.json:
        emit_json(run_json(run) if run else None)
        return 0 if run else 1
    if run is None:
        print(
            "The agent made no commits: no run was made."
            if args.agent
            else "MEMORY.md is within its load budget: nothing to trim, no run was made."
            if args.trim
            else "Nothing to dream about: no run was made.",
            file=sys.stderr,
        )
        return 1
    print("\n".join(_card(run, use_colour(sys.stdout))))
    for commit in reversed(run.commits):  # the trim's steps say the budget before and after
        budget = next((ln for ln in commit.body.splitlines() if ln.startswith("Budget (")), None)
        if budget:
            print(f"  {safe(budget)}")
    print(f"Review it with: amr dreams show {safe(run.id)}")
    return 0
