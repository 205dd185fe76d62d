"""The parsers of amr dream [REPO] [--agent CMD] and amr dreams list|show|accept|reject|undo
(docs/dreams.md; run by cli/dream_cmd.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from amr_tui.cli.parsers.common import Run, Sub, code_flag, command, json_flag, repeated, repo_arg, today_flag


def add_parsers(sub: Sub) -> None:
    d = command(sub, "dream", Run("dream_cmd", "run_dream"), help=_DREAM_HELP, description=_DREAM)
    repo_arg(d)
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
    today_flag(d, "the date to check `expires` against (default: today)")
    d.add_argument("--timeout", type=float, metavar="SECONDS", help="stop the agent after this long")
    json_flag(d, "print the new run as JSON")
    code_flag(
        d, "the code checkout entries are checked against (default: the config's, or a Claude Code folder's project)"
    )

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

    ls = command(ds, "list", Run("dream_cmd", "run_list"), help="pending runs, oldest first", description=_LIST)
    repo_arg(ls)
    ls.add_argument("--all", action="store_true", help="also list accepted and rejected runs")
    json_flag(ls, "print a JSON array")

    sh = command(ds, "show", Run("dream_cmd", "run_show"), help="the entry-level changes of one run", description=_SHOW)
    _run_args(sh)
    json_flag(sh, "print the changes as JSON")
    sh.add_argument("--file", metavar="PATH", help="also print this file side by side (old | new)")
    sh.add_argument("--no-history", action="store_true", help="skip the check against forgotten facts (faster)")

    ac = command(ds, "accept", Run("dream_cmd", "run_accept"), help=_ACCEPT_HELP, description=_ACCEPT)
    _run_args(ac)
    repeated(ac, "--file", "PATH", "accept this file's changes (repeatable)")
    repeated(ac, "--entry", "ID", "accept this entry change (repeatable)")
    repeated(ac, "--edit", "ID=TEXT", "accept entry change ID with this text instead of the run's (repeatable)")
    repeated(
        ac,
        "--replace",
        "ID",
        "accept entry change ID, its version replacing the one main wrote since the run started (repeatable)",
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

    rj = command(ds, "reject", Run("dream_cmd", "run_reject"), help=_REJECT_HELP, description=_REJECT)
    _run_args(rj)
    repeated(rj, "--file", "PATH", "reject this file's changes (repeatable)")
    repeated(rj, "--entry", "ID", "reject this entry change (repeatable)")
    rj.add_argument("--clear", action="store_true", help="with --file/--entry: take those rejections back")

    un = command(ds, "undo", Run("dream_cmd", "run_undo"), help="undo the last decision on a run", description=_UNDO)
    _run_args(un)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _run_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", metavar="RUN", help="run id or dreams/<id> branch")
    p.add_argument("-C", "--repo", type=Path, default=Path("."), help="the memory repo (default: .)")


_DREAM = (
    "Run amr's built-in, deterministic dreaming pass (drop entries whose evidence is gone from the code "
    "they cite and rewrite those whose evidence moved, drop entries no agent read through amr mcp for "
    "[dream] unread days where reads are known, each with its reason; merge duplicates keeping every "
    "source, drop entries whose `expires` date passed, repair links to renamed files, rebuild the "
    "MEMORY.md Index) and commit it on a new branch dreams/<run-id>, or with --agent run your own agent "
    "command in a temporary work tree on that branch. Main, its work tree and its index are never "
    "touched: review the run with `amr dreams show`."
)

_LIST = "List the pending dreaming runs."

_SHOW = (
    "Show what a run changes, entry by entry: merged (A + B -> C, sources kept or lost), reworded, "
    "moved (from and to), metadata only, dropped, new (and what it was inferred from), and "
    "resurrected (a fact deleted earlier or tombstoned coming back: a warning)."
)

_ACCEPT = (
    "Accept the whole run (main fast-forwards when the run is based on its tip; otherwise one new "
    "commit applies it, with Dream-Run and Dream-Commit trailers), or only --file PATH or --entry ID "
    "(ids from `amr dreams show`). Accepting parts leaves the run pending."
)

_REJECT = (
    "Close the run: it leaves the pending list, its commits stay under refs/amr/dreams/rejected/<id> "
    "with the decision recorded; `amr dreams undo RUN` reopens it. With --file or --entry, only mark "
    "those parts rejected (nothing is committed): accepting the run later leaves them out."
)

_UNDO = (
    "Reopen a rejected run; revert an accepted run on main with a new commit and reopen it; or "
    "revert the parts of a pending run that were accepted. History is never rewritten."
)

_DREAM_HELP = "run a dreaming pass onto a new dreams/<id> branch"

_ACCEPT_HELP = "accept a run, some files or some entry changes"

_REJECT_HELP = "close a run, or reject some files or entry changes"
