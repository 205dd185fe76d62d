"""The amr command line. Sub-commands import their layers lazily so start-up stays quick."""

from __future__ import annotations

import argparse
import sys

from amr_tui import __version__

# Each module in MODULES has add_parsers(sub) and a COMMANDS tuple naming its sub-commands.
MODULES = ("parse_cmd", "lint_cmd", "search_cmd", "repo_cmds", "merge_cmd", "sync_cmd", "share_cmd",
           "dream_cmd", "history_cmd")
COMMANDS = ("parse", "lint", "search", "init", "demo", "merge-driver", "sync", "share", "dream", "dreams",
            "history", "log", "forgotten", "forget")


def _modules():
    import importlib

    for name in MODULES:
        try:
            yield importlib.import_module(f"amr_tui.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"amr_tui.cli.{name}":
                raise


def build_parser() -> argparse.ArgumentParser:

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
    for module in _modules():
        module.add_parsers(sub)
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
