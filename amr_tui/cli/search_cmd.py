"""amr search QUERY [PATH...] [--json] [--limit N]"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

from amr_tui.cli.output import emit_json, error, paint, safe, use_colour


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "search",
        help="fuzzy-find entries and files",
        description=("Ranked fuzzy search over the entries and file names of one or more memory repos, best first."),
    )
    p.add_argument(
        "query",
        help=(
            'what to look for: words in any order (typos and abbreviations tolerated), "exact phrase", '
            "-word, path:, repo:, source:, added:>=2026-10-01, has:KEY, no:KEY, KEY:VALUE, is:broken, is:orphan"
        ),
    )
    p.add_argument("paths", nargs="*", type=Path, help="memory repos or folders holding several (default: .)")
    p.add_argument("--json", action="store_true", help="print a JSON array of {repo, path, line, text, score}")
    p.add_argument("--limit", type=int, default=20, metavar="N", help="at most N results (default 20)")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help=("do not read or write the index cache in the user cache folder (also: AMR_NO_CACHE=1)"),
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    gc.disable()  # a one-shot process over acyclic parse results: the collector only costs time
    from amr_tui.services.batch.searchrun import search_paths

    if args.limit < 1:
        error("--limit must be at least 1")
        return 2
    from amr_tui.cli.parse_cmd import LeavesRepoError, check_named_paths
    from amr_tui.core.search.index import QueryError

    try:
        check_named_paths(args.paths)  # a symlink out of its repo (or into .git) is refused, as amr parse does
        hits = search_paths(args.paths or [Path(".")], args.query, args.limit, use_cache=not args.no_cache, keep=True)
    except (FileNotFoundError, NotADirectoryError, LeavesRepoError) as exc:
        error(str(exc))
        return 2
    except QueryError as exc:
        error(f"the query cannot run as typed: {exc}")
        return 2
    if args.json:
        emit_json(
            [
                {
                    "repo": h.item.repo,
                    "path": h.item.path,
                    "line": h.item.line,
                    "text": h.item.text,
                    "score": round(h.score, 2),
                    **({"missing": list(h.missing)} if h.missing else {}),
                }
                for h in hits
            ]
        )
        return 0
    colour = use_colour(sys.stdout)
    for h in hits:
        where = f"{safe(h.item.repo)}/{safe(h.item.path)}" + (f":{h.item.line}" if h.item.line else "")
        lacks = f"  (missing: {safe(' '.join(h.missing))})" if h.missing else ""
        print(f"{paint(where, 'path', colour)}  {safe(h.item.text)}{lacks}")
    if not hits:
        print("No matches.", file=sys.stderr)
        return 1
    return 0
