"""The amr command line: the dispatcher. It builds the parser of the command asked for from
cli/parsers/ (argparse alone) and calls the command's run module (cli/*_cmd.py), which is
imported only then, with the layers it runs imported at its top: start-up stays quick."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterator
from types import ModuleType

from amr_tui import __version__

# Each module of cli/parsers/ in MODULES has add_parsers(sub); COMMAND_MODULES says which module
# holds each sub-command, so `amr search ...` imports and builds the parser of search alone (agents
# call these commands in loops: every module and parser not built is start-up time saved). Each
# parser's func is a parsers.common.Run, which imports the command's run module when it runs.
MODULES = (
    "parse",
    "lint",
    "search",
    "repo",
    "merge",
    "sync",
    "share",
    "dream",
    "history",
    "mcp",
    "activity",
    "serve",
    "verify",
    "loads",
    "inbox",
)
COMMAND_MODULES = {
    "parse": "parse",
    "lint": "lint",
    "search": "search",
    "init": "repo",
    "demo": "repo",
    "discover": "repo",
    "track": "repo",
    "merge-driver": "merge",
    "sync": "sync",
    "share": "share",
    "dream": "dream",
    "dreams": "dream",
    "history": "history",
    "forgotten": "history",
    "forget": "history",
    "undo": "history",
    "mcp": "mcp",
    "activity": "activity",
    "serve": "serve",
    "verify": "verify",
    "usage": "verify",
    "loads": "loads",
    "inbox": "inbox",
}
COMMANDS = tuple(COMMAND_MODULES)
_READS_MEMORY = frozenset(
    {
        "lint",
        "search",
        "activity",
        "mcp",
        "serve",
        "share",
        "discover",
        "history",
        "verify",
        "usage",
        "loads",
        "inbox",
        "dream",
    }
)


def _modules(names: tuple[str, ...] = MODULES) -> Iterator[ModuleType]:
    for name in names:
        try:
            yield importlib.import_module(f"amr_tui.cli.parsers.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"amr_tui.cli.parsers.{name}":
                raise


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or (``command``) one that knows that sub-command only."""

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
    for module in _modules((COMMAND_MODULES[command],) if command in COMMAND_MODULES else MODULES):
        module.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version")):
        return _open_editor(argv)
    parser = build_parser(argv[0])
    args = parser.parse_args(argv)
    if argv[0] in _READS_MEMORY:
        from amr_tui.services.config import load_config  # only the commands that read memory need it
        from amr_tui.services.workspace import set_formats  # only the commands that read memory need it

        set_formats(load_config().formats)  # [formats]: how each repo's memory is read
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        _say_repairs()


def _open_editor(argv: list[str]) -> int:
    """``amr [PATH...]``: the editor's start (cli/app_cmd.py), which the sub-commands start without."""
    return int(importlib.import_module("amr_tui.cli.app_cmd").run(argv))


def _say_repairs() -> None:
    """What the write gate repaired before a write (a write a killed amr left half done): on
    stderr. Only a command that wrote loaded the gate."""
    gate = sys.modules.get("amr_tui.services.writegate")
    if gate is not None:
        for note in gate.take_repairs():  # made visible already (cli.output.safe)
            sys.stderr.write(f"amr: {note}\n")


# One-shot read-only commands whose process ends right after its output: they skip Python's
# tear-down (freeing a 100,000-item index object by object costs more than the search itself).
FAST_EXIT = frozenset({"search"})


def console_main() -> None:
    """The `amr` executable."""
    argv = sys.argv[1:]
    code = main(argv)
    if argv and argv[0] in FAST_EXIT:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    console_main()
