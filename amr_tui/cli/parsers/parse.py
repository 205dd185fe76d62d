"""The parser of amr parse FILE --json (run by cli/parse_cmd.py)."""

from __future__ import annotations

from pathlib import Path

from amr_tui.cli.parsers.common import Run, Sub, command, json_flag
from amr_tui.core.paths import MAX_PARSE_BYTES


def add_parsers(sub: Sub) -> None:
    p = command(sub, "parse", Run("parse_cmd"), help="print the entries of one memory file", description=_PARSE)
    p.add_argument("file", type=Path, help="a Markdown memory file")
    json_flag(p, "print a JSON array, one object per entry")


_PARSE = (
    "Parse one memory file the way amr reads it (see docs/format.md) and print its entries: "
    "line, text, metadata, links and the diagnostics of each entry's line. A file over "
    f"{MAX_PARSE_BYTES // (1024 * 1024)} MiB is refused (exit 2), as is a file inside a memory repo "
    "whose real location (through symlinks) is outside that repo or in its .git."
)
