"""Where the search filters' facts come from in the app (and MCP): the session's parsed files.

``SessionFacts`` is the ``services.search.context.FactSource`` of the finder and of MCP's
``memory_search`` (``services.search.context.SearchFacts`` answers every filter from it). The
metadata filters (``source:``, ``added:>=``,
``has:``, ``no:``, ``KEY:VALUE``) read the entry's metadata the session keeps per file
(``core.format.entrymeta``),
``is:broken`` resolves the links of entries in files the lint found a broken link in
(AMR010), ``is:orphan`` reads the lint findings (AMR013: not reachable from MEMORY.md), ``is:stale``
reads the repo's last verify report and ``is:unread``/``read:`` the agents' reads
(``session.verifying``), and ``by:NAME`` asks who wrote the entry's line (``services.history.authors``).
``tag:NAME`` reads the entry's text and metadata and the tags of its file's front matter (kept in
its facts). ``amr search`` reads the same facts from the files
(``services.search.run.DiskFacts``).
"""

from __future__ import annotations

from typing import Protocol

from amr_tui.core.format.links import LinkState
from amr_tui.core.format.parser import Document
from amr_tui.core.lint.facts import FileFacts
from amr_tui.core.model import Link
from amr_tui.core.search.index import SearchIndex
from amr_tui.services.history.authors import Authors
from amr_tui.services.search.context import SearchFacts
from amr_tui.services.session.verifying import Verifying
from amr_tui.services.session.watch import RepoState


class Session(Protocol):
    """What the source reads of the session (``state.Session``, which imports this module)."""

    index: SearchIndex
    repos: dict[str, RepoState]
    verifying: Verifying

    def resolve_link(self, repo: str, link: Link) -> tuple[LinkState, str | None, str | None]: ...

    def document(self, repo: str, path: str) -> Document | None: ...

    def authors(self, repo: str) -> Authors | None: ...


ORPHAN = "AMR013"
BROKEN = "AMR010"


class SessionFacts:
    """A ``FactSource`` over a session (read under its lock by the index's caller)."""

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

    def file(self, repo: str, path: str) -> FileFacts | None:
        state = self._session.repos.get(repo)
        return state.facts.get(path) if state else None

    def may_break(self, repo: str, path: str) -> bool:
        """Only a file the lint found a broken link in (AMR010) is read to see which of its
        entries holds it (until the first lint of a repo is done, then, no entry is broken)."""
        state = self._session.repos.get(repo)
        return state is not None and any(f.diagnostic.code == BROKEN for f in state.findings.get(path, ()))

    def document(self, repo: str, path: str) -> Document | None:
        return self._session.document(repo, path)

    def link_broken(self, repo: str, link: Link) -> bool:
        return self._session.resolve_link(repo, link)[0] is LinkState.BROKEN

    def orphan(self, repo: str, path: str) -> bool:
        """The lint found the file unreachable from MEMORY.md (AMR013)."""
        state = self._session.repos.get(repo)
        if state is None:
            return False
        return any(f.diagnostic.code == ORPHAN for f in state.findings.get(path, ()))

    def authors(self, repo: str) -> Authors | None:
        return self._session.authors(repo)

    def stale(self, repo: str, path: str, line: int) -> bool:
        return self._session.verifying.stale(repo, path, line)

    def reads(self, repo: str, text: str) -> tuple[int, str | None] | None:
        got = self._session.verifying.reads(repo, text)
        return None if got.reads is None else (got.reads, got.last)


def session_context(session: Session) -> SearchFacts:
    """The search context of the finder and of MCP over ``session``."""
    return SearchFacts(SessionFacts(session))


__all__ = ["SessionFacts", "session_context"]
