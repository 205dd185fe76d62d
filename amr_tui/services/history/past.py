"""A memory's past: the entries its commits deleted or reworded, and its tombstones, searchable.

:func:`past_of` reads them from a repo's :class:`~.forgotten.DeletionLog` (the one walk of the
history that forgotten facts use, cached per HEAD): every entry line a commit deleted, every line
a commit reworded (old line -> new line) and every tombstone known only as a tombstone. A deleted
fact that is not back gets the id of its forgotten fact (``amr forgotten --restore ID``); one that
is back at HEAD is ``present``, and ``resurrected`` when AMR030 says so of it at HEAD (forgotten,
then written again by someone else: ``DeletionLog.resurrected``). Text a redacting tombstone covers is left out.

:class:`PastIndex` is a search index over the past texts of one or more repos: each past entry is
an item of a pseudo file (its repo and path, its line its position in the list), and hits map back.
"""

from __future__ import annotations

import datetime as _dt
import threading
from collections.abc import Iterable
from dataclasses import dataclass, replace

from amr_tui.core.search.index import SearchHit, SearchIndex
from amr_tui.core.tombstones import TOMBSTONE_PATH, FactMatcher, Tombstone
from amr_tui.git.models import CommitInfo
from amr_tui.services.history.forgotten import DeletionLog, Rewording, removal_id

MAX_HOPS = 20  # how many later rewordings a reworded entry is followed through to its wording now


@dataclass(frozen=True, slots=True)
class PastEntry:
    """One entry of the past: what it said, which commit deleted or reworded it, and where it is now."""

    kind: str  # "deleted" or "reworded"
    repo: str
    path: str  # the file it was in (a tombstone-only fact: the file its tombstone names, or the tombstone file)
    text: str  # what it said: the deleted text, or the old wording
    line: str | None  # the line as written (None: known only from a tombstone)
    commit: CommitInfo | None  # the commit that deleted or reworded it (None: known only from a tombstone)
    present: bool = False  # this fact (this wording) is in the repo at HEAD again
    forgotten_id: str | None = None  # deleted and not back: its forgotten fact (``amr forgotten --restore ID``)
    tombstone: Tombstone | None = None  # the tombstone that says it was forgotten on purpose
    new_text: str | None = None  # reworded: what it became
    now: tuple[str, int] | None = None  # where it is at HEAD (path, line): reworded, its wording of today;
    # deleted, the fact when it is back (``present``)
    resurrected: bool = False  # forgotten, and written again since by someone else (AMR030 at HEAD)

    @property
    def date(self) -> str:
        if self.commit is not None:
            return self.commit.author_date.date().isoformat()
        return self.tombstone.forgotten if self.tombstone is not None else ""

    @property
    def short(self) -> str:
        """The commit's short id ("" for a tombstone-only fact)."""
        return self.commit.oid[:7] if self.commit is not None else ""

    @property
    def restorable(self) -> bool:
        """``amr forgotten --restore`` can write it back (a deleted line, not back yet)."""
        return self.kind == "deleted" and self.forgotten_id is not None and self.line is not None


def past_of(log: DeletionLog, repo: str) -> list[PastEntry]:
    """The past of one repo, newest first: deletions and rewordings, then tombstone-only facts.
    SLOW the first time (the whole history is walked); run it in a worker."""
    facts = {f.id: f for f in log.forgotten()}
    removals = log.update()
    rewordings = log.rewordings()
    redacted = FactMatcher()
    tombs = log.tombstones()
    named = FactMatcher()  # the tombstones that keep their text: a fact back at HEAD that one names is resurrected
    for i, t in enumerate(tombs):
        if t.redacted:
            redacted.add(None, str(t.line), t.digest)
        else:
            named.add(t.text, str(i), t.digest)
    out: list[PastEntry] = []
    told: set[int] = set()  # tombstones of resurrections listed with their deletion
    for r in removals:
        fid = removal_id(r)
        fact = facts.get(fid)
        if (fact is not None and fact.redacted) or redacted.match(r.text) is not None:
            continue
        here = log.at_head(r.text) if fact is None else None
        tomb = fact.tombstone if fact is not None else None
        if here is not None:
            hit = named.match(r.text)
            if hit is not None:
                tomb = tombs[int(hit)]
                told.add(int(hit))
        out.append(
            PastEntry(
                "deleted",
                repo,
                r.path,
                r.text,
                r.line,
                r.commit,
                here is not None,
                fid if fact is not None else None,
                tomb,
                now=here,
            )
        )
    later: dict[str, Rewording] = {}
    for w in reversed(rewordings):  # oldest first: the newest rewording of a wording wins
        later[w.key] = w
    for w in rewordings:
        if redacted.match(w.text) is not None:
            continue
        out.append(
            PastEntry(
                "reworded",
                repo,
                w.path,
                w.text,
                w.line,
                w.commit,
                log.at_head(w.text) is not None,
                new_text=w.new_text,
                now=_now(log, w, later),
            )
        )
    out.sort(key=_when, reverse=True)  # deletions and rewordings together, newest first (a stable sort)
    for fact in facts.values():
        if fact.commit is None and not fact.redacted:
            out.append(
                PastEntry(
                    "deleted", repo, fact.path or TOMBSTONE_PATH, fact.text, None, None, False, fact.id, fact.tombstone
                )
            )
    for i, t in enumerate(tombs):  # forgotten with no deletion in the history walked, and written again
        here = log.at_head(t.text) if t.text is not None and i not in told else None
        if here is not None and t.text is not None:
            path = t.file or TOMBSTONE_PATH
            out.append(PastEntry("deleted", repo, path, t.text, None, None, True, None, t, now=here))
    return _mark_resurrected(log, out)


def _mark_resurrected(log: DeletionLog, entries: list[PastEntry]) -> list[PastEntry]:
    """A deleted fact back at HEAD is ``resurrected`` when lint's AMR030 says so of its line
    (``DeletionLog.resurrected``: forgotten, then written again by someone else)."""
    head = log.repo.head()
    back = [e.now for e in entries if e.kind == "deleted" and e.now is not None]
    if head is None or not back:
        return entries
    risen = {(r.path, r.line) for r in log.resurrected_at(head, {path for path, _line in back})}
    return [
        replace(e, resurrected=True) if e.kind == "deleted" and e.now is not None and e.now in risen else e
        for e in entries
    ]


def _when(e: PastEntry) -> _dt.datetime:
    assert e.commit is not None  # only deletions and rewordings are sorted
    return e.commit.committer_date


def _now(log: DeletionLog, w: Rewording, later: dict[str, Rewording]) -> tuple[str, int] | None:
    """Where the wording ``w`` led to is at HEAD, following later rewordings of it."""
    seen = {w.key}
    for _hop in range(MAX_HOPS):
        found = log.at_head(w.new_text)
        if found is not None:
            return found
        nxt = later.get(w.new_key)
        if nxt is None or nxt.key in seen or nxt.new_key in seen:
            return None
        seen.add(nxt.key)
        w = nxt
    return None


class PastIndex:
    """A search index over past entries (of one repo or several); thread-safe."""

    def __init__(self, entries: Iterable[PastEntry]) -> None:
        self.entries = list(entries)
        self.index = SearchIndex()
        self._lock = threading.Lock()
        files: dict[str, dict[str, list[tuple[int, str]]]] = {}
        for i, e in enumerate(self.entries):
            files.setdefault(e.repo, {}).setdefault(e.path, []).append((i + 1, e.text))
        self._files = sum(len(f) for f in files.values())
        for repo, by_path in files.items():
            self.index.set_files(repo, by_path.items())

    def __len__(self) -> int:
        return len(self.entries)

    def search(self, query: str, limit: int = 20) -> list[tuple[PastEntry, SearchHit]]:
        """The best past entries for ``query``, best first (raises ``QueryError`` for a malformed
        filter). Operators the index answers alone work (``"phrase"``, ``-word``, ``path:``,
        ``repo:``); the others match nothing here."""
        with self._lock:
            hits = self.index.search(query, limit + self._files)  # the pseudo files' name items are dropped
        out = [(self.entries[h.item.line - 1], h) for h in hits if h.item.kind == "entry"]
        return out[:limit]
