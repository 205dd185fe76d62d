"""The parser of amr sync [REPO...]: fetch, merge with amr's driver, push, never forced (run by
cli/sync_cmd.py)."""

from __future__ import annotations

from amr_tui.cli.parsers.common import Run, Sub, command, json_flag, paths_arg


def add_parsers(sub: Sub) -> None:
    p = command(sub, "sync", Run("sync_cmd"), help="fetch, merge and push memory repos", description=_DESCRIPTION)
    paths_arg(p, "memory repos (default: .)", name="repos")
    p.add_argument("--remote", help="remote name (default: the branch's upstream, else origin)")
    p.add_argument("--branch", help="local branch (default: the checked-out branch)")
    p.add_argument(
        "--attempts", type=int, default=6, help="rounds of fetch-merge-push when others push first (default 6)"
    )
    p.add_argument("--no-push", action="store_true", help="fetch and merge only")
    json_flag(p, "print one JSON object per repo (a list)")
    p.add_argument(
        "--status", action="store_true", help="show last sync, ahead/behind and pending conflicts; change nothing"
    )
    p.add_argument("--conflicts", action="store_true", help="show the conflicts the last sync stopped on")
    p.add_argument(
        "--resolve",
        choices=("ours", "theirs", "base", "both"),
        help="resolve every pending conflict this way (both: keep every side's lines), then sync",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="print progress to stderr")


_DESCRIPTION = (
    "Sync memory repos with their remote: fetch, merge with amr's entry-aware driver, push. "
    "Never force-pushes; when someone pushed first it fetches, merges and tries again with backoff. "
    "A conflict stops with the repo unchanged and lists each conflicting entry (ours, base, theirs); "
    "resolve it in the app, or here with --resolve. Credentials are git's own (your global "
    "credential helpers); amr stores none. Exit 0 synced or up to date, 1 conflict, 2 error, "
    "3 offline (recorded; sync again later). The last sync time is kept in .git/amr/sync.json."
)
