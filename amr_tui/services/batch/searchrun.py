"""Building a search index from repos on disk (used by `amr search`), with its on-disk cache."""

from __future__ import annotations

from pathlib import Path

from amr_tui.core.search.index import SearchHit, SearchIndex
from amr_tui.services.batch import diskcache, searchcache, searchcolumns
from amr_tui.services.batch.parallel import entry_texts, map_files
from amr_tui.services.workspace import Mount, discover, paused_gc, scan_files


def _entries(mount: Mount, rels: list[str]) -> list[tuple[str, list[tuple[int, str]]]]:
    """What the index holds of each file: read on every core when there are many."""
    found = map_files(entry_texts, mount.root, rels)
    if found is None:
        return [(rel, entry_texts(mount.root, rel)) for rel in rels]
    return [(rel, found.get(rel) or []) for rel in rels]


def _walk(mount: Mount) -> dict[str, tuple[int, int]]:
    """Every file the index holds (symlinks leaving the root are not indexed), with its stat."""
    files, escaping, stats = scan_files(mount.root)
    return {rel: stats[rel] for rel in files if rel not in escaping}


def index_mount(index: SearchIndex, mount: Mount) -> int:
    """Add every file and entry of one repo. Returns the number of files indexed."""
    found = _walk(mount)
    index.set_files(mount.name, _entries(mount, list(found)))
    return len(found)


def build_index(mounts: list[Mount], *, use_cache: bool = True) -> SearchIndex:
    """The index of these repos: from the cache, brought up to date, or built (and cached)."""
    path = searchcache.cache_file(mounts) if use_cache and diskcache.enabled() else None
    cached = searchcache.load(path) if path is not None else None
    index, old_stats, written = cached if cached is not None else (SearchIndex(), {}, 0)
    stats: searchcache.Stats = {}
    changed = cached is None
    for mount in mounts:
        stats[mount.name] = found = _walk(mount)
        again, gone = diskcache.stale_paths(old_stats.get(mount.name, {}), found, written)
        if again or gone:
            searchcolumns.materialize(index)  # a cached index is read-only until then
        for rel in gone:
            index.remove_file(mount.name, rel)
        if again:
            index.set_files(mount.name, _entries(mount, list(again)))
        changed = changed or bool(again or gone)
    if path is not None and (changed or set(old_stats) != set(stats)):
        searchcache.save(path, index, stats)
    return index


_KEPT: list[SearchIndex] = []  # `amr search` leaves its index to the end of the process (see cli.main.FAST_EXIT)


def search_paths(
    paths: list[Path], query: str, limit: int, *, use_cache: bool = True, keep: bool = False
) -> list[SearchHit]:
    with paused_gc():
        index = build_index(discover(paths), use_cache=use_cache)
    if keep:
        _KEPT[:] = [index]
    return index.search(query, limit)
