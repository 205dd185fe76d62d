"""The parsers of amr history FILE[:LINE], amr forgotten [REPO|FOLDER], amr forget FILE:LINE and
amr undo [REPO] (run by cli/history_cmd.py)."""

from __future__ import annotations

import argparse

from amr_tui.cli.parsers.common import Run, Sub, command, json_flag, limit_flag, repo_arg


def add_parsers(sub: Sub) -> None:
    h = command(sub, "history", Run("history_cmd", "run_history"), help=_HISTORY_HELP, description=_HISTORY)
    h.add_argument("target", metavar="FILE[:LINE]", help="a file in a memory repo, optionally with a line")
    json_flag(h)
    limit_flag(h, 50, "at most N commits (default 50)")
    h.add_argument(
        "--follow",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="follow the file through renames (FILE only; the default, --no-follow stops at a rename)",
    )
    h.add_argument(
        "--blame", action="store_true", help="with FILE:LINE, also blame the line and re-blame it at each parent"
    )

    f = command(sub, "forgotten", Run("history_cmd", "run_forgotten"), help=_FORGOTTEN_HELP, description=_FORGOTTEN)
    repo_arg(f, "the memory repo, or a folder of them (default: .)")
    json_flag(f, "print a JSON array")
    f.add_argument("--restore", metavar="ID", help="write the forgotten entry ID back, as a new commit")
    f.add_argument("--to", metavar="PATH", help="with --restore: the file to restore it into (default: where it was)")

    g = command(sub, "forget", Run("history_cmd", "run_forget"), help=_FORGET_HELP, description=_FORGET)
    g.add_argument("target", metavar="FILE:LINE", help="the entry to forget")
    g.add_argument("--reason", help="why (kept in the tombstone)")
    g.add_argument("--redact", action="store_true", help="keep only a sha256 digest of the text, no text or source")
    g.add_argument("--by", help="who forgets it (default: your git user.name)")

    u = command(sub, "undo", Run("history_cmd", "run_undo"), help=_UNDO_HELP, description=_UNDO)
    u.add_argument("repo", nargs="?", default=".", metavar="REPO", help="a memory repo (default: here)")
    u.add_argument("--commit", metavar="OID", help="undo this commit of amr's instead of the newest")


_HISTORY = (
    "FILE: the commits that touched it, newest first, with the source sessions each one added. "
    "FILE:LINE: the timeline of the entry on that line: when it was added, each edit, each move "
    "from another file (followed through rewording), and who last touched it (--blame)."
)

_FORGOTTEN = (
    "Entries that commits deleted (not moved, not reworded) and that are not in the repo now, "
    "newest deletion first, with the tombstone that explains them if any. Walks the whole history."
)

_FORGET = (
    "Remove the entry on FILE:LINE and record in .amr/forgotten.md (not loaded by agents at session "
    "start) that it was removed on purpose: date, reason, who. --redact keeps only a digest of the "
    'text. One commit; see docs/format.md, "Tombstones".'
)

_UNDO = (
    "Undo the newest commit amr made in REPO (default: the current folder's repo) that is not undone "
    "yet: a new commit through the write gate that puts back what it changed. Refused, with nothing "
    "written, when someone changed the same entries since. Never a reset or a force-move; run it "
    "again to undo the write before."
)

_HISTORY_HELP = "the commits that touched a file, or one entry's timeline"

_FORGOTTEN_HELP = "entries deleted over the repo's history"

_FORGET_HELP = "remove an entry and record a tombstone"

_UNDO_HELP = "undo amr's last write in a repo, as a new commit"
