"""What the search index cannot know itself, answered from the session's parsed files.

The finder's (and the agent interface's) metadata filters (``source:``, ``added:>=``,
``has:``, ``no:``, ``KEY:VALUE``) read the entry's metadata the session keeps per file
(``core.format.entrymeta``),
``is:broken`` resolves the links of entries in files the lint found a broken link in
(AMR010), ``is:orphan`` reads the lint findings (AMR013: not reachable from MEMORY.md), ``is:stale``
reads the repo's last verify report and ``is:unread``/``read:`` the agents' reads
(``session.verifying``), and ``by:NAME`` asks who wrote the entry's line (``services.history.authors``).
``tag:NAME`` reads the entry's text and metadata and the tags of its file's front matter (kept in
its facts). See ``core.search.index.SearchContext``; ``amr search`` answers the same filters from
the files (``services.batch.searchrun.DiskSearchContext``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from amr_tui.core.format.links import LinkState
from amr_tui.core.format.parser import Document
from amr_tui.core.model import Link
from amr_tui.core.search.index import SearchIndex
from amr_tui.core.search.items import SearchItem
from amr_tui.services.history.authors import Authors
from amr_tui.services.session.verifying import Verifying
from amr_tui.services.session.watch import RepoState


class Session(Protocol):
    """What the context reads of the session (``state.Session``, which imports this module)."""

    index: SearchIndex
    repos: dict[str, RepoState]
    verifying: Verifying

    def resolve_link(self, repo: str, link: Link) -> tuple[LinkState, str | None, str | None]: ...

    def document(self, repo: str, path: str) -> Document | None: ...

    def authors(self, repo: str) -> Authors | None: ...


ORPHAN = "AMR013"
BROKEN = "AMR010"


class SessionSearchContext:
    """A ``SearchContext`` over a session (read under its lock by the index's caller)."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self._keys: tuple[int, frozenset[str]] = (-1, frozenset())

    @property
    def keys(self) -> frozenset[str]:
        """Every metadata key of the session's entries (read again when the index changed)."""
        generation = self._session.index.generation
        if self._keys[0] != generation:
            sets = {f.meta.keys for state in self._session.repos.values() for f in state.facts.values() if f.meta}
            self._keys = (generation, frozenset().union(*sets))
        return self._keys[1]

    def metadata(self, item: SearchItem) -> Mapping[str, Sequence[str]] | None:
        state = self._session.repos.get(item.repo)
        facts = state.facts.get(item.path) if state else None
        return facts.meta.at(item.line) if facts is not None and facts.meta is not None else None

    def file_scope(self, repo: str, path: str) -> str:
        state = self._session.repos.get(repo)
        facts = state.facts.get(path) if state else None
        return facts.scope if facts is not None else ""

    def fact(self, item: SearchItem) -> bool:
        state = self._session.repos.get(item.repo)
        facts = state.facts.get(item.path) if state else None
        return facts is None or item.line not in facts.heads

    def broken(self, item: SearchItem) -> bool:
        """The entry holds a link that names no file. Only a file the lint found such a link in
        (AMR010) is read to see which of its entries holds it (until the first lint of a repo
        is done, then, no entry is broken)."""
        state = self._session.repos.get(item.repo)
        if state is None or not any(f.diagnostic.code == BROKEN for f in state.findings.get(item.path, ())):
            return False
        doc = self._session.document(item.repo, item.path)
        entry = doc.entry_at(item.line) if doc else None
        if entry is None:
            return False
        return any(self._session.resolve_link(item.repo, link)[0] is LinkState.BROKEN for link in entry.links)

    def wrote(self, item: SearchItem, name: str) -> bool:
        """``by:NAME``: ``name`` wrote the entry's line (``services.history.authors``: a blame of
        the file, only when the name ever wrote it; none in a folder without git)."""
        authors = self._session.authors(item.repo)
        return authors is not None and authors.wrote(item.path, item.line, name)

    def orphan(self, repo: str, path: str) -> bool:
        state = self._session.repos.get(repo)
        if state is None:
            return False
        return any(f.diagnostic.code == ORPHAN for f in state.findings.get(path, ()))

    def stale(self, item: SearchItem) -> bool:
        return self._session.verifying.stale(item.repo, item.path, item.line)

    def reads(self, item: SearchItem) -> tuple[int, str | None] | None:
        got = self._session.verifying.reads(item.repo, item.text)
        return None if got.reads is None else (got.reads, got.last)

    def file_tags(self, repo: str, path: str) -> Sequence[str]:
        state = self._session.repos.get(repo)
        facts = state.facts.get(path) if state else None
        return facts.tags if facts is not None else ()


__all__ = ["SessionSearchContext"]
