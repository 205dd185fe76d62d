"""Opening the app: amr [PATH...] [--read-only NAME]"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

from amr_tui.cli.output import error


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="amr", add_help=False)
    p.add_argument("paths", nargs="*", type=Path)
    p.add_argument("--read-only", action="append", default=[], metavar="NAME")
    return p


def run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    return open_app(args.paths, read_only=set(args.read_only))


def open_app(paths: list[Path], read_only: set[str]) -> int:
    # Start-up makes hundreds of thousands of objects that live as long as the process (modules,
    # classes, styles): a collection in the middle of the first frame scans them all for nothing.
    # The app freezes them and turns the collector back on once its first frame is painted.
    gc.disable()
    try:
        from amr_tui.app import make_app
    except ImportError:
        gc.enable()
        error("the interactive editor is not available in this build; use amr lint / search / parse")
        return 2
    app = make_app(paths, read_only=read_only)
    app.gc_paused = True
    app.run()
    return app.return_code or 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run(sys.argv[1:]))
