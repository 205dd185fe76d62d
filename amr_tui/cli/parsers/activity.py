"""The parser of amr activity [REPO] [--since REV] [--json] and amr activity mark-reviewed [REPO]
(run by cli/activity_cmd.py)."""

from __future__ import annotations

from amr_tui.cli.parsers.common import Run, Sub, command, json_flag


def add_parsers(sub: Sub) -> None:
    a = command(sub, "activity", Run("activity_cmd", "run_activity"), help=_ACTIVITY_HELP, description=_ACTIVITY)
    a.add_argument(
        "args", nargs="*", metavar="[mark-reviewed] [REPO]", help="mark-reviewed, and/or the repo (default: .)"
    )
    a.add_argument(
        "--since",
        metavar="REV",
        help="start after this commit instead of the mark (with mark-reviewed: mark up to it, not HEAD)",
    )
    a.add_argument(
        "--by", metavar="NAME", help="only the commits whose author's name or email holds NAME (and their changes)"
    )
    json_flag(a)


_ACTIVITY = (
    "The entry changes in commits by anyone but you (your git user.email) since the repo's "
    '"reviewed up to" mark (kept in .git/amr/reviewed.json, outside the work tree); with no mark '
    "yet, since your own last commit, else from the first commit. `amr activity mark-reviewed "
    "[REPO]` moves the mark to HEAD. Reverting one change or a commit is done in the app (A)."
)

_ACTIVITY_HELP = "what others (agents) committed since you last reviewed the repo, entry by entry"
