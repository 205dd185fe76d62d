"""amr dream [REPO] [--agent CMD] and amr dreams list|show|accept|reject|undo (docs/dreams.md)"""

from __future__ import annotations

import argparse
import datetime as _dt
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from amr_tui.cli.history_cmd import report_skipped, skipped_json
from amr_tui.cli.output import emit_json, error, paint, safe, use_colour

if TYPE_CHECKING:  # annotations only: the dreams services are imported when a command runs (start-up of `amr`)
    from amr_tui.services.dreams.model import DreamRun
    from amr_tui.services.dreams.service import DreamService

# Lazy imports: each command imports the layers it runs when it runs, so that building the parser
# (`amr --help`, `amr <command>`) loads this module alone (tests/test_startup_path.py).

COMMANDS = ("dream", "dreams")


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    d = sub.add_parser(
        "dream",
        help="run a dreaming pass onto a new dreams/<id> branch",
        description=(
            "Run amr's built-in, deterministic dreaming pass (drop entries whose evidence is gone from the code "
            "they cite and rewrite those whose evidence moved, drop entries no agent read through amr mcp for "
            "[dream] unread days where reads are known, each with its reason; merge duplicates keeping every "
            "source, drop entries whose `expires` date passed, repair links to renamed files, rebuild the "
            "MEMORY.md Index) and commit it on a new branch dreams/<run-id>, or with --agent run your own agent "
            "command in a temporary work tree on that branch. Main, its work tree and its index are never "
            "touched: review the run with `amr dreams show`."
        ),
    )
    d.add_argument("repo", nargs="?", type=Path, default=Path("."), help="the memory repo (default: .)")
    d.add_argument(
        "--install-schedule",
        action="store_true",
        help="show the crontab line or systemd user timer that runs `amr dream REPO` every [dream] every "
        "(1d), with [dream] agent if set; ask, then add it",
    )
    d.add_argument("--schedule-with", choices=("systemd", "cron"), help="with --install-schedule: which scheduler")
    d.add_argument("--yes", action="store_true", help="with --install-schedule: add it without asking")
    d.add_argument(
        "--no-enable",
        action="store_true",
        help="with --install-schedule: write the systemd units, do not run systemctl --user (it prints the commands)",
    )
    d.add_argument(
        "--agent",
        metavar="CMD",
        help="run CMD (split like a shell would, but run without one) "
        "in a temporary git worktree on the new branch; what it commits becomes the run",
    )
    d.add_argument(
        "--trim",
        action="store_true",
        help="instead: a run that brings MEMORY.md under its agent's load budget (amr loads shows it): merge "
        "near-duplicates keeping every source, move entries to topic files and link them, shorten the Index "
        "by folder; no fact is deleted",
    )
    d.add_argument(
        "--budget",
        metavar="AGENT",
        help="with --trim: the agent whose budget to trim to (default: the repo's, as amr loads says)",
    )
    d.add_argument("--run-id", metavar="ID", help="the run id (default: DATE-amr, DATE-agent or DATE-trim, numbered)")
    d.add_argument("--today", metavar="YYYY-MM-DD", help="the date to check `expires` against (default: today)")
    d.add_argument("--timeout", type=float, metavar="SECONDS", help="stop the agent after this long")
    d.add_argument("--json", action="store_true", help="print the new run as JSON")
    d.add_argument(
        "--code",
        action="append",
        default=[],
        type=Path,
        metavar="PATH",
        help="the code checkout entries are checked against (default: the config's, or a Claude Code folder's project)",
    )
    d.set_defaults(func=run_dream)

    p = sub.add_parser(
        "dreams",
        help="review pending dreaming runs",
        description=(
            "Pending dreaming runs are branches dreams/<run-id> on top of main as it was when the run "
            "started. RUN is a run id or its branch name."
        ),
    )
    ds = p.add_subparsers(dest="dreams_command", metavar="ACTION")
    p.set_defaults(func=lambda a: _usage(p))

    ls = ds.add_parser("list", help="pending runs, oldest first", description="List the pending dreaming runs.")
    ls.add_argument("repo", nargs="?", type=Path, default=Path("."), help="the memory repo (default: .)")
    ls.add_argument("--all", action="store_true", help="also list accepted and rejected runs")
    ls.add_argument("--json", action="store_true", help="print a JSON array")
    ls.set_defaults(func=run_list)

    sh = ds.add_parser(
        "show",
        help="the entry-level changes of one run",
        description=(
            "Show what a run changes, entry by entry: merged (A + B -> C, sources kept or lost), reworded, "
            "moved (from and to), metadata only, dropped, new (and what it was inferred from), and "
            "resurrected (a fact deleted earlier or tombstoned coming back: a warning)."
        ),
    )
    _run_args(sh)
    sh.add_argument("--json", action="store_true", help="print the changes as JSON")
    sh.add_argument("--file", metavar="PATH", help="also print this file side by side (old | new)")
    sh.add_argument("--no-history", action="store_true", help="skip the check against forgotten facts (faster)")
    sh.set_defaults(func=run_show)

    ac = ds.add_parser(
        "accept",
        help="accept a run, some files or some entry changes",
        description=(
            "Accept the whole run (main fast-forwards when the run is based on its tip; otherwise one new "
            "commit applies it, with Dream-Run and Dream-Commit trailers), or only --file PATH or --entry ID "
            "(ids from `amr dreams show`). Accepting parts leaves the run pending."
        ),
    )
    _run_args(ac)
    ac.add_argument(
        "--file", action="append", default=[], metavar="PATH", help="accept this file's changes (repeatable)"
    )
    ac.add_argument("--entry", action="append", default=[], metavar="ID", help="accept this entry change (repeatable)")
    ac.add_argument(
        "--edit",
        action="append",
        default=[],
        metavar="ID=TEXT",
        help="accept entry change ID with this text instead of the run's (repeatable)",
    )
    ac.add_argument(
        "--replace",
        action="append",
        default=[],
        metavar="ID",
        help="accept entry change ID, its version replacing the one main wrote since the run started (repeatable)",
    )
    ac.add_argument(
        "--keep-both",
        action="store_true",
        help="accept entries main changed since the run started as they are, keeping main's version beside the run's",
    )
    ac.add_argument(
        "--check",
        action="store_true",
        help="commit nothing: list what the accept would break (two versions of an entry, duplicates, "
        "links, Index links, unreachable files, MEMORY.md's budget); exit 1 if anything",
    )
    ac.set_defaults(func=run_accept)

    rj = ds.add_parser(
        "reject",
        help="close a run, or reject some files or entry changes",
        description=(
            "Close the run: it leaves the pending list, its commits stay under refs/amr/dreams/rejected/<id> "
            "with the decision recorded; `amr dreams undo RUN` reopens it. With --file or --entry, only mark "
            "those parts rejected (nothing is committed): accepting the run later leaves them out."
        ),
    )
    _run_args(rj)
    rj.add_argument(
        "--file", action="append", default=[], metavar="PATH", help="reject this file's changes (repeatable)"
    )
    rj.add_argument("--entry", action="append", default=[], metavar="ID", help="reject this entry change (repeatable)")
    rj.add_argument("--clear", action="store_true", help="with --file/--entry: take those rejections back")
    rj.set_defaults(func=run_reject)

    un = ds.add_parser(
        "undo",
        help="undo the last decision on a run",
        description=(
            "Reopen a rejected run; revert an accepted run on main with a new commit and reopen it; or "
            "revert the parts of a pending run that were accepted. History is never rewritten."
        ),
    )
    _run_args(un)
    un.set_defaults(func=run_undo)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _run_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", metavar="RUN", help="run id or dreams/<id> branch")
    p.add_argument("-C", "--repo", type=Path, default=Path("."), help="the memory repo (default: .)")


def _service(path: Path) -> DreamService:
    from amr_tui.services.dreams.service import DreamService
    from amr_tui.services.workspace import find_repo_root

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
        "decision": None
        if run.decision is None
        else {
            "state": run.decision.state,
            "ref": run.decision.ref,
            "record": run.decision.record,
            "date": run.decision.date.isoformat(),
        },
    }


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
    from amr_tui.git.errors import AmrGitError

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
    from amr_tui.core.diff.align import align
    from amr_tui.core.diff.text import diff_json, summary_lines
    from amr_tui.git.errors import AmrGitError
    from amr_tui.services.config import load_config
    from amr_tui.services.dreams.model import DreamError
    from amr_tui.services.verify.coderepo import code_sources

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
    from amr_tui.git.errors import AmrGitError
    from amr_tui.services.dreams.check import accept_problems  # when run: `amr` starts without it
    from amr_tui.services.dreams.model import DreamError

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
    from amr_tui.git.errors import AmrGitError
    from amr_tui.services.dreams.model import DreamError

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
    from amr_tui.git.errors import AmrGitError
    from amr_tui.services.dreams.model import DreamError

    try:
        note = _service(args.repo).undo(args.run)
    except (FileNotFoundError, AmrGitError, DreamError, ValueError) as exc:
        return _fail(exc)
    print(safe(note[:1].upper() + note[1:]) + ".")
    return 0


def run_dream(args: argparse.Namespace) -> int:
    from amr_tui.git.errors import AmrGitError
    from amr_tui.services.budgets import current_budgets, profile_of
    from amr_tui.services.dreams.evidence import builtin_with_evidence  # when run: `amr` starts without it
    from amr_tui.services.dreams.make import agent_dream, trim_dream
    from amr_tui.services.dreams.model import DreamError
    from amr_tui.services.workspace import style_of

    try:
        today = _dt.date.fromisoformat(args.today) if args.today else None
    except ValueError:
        error(f"--today must be YYYY-MM-DD, not {args.today!r}")
        return 2
    if args.install_schedule:
        from amr_tui.services.config import load_config  # the schedule: [dream] agent and every
        from amr_tui.services.dreams.schedule import ScheduleError, install, plan

        cfg = load_config()
        try:
            root = _service(args.repo).mount.root
            p = plan(root, agent=args.agent or cfg.dream_agent, every=cfg.dream_every, kind=args.schedule_with)
        except (FileNotFoundError, AmrGitError, DreamError, ValueError, ScheduleError) as exc:
            return _fail(exc)
        print(p.describe())
        if not args.yes:
            try:
                answer = input("Add it? [y/N] ")
            except EOFError:
                answer = ""
            if answer.strip().lower() not in ("y", "yes"):
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
            from amr_tui.services.config import load_config  # the code and reads the pass checks entries against

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
