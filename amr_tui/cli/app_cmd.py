"""Opening the app: amr [PATH[:LINE]...] [--read-only NAME]

A PATH that does not exist, or a --read-only NAME that names no mounted repo, is an error (exit
2) before the app opens. A PATH that is a file (with ``:LINE``, that line) is opened first."""

from __future__ import annotations

import argparse
import gc
import re
import sys
from pathlib import Path

from amr_tui.cli.output import error


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="amr", add_help=False)
    p.add_argument("paths", nargs="*")
    p.add_argument("--read-only", action="append", default=[], metavar="NAME")
    return p


_LINE_SUFFIX = re.compile(r"^(.+):(\d+)$")


class BadTarget(Exception):
    """A PATH argument that names nothing."""


def parse_targets(args: list[str]) -> tuple[list[Path], tuple[Path, int] | None]:
    """(paths to mount, the file to open first and its line). ``FILE:LINE`` names a line of FILE
    (a file whose own name ends in ``:digits`` is taken as it is)."""
    paths: list[Path] = []
    open_at: tuple[Path, int] | None = None
    for arg in args:
        path, line = Path(arg).expanduser(), 0
        if not path.exists() and (m := _LINE_SUFFIX.match(arg)) and Path(m.group(1)).expanduser().is_file():
            path, line = Path(m.group(1)).expanduser(), int(m.group(2))
        if not path.exists():
            raise BadTarget(f"no such file or folder: {arg}")
        if open_at is None and path.is_file():
            open_at = (path, line)
        paths.append(path)
    return paths, open_at


def run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        paths, open_at = parse_targets(args.paths)
    except BadTarget as exc:
        error(str(exc))
        return 2
    return open_app(paths, read_only=set(args.read_only), open_at=open_at)


def open_app(paths: list[Path], read_only: set[str], open_at: tuple[Path, int] | None = None) -> int:
    # Start-up makes hundreds of thousands of objects that live as long as the process (modules,
    # classes, styles): a collection in the middle of the first frame scans them all for nothing.
    # The app freezes them and turns the collector back on once its first frame is painted.
    gc.disable()
    try:
        from amr_tui.app import make_app  # textual: loaded with the collector off; a build without it says so
    except ImportError:
        gc.enable()
        error("the interactive editor is not available in this build; use amr lint / search / parse")
        return 2
    app = make_app(paths, read_only=read_only, open_at=open_at)
    names = {m.name for m in app.mounts} | {m.root.name for m in app.mounts}
    unknown = sorted(read_only - names)
    if unknown:
        gc.enable()
        mounted = ", ".join(sorted(m.name for m in app.mounts)) or "none"
        for name in unknown:
            error(f"--read-only {name}: no mounted repo has that name (mounted: {mounted})")
        return 2
    app.gc_paused = True
    app.run()
    return app.return_code or 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run(sys.argv[1:]))
