"""The parsers of amr verify [REPO...] [--code PATH] [--json] and amr usage [REPO] [--json]
(docs/verify.md; run by cli/verify_cmd.py)."""

from __future__ import annotations

import argparse

from amr_tui.cli.parsers.common import Run, Sub, code_flag, command, json_flag, paths_arg, repo_arg, today_flag


def add_parsers(sub: Sub) -> None:
    p = command(sub, "verify", Run("verify_cmd"), help=_VERIFY_HELP, description=_VERIFY)
    paths_arg(p, "memory repos, or a folder holding several (default: .)", name="repos")
    code_flag(p, "the code checkout (repeatable)")
    json_flag(p, 'print {"entries": [...], "repos": [...]}')
    p.add_argument("--all", action="store_true", help="list every fact with evidence, those that hold too")
    p.add_argument(
        "--due",
        action="store_true",
        help="also list facts that hold but were not verified (or added) within [verify] every (90 days)",
    )
    today_flag(p, argparse.SUPPRESS)

    u = command(sub, "usage", Run("verify_cmd"), help=_USAGE_HELP, description=_USAGE)
    repo_arg(u)
    json_flag(u, "print a JSON object")
    u.add_argument("--limit", type=int, default=0, help="at most N entries (default: all)")


_VERIFY = (
    "Check each fact of memory repos against the code it cites: the paths, symbols, config names, "
    "package.json scripts, make targets, modules, commits and branches an entry names. Each holds "
    "(at the code repo's HEAD), moved (a rename git knows: where to) or is gone (since which commit "
    'and day). The code repo is --code PATH, the config\'s [repo."NAME"] code, or, for a Claude Code '
    "memory folder, its project. Nothing from the code repo is run; nothing is written. Exit 0 when "
    "every fact holds, 1 when some do not, 2 on an error."
)

_USAGE = (
    "List a memory repo's entries by when agents last read them through `amr mcp` (loaded, found by a "
    "search, or read with their file), least recently first; never-read entries first. Reads are "
    "recorded in the user data folder, never in the repo. Agents that read memory without amr are not "
    "counted: for a repo amr mcp never served, the count is unknown, not zero."
)

_VERIFY_HELP = "list facts whose evidence no longer holds in the code they cite"

_USAGE_HELP = "entries by when agents last read them through amr mcp"
