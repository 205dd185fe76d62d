"""amr parse FILE --json: runs the command (its parser: cli/parsers/parse.py)."""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

from amr_tui.cli.named import locate_in_repo
from amr_tui.cli.output import emit_json, error, safe
from amr_tui.core.format.jsonout import entries_json
from amr_tui.core.format.parser import parse
from amr_tui.core.paths import MAX_PARSE_BYTES
from amr_tui.core.textsafety import describe_size
from amr_tui.services.workspace import read_bytes


def _too_large(path: Path, size: int, limit: int) -> str:
    return f"{path} is {describe_size(size)}, more than the {describe_size(limit)} amr parses; nothing was parsed"


def read_input(path: Path, limit: int) -> bytes:
    """The file's bytes, at most ``limit`` of them; OSError or ValueError (with the sentence to
    print) when it is missing, too large, or a way out of the memory repo it is in."""
    found = locate_in_repo(path)
    if found is not None:
        root, inside = found
        st = os.stat(os.path.join(root, inside))
        if stat.S_ISREG(st.st_mode) and st.st_size > limit:
            raise ValueError(_too_large(path, st.st_size, limit))
        data = read_bytes(root, inside, limit)  # O_NOFOLLOW, regular files only
        if data is None:
            raise ValueError(f"cannot read {path}: not a regular file, or it changed while being read")
        return data
    with open(path, "rb") as f:  # outside any memory repo: a plain file (or a pipe), bounded
        st = os.fstat(f.fileno())
        if stat.S_ISREG(st.st_mode) and st.st_size > limit:
            raise ValueError(_too_large(path, st.st_size, limit))
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path} holds more than the {limit // (1024 * 1024)} MiB amr parses; nothing was parsed")
    return data


def run(args: argparse.Namespace) -> int:
    try:
        data = read_input(args.file, MAX_PARSE_BYTES)
    except OSError as exc:
        error(f"cannot read {args.file}: {exc.strerror}" if exc.strerror else str(exc))
        return 2
    except ValueError as exc:
        error(str(exc))
        return 2
    doc = parse(data, args.file.name)
    rows = entries_json(doc)
    if args.json:
        emit_json(rows, rows=True)  # one entry a line
        return 0
    for row in rows:
        meta = "; ".join(f"{k}: {v}" for k, v in row["metadata"].items())
        print(f"{row['line']:>5}  {safe(row['text'])}" + (f"  [{safe(meta)}]" if meta else ""))
        for d in row["diagnostics"]:
            print(f"       {d['code']} {d['severity']}: {safe(d['message'])}")
    return 0
