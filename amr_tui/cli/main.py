"""The amr command line. Sub-commands import their layers lazily so start-up stays quick."""

from __future__ import annotations

import argparse
import sys

from amr_tui import __version__

COMMANDS = ("parse", "lint", "search", "init", "demo")


def build_parser() -> argparse.ArgumentParser:
    from amr_tui.cli import lint_cmd, parse_cmd, repo_cmds, search_cmd

    parser = argparse.ArgumentParser(
        prog="amr",
        description=(
            "amr: the terminal editor for Agent Memory Repos. Run `amr [PATH...]` to open memory "
            "repos in the editor, or one of the commands below (for agents and CI)."
        ),
        epilog="Format reference: docs/format.md. Each command has --help.",
    )
    parser.add_argument("--version", action="version", version=f"amr {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parse_cmd.add_parser(sub)
    lint_cmd.add_parser(sub)
    search_cmd.add_parser(sub)
    repo_cmds.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version"):
        from amr_tui.cli import app_cmd

        return app_cmd.run(argv)
    if not argv:
        from amr_tui.cli import app_cmd

        return app_cmd.run([])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
