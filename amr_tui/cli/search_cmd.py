"""amr search QUERY [PATH...] [--json] [--limit N]: runs the command (its parser:
cli/parsers/search.py; --history: cli/past_cmd.py)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from amr_tui.cli.named import LeavesRepoError, check_named_paths
from amr_tui.cli.output import emit_json, error, paint, safe, use_colour
from amr_tui.cli.parsers.common import run_module
from amr_tui.core.search.query import QueryError
from amr_tui.services.search.run import build_cache, search_paths
from amr_tui.services.workspace import Mount

if TYPE_CHECKING:  # the index: a search answered without its cache does not load it
    from amr_tui.core.search.index import SearchHit

Judge = Callable[[Mount], set[tuple[str, int]]]
Reads = Callable[[Mount], Callable[[str], tuple[int, str | None] | None]]


def run(args: argparse.Namespace) -> int:
    if args.limit < 1:
        error("--limit must be at least 1")
        return 2
    if args.history:  # its own run module: git and the history service, for --history alone
        return int(run_module("past_cmd").run_history(args))
    stale_of, reads_of = _judges(args.query)
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


def _judges(query: str) -> tuple[Judge | None, Reads | None]:
    """What the filters is:stale and is:unread / read: need, when the query has them: each loads
    its layer (the code checks, the reads amr mcp served) only then, off the path of a plain search."""
    stale_of: Judge | None = None
    reads_of: Reads | None = None
    if "is:stale" in query:  # judged against each repo's code (the config's, or a Claude Code folder's)
        from amr_tui.services.config import load_config  # is:stale alone
        from amr_tui.services.verify.coderepo import code_sources  # is:stale alone
        from amr_tui.services.verify.run import verify_mount  # is:stale alone

        cfg = load_config()

        def stale_of(mount: Mount) -> set[tuple[str, int]]:
            report = verify_mount(mount, code_sources(mount, cfg), every=cfg.verify_every)
            return {(e.path, e.line) for e in report.stale}

    if "is:unread" in query or "read:" in query:  # what amr mcp served (services.usage)
        from amr_tui.services.usage import Usage  # is:unread and read: alone

        def reads_of(mount: Mount) -> Callable[[str], tuple[int, str | None] | None]:
            usage = Usage(mount.root)
            return lambda text: None if (got := usage.of(text)).reads is None else (got.reads, got.last)

    return stale_of, reads_of


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
