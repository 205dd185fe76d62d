"""amr merge-driver %O %A %B %L %P  and  amr merge-driver install [REPO]: runs the command (its parser:
cli/parsers/merge.py; ``install``, which loads git, runs from cli/merge_install_cmd.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from amr_tui.cli.output import error
from amr_tui.cli.parsers.common import run_module
from amr_tui.core.merge.three_way import merge3


def run(args: argparse.Namespace) -> int:
    rest = list(args.args)
    if rest and rest[0] == "install" and len(rest) <= 2:
        install = run_module("merge_install_cmd")  # git: `install` alone, not the driver git runs for every file
        return int(install.run_install(Path(rest[1]) if len(rest) == 2 else Path("."), commit=not args.no_commit))
    if not 3 <= len(rest) <= 5:
        error("usage: amr merge-driver BASE OURS THEIRS [MARKER_SIZE [PATH]]  or  amr merge-driver install [REPO]")
        return 2
    base, ours, theirs = rest[:3]
    try:
        size = int(rest[3]) if len(rest) > 3 else 7
    except ValueError:
        size = 7
    path = rest[4] if len(rest) > 4 else ours
    return run_driver(base, ours, theirs, size, path)


def run_driver(base: str, ours: str, theirs: str, marker_size: int, path: str) -> int:
    """Merge the three files git hands over; write the result over ``ours``."""
    try:
        data = [Path(p).read_bytes() for p in (base, ours, theirs)]
    except OSError as exc:
        error(f"merge-driver: cannot read its input: {exc}")
        return 2
    result = merge3(data[0], data[1], data[2], path, marker_size=marker_size)
    try:
        Path(ours).write_bytes(result.merged)
    except OSError as exc:
        error(f"merge-driver: cannot write the result: {exc}")
        return 2
    return 0 if result.clean else 1
