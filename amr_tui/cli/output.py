"""Terminal output for the command line: colour only on a terminal, untrusted text made visible."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, TextIO

from amr_tui.core.paths import MAX_PARSE_BYTES
from amr_tui.core.textsafety import describe_size, make_visible

if TYPE_CHECKING:
    from amr_tui.git.history import SkippedBlob

_COLOURS = {"error": "31", "warning": "33", "info": "36", "bold": "1", "dim": "2", "path": "1"}


def use_colour(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


def paint(text: str, style: str, enabled: bool) -> str:
    if not enabled or style not in _COLOURS:
        return text
    return f"\x1b[{_COLOURS[style]}m{text}\x1b[0m"


def safe(text: str) -> str:
    """Repo text on its way to a terminal: controls and bidi overrides made visible."""
    return make_visible(text)


def emit_json(data: Any, stream: TextIO | None = None, *, rows: bool = False) -> None:
    """``data`` as JSON (ASCII only), in one write: ``json.dump`` to the stream wrote each of its
    millions of pieces on its own (``amr parse --json`` of 100,000 entries spent most of its time
    in those writes; ``bench/parse_json.py``). Indented by 2; ``rows``: ``data`` is a list, printed
    one item a line, each item by the C encoder (an indented dump is encoded in Python: 4x slower)."""
    stream = stream or sys.stdout
    if rows and isinstance(data, list) and data:
        dumps = json.JSONEncoder(ensure_ascii=True).encode
        stream.write("[\n  " + ",\n  ".join(map(dumps, data)) + "\n]\n")
        return
    stream.write(json.dumps(data, ensure_ascii=True, indent=2) + "\n")


def error(message: str) -> None:
    sys.stderr.write(f"amr: {safe(message)}\n")


def ask(question: str) -> bool:
    """Whether the person at the terminal answers yes to ``question`` ("... [y/N] "); the end of
    the input is a no."""
    try:
        answer = input(question)
    except EOFError:
        answer = ""
    return answer.strip().lower() in ("y", "yes")


def commit_json(oid: str, author: str, email: str, date: datetime, subject: str) -> dict[str, object]:
    """A commit as the JSON of amr history, forgotten and activity show it."""
    return {"commit": oid, "author": author, "email": email, "date": date.isoformat(), "subject": subject}


def skipped_json(skipped: Iterable[SkippedBlob]) -> list[dict[str, object]]:
    """Files a history walk did not read (over the size limit), for a ``"skipped"`` JSON field."""
    return [{"path": s.path, "commit": s.commit, "size": s.size} for s in dict.fromkeys(skipped)]


def report_skipped(skipped: Iterable[SkippedBlob]) -> None:
    """One line on stderr for each file a history walk did not read (over the size limit)."""
    for s in dict.fromkeys(skipped):
        error(
            f"skipped {s.path} in commit {s.commit[:7]}: {describe_size(s.size)}, more than the "
            f"{describe_size(MAX_PARSE_BYTES)} amr reads from git"
        )
