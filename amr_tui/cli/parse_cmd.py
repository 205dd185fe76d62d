"""amr parse FILE --json"""

from __future__ import annotations

import argparse
from pathlib import Path

from amr_tui.cli.output import emit_json, error, safe


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("parse", help="print the entries of one memory file", description=(
        "Parse one memory file the way amr reads it (see docs/format.md) and print its entries: "
        "line, text, metadata, links and the diagnostics of each entry's line."))
    p.add_argument("file", type=Path, help="a Markdown memory file")
    p.add_argument("--json", action="store_true", help="print a JSON array, one object per entry")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from amr_tui.core.format import parse
    from amr_tui.core.jsonout import entries_json

    try:
        data = args.file.read_bytes()
    except OSError as exc:
        error(f"cannot read {args.file}: {exc.strerror}")
        return 2
    doc = parse(data, args.file.name)
    rows = entries_json(doc)
    if args.json:
        emit_json(rows)
        return 0
    for row in rows:
        meta = "; ".join(f"{k}: {v}" for k, v in row["metadata"].items())
        print(f"{row['line']:>5}  {safe(row['text'])}" + (f"  [{safe(meta)}]" if meta else ""))
        for d in row["diagnostics"]:
            print(f"       {d['code']} {d['severity']}: {safe(d['message'])}")
    return 0
