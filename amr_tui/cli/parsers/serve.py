"""The parser of amr serve [PATH...] [--read-only NAME]... [--port N] (run by cli/serve_cmd.py)."""

from __future__ import annotations

from amr_tui.cli.parsers.common import Run, Sub, command, read_only_flag


def add_parsers(sub: Sub) -> None:
    p = command(sub, "serve", Run("serve_cmd"), help=_SERVE_HELP, description=_DESCRIPTION)
    p.add_argument("paths", nargs="*", help="memory repos, folders holding several, or FILE[:LINE]")
    read_only_flag(p, "open repo NAME read-only")
    p.add_argument("--port", type=int, default=0, metavar="N", help="the port on 127.0.0.1 (default: a free one)")


_DESCRIPTION = (
    "Serve the editor to a web browser (textual-serve) on 127.0.0.1, behind a random token in the "
    "URL it prints: each browser tab runs its own editor on the PATHs, so a reviewer can review and "
    "accept dreaming runs (V) from a browser. PATHs are memory repos, folders holding several, or "
    "FILE[:LINE] (default: the current folder if it is one, else the config's repos). Stop with Ctrl+C."
)

_SERVE_HELP = "serve the editor to a web browser on 127.0.0.1"
