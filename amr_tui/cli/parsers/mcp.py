"""The parser of amr mcp [PATH...] [--read-only NAME]... [--review NAME]... [--session ID]
[--author "NAME <EMAIL>"] (run by cli/mcp_cmd.py)."""

from __future__ import annotations

from amr_tui.cli.parsers.common import Run, Sub, command, paths_arg, read_only_flag, repeated

SESSION_ENV = "AMR_SESSION_ID"


def add_parsers(sub: Sub) -> None:
    p = command(sub, "mcp", Run("mcp_cmd"), help=_MCP_HELP, description=_DESCRIPTION)
    paths_arg(p, "memory repos, or folders holding several")
    read_only_flag(p, "refuse writes to repo NAME")
    repeated(p, "--review", "NAME", "repo NAME's writes wait for review")
    p.add_argument(
        "--review-auto",
        action="append",
        default=[],
        choices=["add"],
        help="in review mode, let new entries land at once; rewording and removal still wait (config: [review] auto)",
    )
    p.add_argument(
        "--session", metavar="ID", help=f"the agent session, written as a Session: trailer (default: ${SESSION_ENV})"
    )
    p.add_argument(
        "--author", metavar="'NAME <EMAIL>'", help="the author of agent commits (default: the client's name)"
    )


_DESCRIPTION = (
    "Serve memory repos to an agent over MCP (stdio). PATHs are memory repos or folders holding "
    "several (default: the current folder if it is one, else the config's repos). Tools: memory_load, "
    "memory_search, memory_read, memory_remember, memory_edit, memory_forget, memory_move, "
    "memory_history. Every write is one commit through amr's write gate; entries are named by line "
    "and text hash, so a stale write changes nothing. --read-only NAME refuses writes to NAME; "
    "--review NAME puts NAME's writes on a pending branch dreams/inbox-<date> for a person to accept "
    "in the review screen or with amr dreams (config: review = [...] or review = true)."
)

_MCP_HELP = "serve memory repos to an agent over MCP (stdio)"
