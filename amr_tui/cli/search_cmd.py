"""amr search QUERY [PATH...] [--json] [--limit N]"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from amr_tui.cli.output import emit_json, error, paint, safe, use_colour

if TYPE_CHECKING:
    from collections.abc import Callable

    from amr_tui.core.search.index import SearchHit
    from amr_tui.services.workspace import Mount

# Lazy imports: each command imports the layers it runs when it runs, so that building the parser
# (`amr --help`, `amr <command>`) loads this module alone (tests/test_startup_path.py).


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
            "-word, path:, repo:, source:, added:>=2026-10-01, has:KEY, no:KEY, KEY:VALUE, is:broken, is:orphan, tag:NAME"
        ),
    )
    p.add_argument("paths", nargs="*", type=Path, help="memory repos or folders holding several (default: .)")
    p.add_argument("--json", action="store_true", help="print a JSON array of {repo, path, line, text, score}")
    p.add_argument("--limit", type=int, default=20, metavar="N", help="at most N results (default 20)")
    p.add_argument(
        "--history",
        action="store_true",
        help=(
            "search the past instead: entries that commits deleted or reworded, and tombstones, each with "
            "the commit that removed or changed it (walks the whole history)"
        ),
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help=("do not read or write the index cache in the user cache folder (also: AMR_NO_CACHE=1)"),
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    gc.disable()  # a one-shot process over acyclic parse results: the collector only costs time
    from amr_tui.services.batch.searchrun import (
        search_paths,
    )

    if args.limit < 1:
        error("--limit must be at least 1")
        return 2
    if args.history:
        return run_history(args)
    from amr_tui.cli.parse_cmd import (
        LeavesRepoError,
        check_named_paths,
    )
    from amr_tui.core.search.query import QueryError

    stale_of = reads_of = None
    if "is:stale" in args.query:  # judged against each repo's code (the config's, or a Claude Code folder's)
        from amr_tui.services.config import load_config
        from amr_tui.services.verify.coderepo import code_sources
        from amr_tui.services.verify.run import verify_mount

        cfg = load_config()

        def stale_of(mount: Mount) -> set[tuple[str, int]]:
            report = verify_mount(mount, code_sources(mount, cfg), every=cfg.verify_every)
            return {(e.path, e.line) for e in report.stale}

    if "is:unread" in args.query or "read:" in args.query:  # what amr mcp served (services.usage)
        from amr_tui.services.usage import Usage

        def reads_of(mount: Mount) -> Callable[[str], tuple[int, str | None] | None]:
            usage = Usage(mount.root)
            return lambda text: None if (got := usage.of(text)).reads is None else (got.reads, got.last)

    try:
        check_named_paths(args.paths)  # a symlink out of its repo (or into .git) is refused, as amr parse does
        hits, to_cache = search_paths(
            args.paths or [Path(".")],
            args.query,
            args.limit,
            use_cache=not args.no_cache,
            keep=True,
            stale_of=stale_of,
            reads_of=reads_of,
        )
    except (FileNotFoundError, NotADirectoryError, LeavesRepoError) as exc:
        error(str(exc))
        return 2
    except QueryError as exc:
        error(f"the query cannot run as typed: {exc}")
        return 2
    try:
        return _print(args, hits)
    finally:
        if to_cache:
            _cache_in_child(to_cache)


def _cache_in_child(mounts: list[Mount]) -> None:
    """After a cold answer: build the index cache in a child process, detached from the
    terminal and from our output (a pipe reading us sees its end now), so the next search is
    answered from the cache."""
    sys.stdout.flush()
    sys.stderr.flush()
    fork = getattr(os, "fork", None)
    if fork is None:
        return  # no fork (Windows): the next search builds the cache itself
    try:
        pid = fork()
    except OSError:
        return  # no cache this time: the next search builds it
    if pid != 0:
        return
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        from amr_tui.services.batch.searchrun import build_cache  # in the forked child only

        build_cache(mounts)
    finally:
        os._exit(0)


def _print(args: argparse.Namespace, hits: list[SearchHit]) -> int:
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


def run_history(args: argparse.Namespace) -> int:
    """``amr search --history``: the past of each repo with git that the paths name, best first."""
    from amr_tui.cli.parse_cmd import (
        LeavesRepoError,
        check_named_paths,
    )
    from amr_tui.core.search.query import QueryError
    from amr_tui.git.errors import AmrGitError
    from amr_tui.services.history.past import (
        PastEntry,
        PastIndex,
    )
    from amr_tui.services.history.service import (
        HistoryService,
    )
    from amr_tui.services.workspace import discover

    def shown(path: Path) -> str:
        """``path`` as the user would type it here: relative when under the current folder."""
        rel = os.path.relpath(path)
        return path.as_posix() if rel.startswith("..") else Path(rel).as_posix()

    try:
        check_named_paths(args.paths)
        mounts = [m for m in discover(args.paths or [Path(".")]) if (m.root / ".git").exists()]
    except (FileNotFoundError, NotADirectoryError, LeavesRepoError) as exc:
        error(str(exc))
        return 2
    if not mounts:
        error("no history (not a git repo): --history searches memory repos with git")
        return 2
    roots: dict[str, Path] = {}
    past: list[PastEntry] = []
    try:
        for m in mounts:
            service = HistoryService(m)
            try:
                past.extend(service.past())
            finally:
                service.close()
            roots[m.name] = m.root.resolve()
        found = PastIndex(past).search(args.query, args.limit)
    except AmrGitError as exc:
        error(str(exc))
        return 2
    except QueryError as exc:
        error(f"the query cannot run as typed: {exc}")
        return 2
    rows: list[dict[str, object]] = []
    for e, hit in found:
        root = roots[e.repo]
        where = shown(root)
        restore = None
        if e.restorable:
            restore = f"amr forgotten {'' if where == '.' else where + ' '}--restore {e.forgotten_id}"
        now: dict[str, object] | None = None
        if e.now is not None:
            now = {"path": e.now[0], "line": e.now[1], "text": e.new_text if e.kind == "reworded" else e.text}
            now["history"] = f"amr history {shown(root / e.now[0])}:{e.now[1]}"
        c = e.commit
        rows.append(
            {
                "kind": e.kind,
                "repo": e.repo,
                "path": e.path,
                "text": e.text,
                "line": e.line,
                "present": e.present,
                "resurrected": e.resurrected,
                "id": e.forgotten_id,
                "restore": restore,
                "new_text": e.new_text,
                "now": now,
                "date": e.date,
                "commit": None
                if c is None
                else {
                    "oid": c.oid,
                    "short": c.oid[:7],
                    "date": c.author_date.isoformat(),
                    "author": c.author_name,
                    "subject": c.subject,
                },
                "tombstone": None
                if e.tombstone is None
                else {"forgotten": e.tombstone.forgotten, "reason": e.tombstone.reason, "by": e.tombstone.by},
                "score": round(hit.score, 2),
            }
        )
    if args.json:
        emit_json(rows)
        return 0
    colour = use_colour(sys.stdout)
    for e, row in zip((e for e, _ in found), rows, strict=True):
        who = f"{e.short}  {safe(e.commit.author_name)}" if e.commit else "tombstone"
        where = f"{safe(e.repo)}/{safe(e.path)}"
        print(
            f"{paint(f'{e.kind:<8}', 'bold', colour)}  {e.date}  {who}  {paint(where, 'path', colour)}  {safe(e.text)}"
        )
        if e.commit is not None:
            print(f'    in {e.short} "{safe(e.commit.subject)}"')
        if e.tombstone is not None:
            why = f": {safe(e.tombstone.reason)}" if e.tombstone.reason else ""
            print(f"    forgotten on purpose{why}")
        if e.present and e.kind == "reworded":
            print("    this wording is in the repo again")
        elif e.present:
            current = row["now"]
            back = f"  ({current['history']})" if isinstance(current, dict) else ""
            what = "written again since: resurrected" if e.resurrected else "back in the repo now"
            print(f"    {what}{back}")
        if row["restore"]:
            print(f"    restore: {row['restore']}")
        if e.kind == "reworded":
            current = row["now"]
            if isinstance(current, dict):
                print(f"    now: {safe(e.new_text or '')}  ({current['history']})")
            else:
                print(f"    became: {safe(e.new_text or '')}")
    if not found:
        print("No matches.", file=sys.stderr)
        return 1
    return 0
