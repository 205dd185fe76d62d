"""The parser of amr inbox [REPO...] [--json] [--max-age DAYS]: everything waiting for review,
oldest first (run by cli/inbox_cmd.py)."""

from __future__ import annotations

from amr_tui.cli.parsers.common import Run, Sub, command, json_flag, paths_arg
from amr_tui.core.inbox import DEFAULT_MAX_AGE_DAYS


def add_parsers(sub: Sub) -> None:
    p = command(sub, "inbox", Run("inbox_cmd"), help=_INBOX_HELP, description=_INBOX)
    paths_arg(p, "memory repos (default: ., else the config's)", name="repos", metavar="REPO")
    p.add_argument("--max-age", type=int, metavar="DAYS", help="how long a thing may wait (default: the config's)")
    json_flag(p)


_INBOX = (
    "List everything that waits for a person in each memory repo, oldest first, with its age: "
    "agents' commits not reviewed yet (amr activity), pending dreaming runs, and agents' writes "
    "waiting on a review-mode dreams/inbox-<date> branch (amr mcp --review). Exit 1 when anything "
    f"has waited longer than --max-age days (the config's [inbox] max_age_days, default "
    f"{DEFAULT_MAX_AGE_DAYS}), so CI or a cron job can nag; 0 otherwise; 2 on an error."
)

_INBOX_HELP = "everything waiting for review across the repos, oldest first; exit 1 when any is too old"
