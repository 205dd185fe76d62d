"""Memory no session reads: which entries ``amr mcp`` served to agents, and when.

Devin's dreaming "removes stale memory records that no session used"; this module is what lets
amr say which those are. ``amr mcp`` records every entry it serves (``memory_load``'s entries,
``memory_search``'s hits, every entry of a file ``memory_read`` returns) in **one small SQLite
database in the user's data folder** (``platformdirs.user_data_dir("amr")/usage.sqlite3``), keyed
by the repo's resolved path and the entry's normalised text (so an entry keeps its reads when it
moves to another line or file, and starts again when it is reworded). Nothing is ever written in
the repo, its work tree or its git folder: reading memory stays a read. The database is in WAL
mode with a busy timeout, so several ``amr mcp`` processes (several agents) record side by side;
a recording that fails is dropped, never an error an agent sees.

A repo amr mcp never served has **unknown** reads, not zero: agents may read its files without
amr (``since`` says from when the counts are known).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_data_path

from amr_tui.core.diff.similarity import normalise
from amr_tui.core.format.parser import parse
from amr_tui.core.paths import in_amr_folder, is_markdown
from amr_tui.core.textsafety import servable
from amr_tui.core.verify.units import units
from amr_tui.services.workspace import Mount, read_bytes, scan_files, style_of

DB_NAME = "usage.sqlite3"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS repos (root TEXT PRIMARY KEY, since TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reads (
    root TEXT NOT NULL,
    digest TEXT NOT NULL,
    path TEXT NOT NULL,
    text TEXT NOT NULL,
    reads INTEGER NOT NULL,
    first TEXT NOT NULL,
    last TEXT NOT NULL,
    PRIMARY KEY (root, digest)
);
"""
_LOCK = threading.Lock()


def db_path() -> Path:
    return user_data_path("amr", appauthor=False) / DB_NAME


def digest(text: str) -> str:
    """The key of an entry: its normalised text (the normalisation AMR014 compares with)."""
    return hashlib.sha256(normalise(text).encode("utf-8", "surrogateescape")).hexdigest()[:32]


def repo_key(root: Path) -> str:
    try:
        return str(root.resolve())
    except OSError:
        return str(root)


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _connect(path: Path | None = None, *, create: bool) -> sqlite3.Connection | None:
    path = path or db_path()
    if not create and not path.is_file():
        return None
    if create:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    con = sqlite3.connect(str(path), timeout=5.0, isolation_level=None)
    con.execute("PRAGMA busy_timeout = 5000")
    if create:
        con.execute("PRAGMA journal_mode = WAL")
        con.executescript(_SCHEMA)
    return con


def enabled() -> bool:
    """``AMR_NO_USAGE=1`` turns recording off."""
    return os.environ.get("AMR_NO_USAGE", "") in ("", "0")


def record(root: Path, served: Iterable[tuple[str, str]], *, at: str | None = None, path: Path | None = None) -> int:
    """Count one read of each served ``(file path, entry text)`` of the repo at ``root``.
    Returns how many were recorded (0 when recording failed or is off: never raises)."""
    if not enabled():
        return 0
    rows: dict[str, tuple[str, str]] = {}
    for rel, text in served:
        if text and text.strip():
            rows.setdefault(digest(text), (rel, text))
    if not rows:
        return 0
    when = at or _now()
    key = repo_key(root)
    try:
        with _LOCK:
            con = _connect(path, create=True)
            assert con is not None
            try:
                con.execute("BEGIN IMMEDIATE")
                con.execute("INSERT OR IGNORE INTO repos (root, since) VALUES (?, ?)", (key, when))
                con.executemany(
                    "INSERT INTO reads (root, digest, path, text, reads, first, last) VALUES (?, ?, ?, ?, 1, ?, ?) "
                    "ON CONFLICT (root, digest) DO UPDATE SET reads = reads + 1, last = excluded.last, "
                    "path = excluded.path, text = excluded.text",
                    # the text and path as shown (a byte that is not UTF-8 as U+FFFD): sqlite takes no lone surrogate
                    [(key, d, servable(rel), servable(text[:500]), when, when) for d, (rel, text) in rows.items()],
                )
                con.execute("COMMIT")
            finally:
                con.close()
    except (sqlite3.Error, OSError, UnicodeError):
        return 0
    return len(rows)


@dataclass(frozen=True, slots=True)
class Reads:
    """How often agents read an entry through amr, and when last (``reads`` None: unknown)."""

    reads: int | None
    last: str | None  # ISO time of the last read
    since: str | None  # since when reads of its repo are recorded

    def sentence(self, today: _dt.date) -> str:
        if self.reads is None:
            return "read by agents: unknown (amr mcp never served this repo)"
        since = f" since {self.since[:10]}" if self.since else ""
        if not self.reads:
            return f"read by agents through amr: never{since}"
        times = "once" if self.reads == 1 else f"{self.reads} times"
        return f"read by agents {times}, last {ago(self.last, today)}"


def ago(when: str | None, today: _dt.date) -> str:
    if not when:
        return "never"
    try:
        day = _dt.date.fromisoformat(when[:10])
    except ValueError:
        return when
    days = (today - day).days
    if days <= 0:
        return "today"
    if days == 1:
        return "yesterday"
    return f"{days} days ago"


class Usage:
    """The recorded reads of one repo, read once (``lookup``), asked per entry text."""

    def __init__(self, root: Path, *, path: Path | None = None) -> None:
        self.root = root
        self.since: str | None = None
        self._rows: dict[str, tuple[int, str, str, str]] = {}  # digest -> (reads, last, path, text)
        key = repo_key(root)
        try:
            con = _connect(path, create=False)
        except (sqlite3.Error, OSError):
            con = None
        if con is None:
            return
        try:
            row = con.execute("SELECT since FROM repos WHERE root = ?", (key,)).fetchone()
            self.since = row[0] if row else None
            for d, reads, last, rel, text in con.execute(
                "SELECT digest, reads, last, path, text FROM reads WHERE root = ?", (key,)
            ):
                self._rows[d] = (int(reads), str(last), str(rel), str(text))
        except sqlite3.Error:
            self.since, self._rows = None, {}
        finally:
            con.close()

    @property
    def known(self) -> bool:
        """amr mcp served this repo (reads are counted from ``since``)."""
        return self.since is not None

    def of(self, text: str) -> Reads:
        if not self.known:
            return Reads(None, None, None)
        row = self._rows.get(digest(text))
        return Reads(row[0] if row else 0, row[1] if row else None, self.since)

    def days_known(self, today: _dt.date) -> int:
        if not self.since:
            return 0
        try:
            return (today - _dt.date.fromisoformat(self.since[:10])).days
        except ValueError:
            return 0


@dataclass(frozen=True, slots=True)
class UsageRow:
    path: str
    line: int
    text: str
    reads: int | None
    last: str | None

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "text": self.text, "reads": self.reads, "last": self.last}


@dataclass(frozen=True, slots=True)
class UsageReport:
    repo: str
    known: bool
    since: str | None
    rows: list[UsageRow]


def usage_report(mount: Mount) -> UsageReport:
    """Every entry of a mounted repo with its reads, least recently read first (never read first)."""
    usage = Usage(mount.root)
    prose = style_of(mount) != "amr"
    rows: list[UsageRow] = []
    files, escaping, _ = scan_files(mount.root, stats=False)
    for rel in (p for p in files if is_markdown(p) and p not in escaping and not in_amr_folder(p)):
        data = read_bytes(mount.root, rel)
        if data is None:
            continue
        for unit in units(parse(data, rel), prose=prose):
            got = usage.of(unit.text)
            rows.append(UsageRow(rel, unit.line, unit.text, got.reads, got.last))
    rows.sort(key=lambda r: (r.last is not None, r.last or "", r.path, r.line))
    return UsageReport(mount.name, usage.known, usage.since, rows)


__all__ = ["Reads", "Usage", "UsageReport", "UsageRow", "ago", "db_path", "digest", "record", "usage_report"]
