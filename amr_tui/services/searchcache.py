"""The on-disk cache of ``amr search``'s index: a search need not parse the repos again.

One file per set of mounted repos in the user's cache folder (``platformdirs``), holding the
built ``SearchIndex`` and the (mtime_ns, size) of every file it indexed. A search walks the
repos (stats only), re-indexes the files whose stat changed, drops the files that are gone,
and writes the cache back only when something changed. A file modified within
``RACY_NS`` of the cache being written is re-read next time (a same-size rewrite in the same
clock tick would otherwise look unchanged), as git does for its index.

Items are stored as columns (``searchcolumns``) and made only for the slots a search ranks.
The cache is the user's own data, but it is read with an unpickler that can only build plain
data and the index's bit arrays: a damaged or planted file is rebuilt, never run. ``AMR_NO_CACHE=1`` (or
``amr search --no-cache``) skips it.
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

from amr_tui import __version__
from amr_tui.core.search import SearchIndex
from amr_tui.services import searchcolumns
from amr_tui.services.workspace import Mount

FORMAT = 2
RACY_NS = 2_000_000_000
_ALLOWED = {("amr_tui.core.search_store", "BitArray"), ("builtins", "bytearray"), ("builtins", "set"),
            ("builtins", "frozenset")}

Stats = dict[str, dict[str, tuple[int, int]]]  # repo -> path -> (mtime_ns, size)


class _IndexUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"not part of a search index: {module}.{name}")
        return super().find_class(module, name)


def enabled() -> bool:
    return os.environ.get("AMR_NO_CACHE", "") in ("", "0")


def cache_file(mounts: list[Mount]) -> Path:
    from platformdirs import user_cache_path

    key = json.dumps([[m.name, os.fspath(m.root.resolve())] for m in mounts])
    digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return user_cache_path("amr", appauthor=False) / "search" / f"{digest}.pickle"


def _stamp() -> str:
    return f"{FORMAT}/{__version__}/{sys.version_info[0]}.{sys.version_info[1]}"


def load(path: Path) -> tuple[SearchIndex, Stats, int] | None:
    """(index, stats, written at, time_ns) from the cache file, or None when absent or unusable."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        payload = _IndexUnpickler(io.BytesIO(data)).load()
        if not isinstance(payload, dict) or payload.get("stamp") != _stamp():
            return None
        index = SearchIndex.__new__(SearchIndex)
        index.__dict__.update(payload["state"])
        searchcolumns.attach(index, payload["columns"])
        return index, payload["stats"], int(payload["written"])
    except Exception:  # a damaged or foreign file is a cache miss, never an error
        return None


def save(path: Path, index: SearchIndex, stats: Stats) -> None:
    """Write the cache atomically (a temp file, then a rename); failures are ignored."""
    import tempfile

    searchcolumns.materialize(index)
    index._vocab_text()  # the joined vocabulary, made once here rather than by every search
    state = {k: v for k, v in index.__dict__.items() if k not in ("_items", "_lower")}
    payload = {"stamp": _stamp(), "written": time.time_ns(), "stats": stats, "state": state,
               "columns": searchcolumns.to_columns(index._items, index._lower)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".amr-search-", dir=path.parent)
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


def stale_paths(old: dict[str, tuple[int, int]], new: dict[str, tuple[int, int]], written_ns: int) -> tuple[list[str], list[str]]:
    """(paths to index again, paths gone) between the cached stats and the walk's."""
    racy = written_ns - RACY_NS
    again = [p for p, st in new.items() if old.get(p) != st or st[0] >= racy]
    gone = [p for p in old if p not in new]
    return again, gone
