"""What the command parsers share: the run of a command, imported when it runs, and the flags
and arguments several commands take (each with its own help text where the commands differ)."""

from __future__ import annotations

import argparse
import gc
import importlib
from pathlib import Path
from types import ModuleType
from typing import TypeAlias

Sub: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"  # what add_parsers(sub) is given


def run_module(name: str) -> ModuleType:
    """``amr_tui.cli.<name>``: a command's run module, imported the first time it runs. The one
    lazy import of the command line: a parser names its run module, never imports it."""
    return importlib.import_module(f"amr_tui.cli.{name}")


class Run:
    """A command's ``func``: ``name`` in its run module, which is imported when the command runs.
    ``one_shot``: a process over acyclic parse results that ends with its output (amr lint,
    amr search): the collector is off before the run module is imported, it only costs time."""

    def __init__(self, module: str, name: str = "run", *, one_shot: bool = False) -> None:
        self.module = module
        self.name = name
        self.one_shot = one_shot

    def __call__(self, args: argparse.Namespace) -> int:
        if self.one_shot:
            gc.disable()
        return int(getattr(run_module(self.module), self.name)(args) or 0)


def command(
    sub: Sub, name: str, run: Run, *, help: str, description: str, usage: str | None = None
) -> argparse.ArgumentParser:
    """The parser of the sub-command ``name``, which runs ``run``."""
    parser = sub.add_parser(name, help=help, description=description, usage=usage)
    parser.set_defaults(func=run)
    return parser


def json_flag(p: argparse.ArgumentParser, help: str = "print JSON") -> None:
    p.add_argument("--json", action="store_true", help=help)


def paths_arg(p: argparse.ArgumentParser, help: str, *, name: str = "paths", metavar: str | None = None) -> None:
    """Any number of memory repos (or folders holding several, or files: ``help`` says which)."""
    p.add_argument(name, nargs="*", type=Path, metavar=metavar, help=help)


def repo_arg(p: argparse.ArgumentParser, help: str = "the memory repo (default: .)") -> None:
    """One memory repo, the current folder unless named."""
    p.add_argument("repo", nargs="?", type=Path, default=Path("."), help=help)


def repeated(p: argparse.ArgumentParser, flag: str, metavar: str, help: str, **kwargs: object) -> None:
    """An option given any number of times, collected in a list (empty when not given)."""
    p.add_argument(flag, action="append", default=[], metavar=metavar, help=help, **kwargs)  # type: ignore[arg-type]


def read_only_flag(p: argparse.ArgumentParser, help: str) -> None:
    repeated(p, "--read-only", "NAME", help)


def no_cache_flag(p: argparse.ArgumentParser, what: str) -> None:
    """--no-cache: ``what`` is kept from one run to the next in the user cache folder."""
    p.add_argument(
        "--no-cache", action="store_true", help=f"do not {what} in the user cache folder (also: AMR_NO_CACHE=1)"
    )


def limit_flag(p: argparse.ArgumentParser, default: int, help: str) -> None:
    p.add_argument("--limit", type=int, default=default, metavar="N", help=help)


def today_flag(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--today", metavar="YYYY-MM-DD", help=help)


def code_flag(p: argparse.ArgumentParser, help: str) -> None:
    """--code PATH (repeatable): the code checkout that entries are checked against."""
    repeated(p, "--code", "PATH", help, type=Path)
