"""Building a search index from repos on disk (used by `amr search`), with its on-disk cache."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from amr_tui.core.format.entrymeta import FileMeta, file_meta
from amr_tui.core.format.links import LinkState
from amr_tui.core.format.tags import file_tags
from amr_tui.core.model import is_fact_line
from amr_tui.core.paths import is_markdown
from amr_tui.core.scope import file_scope
from amr_tui.services.batch import diskcache
from amr_tui.services.batch.parallel import entry_texts, map_files
from amr_tui.services.search import cache as searchcache
from amr_tui.services.search.context import SearchFacts
from amr_tui.services.workspace import Mount, discover, load_snapshot, paused_gc, read_bytes, scan_files

if TYPE_CHECKING:  # the index is imported where it is used: a search without its cache forks first
    from amr_tui.core.format.parser import Document
    from amr_tui.core.lint.repo import RepoSnapshot
    from amr_tui.core.model import Link
    from amr_tui.core.search.index import SearchHit, SearchIndex
    from amr_tui.services.history.authors import Authors


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


def build_index(mounts: list[Mount], *, use_cache: bool = True) -> SearchIndex:
    """The index of these repos: from the cache, brought up to date, or built (and cached)."""
    from amr_tui.core.search.index import SearchIndex  # search index: a cold search answers without it
    from amr_tui.services.search import load as searchload  # search index: a cold search answers without it

    path = searchcache.cache_file(mounts) if use_cache and diskcache.enabled() else None
    cached = searchload.load(path) if path is not None else None
    index, old_stats, written = cached if cached is not None else (SearchIndex(), {}, 0)
    stats: searchcache.Stats = {}
    changed = cached is None
    for mount in mounts:
        stats[mount.name] = found = _walk(mount)
        again, gone = diskcache.stale_paths(old_stats.get(mount.name, {}), found, written)
        for rel in gone:
            index.remove_file(mount.name, rel)
        if again:
            index.set_files(mount.name, _entries(mount, list(again)))
        changed = changed or bool(again or gone)
    if path is not None and (changed or set(old_stats) != set(stats)):
        searchload.save(path, index, stats)
    return index


StaleOf = Callable[[Mount], set[tuple[str, int]]]  # a repo -> the (path, line) of its stale facts
ReadsOf = Callable[[Mount], Callable[[str], tuple[int, str | None] | None]]  # a repo -> text -> (reads, last)

_KEPT: list[SearchIndex] = []  # `amr search` leaves its index to the end of the process (see cli.main.FAST_EXIT)


class DiskKeys:
    """The metadata keys ``amr search`` reads as ``KEY:VALUE`` filters: a key some entry of the
    repos has, as the app's finder knows them from the entries it parsed. Asked one key at a time
    (only for a ``word:`` the query holds): files that hold ``[key:`` or ``; key:`` are parsed
    until an entry with that key is found."""

    def __init__(self, source: DiskFacts) -> None:
        self._source = source
        self._known: dict[str, bool] = {}

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        found = self._known.get(key)
        if found is None:
            found = self._known[key] = self._source.has_key(key)
        return found


@dataclass(frozen=True, slots=True)
class DocFilters:
    """What the filters read of a file parsed from disk (``services.search.context.FileFilters``),
    made by the rules ``core.lint.facts.facts_of`` keeps them by in the app."""

    meta: FileMeta | None
    heads: frozenset[int]
    scope: str
    tags: tuple[str, ...]

    @classmethod
    def of(cls, doc: Document) -> DocFilters:
        heads = frozenset(ln for ln in range(1, len(doc.lines) + 1) if not is_fact_line(doc, ln))
        return cls(file_meta(doc.entries), heads, file_scope(doc), file_tags(doc))


class DiskFacts:
    """The ``FactSource`` of ``amr search`` (``services.search.context``: the finder and MCP read the
    session's, ``services.session.searchctx.SessionFacts``): only the files of candidate entries
    are parsed, on first use; the repo's link graph is read only for ``is:broken`` and
    ``is:orphan``."""

    def __init__(
        self, mounts: Sequence[Mount], stale_of: StaleOf | None = None, reads_of: ReadsOf | None = None
    ) -> None:
        self._mounts = {m.name: m for m in mounts}
        self._stale_of = stale_of
        self._reads_of = reads_of
        self._docs: dict[tuple[str, str], Document | None] = {}
        self._files: dict[tuple[str, str], DocFilters | None] = {}
        self._snapshots: dict[str, RepoSnapshot] = {}
        self._reachable: dict[str, set[str]] = {}
        self._stale: dict[str, set[tuple[str, int]]] = {}
        self._usage: dict[str, Callable[[str], tuple[int, str | None] | None]] = {}
        self._authors: dict[str, Authors | None] = {}  # repo -> who wrote its lines (None: no git)
        self._keys = DiskKeys(self)

    @property
    def keys(self) -> DiskKeys:
        return self._keys

    def has_key(self, key: str) -> bool:
        """Whether an entry of the repos has metadata ``key`` (lower case)."""
        probe = re.compile(rb"[\[;][ \t\v\f\r]*" + re.escape(key.encode()) + rb"[ \t\v\f\r]*:", re.I)
        for name, mount in self._mounts.items():
            files, escaping, _stats = scan_files(mount.root, stats=False)
            for rel in files:
                if rel in escaping or not is_markdown(rel):
                    continue
                data = read_bytes(mount.root, rel)
                if data is None or probe.search(data) is None:
                    continue
                doc = self.document(name, rel)
                if doc is not None and any(m.key.lower() == key for e in doc.entries for m in e.metadata):
                    return True
        return False

    def document(self, repo: str, path: str) -> Document | None:
        key = (repo, path)
        if key not in self._docs:
            from amr_tui.core.format.parser import parse  # parser: only for filters that read a hit's entry

            mount = self._mounts.get(repo)
            data = read_bytes(mount.root, path) if mount is not None else None
            self._docs[key] = parse(data, path) if data is not None else None
        return self._docs[key]

    def file(self, repo: str, path: str) -> DocFilters | None:
        key = (repo, path)
        if key not in self._files:
            doc = self.document(repo, path)
            self._files[key] = DocFilters.of(doc) if doc is not None else None
        return self._files[key]

    def may_break(self, repo: str, path: str) -> bool:
        return True  # no lint ran: the entry's links are resolved

    def _snapshot(self, repo: str) -> RepoSnapshot:
        if repo not in self._snapshots:
            self._snapshots[repo] = load_snapshot(self._mounts[repo])
        return self._snapshots[repo]

    def link_broken(self, repo: str, link: Link) -> bool:
        return self._snapshot(repo).resolve(link.target).state is LinkState.BROKEN

    def orphan(self, repo: str, path: str) -> bool:
        if repo not in self._reachable:
            from amr_tui.core.lint.repo import reachable  # lint: only for the filter on orphans

            self._reachable[repo] = reachable(self._snapshot(repo))
        return path not in self._reachable[repo]

    def stale(self, repo: str, path: str, line: int) -> bool:
        """The entry's evidence no longer holds (``stale_of``, given by the command: the repo is
        judged against its code once, on first use); False when no judge was given."""
        if self._stale_of is None:
            return False
        if repo not in self._stale:
            self._stale[repo] = self._stale_of(self._mounts[repo])
        return (path, line) in self._stale[repo]

    def reads(self, repo: str, text: str) -> tuple[int, str | None] | None:
        """How often agents read the entry (``reads_of``, given by the command); unknown without it."""
        if self._reads_of is None:
            return None
        if repo not in self._usage:
            self._usage[repo] = self._reads_of(self._mounts[repo])
        return self._usage[repo](text)

    def authors(self, repo: str) -> Authors | None:
        """Who wrote the repo's lines (``by:``): blamed only in files a name ever wrote."""
        if repo not in self._authors:
            from amr_tui.services.history.authors import Authors  # git: only for the filter on writers

            mount = self._mounts.get(repo)
            git = mount is not None and (mount.root / ".git").exists()
            self._authors[repo] = Authors(mount.root) if git and mount is not None else None
        return self._authors[repo]


def disk_context(
    mounts: Sequence[Mount], stale_of: StaleOf | None = None, reads_of: ReadsOf | None = None
) -> SearchFacts:
    """The search context of ``amr search`` over ``mounts`` (the one ``services.search.context``)."""
    return SearchFacts(DiskFacts(mounts, stale_of, reads_of))


def search_paths(
    paths: list[Path],
    query: str,
    limit: int,
    *,
    use_cache: bool = True,
    keep: bool = False,
    stale_of: StaleOf | None = None,
    reads_of: ReadsOf | None = None,
) -> tuple[list[SearchHit], list[Mount] | None]:
    """The hits for ``query``, and the mounts whose cache is still to be built (None when it is
    there or not wanted). Without a cache only the lines that can match are indexed
    (``services.search.cold``). Raises QueryError for a malformed filter."""
    mounts = discover(paths)
    context = disk_context(mounts, stale_of, reads_of)
    cache = searchcache.cache_file(mounts) if use_cache and diskcache.enabled() else None
    if cache is None or not cache.exists():
        from amr_tui.services.search.cold import cold_index  # cold search: only when there is no cache

        with paused_gc():
            cold = cold_index(mounts, query, limit, keys=context.keys if ":" in query else frozenset())
        if cold is not None:
            if keep:
                _KEPT[:] = [cold]
            return cold.search(query, limit, context=context), (mounts if cache is not None else None)
    with paused_gc():
        index = build_index(mounts, use_cache=use_cache)
    if keep:
        _KEPT[:] = [index]
    return index.search(query, limit, context=context), None


def build_cache(mounts: list[Mount]) -> None:
    """Build and write the index cache of ``mounts`` (``amr search`` runs it after a cold answer)."""
    with paused_gc():
        build_index(mounts, use_cache=True)
