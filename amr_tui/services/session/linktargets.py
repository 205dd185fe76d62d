"""What ``[[`` completion offers in a repo: its files as its format links them, ranked as the finder
ranks, and a file's headings after ``#``.

Called from a thread worker (``widgets.link_complete``): each repo's ``TargetIndex`` is built on
first use and again when its listing of files changed; titles (basic-memory's front matter
``title``, Claude Code's ``name``) are read from the head of each note, only in formats that link
by title or write Markdown links.
"""

from __future__ import annotations

import re
import threading
import weakref

from amr_tui.core.format.complete import (
    MARKDOWN_LINKS,
    Completion,
    completion_for,
    heading_completion,
    link_query,
    link_targets,
)
from amr_tui.core.format.links import LinkState
from amr_tui.core.model import Link
from amr_tui.core.paths import is_markdown
from amr_tui.core.search.targets import TargetIndex, rank_headings
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import read_bytes

__all__ = ["LinkTargets", "link_targets_of"]

_TITLED = frozenset({"basic-memory"}) | MARKDOWN_LINKS
_TITLE = re.compile(rb"^(?:title|name)[ \t]*:[ \t]*(.+?)[ \t]*\r?$", re.M)
LIMIT = 40


class LinkTargets:
    """The link targets of a session's repos, built once per listing of each repo's files."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._lock = threading.Lock()
        self._built: dict[str, tuple[tuple[int, int], TargetIndex]] = {}

    def index(self, repo: str) -> TargetIndex:
        """The repo's targets (built now when its files changed since the last build)."""
        state = self.session.repos[repo]
        with self.session.lock:
            files = list(state.files)
            key = (id(state.files), len(files))
        with self._lock:
            built = self._built.get(repo)
            if built is not None and built[0] == key:
                return built[1]
        titles = self._titles(repo, files) if state.style in _TITLED else {}
        index = TargetIndex(repo, link_targets(files, state.style, titles))
        with self._lock:
            self._built[repo] = (key, index)
        return index

    def _titles(self, repo: str, files: list[str]) -> dict[str, str]:
        root = self.session.mount(repo).root
        out: dict[str, str] = {}
        for path in files:
            if not is_markdown(path):
                continue
            head = read_bytes(root, path, 4096)
            if head is None or not head.startswith(b"---"):
                continue
            end = head.find(b"\n---", 3)
            found = _TITLE.search(head, 0, end if end != -1 else len(head))
            if found is not None:
                out[path] = found.group(1).decode("utf-8", "replace").strip("'\"")
        return out

    def complete(
        self, repo: str, source: str, text: str, cursor: int, own_headings: list[str] | None = None
    ) -> list[Completion]:
        """The completions for the ``[[`` typed at ``cursor`` in ``text`` (a line of ``source``),
        best first; [] when no link is being typed. ``own_headings``: the headings of ``source``
        as edited (a ``[[#`` names one of them)."""
        query = link_query(text, cursor)
        if query is None:
            return []
        if query.heading is not None:
            return self._headings(repo, source, query.target, query.heading, own_headings)
        style = self.session.repos[repo].style
        return [completion_for(t, style, source) for t in self.index(repo).search(query.target, LIMIT)]

    def complete_in(self, repos: list[str], source: str, text: str, cursor: int) -> list[Completion]:
        """``complete`` over several repos (the capture, before it asks which repo the fact is
        for): the first repo's targets first; with more than one, each row names its repo."""
        out: list[Completion] = []
        for repo in repos:
            found = self.complete(repo, source, text, cursor)
            if len(repos) > 1:
                found = [Completion(c.label, c.insert, f"{repo}  {c.detail}".rstrip()) for c in found]
            out += found
        return out

    def _headings(self, repo: str, source: str, target: str, typed: str, own: list[str] | None) -> list[Completion]:
        if not target.strip():
            path: str | None = source
        else:
            state, path, _suggestion = self.session.resolve_link(repo, Link(target, target, 1, 0, 0))
            if state is not LinkState.OK:
                return []
        if path is None:
            return []
        if path == source and own is not None:
            headings = own
        else:
            doc = self.session.document(repo, path, keep=False)
            headings = [t for _ln, _lvl, t in doc.headings] if doc is not None else []
        return [heading_completion(target, h, path) for h in rank_headings(headings, typed, LIMIT)]


_OF: weakref.WeakKeyDictionary[Session, LinkTargets] = weakref.WeakKeyDictionary()
_OF_LOCK = threading.Lock()


def link_targets_of(session: Session) -> LinkTargets:
    """The session's ``LinkTargets`` (one per session, made on first use)."""
    with _OF_LOCK:
        found = _OF.get(session)
        if found is None:
            found = _OF[session] = LinkTargets(session)
        return found
