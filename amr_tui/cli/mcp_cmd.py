"""amr mcp [PATH...] [--read-only NAME]... [--review NAME]... [--session ID] [--author "NAME <EMAIL>"]

Serves the mounted memory repos to an agent over the Model Context Protocol (stdio), with the
official Python SDK's high-level server (``mcp.server.mcpserver.MCPServer``). The tools are thin:
each one asks :class:`amr_tui.services.agent.AgentMemory` and returns its frozen dataclass, from
which the SDK derives the tool's output schema and its structured result. A request amr cannot
answer (an unknown repo, a line that holds no entry) is an error result whose text says what
exists instead; a write amr will not make is a result with ``status`` and ``message``; the
server stays up either way. The SDK is imported only by this command (start-up of ``amr``).
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from amr_tui.cli.output import error
from amr_tui.cli.parsers.mcp import SESSION_ENV
from amr_tui.services.agent.memory import AgentMemory, Writer
from amr_tui.services.config import load_config
from amr_tui.services.workspace import discover, looks_like_memory_root


def run(args: argparse.Namespace) -> int:
    cfg = load_config()
    paths: list[Path] = list(args.paths)
    if not paths:
        cwd = Path.cwd()
        paths = [cwd] if looks_like_memory_root(cwd) else [p for p in cfg.repos if p.exists()]
    if not paths:
        error("no memory repo here: name one (amr mcp PATH), or list repos in the config")
        return 2
    read_only = set(args.read_only) | cfg.read_only
    try:
        mounts = discover(paths, read_only)
    except FileNotFoundError as exc:
        error(str(exc))
        return 2
    names = {m.name for m in mounts}
    unknown = sorted((set(args.read_only) | set(args.review)) - names)
    if unknown:
        error(f"no mounted repo is named {', '.join(unknown)}; the repos are: {', '.join(sorted(names))}")
        return 2
    review = set(args.review) | (names if cfg.review_all else cfg.review & names)
    auto = set(args.review_auto) | cfg.review_auto
    if auto - {"add"}:
        error(
            f"[review] auto / --review-auto takes add only (new entries land at once), not {', '.join(sorted(auto - {'add'}))}: "
            "rewording and removal always wait for review"
        )
        return 2
    author_name = author_email = None
    if args.author:
        m = re.fullmatch(r"\s*(.*?)\s*<([^<>\s]+)>\s*", args.author)
        if not m or not m.group(1):
            error("--author takes 'NAME <EMAIL>'")
            return 2
        author_name, author_email = m.group(1), m.group(2)
    base = Writer(None, args.session or os.environ.get(SESSION_ENV) or None, author_name, author_email)

    memory = AgentMemory(mounts, review=review, auto=auto, load=False)
    memory.session.verifying.config = cfg  # is:stale in memory_search judges against the config's code
    memory.start_loading()
    from amr_tui.cli.mcp_server import build_server  # mcp, pydantic: imported while the repos load in the background

    server = build_server(memory, base)
    try:
        server.run("stdio")
    finally:
        memory.close()
    return 0
