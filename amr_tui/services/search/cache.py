"""The on-disk cache of ``amr search``'s index: a search need not parse the repos again.

One file per set of mounted repos (``diskcache``: the user's cache folder, atomic writes, a
restricted unpickler), holding the built ``SearchIndex`` and the (mtime_ns, size) of every
file it indexed. A search walks the repos (stats only), re-indexes the files whose stat
changed, drops the files that are gone, and writes the cache back only when something
changed. Items are stored as columns (``services.search.columns``) and made only for the slots a search
ranks. ``AMR_NO_CACHE=1`` (or ``amr search --no-cache``) skips it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from amr_tui.services.batch import diskcache
from amr_tui.services.workspace import Mount

if TYPE_CHECKING:  # imported where used: a search without its cache forks before it needs them
    from amr_tui.core.search.index import SearchIndex

FORMAT = 4  # 3: the index classes moved to amr_tui.core.search; 4: prose of other formats
_ALLOWED = frozenset({("amr_tui.core.search.store", "BitArray")})

Stats = dict[str, diskcache.Stats]  # repo -> path -> (mtime_ns, size)


def cache_file(mounts: list[Mount]) -> Path:
    return diskcache.cache_path("search", [[m.name, os.fspath(m.root.resolve())] for m in mounts])


def load(path: Path) -> tuple[SearchIndex, Stats, int] | None:
    """(index, stats, written at) from the cache file, or None when absent or unusable."""
    payload = diskcache.load(path, FORMAT, _ALLOWED)
    if payload is None:
        return None
    from amr_tui.core.search.index import SearchIndex  # search index: only when there is a cache to load
    from amr_tui.services.search import columns as searchcolumns  # search index: only when a cache is read or written

    try:
        index = SearchIndex.__new__(SearchIndex)
        index.__dict__.update(payload["state"])
        searchcolumns.attach(index, payload["columns"])
        return index, payload["stats"], int(payload["written"])
    except Exception:  # a payload of the wrong shape is a cache miss
        return None


def save(path: Path, index: SearchIndex, stats: Stats) -> None:
    from amr_tui.services.search import columns as searchcolumns  # search index: only when a cache is read or written

    index.vocab_text()  # the joined vocabulary, made once here rather than by every search
    state = {k: v for k, v in index.__dict__.items() if k not in ("_items", "_lower")}
    diskcache.save(
        path, FORMAT, {"stats": stats, "state": state, "columns": searchcolumns.to_columns(index._items, index._lower)}
    )
