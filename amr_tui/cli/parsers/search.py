"""The parser of amr search QUERY [PATH...] [--json] [--limit N] (run by cli/search_cmd.py)."""

from __future__ import annotations

from amr_tui.cli.parsers.common import Run, Sub, command, json_flag, limit_flag, no_cache_flag, paths_arg


def add_parsers(sub: Sub) -> None:
    p = command(sub, "search", Run("search_cmd", one_shot=True), help=_SEARCH_HELP, description=_SEARCH)
    p.add_argument(
        "query",
        help=(
            'what to look for: words in any order (typos and abbreviations tolerated), "exact phrase", '
            "-word, path:, repo:, source:, added:>=2026-10-01, has:KEY, no:KEY, KEY:VALUE, is:broken, is:orphan, tag:NAME"
        ),
    )
    paths_arg(p, "memory repos or folders holding several (default: .)")
    json_flag(p, "print a JSON array of {repo, path, line, text, score}")
    limit_flag(p, 20, "at most N results (default 20)")
    p.add_argument(
        "--history",
        action="store_true",
        help=(
            "search the past instead: entries that commits deleted or reworded, and tombstones, each with "
            "the commit that removed or changed it (walks the whole history)"
        ),
    )
    no_cache_flag(p, "read or write the index cache")


_SEARCH = "Ranked fuzzy search over the entries and file names of one or more memory repos, best first."

_SEARCH_HELP = "fuzzy-find entries and files"
