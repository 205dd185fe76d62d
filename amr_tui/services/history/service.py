"""History and provenance of a memory repo, shaped for a UI (and used by the CLI).

One :class:`HistoryService` per repo. Every method is safe to call from worker threads at the
same time (git calls are separate processes; the blob reader and the caches are locked), and
none touches a widget. Cost, roughly, on a 5,000-commit repo:

* :meth:`~HistoryService.file_history` - one ``git log -p`` limited to one page of one file:
  the first page shows at once however long the file's history is. Pages are pinned to the
  commit the first page started from, so an agent committing meanwhile does not shift them.
* :meth:`~HistoryService.file_change` - blob reads through one
  persistent ``cat-file`` process: cheap.
* :meth:`~HistoryService.entry_timeline` - one ``git log -p`` of the file (plus one ``git show``
  per move between files): about the cost of ``git log -S`` for the same text, or less.
* :meth:`~HistoryService.blame` / :meth:`~HistoryService.reblame` - one ``git blame -L n,n``.
* :meth:`~HistoryService.forgotten`, :meth:`~HistoryService.resurrections` - SLOW the first time:
  they walk the patches of the whole history (cached per HEAD; later calls walk only the new
  commits). Run them in a worker.
* :meth:`~HistoryService.past`, :meth:`~HistoryService.past_index` - the same walk (plus a search
  index over what it found, rebuilt per HEAD): SLOW the first time.
* :meth:`~HistoryService.forget`, :meth:`~HistoryService.restore` - one compare-and-swap commit.

Big blobs: no walk and no read here touches a blob over ``MAX_PARSE_BYTES`` (the limit above which
the work tree's files are not parsed either). Walks skip such a file and say so (``skipped`` on
pages, timelines and :meth:`~HistoryService.history_skipped`); a read of one raises
``BlobTooLargeError`` (a ``ValueError``) without reading it.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from amr_tui.core.diff import similarity as sim
from amr_tui.core.diff.align import Row, align
from amr_tui.core.diff.entries import LineEntry, diff_entries, entry_of_line
from amr_tui.core.format.parser import is_markdown
from amr_tui.core.lint.repo import Finding
from amr_tui.core.tombstones import is_tombstone_path
from amr_tui.git import GitRepo
from amr_tui.git import history as gh
from amr_tui.git.catfile import BlobReader
from amr_tui.git.errors import AmrGitError
from amr_tui.git.models import CommitInfo
from amr_tui.git.watch import watch_signature
from amr_tui.services.history.forgotten import DeletionLog, ForgottenFact, Resurrection
from amr_tui.services.history.past import PastEntry, PastIndex, past_of
from amr_tui.services.workspace import MAX_PARSE_BYTES, Mount

MAX_MOVES = 20  # how many file-to-file moves a timeline follows


@dataclass(frozen=True, slots=True)
class HistoryItem:
    commit: CommitInfo
    parents: tuple[str, ...]
    sources_added: tuple[str, ...]  # ``source`` values on entry lines this commit added to the file
    entries_added: int
    entries_removed: int
    skipped: tuple[gh.SkippedBlob, ...] = ()  # files of this commit over MAX_PARSE_BYTES, not read
    path: str = ""  # the file's name after this commit (followed through renames)
    old_path: str | None = None  # its name before this commit (another name when it renamed the file)


@dataclass(frozen=True, slots=True)
class HistoryCursor:
    start: str  # the commit the first page started from
    skip: int
    name: str | None = None  # the file's name where the next page starts (renames followed)


@dataclass(frozen=True, slots=True)
class HistoryPage:
    path: str
    items: list[HistoryItem]
    next: HistoryCursor | None  # None on the last page

    @property
    def skipped(self) -> list[gh.SkippedBlob]:
        return [s for i in self.items for s in i.skipped]


@dataclass(frozen=True, slots=True)
class FileVersion:
    """A file as one commit left it, against the commit's first parent."""

    path: str
    commit: str
    parent: str | None
    old: bytes | None
    new: bytes | None
    rows: list[Row]  # side by side, entries aligned (core.diff.align)
    patch: str  # the unified diff, for a plain view


@dataclass(frozen=True, slots=True)
class TimelineEvent:
    kind: str  # "added", "reworded", "metadata", "moved", "removed"
    commit: CommitInfo
    path: str  # the file the entry is in after the event (before it, for "removed")
    before: str | None  # the line before the event
    after: str | None  # the line after it
    from_path: str | None = None  # for "moved"
    score: float = 100.0


@dataclass(slots=True)
class Timeline:
    path: str
    line_text: str
    events: list[TimelineEvent] = field(default_factory=list)  # newest first
    complete: bool = True  # False when the walk stopped before finding where the entry came from
    skipped: list[gh.SkippedBlob] = field(default_factory=list)  # versions over MAX_PARSE_BYTES, not read

    @property
    def added(self) -> TimelineEvent | None:
        return self.events[-1] if self.events and self.events[-1].kind == "added" else None


def _sources_and_counts(diff: gh.FileDiff) -> tuple[tuple[str, ...], int, int]:
    removed = [e for e in (entry_of_line(x) for x in diff.removed) if e is not None]
    added = [e for e in (entry_of_line(x) for x in diff.added) if e is not None]
    before = {s for e in removed for s in e.sources}
    sources = dict.fromkeys(s for e in added for s in e.sources if s not in before)
    return tuple(sources), len(added), len(removed)


def _in_place(hunk: gh.Hunk, line: str) -> tuple[str, float] | None:
    """The line of ``hunk`` that ``line`` (one it added) took the place of, as the history walk
    pairs them (``similarity.in_place_pairs``): (the old line, score), or None."""
    olds = [(x, e) for x in hunk.removed if (e := entry_of_line(x)) is not None]
    news = [(x, e) for x in hunk.added if (e := entry_of_line(x)) is not None]
    at = next((j for j, (x, _e) in enumerate(news) if x == line), None)
    if at is None or not olds:
        return None
    for i, j, score in sim.in_place_pairs([e.key for _x, e in olds], [e.key for _x, e in news]):
        if j == at:
            return olds[i][0], score
    return None


class HistoryService:
    """History views of one memory repo (see the module docstring for what each call costs)."""

    def __init__(self, mount: Mount | Path | str):
        self.mount = mount if isinstance(mount, Mount) else Mount(Path(mount).name, Path(mount))
        self.repo = GitRepo(self.mount.root)
        self.blobs = BlobReader(self.repo, max_bytes=MAX_PARSE_BYTES)
        self._lock = threading.Lock()
        self._forgotten: DeletionLog | None = None  # built on first use
        self._past: tuple[str | None, PastIndex] | None = None  # (HEAD, the index of its past)

    def close(self) -> None:
        self.blobs.close()

    # -- file history -------------------------------------------------------------------------
    def file_history(
        self, path: str, *, limit: int = 50, cursor: HistoryCursor | None = None, follow: bool = True
    ) -> HistoryPage:
        """A page of the commits that touched ``path``, newest first, with the sessions they
        added; ``follow`` goes on through renames (each item says the file's name then)."""
        start = cursor.start if cursor else self.repo.head()
        if start is None:
            return HistoryPage(path, [], None)
        skip = cursor.skip if cursor else 0
        name = cursor.name if cursor and cursor.name else path
        patches = gh.log_patches(
            self.repo, start, paths=(name,), limit=limit + 1, skip=skip, follow=follow, max_blob=MAX_PARSE_BYTES
        )
        items: list[HistoryItem] = []
        for cd in patches[:limit]:
            f = next((f for f in cd.files if f.new_path == name), None) or next(
                (f for f in cd.files if f.old_path == name), None
            )
            mine = [f] if f is not None else [f for f in cd.files if path in (f.old_path, f.new_path)] or list(cd.files)
            sources: dict[str, None] = {}
            added = removed = 0
            for one in mine:
                s, a, r = _sources_and_counts(one)
                sources.update(dict.fromkeys(s))
                added, removed = added + a, removed + r
            now = (f.new_path or f.old_path or name) if f is not None else name
            before = f.old_path if f is not None else name
            items.append(
                HistoryItem(
                    cd.entry.info,
                    cd.entry.parents,
                    tuple(sources),
                    added,
                    removed,
                    tuple(gh.skipped_blobs([cd])),
                    now,
                    before,
                )
            )
            if f is not None and f.old_path and f.new_path and f.old_path != f.new_path:
                name = f.old_path  # older commits know the file by its old name
        nxt = None
        if len(patches) > limit:
            # git's --follow does not combine with --skip: the next page starts below this one,
            # from the file's name there
            nxt = HistoryCursor(items[-1].commit.oid + "^", 0, name) if follow else HistoryCursor(start, skip + limit)
        return HistoryPage(path, items, nxt)

    def file_change(self, path: str, commit: str, old_path: str | None = None) -> FileVersion:
        """The file at ``commit`` against its first parent: bytes, aligned rows and the patch.
        ``old_path``: its name in the parent, when the commit renamed it.

        Raises ``BlobTooLargeError`` (nothing read, no patch made) when either side is over
        ``MAX_PARSE_BYTES``."""
        oid = self.repo.resolve(commit)
        if oid is None:
            raise ValueError(f"unknown commit: {commit!r}")
        entries = gh.log_entries(self.repo, oid, limit=1)
        parent = entries[0].parents[0] if entries and entries[0].parents else None
        old = self.blobs.read(parent, old_path or path) if parent else None
        new = self.blobs.read(oid, path)
        before = {path: old} if old is not None else {}
        after = {path: new} if new is not None else {}
        rows = align(diff_entries(before, after), path) if is_markdown(path) else []
        patch = gh.diff_text(self.repo, parent, oid, path) if parent else ""
        return FileVersion(path, oid, parent, old, new, rows, patch)

    # -- one entry ------------------------------------------------------------------------------
    def line_text(self, path: str, line: int, rev: str = "HEAD") -> str:
        oid = self.repo.resolve(rev)
        data = self.blobs.read(oid, path) if oid else None
        if data is None:
            raise FileNotFoundError(f"{path} does not exist at {rev}")
        lines = data.decode("utf-8", "surrogateescape").split("\n")
        if not 1 <= line <= len(lines):
            raise IndexError(f"{path} has no line {line}")
        return lines[line - 1].removesuffix("\r")

    def entry_timeline(self, path: str, line: int, rev: str = "HEAD") -> Timeline:
        """When the entry on ``line`` (at ``rev``) was added, each edit, and each move."""
        return self.timeline_of(path, self.line_text(path, line, rev), rev)

    def timeline_of(self, path: str, line_text: str, rev: str = "HEAD") -> Timeline:
        """The timeline of the entry written ``line_text`` in ``path`` as of ``rev``."""
        timeline = Timeline(path, line_text)
        start = self.repo.resolve(rev)
        cur_path, cur = path, line_text
        for _hop in range(MAX_MOVES + 1):
            if start is None:
                timeline.complete = False
                return timeline
            step = self._walk_file(cur_path, cur, start, timeline)
            if step is None:
                return timeline
            cur_path, cur, start = step
        timeline.complete = False
        return timeline

    def _walk_file(self, path: str, line: str, start: str, timeline: Timeline) -> tuple[str, str, str | None] | None:
        """Walk one file's history back from ``start``. Returns where to go on after a move."""
        for cd in gh.log_patches(self.repo, start, paths=(path,), max_blob=MAX_PARSE_BYTES):
            timeline.skipped.extend(gh.skipped_blobs([cd]))
            diff = next((f for f in cd.files if f.new_path == path), None)
            if diff is None or line not in diff.added:
                continue
            hunk = next(h for h in diff.hunks if line in h.added)
            if line in hunk.removed or line in diff.removed:
                continue  # the same line moved inside the file
            mine = entry_of_line(line)
            prev = _in_place(hunk, line) or self._best_match(mine, diff.removed, sim.REWORD_THRESHOLD)
            if prev is not None:
                before, score = prev
                other = entry_of_line(before)
                kind = "metadata" if other is not None and mine is not None and other.text == mine.text else "reworded"
                if other is None or mine is None:
                    kind = "reworded"
                timeline.events.append(TimelineEvent(kind, cd.entry.info, path, before, line, None, score))
                line = before
                continue
            moved = self._moved_from(cd.oid, path, mine, timeline)
            if moved is not None:
                from_path, before, score = moved
                timeline.events.append(TimelineEvent("moved", cd.entry.info, path, before, line, from_path, score))
                parent = cd.entry.parents[0] if cd.entry.parents else None
                return from_path, before, parent
            timeline.events.append(TimelineEvent("added", cd.entry.info, path, None, line))
            return None
        timeline.complete = False
        return None

    @staticmethod
    def _best_match(mine: LineEntry | None, candidates: list[str], threshold: float) -> tuple[str, float] | None:
        if mine is None:
            return None
        best: tuple[str, float] | None = None
        for cand in candidates:
            other = entry_of_line(cand)
            if other is None:
                continue
            score = 100.0 if other.key == mine.key else sim.reword_score(other.key, mine.key)
            if score >= threshold and (best is None or score > best[1]):
                best = (cand, score)
        return best

    def _moved_from(
        self, commit: str, path: str, mine: LineEntry | None, timeline: Timeline
    ) -> tuple[str, str, float] | None:
        if mine is None:
            return None
        cd = gh.commit_patch(
            self.repo, commit, keep=lambda p: is_markdown(p) and not is_tombstone_path(p), max_blob=MAX_PARSE_BYTES
        )
        if cd is None:
            return None
        timeline.skipped.extend(s for s in gh.skipped_blobs([cd]) if s not in timeline.skipped)
        best: tuple[str, str, float] | None = None
        for f in cd.files:
            if f.old_path is None or f.old_path == path and f.new_path == path:
                continue
            found = self._best_match(mine, f.removed, sim.REWORD_THRESHOLD)
            if found is not None and (best is None or found[1] > best[2]):
                best = (f.old_path, found[0], found[1])
        return best

    def blame(self, path: str, line: int, rev: str = "HEAD") -> gh.BlameLine | None:
        """The commit and author that last touched ``line`` of ``path`` at ``rev``."""
        return gh.blame_line(self.repo, rev, path, line)

    def reblame(self, blamed: gh.BlameLine, timeline: Timeline | None = None) -> gh.BlameLine | None:
        """Blame the line before the commit that last touched it (None where it first appeared).

        With the entry's ``timeline``, the entry is followed as the timeline follows it: at a
        commit that moved it from another file, or reworded it, the line it was in the parent
        (``before``, in ``from_path`` for a move) is blamed, and at the commit that added it
        there is nothing before. Otherwise, the same line number in the parent's version."""
        event = next((e for e in timeline.events if e.commit.oid == blamed.commit), None) if timeline else None
        if event is not None:
            if event.kind == "added" or event.before is None:
                return None
            parent = self._parent(blamed.commit)
            if event.kind == "moved" and event.from_path:
                where = event.from_path
            else:
                where = blamed.previous[1] if blamed.previous is not None else event.path
            found = self._line_in(parent, where, event.before, blamed.orig_line) if parent else None
            if parent is not None and found is not None:
                return gh.blame_line(self.repo, parent, where, found)
        if blamed.previous is None:
            return None
        parent, old_path = blamed.previous
        return gh.blame_line(self.repo, parent, old_path, blamed.orig_line)

    def _parent(self, commit: str) -> str | None:
        entries = gh.log_entries(self.repo, commit, limit=1)
        return entries[0].parents[0] if entries and entries[0].parents else None

    def _line_in(self, commit: str, path: str, text: str, near: int) -> int | None:
        """The number of the line of ``path`` at ``commit`` that reads ``text`` (the one nearest
        ``near`` when there are several), or None."""
        try:
            data = self.blobs.read(commit, path)
        except ValueError:  # over MAX_PARSE_BYTES: not read
            return None
        if data is None:
            return None
        lines = [ln.removesuffix("\r") for ln in data.decode("utf-8", "surrogateescape").split("\n")]
        want = text.removesuffix("\r")
        hits = [i + 1 for i, ln in enumerate(lines) if ln == want]
        return min(hits, key=lambda n: abs(n - near)) if hits else None

    # -- forgotten facts (.forgotten) ---------------------------------------------------
    def _log(self) -> DeletionLog:
        with self._lock:
            if self._forgotten is None:
                self._forgotten = DeletionLog(self)
            return self._forgotten

    def signature(self) -> tuple[object, ...]:
        """Changes when HEAD moves (a few stats, no git): the forgotten facts follow it."""
        return watch_signature(self.repo)

    def forgotten(self, *, refresh: bool = False) -> list[ForgottenFact]:
        """Entries deleted over history and not present now, newest deletion first (SLOW first time)."""
        return self._log().forgotten(refresh=refresh)

    # -- the past: deleted and reworded entries (.past) ------------------------------------------
    def past(self) -> list[PastEntry]:
        """Every entry deleted or reworded over history, and tombstone-only facts (SLOW first time)."""
        return past_of(self._log(), self.mount.name)

    def past_index(self) -> PastIndex:
        """A search index over :meth:`past` (rebuilt when HEAD moves; SLOW first time)."""
        head = self.repo.head()
        with self._lock:
            if self._past is not None and self._past[0] == head:
                return self._past[1]
        index = PastIndex(self.past())
        with self._lock:
            self._past = (head, index)
        return index

    def resurrections(self, paths: Collection[str] | None = None) -> list[Finding]:
        """AMR030 findings for the work tree's entries (SLOW first time); of ``paths`` only, when given."""
        return self._log().resurrections(paths)

    def resurrected_at(
        self, rev: str, paths: Iterable[str], *, walk: bool = True, since: str | None = None
    ) -> list[Resurrection]:
        """The resurrections among the entries of ``paths`` as committed at ``rev``, with the
        commit that wrote each again (SLOW first time: the same walk as :meth:`resurrections`;
        ``walk=False``: those of facts a tombstone names only, never slow; ``since``: only the
        deletions made after that commit)."""
        return self._log().resurrected_at(rev, paths, walk=walk, since=since)

    def walked(self, rev: str | None = None) -> bool:
        """Whether the history walk of ``rev`` (default: HEAD) is done (its answers are cheap)."""
        return self._log().walked(rev)

    def history_skipped(self) -> list[gh.SkippedBlob]:
        """The files the last :meth:`forgotten` or :meth:`resurrections` did not read (over
        ``MAX_PARSE_BYTES``), oldest walk first: for a notice."""
        return self._log().skipped


def resurrections(mount: Mount | Path | str, skipped: list[gh.SkippedBlob] | None = None) -> list[Finding]:
    """AMR030 ("resurrected fact") findings for one repo: for ``amr lint --history``.

    An entry in the work tree that matches a tombstone in ``.amr/forgotten.md``, or an entry that
    a commit deleted on purpose (removed, not moved or reworded, and gone from that commit's tree),
    is reported at its line. Returns ``[]`` for a folder that is not a git repo. ``skipped``, when
    given, gets the files the walk did not read (over ``MAX_PARSE_BYTES``).
    """
    try:
        service = HistoryService(mount)
    except AmrGitError:
        return []
    try:
        found = service.resurrections()
        if skipped is not None:
            skipped.extend(service.history_skipped())
        return found
    finally:
        service.close()
