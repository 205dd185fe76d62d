"""The parser of amr loads [REPO...] [--agent NAME] [--cwd DIR] [--json]: what an agent reads at
session start (run by cli/loads_cmd.py)."""

from __future__ import annotations

from pathlib import Path

from amr_tui.cli.parsers.common import Run, Sub, command, json_flag, paths_arg, today_flag


def add_parsers(sub: Sub) -> None:
    p = command(sub, "loads", Run("loads_cmd"), help=_LOADS_HELP, description=_LOADS)
    paths_arg(p, "memory repos (default: see --cwd, else .)", name="repos", metavar="REPO")
    p.add_argument(
        "--agent",
        metavar="NAME",
        help="claude-code, devin, letta, codex, memory-bank (cline, cursor), openclaw, hermes, amr, or one "
        "of your config's [budgets] (default: the agent of the repo's format, or the config's [loads])",
    )
    p.add_argument(
        "--cwd",
        type=Path,
        metavar="DIR",
        help="the folder the session starts in: with no REPO, Claude Code's memory of that folder "
        "(~/.claude/projects/<DIR>/memory); scopes are matched against it",
    )
    today_flag(p, "the day journal files are read for (default: today)")
    json_flag(p)


_LOADS = (
    "Print exactly what an agent loads at session start: the files it reads (MEMORY.md, or its "
    "format's own), up to its budget (Claude Code: the first 200 lines or 25 KB of MEMORY.md; "
    "docs/loads.md has every agent's, with sources; the config's [budgets] sets your own), with "
    "lines, bytes and an estimate of the tokens used, the line where it cuts, and every entry and "
    "Index link past the cut by name. Exit 0 when everything loads, 1 when something is past a "
    "cut, 2 on an error."
)

_LOADS_HELP = "what an agent reads of memory when a session starts, and every entry past its budget"
