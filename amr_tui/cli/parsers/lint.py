"""The parser of amr lint [PATH...] [--json] [--fix [--no-commit]] (run by cli/lint_cmd.py)."""

from __future__ import annotations

from amr_tui.cli.parsers.common import Run, Sub, command, json_flag, no_cache_flag, paths_arg

SEVERITIES = ("error", "warning", "info")


def add_parsers(sub: Sub) -> None:
    p = command(sub, "lint", Run("lint_cmd", one_shot=True), help=_LINT_HELP, description=_LINT)
    paths_arg(p, "memory repos, folders holding several, or files (default: .)")
    json_flag(p, 'print {"diagnostics": [...]} with paths relative to the repo root')
    p.add_argument(
        "--fix",
        action="store_true",
        help=(
            "apply the safe automatic fixes, then report what is left; in a git repo the fixes are "
            "committed as amr's own commit (only the lines fixed: someone's uncommitted edits stay out)"
        ),
    )
    p.add_argument(
        "--no-commit",
        action="store_true",
        help="with --fix: leave the fixes in the work tree, uncommitted (also lines nobody committed are fixed)",
    )
    p.add_argument(
        "--severity",
        choices=SEVERITIES,
        default="warning",
        help="lowest severity to report (default: warning; info adds style notes)",
    )
    p.add_argument("--no-duplicates", action="store_true", help="skip the duplicate and near-duplicate checks")
    no_cache_flag(p, "reuse or keep the findings of unchanged repos")
    p.add_argument(
        "--history",
        action="store_true",
        help="also check git history: entries that bring back a forgotten or deleted fact (AMR030)",
    )


_LINT = (
    "Check memory repos (or files inside them) against the Agent Memory Repo format. "
    "Exit 0 when clean, 1 when there are findings, 2 on a usage or I/O error. "
    "Codes are listed in docs/format.md."
)

_LINT_HELP = "check memory repos against the format"
