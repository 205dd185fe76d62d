"""Shared plumbing of amr's command-line caches (``amr search``'s index, ``amr lint``'s findings).

Files live in the user's cache folder (``platformdirs``), one per kind and key, written
atomically (a temp file, then a rename) and read with an unpickler that can only build
plain data and the classes its caller allows: a damaged or planted file is a cache miss,
never code that runs. ``AMR_NO_CACHE=1`` turns every cache off. Each kind keeps its
``KEEP_FILES`` most recently written files. A file modified within
``RACY_NS`` of a cache being written is treated as changed next time (a same-size rewrite
in the same clock tick would otherwise look unchanged), as git does for its index.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import sys
import time
from pathlib import Path
from typing import Any

from platformdirs import user_cache_path

from amr_tui import __version__

RACY_NS = 2_000_000_000
TEMP_PREFIX = ".amr-cache-"  # a file being written; renamed over the cache file when whole
TEMP_MAX_AGE_NS = 3600 * 1_000_000_000  # a temp file this old is a writer's that was killed
KEEP_FILES = 24  # per kind: the least recently written beyond this are deleted (one per repo or set of repos)
PLAIN = frozenset({("builtins", "bytearray"), ("builtins", "set"), ("builtins", "frozenset")})

Stats = dict[str, tuple[int, int]]  # path -> (mtime_ns, size)


def enabled() -> bool:
    return os.environ.get("AMR_NO_CACHE", "") in ("", "0")


def cache_path(kind: str, key: object) -> Path:
    """The cache file of ``kind`` for ``key`` (anything JSON can write: names, paths, flags)."""
    text = json.dumps(key, sort_keys=True, default=os.fspath)
    digest = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return user_cache_path("amr", appauthor=False) / kind / f"{digest}.pickle"


def stamp(fmt: int) -> str:
    return f"{fmt}/{__version__}/{sys.version_info[0]}.{sys.version_info[1]}"


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BufferedIOBase, allowed: frozenset[tuple[str, str]]) -> None:
        super().__init__(file)
        self.allowed = allowed

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in self.allowed:
            raise pickle.UnpicklingError(f"not allowed in an amr cache: {module}.{name}")
        return super().find_class(module, name)


def load(path: Path, fmt: int, allowed: frozenset[tuple[str, str]] = PLAIN) -> dict[str, Any] | None:
    """The payload written by ``save`` with the same format stamp, or None."""
    try:
        fh = path.open("rb")  # read as it unpickles: no copy of the whole file in memory
    except OSError:
        return None
    try:
        with fh:
            payload = _Unpickler(fh, PLAIN | allowed).load()
    except Exception:  # a damaged or foreign file is a cache miss, never an error
        return None
    if not isinstance(payload, dict) or payload.get("stamp") != stamp(fmt):
        return None
    return payload


def save(path: Path, fmt: int, payload: dict[str, Any]) -> None:
    """Write ``payload`` (plus its stamp and time) atomically; failures are ignored. Two
    writers of one cache (the app and ``amr search``) each write their own temp file: the
    last rename wins, and a reader sees one whole file or the other."""
    payload = dict(payload, stamp=stamp(fmt), written=time.time_ns())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.parent / f"{TEMP_PREFIX}{os.urandom(8).hex()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(payload, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError:
        return
    _trim(path.parent)


def _trim(folder: Path, keep: int = KEEP_FILES) -> None:
    """Delete the oldest cache files of a kind beyond ``keep`` (only ``*.pickle`` files amr names),
    and temp files a killed writer left (the app quit while it wrote a million-entry index)."""
    now = time.time_ns()
    try:
        files = [(p.stat().st_mtime_ns, p) for p in folder.glob("*.pickle") if len(p.stem) == 24]
        left = [p for p in folder.glob(TEMP_PREFIX + "*") if now - p.lstat().st_mtime_ns > TEMP_MAX_AGE_NS]
    except OSError:
        return
    files.sort(reverse=True)
    for old in [p for _, p in files[keep:]] + left:
        try:
            old.unlink()
        except OSError:
            pass


def stale_paths(old: Stats, new: Stats, written_ns: int) -> tuple[list[str], list[str]]:
    """(paths to read again, paths gone) between cached stats and a fresh walk's."""
    racy = written_ns - RACY_NS
    again = [p for p, st in new.items() if old.get(p) != st or st[0] >= racy]
    gone = [p for p in old if p not in new]
    return again, gone
