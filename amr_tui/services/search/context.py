"""The one search context: what the search index cannot know itself, for the finder, ``amr
search`` and MCP's ``memory_search`` alike.

``core.search.index.SearchContext`` is what a filter asks beyond the index: an entry's metadata
(``source:``, ``added:``, ``has:``/``no:``, ``KEY:VALUE``), its file's front matter (``scope:``,
``tag:``), whether it is a fact at all (headings and front matter are not), its broken links
(``is:broken``), its file's orphanhood (``is:orphan``), its evidence (``is:stale``), its reads
(``is:unread``, ``read:``) and who wrote its line (``by:``). ``SearchFacts`` answers all of them
in one way, from a ``FactSource``: where the facts come from.

* ``services.session.searchctx.SessionFacts``: the session's parsed files (the facts it keeps
  per file, its lint findings, its verify reports and reads), for the app's finder and, through
  the session, for MCP;
* ``services.search.run.DiskFacts``: the files on disk, parsed on first use (only the
  files of candidate entries), for ``amr search``.

So a filter is answered by the same rule wherever it is typed: a file's ``FileFilters`` (the
metadata of its entries, its heading and front-matter lines, its front matter's scope and tags:
``core.lint.facts.FileFacts`` holds them), a link is broken when the source resolves it to no
file, and the rest the source answers for a repo.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from amr_tui.core.format.entrymeta import FileMeta
    from amr_tui.core.format.parser import Document
    from amr_tui.core.model import Link
    from amr_tui.core.search.items import SearchItem
    from amr_tui.services.history.authors import Authors


class FileFilters(Protocol):
    """What the filters read of one file (``core.lint.facts.FileFacts`` is one)."""

    @property
    def meta(self) -> FileMeta | None:
        """Its entries' metadata, by the entry's line (None: no entry has any)."""
        ...

    @property
    def heads(self) -> Container[int]:
        """Its lines that state no fact: headings and front matter."""
        ...

    @property
    def scope(self) -> str:
        """The scope its front matter gives every entry ("" for none)."""
        ...

    @property
    def tags(self) -> Sequence[str]:
        """The tags its front matter gives every entry."""
        ...


class FactSource(Protocol):
    """Where the facts of the repos come from (the session's parsed files, or the files on disk)."""

    @property
    def keys(self) -> Container[str]:
        """The metadata keys some entry of the repos has (lower case): ``KEY:VALUE`` filters."""
        ...

    def file(self, repo: str, path: str) -> FileFilters | None:
        """What the filters read of the file; None when it is not known."""
        ...

    def may_break(self, repo: str, path: str) -> bool:
        """Whether the file may hold a broken link (False lets ``is:broken`` skip it unread)."""
        ...

    def document(self, repo: str, path: str) -> Document | None:
        """The file parsed (for the links of one entry)."""
        ...

    def link_broken(self, repo: str, link: Link) -> bool:
        """The link resolves to no file of the repo."""
        ...

    def orphan(self, repo: str, path: str) -> bool:
        """Nothing links to the file (it is not reachable from MEMORY.md)."""
        ...

    def authors(self, repo: str) -> Authors | None:
        """Who wrote the repo's lines (None: no git)."""
        ...

    def stale(self, repo: str, path: str, line: int) -> bool:
        """The entry's evidence no longer holds in the code it cites."""
        ...

    def reads(self, repo: str, text: str) -> tuple[int, str | None] | None:
        """(how often agents read the entry, when last); None when unknown."""
        ...


class SearchFacts:
    """The ``SearchContext`` of every search: each filter answered by one rule from ``source``."""

    def __init__(self, source: FactSource) -> None:
        self.source = source

    @property
    def keys(self) -> Container[str]:
        return self.source.keys

    def metadata(self, item: SearchItem) -> Mapping[str, Sequence[str]] | None:
        facts = self.source.file(item.repo, item.path)
        return facts.meta.at(item.line) if facts is not None and facts.meta is not None else None

    def file_scope(self, repo: str, path: str) -> str:
        facts = self.source.file(repo, path)
        return facts.scope if facts is not None else ""

    def fact(self, item: SearchItem) -> bool:
        facts = self.source.file(item.repo, item.path)
        return facts is None or item.line not in facts.heads

    def file_tags(self, repo: str, path: str) -> Sequence[str]:
        facts = self.source.file(repo, path)
        return facts.tags if facts is not None else ()

    def broken(self, item: SearchItem) -> bool:
        """The entry holds a link that names no file (only files that may hold one are read)."""
        source = self.source
        if not source.may_break(item.repo, item.path):
            return False
        doc = source.document(item.repo, item.path)
        entry = doc.entry_at(item.line) if doc else None
        return entry is not None and any(source.link_broken(item.repo, link) for link in entry.links)

    def orphan(self, repo: str, path: str) -> bool:
        return self.source.orphan(repo, path)

    def stale(self, item: SearchItem) -> bool:
        return self.source.stale(item.repo, item.path, item.line)

    def reads(self, item: SearchItem) -> tuple[int, str | None] | None:
        return self.source.reads(item.repo, item.text)

    def wrote(self, item: SearchItem, name: str) -> bool:
        """``by:NAME``: ``name`` wrote the entry's line (``services.history.authors``: a blame of
        the file, only when the name ever wrote it; none in a folder without git)."""
        authors = self.source.authors(item.repo)
        return authors is not None and authors.wrote(item.path, item.line, name)


__all__ = ["FactSource", "FileFilters", "SearchFacts"]
