"""Reading and writing the file of ``amr search``'s cache (``services.search.cache`` names it): the built
``SearchIndex``, its items as columns (``services.search.columns``), and the stat of every file it indexed.

Imported where a cache is read or written (``services.search.run.build_index``, the session): a search
without its cache forks before it needs the index."""

from __future__ import annotations

from pathlib import Path

from amr_tui.core.search.index import SearchIndex
from amr_tui.services.batch import diskcache
from amr_tui.services.search import cache as searchcache
from amr_tui.services.search import columns as searchcolumns


def load(path: Path) -> tuple[SearchIndex, searchcache.Stats, int] | None:
    """(index, stats, written at) from the cache file, or None when absent or unusable."""
    payload = diskcache.load(path, searchcache.FORMAT, searchcache.ALLOWED)
    if payload is None:
        return None
    try:
        index = SearchIndex.__new__(SearchIndex)
        index.__dict__.update(payload["state"])
        searchcolumns.attach(index, payload["columns"])
        return index, payload["stats"], int(payload["written"])
    except Exception:  # a payload of the wrong shape is a cache miss
        return None


def save(path: Path, index: SearchIndex, stats: searchcache.Stats) -> None:
    index.vocab_text()  # the joined vocabulary, made once here rather than by every search
    state = {k: v for k, v in index.__dict__.items() if k not in ("_items", "_lower")}
    diskcache.save(
        path,
        searchcache.FORMAT,
        {"stats": stats, "state": state, "columns": searchcolumns.to_columns(index._items, index._lower)},
    )
