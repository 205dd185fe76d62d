"""Forgotten facts: entries deleted over history, tombstones, restoring, and resurrections.

:class:`DeletionLog` walks the ``-U0`` patches of the repo's Markdown files once and keeps every
*removal*: an entry line a commit deleted without adding the same fact anywhere in that commit
(equal normalised text = a move or a metadata edit; ``similarity.REWORD_THRESHOLD`` or more = a
rewording). It is cached per HEAD; when HEAD moves forward only the new commits are walked. The
same walk keeps each *rewording* (old line -> new line), for searching the past (``.past``).

* a **forgotten fact** is a removal whose fact is not in the repo at HEAD any more (nor matched by
  ``similarity.same_fact``), newest deletion first, with the tombstone that explains it if any; a
  removal made by a commit with a ``Moved-to:`` trailer (the second half of a move to another
  repo) is a move, not a forgotten fact;
* a **resurrection** (AMR030) is a work-tree entry that matches a tombstone, or a removal that was
  a real forgetting: the fact was gone from that commit's whole tree (not a duplicate merged away)
  and was not put back by ``amr`` itself (``Restored-from:`` trailer).

A file over ``MAX_PARSE_BYTES`` (in a commit's change, at HEAD, or as the tombstone file) is not
read: the walk skips it and lists it in :attr:`DeletionLog.skipped`, and ``forget``/``restore``
refuse it (the history service's blob reader raises ``BlobTooLargeError``).

``forget`` and ``restore`` are one commit each through the write gate (``services.writegate.write``),
merged onto whatever an agent committed meanwhile: an agent's commit is never lost. ``forget`` is
the one the app, ``amr forget`` and the agent interface all call.
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from amr_tui.core.diff import similarity as sim
from amr_tui.core.diff.entries import LineEntry, entry_of_line
from amr_tui.core.format.edit import (
    delete_lines,
    entry_span,
    find_entry,
    insert_lines,
    new_entry_lines,
    removal_span,
    summarise,
)
from amr_tui.core.format.parser import Document, is_markdown, parse
from amr_tui.core.format.rules import diag
from amr_tui.core.lint.repo import INDEX_HEADING, MEMORY_FILE, Finding
from amr_tui.core.model import Entry
from amr_tui.core.secrets import find_secrets, redact_secrets
from amr_tui.core.textsafety import make_visible
from amr_tui.core.tombstones import (
    TOMBSTONE_PATH,
    FactMatcher,
    Tombstone,
    add_tombstone,
    is_tombstone_path,
    parse_tombstones,
    same_person,
    tombstone_line,
)
from amr_tui.git import GitRepo
from amr_tui.git import history as gh
from amr_tui.git.catfile import BlobReader, BlobTooLargeError
from amr_tui.git.errors import ConflictError, EntryGoneError
from amr_tui.git.gate import Change
from amr_tui.git.handle import OID
from amr_tui.git.models import CommitInfo
from amr_tui.services import writegate
from amr_tui.services.workspace import MAX_PARSE_BYTES, Mount, list_files, load_document
from amr_tui.services.writegate import RepoTarget, Saved, WriteTarget


class HistorySource(Protocol):
    """The repo a deletion log walks and forget/restore commit to (``HistoryService`` is one)."""

    @property
    def mount(self) -> Mount: ...

    @property
    def repo(self) -> GitRepo: ...

    @property
    def blobs(self) -> BlobReader:
        """Reads blobs up to ``MAX_PARSE_BYTES``."""
        ...


RESTORED_TRAILER = "Restored-from"
# What a commit that puts another commit's deletions back says about it (amr's restore, undo and
# activity revert, an undone dreaming run, git revert): that commit forgot nothing.
RESTORING_MARKERS = (
    f"{RESTORED_TRAILER}:",
    "Undoes:",
    "Activity-Revert:",
    "Dream-Reverted:",
    "This reverts commit ",
)
NOT_COMMITTED = "someone, not committed yet"
# A removal commit of a move to another repo (the copy is a commit of that repo): its deletions
# are a move, not forgetting. amr's moves write it (session editing, the agent interface).
MOVED_TRAILER = "Moved-to"


@dataclass(frozen=True, slots=True)
class Removal:
    commit: CommitInfo
    path: str
    line: str
    text: str
    key: str
    sources: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ForgottenFact:
    id: str
    text: str  # "(redacted)" when a redacting tombstone covers it
    line: str | None  # the deleted line as written (None when redacted or known only from a tombstone)
    path: str | None
    commit: CommitInfo | None  # the commit that deleted it (None: known only from a tombstone)
    sources: tuple[str, ...]
    tombstone: Tombstone | None

    @property
    def redacted(self) -> bool:
        return self.line is None and self.tombstone is not None and self.tombstone.redacted

    @property
    def date(self) -> str:
        if self.commit is not None:
            return self.commit.author_date.date().isoformat()
        return self.tombstone.forgotten if self.tombstone else ""


@dataclass(frozen=True, slots=True)
class Resurrection:
    """A fact written again after it was forgotten, by someone other than the one who forgot it
    (AMR030). Forgotten: a tombstone covers it, or a commit deleted it from the whole repo (not
    moved, reworded or edited in place, not a duplicate merged away) and nobody put it back on
    purpose (:data:`RESTORING_MARKERS`). Who forgot it: the author of the commit that wrote the
    tombstone (or deleted the fact); who wrote it again: the author of the commit that last
    wrote its line, after the forget (git blame), or nobody yet for a line not committed."""

    path: str
    line: int
    text: str
    forgotten: str  # how it was forgotten: the tombstone's words, or the commit that deleted it
    writer: str  # "Name <email> in abc1234", or NOT_COMMITTED
    commit: str | None  # the commit that wrote it again (None: not committed yet)
    raw: str = ""  # the entry's first line as written

    @property
    def label(self) -> str:
        """What it brings back and who did: for a change marked resurrected."""
        return f"{self.forgotten}; written again by {self.writer}"

    def finding(self) -> Finding:
        return Finding(self.path, diag("AMR030", f"resurrected fact: {self.label}", self.line, 1))


@dataclass(frozen=True, slots=True)
class _Forget:
    what: str  # the tombstone's description, or the deleting commit's
    commit: str | None  # the commit that forgot it (None: a tombstone nobody committed)
    who: tuple[str, str] | None  # that commit's author (name, email)
    by: str | None  # the tombstone's ``by``


def _keep(path: str) -> bool:
    return is_markdown(path) and not is_tombstone_path(path)


@dataclass(frozen=True, slots=True)
class Rewording:
    """An entry line a commit replaced by a reworded one (``similarity.REWORD_THRESHOLD`` or more)."""

    commit: CommitInfo
    path: str
    line: str
    text: str
    key: str
    new_path: str
    new_line: str
    new_text: str
    new_key: str
    score: float


def removal_id(r: Removal) -> str:
    """The id of the forgotten fact a removal makes (``amr forgotten --restore ID``)."""
    return hashlib.sha1(f"{r.commit.oid}\0{r.path}\0{r.line}".encode("utf-8", "surrogateescape")).hexdigest()[:10]


def changes_of(cd: gh.CommitDiff) -> tuple[list[Removal], list[Rewording]]:
    """The entries a commit deleted without keeping the fact elsewhere in it, and the ones it
    reworded: each removed line paired with its best-scoring added line (the pairing that keeps
    it out of the removals), or, failing that, with the line that took its place in the same hunk
    (``similarity.in_place_pairs``, as an entry's timeline pairs them): an entry rewritten in
    place, a conflict resolved "keep mine" among them, is edited, not forgotten."""
    removed: list[tuple[str, str, LineEntry, int]] = []  # (path, line, entry, hunk number)
    added_keys: set[str] = set()
    added: list[tuple[str, str, LineEntry, int]] = []
    hunk = 0
    for f in cd.files:
        for h in f.hunks:
            hunk += 1
            for line in h.added:
                e = entry_of_line(line)
                if e is not None and not e.links_only:
                    added_keys.add(e.key)
                    added.append((f.path, line, e, hunk))
            for line in h.removed:
                e = entry_of_line(line)
                if e is not None and not e.links_only:
                    removed.append((f.path, line, e, hunk))
    left = [r for r in removed if r[2].key not in added_keys]
    best: dict[int, tuple[int, float]] = {}  # index in left -> (index in added, score)
    if left and added:
        pairs = sim.best_pairs([e.key for _, _, e, _ in left], [e.key for _, _, e, _ in added], sim.REWORD_THRESHOLD)
        for i, j, score in pairs:  # best first: the first pair of each removed line is its best
            best.setdefault(i, (j, score))
        # what is left of each hunk: an entry rewritten in place
        by_hunk: dict[int, tuple[list[int], list[int]]] = {}
        for i, r in enumerate(left):
            if i not in best:
                by_hunk.setdefault(r[3], ([], []))[0].append(i)
        if by_hunk:
            removed_keys = {r[2].key for r in removed}
            taken = {j for j, _score in best.values()} | {j for j, a in enumerate(added) if a[2].key in removed_keys}
            for j, a in enumerate(added):
                if a[3] in by_hunk and j not in taken:
                    by_hunk[a[3]][1].append(j)
            for olds, news in by_hunk.values():
                for oi, nj, score in sim.in_place_pairs(
                    [left[i][2].key for i in olds], [added[j][2].key for j in news]
                ):
                    best[olds[oi]] = (news[nj], score)
    rewordings: list[Rewording] = []
    info = cd.entry.info
    for i, (j, score) in sorted(best.items()):
        (p, line, e, _h), (np, nline, ne, _nh) = left[i], added[j]
        rewordings.append(Rewording(info, p, line, e.text, e.key, np, nline, ne.text, ne.key, score))
    left = [x for i, x in enumerate(left) if i not in best]
    return [Removal(info, p, line, e.text, e.key, e.sources) for p, line, e, _h in left], rewordings


class WorkTreeFiles(Mapping[str, Document]):
    """The work tree's Markdown files as documents, each read and parsed when asked for and not
    kept: the resurrection check walks every entry of the work tree once, and a million entries
    held as Documents at once took the app from 1 to 2.7 GB."""

    def __init__(self, mount: Mount, only: Collection[str] | None = None) -> None:
        """``only``: these files of the work tree, not all of them (and the tombstones, always)."""
        files, escaping = list_files(mount.root)
        self._root = mount.root
        wanted = {*only, TOMBSTONE_PATH} if only is not None else None
        self._paths = [
            rel for rel in files if rel not in escaping and is_markdown(rel) and (wanted is None or rel in wanted)
        ]

    def __getitem__(self, rel: str) -> Document:
        doc = load_document(self._root, rel, check=False) if rel in self._listed else None
        if doc is None:
            raise KeyError(rel)
        return doc

    @functools.cached_property
    def _listed(self) -> frozenset[str]:
        return frozenset(self._paths)

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


class DeletionLog:
    def __init__(self, service: HistorySource):
        self.service = service
        self.repo = service.repo
        self._lock = threading.Lock()
        self._head: str | None = None
        self._removals: list[Removal] = []
        self._rewordings: list[Rewording] = []  # newest first, from the same walk
        self._walk_skipped: list[gh.SkippedBlob] = []  # files of the walked commits not read, newest first
        self._present: tuple[str, FactMatcher, list[gh.SkippedBlob]] | None = None
        self._tomb_skipped: list[gh.SkippedBlob] = []
        self._moved_at: tuple[str, set[str]] | None = None  # (HEAD, commits with a Moved-to: trailer)
        self._restored_at: tuple[str, set[str]] | None = None  # (HEAD, commits put back on purpose)

    @property
    def skipped(self) -> list[gh.SkippedBlob]:
        """Files over ``MAX_PARSE_BYTES`` that the last walk, HEAD's entries or the tombstones did
        not read."""
        with self._lock:
            present = self._present[2] if self._present else []
            return list(dict.fromkeys([*self._walk_skipped, *present, *self._tomb_skipped]))

    def update(self, rev: str | None = None) -> list[Removal]:
        """The removals of the history of ``rev`` (default: HEAD), newest first: walked once, then
        only the commits added since (when ``rev`` descends from the last one walked)."""
        with self._lock:
            head = self.repo.resolve(rev) if rev is not None else self.repo.head()
            if head == self._head:
                return self._removals
            exclude: tuple[str, ...] = ()
            keep_old: list[Removal] = []
            keep_reworded: list[Rewording] = []
            skipped_old: list[gh.SkippedBlob] = []
            if self._head and head and self.repo.is_ancestor(self._head, head):
                exclude, keep_old, skipped_old = (self._head,), self._removals, self._walk_skipped
                keep_reworded = self._rewordings
            new: list[Removal] = []
            reworded: list[Rewording] = []
            skipped: list[gh.SkippedBlob] = []
            if head:
                for cd in gh.log_patches(
                    self.repo, head, exclude=exclude, keep=_keep, max_blob=MAX_PARSE_BYTES, removals=True
                ):
                    removals, rewordings = changes_of(cd)
                    new.extend(removals)
                    reworded.extend(rewordings)
                    skipped.extend(gh.skipped_blobs([cd]))
            self._removals, self._head = new + keep_old, head
            self._rewordings = reworded + keep_reworded
            self._walk_skipped = skipped + skipped_old
            return self._removals

    def rewordings(self) -> list[Rewording]:
        """Every entry line a commit reworded, newest first (the walk of :meth:`update`)."""
        self.update()
        with self._lock:
            return self._rewordings

    def at_head(self, text: str) -> tuple[str, int] | None:
        """Where the fact ``text`` states is at HEAD (``FactMatcher``): (path, line), or None."""
        head = self.repo.head()
        label = self._head_entries(head).match(text) if head else None
        if label is None:
            return None
        path, _, line = label.rpartition("\0")
        return path, int(line)

    def _head_entries(self, head: str) -> FactMatcher:
        """Every entry's fact at HEAD (read from git, so the answer matches the history),
        labelled ``path\0line``."""
        with self._lock:
            if self._present and self._present[0] == head:
                return self._present[1]
        matcher = FactMatcher()
        skipped: list[gh.SkippedBlob] = []
        for path in sorted(gh.tree_files(self.repo, head)):
            if not _keep(path):
                continue
            try:
                data = self.service.blobs.read(head, path, max_bytes=MAX_PARSE_BYTES)
            except BlobTooLargeError as big:
                skipped.append(gh.SkippedBlob(path, head, big.size))
                continue
            for entry in parse(data or b"", path).entries:
                matcher.add(entry.text, f"{path}\0{entry.line}")
        with self._lock:
            self._present = (head, matcher, skipped)
        return matcher

    def tombstones(self, rev: str | None = None) -> list[Tombstone]:
        head = rev or self.repo.head()
        try:
            data = self.service.blobs.read(head, TOMBSTONE_PATH, max_bytes=MAX_PARSE_BYTES) if head else None
        except BlobTooLargeError as big:
            with self._lock:
                self._tomb_skipped = [gh.SkippedBlob(TOMBSTONE_PATH, head or "", big.size)]  # read: head is set
            return []
        with self._lock:
            self._tomb_skipped = []
        return parse_tombstones(data) if data else []

    def forgotten(self, *, refresh: bool = False) -> list[ForgottenFact]:
        if refresh:
            with self._lock:
                self._head, self._removals, self._present, self._walk_skipped = None, [], None, []
                self._rewordings = []
        removals = self.update()
        head = self._head
        if head is None:
            return []
        present = self._head_entries(head)
        moved = self._moved(head)
        tombs = self.tombstones(head)
        tmatch = FactMatcher()
        for i, t in enumerate(tombs):
            tmatch.add(t.text, str(i), t.digest)
        used: set[int] = set()
        seen: set[str] = set()
        out: list[ForgottenFact] = []
        for r in removals:
            if r.key in seen:
                continue
            seen.add(r.key)
            if r.commit.oid in moved or present.match(r.text) is not None:
                continue
            hit = tmatch.match(r.text)
            tomb = tombs[int(hit)] if hit is not None else None
            if hit is not None:
                used.add(int(hit))
            fid = removal_id(r)
            if tomb is not None and tomb.redacted:
                out.append(ForgottenFact(fid, "(redacted)", None, r.path, r.commit, (), tomb))
            else:
                out.append(ForgottenFact(fid, r.text, r.line, r.path, r.commit, r.sources, tomb))
        for i, t in enumerate(tombs):
            if i not in used and present.match(t.text or "") is None:
                fid = hashlib.sha1(f"tomb\0{t.line}\0{t.digest}".encode()).hexdigest()[:10]
                text = t.text if t.text is not None else "(redacted)"
                out.append(ForgottenFact(fid, text, None, t.file, None, t.sources, t))
        return out

    def resurrections(self, paths: Collection[str] | None = None) -> list[Finding]:
        """AMR030 findings for the work tree's entries (:meth:`resurrected`); of ``paths`` only,
        when given (the files changed since the last check)."""
        return [r.finding() for r in self.resurrected(WorkTreeFiles(self.service.mount, paths))]

    def resurrected_at(
        self, rev: str, paths: Iterable[str], *, walk: bool = True, since: str | None = None
    ) -> list[Resurrection]:
        """:meth:`resurrected` for the entries of ``paths`` as committed at ``rev``."""
        if not walk and not self.tombstones(rev):
            return []  # nothing to bring back without the walk: no file is read
        docs: dict[str, Document] = {}
        for path in sorted(set(paths)):
            if not _keep(path):
                continue
            try:
                data = self.service.blobs.read(rev, path, max_bytes=MAX_PARSE_BYTES)
            except BlobTooLargeError:
                continue
            if data is not None:
                docs[path] = parse(data, path)
        return self.resurrected(docs, rev, walk=walk, since=since) if docs else []

    def walked(self, rev: str | None = None) -> bool:
        """Whether the history of ``rev`` (default: HEAD) is walked already (no git log -p to pay)."""
        head = self.repo.resolve(rev) if rev is not None else self.repo.head()
        with self._lock:
            return head is not None and head == self._head

    def resurrected(
        self, docs: Mapping[str, Document], rev: str | None = None, *, walk: bool = True, since: str | None = None
    ) -> list[Resurrection]:
        """The entries of ``docs`` (the work tree's files, or ``rev``'s) that bring a forgotten
        fact back: see :class:`Resurrection`. The tombstones are ``docs``' own tombstone file
        when it holds one, else ``rev``'s; the history is ``rev``'s (HEAD's for the work tree).
        ``walk=False``: the facts tombstones name only, without walking the history for the
        ones deleted without a tombstone (the walk reads every commit's patch once: minutes on
        a long history, the first time). ``since``: walk only the commits after it (sync: the
        merge base, where a fact one side deleted was last there), not kept for later calls."""
        if walk and since is not None:
            head = self.repo.resolve(rev) if rev is not None else self.repo.head()
            removals = self._removals_since(head, since) if head else []
        elif walk:
            removals = self.update(rev)
            head = self._head
        else:
            removals = []
            head = self.repo.resolve(rev) if rev is not None else self.repo.head()
        tomb_doc = docs.get(TOMBSTONE_PATH)
        if tomb_doc is None and rev is not None:
            tombs = self.tombstones(rev)
        else:
            tombs = parse_tombstones(tomb_doc) if tomb_doc is not None else []
        tmatch = FactMatcher()
        for k, stone in enumerate(tombs):  # a superseded fact is back only when written exactly again
            tmatch.add(stone.text, str(k), stone.digest, fuzzy=stone.superseded_by is None)
        rmatch = FactMatcher()
        for k, removal in enumerate(removals):
            rmatch.add(removal.text, str(k))
        restored: set[str] | None = None  # read when first needed: a few git log --grep

        def put_back() -> set[str]:
            nonlocal restored
            if restored is None:
                restored = self._restored(head) if head else set()
            return restored

        verdict: dict[int, bool] = {}
        # (path, line, the entry, the tombstone's index or None, the removal's index or None)
        found: list[tuple[str, int, Entry, int | None, int | None]] = []
        for path in sorted(docs):
            if not _keep(path):
                continue
            doc = docs.get(path)
            if doc is None:  # gone or unreadable since the listing
                continue
            for entry in doc.entries:
                quick = entry_of_line(doc.lines[entry.line - 1].text)
                if quick is None or quick.links_only:
                    continue
                hit = tmatch.match(entry.text)
                if hit is not None:
                    found.append((path, entry.line, entry, int(hit), None))
                    continue
                idx = rmatch.match(entry.text)
                if idx is None:
                    continue
                i = int(idx)
                if i not in verdict:
                    verdict[i] = self._really_forgotten(removals[i], put_back(), head or "HEAD")
                if verdict[i]:
                    found.append((path, entry.line, entry, None, i))
        if not found:
            return []
        # who forgot: the commit that wrote each tombstone (or the one that deleted the fact)
        stones = gh.blame_lines(
            self.repo, rev, TOMBSTONE_PATH, {tombs[ti].line for *_x, ti, _r in found if ti is not None}
        )
        forgets: dict[tuple[int | None, int | None], _Forget] = {}
        for *_x, ti, ri in found:
            if (ti, ri) in forgets:
                continue
            if ti is not None:
                tomb = tombs[ti]
                b = stones.get(tomb.line)
                committed = b is not None and not b.uncommitted
                forgets[(ti, ri)] = _Forget(
                    tomb.describe(),
                    b.commit if b is not None and committed else None,
                    (b.author_name, b.author_email) if b is not None and committed else None,
                    tomb.by,
                )
            elif ri is not None:
                r = removals[ri]
                forgets[(ti, ri)] = _Forget(
                    f"deleted on {r.commit.author_date.date().isoformat()} in {r.commit.oid[:7]} "
                    f'"{r.commit.subject}" ({r.path}) by {r.commit.author_name}',
                    r.commit.oid,
                    (r.commit.author_name, r.commit.author_email),
                    None,
                )
        # who wrote it again: the commit that last wrote the line (git blame), if any
        blamed: dict[str, dict[int, gh.BlameLine]] = {}
        for path in dict.fromkeys(p for p, *_x in found):
            blamed[path] = gh.blame_lines(self.repo, rev, path, [ln for p, ln, *_x in found if p == path])
        out: list[Resurrection] = []
        for path, line, entry, ti, ri in found:
            forget = forgets[(ti, ri)]
            b = blamed[path].get(line)
            again = docs.get(path)  # the work tree's files are parsed again: nothing keeps them
            raw = again.lines[line - 1].text if again is not None and line <= len(again.lines) else entry.text
            if b is None or b.uncommitted:
                out.append(Resurrection(path, line, entry.text, forget.what, NOT_COMMITTED, None, raw))
                continue
            if forget.commit is not None:
                if forget.commit in put_back():
                    continue  # the forget was undone or reverted
                if b.commit == forget.commit or self.repo.is_ancestor(b.commit, forget.commit):
                    continue  # written before it was forgotten: a near duplicate that stayed
            if same_person((b.author_name, b.author_email), forget.who, forget.by):
                continue  # the one who forgot it wrote it again
            writer = f"{b.author_name} <{b.author_email}> in {b.commit[:7]}"
            out.append(Resurrection(path, line, entry.text, forget.what, writer, b.commit, raw))
        return out

    def _moved(self, head: str) -> set[str]:
        """Commits that removed entries moved to another repo (a ``Moved-to:`` trailer)."""
        with self._lock:
            if self._moved_at is not None and self._moved_at[0] == head:
                return self._moved_at[1]
        marker = f"{MOVED_TRAILER}:"
        found = {
            e.info.oid
            for e in gh.log_entries(self.repo, head, body=True, grep=marker)
            if any(line.startswith(marker) for line in e.body.splitlines())
        }
        with self._lock:
            self._moved_at = (head, found)
        return found

    def _restored(self, head: str) -> set[str]:
        """Commits whose deletions were put back on purpose: restored by amr (``Restored-from``),
        undone by amr (``Undoes``: ``z``, ``amr undo``), reverted in the activity review
        (``Activity-Revert``), undone dreaming runs (``Dream-Reverted``) and ``git revert``
        ("This reverts commit X"). Full object ids; cached per HEAD."""
        with self._lock:
            if self._restored_at is not None and self._restored_at[0] == head:
                return self._restored_at[1]
        named: set[str] = set()
        for marker in RESTORING_MARKERS:
            for e in gh.log_entries(self.repo, head, body=True, grep=marker):
                for line in e.body.splitlines():
                    if line.startswith(marker):
                        named.add(line[len(marker) :].strip().rstrip(".").split(",")[0].strip())
        out = {oid for oid in (n if OID.match(n) else self.repo.resolve(n) for n in named if n) if oid}
        with self._lock:
            self._restored_at = (head, out)
        return out

    def _removals_since(self, head: str, since: str) -> list[Removal]:
        """The removals of the commits of ``head`` not in ``since``, newest first (not cached)."""
        out: list[Removal] = []
        for cd in gh.log_patches(
            self.repo, head, exclude=(since,), keep=_keep, max_blob=MAX_PARSE_BYTES, removals=True
        ):
            out.extend(changes_of(cd)[0])
        return out

    def _really_forgotten(self, r: Removal, restored: set[str], head: str) -> bool:
        """The commit removed the fact from the whole repo (not a duplicate merged away)."""
        if r.commit.oid in restored or r.commit.oid in self._moved(head):
            return False
        return not [p for p in gh.grep_fixed(self.repo, r.commit.oid, r.text) if _keep(p)]


# ---------------------------------------------------------------------------------------------
# Writing: forget and restore


class NotForgotten(LookupError):
    """Nothing was written: the entry is not committed as named, or it (or its place) changed."""


class NotCommitted(NotForgotten):
    """The entry named is not in the last commit as shown (uncommitted, or changed since)."""


class EntryChanged(NotForgotten):
    """The entry named was changed or removed by someone else before it could be forgotten."""


class SamePlaceChanged(NotForgotten):
    """A commit made meanwhile changed the same place of the file."""


def _write(
    service: HistorySource,
    changes: list[Change],
    message: str,
    *,
    env: Mapping[str, str] | None = None,
    target: WriteTarget | None = None,
    branch: str | None = None,
) -> Saved:
    """Commit forget's or restore's change through the write gate (``target``: the session that
    holds the repo, which re-reads the files; the command line has none). The gate merges it onto
    anything committed meanwhile, only the entry named goes, and nobody's uncommitted edit is
    swept in."""
    where = target if target is not None else RepoTarget.of(service.mount, service.repo)
    try:
        return writegate.write(where, service.mount.name, changes, message, trailers=(), env=env, branch=branch)
    except ConflictError as exc:
        raise SamePlaceChanged(f"{exc.path} changed in the same place meanwhile; nothing was written") from None
    except EntryGoneError as exc:
        raise EntryChanged(str(exc)) from None


@dataclass(frozen=True, slots=True)
class ForgetPlan:
    """What forgetting one entry writes: ``build(rev)`` gives the changed files (the entry's
    lines removed, its tombstone added) made from that commit's versions, and ``message`` the
    commit message. ``rev`` is the commit the entry was found in (the base of the change),
    ``line`` its line there and ``text`` the fact. :func:`forget` commits it."""

    build: Callable[[str | None], dict[str, bytes | None]]
    message: str
    rev: str | None
    line: int
    text: str
    raw: str  # the entry's exact first line, as found in ``rev``
    secret: bool = False  # the fact held a credential: it stays in the history before ``rev``


def plan_forget(
    service: HistorySource,
    path: str,
    line: int,
    *,
    raw: str | None = None,
    rev: str | None = None,
    reason: str | None = None,
    redact: bool = False,
    by: str | None = None,
    today: _dt.date | None = None,
) -> ForgetPlan:
    """Plan forgetting one entry of ``path`` as committed at ``rev`` (default: HEAD, read once).

    The entry is named by its exact first line ``raw`` (what the caller saw, at ``line`` of the
    version it showed: the work tree may hold lines nobody committed) and found by that text in
    ``rev``'s version, the occurrence nearest ``line``; without ``raw`` it is the entry on
    ``line`` of ``rev``'s version. ``build(head)`` finds it by the same text in the version it
    reads, so the entry removed is always the entry named, whatever was committed meanwhile.

    An entry that holds a credential (``core.secrets.find_secrets``) always gets a redacting
    tombstone (the fact's digest, never its text) and a commit message without its text,
    whatever ``redact`` says.

    Raises ValueError when ``line`` holds no entry, FileNotFoundError when ``path`` is not
    committed, NotCommitted when the entry named is not in ``rev``'s version (not committed yet,
    or changed); ``build`` raises EntryChanged when the entry is not in the version it reads.
    """
    if not _keep(path):
        raise ValueError(f"{path} is not a Markdown memory file")
    rev = rev if rev is not None else service.repo.head()
    data0 = service.blobs.read(rev, path) if rev else None
    if data0 is None:
        raise FileNotFoundError(f"{path} is not committed in this repo")
    doc0 = parse(data0, path)
    if raw is None:
        entry0 = doc0.entry_at(line)
        if entry0 is None:
            raise ValueError(f"{path}:{line} is not an entry")
        raw = doc0.lines[line - 1].text
    else:
        entry0 = find_entry(doc0, raw, line)
        if entry0 is None:
            raise NotCommitted(
                f"the entry at {path}:{line} is not in the last commit as shown (it is uncommitted, or it "
                "changed since); nothing was written"
            )
    text0 = entry0.text
    if by:
        who: str | None = by
    else:
        ident = service.repo.identity()
        who = ident.name if ident else None
    # The whole entry (its continuation lines too) is what goes: a credential anywhere in it,
    # or in the reason given, is never copied into the tombstone.
    first, last = entry_span(doc0, entry0)
    secret = bool(find_secrets("\n".join(ln.text for ln in doc0.lines[first - 1 : last])))
    if reason and find_secrets(reason):
        reason, secret = redact_secrets(reason), True
    stone = tombstone_line(
        text0,
        date=(today or _dt.date.today()).isoformat(),
        reason=reason,
        by=who,
        sources=entry0.meta("source"),
        file=path,
        redact=redact or secret,
    )
    near = entry0.line

    def build(head: str | None) -> dict[str, bytes | None]:
        data = service.blobs.read(head, path) if head else None
        doc = parse(data or b"", path)
        entry = find_entry(doc, raw, near)
        if entry is None:
            raise EntryChanged(f"the entry at {path}:{line} changed before it could be forgotten; nothing was written")
        tomb = service.blobs.read(head, TOMBSTONE_PATH) if head else None
        return {path: delete_lines(doc, *removal_span(doc, entry)), TOMBSTONE_PATH: add_tombstone(tomb, stone)}

    if redact or secret:
        # A credential never goes into a commit message, whatever the user chose.
        message = f"Forget an entry in {path} (redacted)\n\nForgotten-with: amr"
    else:
        why = f"\n\nReason: {make_visible(' '.join(reason.split()))}" if reason and reason.strip() else ""
        message = f"Forget entry in {path}: {make_visible(summarise(text0))}{why}\n\nForgotten-with: amr"
    return ForgetPlan(build, message, rev, near, text0, raw, secret)


def forget(
    service: HistorySource,
    path: str,
    line: int,
    *,
    raw: str | None = None,
    reason: str | None = None,
    redact: bool = False,
    by: str | None = None,
    today: _dt.date | None = None,
    trailers: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    target: WriteTarget | None = None,
    branch: str | None = None,
) -> Forgotten:
    """Remove one entry of ``path`` and record a tombstone, in one commit through the write gate:
    the one forget of the app (``x``), ``amr forget`` and the agent interface's ``memory_forget``
    (see :func:`plan_forget` for how the entry is named: ``raw`` as the caller saw it at ``line``).

    The change is based on the commit the entry was found in: the gate merges it onto anything
    committed meanwhile (only the entry named goes) or refuses when the same entry changed.
    ``redact`` keeps only the fact's digest in the tombstone and leaves the text and the reason
    out of the commit message (always so for an entry that holds a credential). ``trailers`` are
    added to the message (the agent interface's ``Session:``), ``env`` goes to the commit (an
    agent's author), ``target`` is the session holding the repo (it re-reads the files), and
    ``branch`` a branch that is not checked out (the agent interface's review mode).

    Raises ValueError when ``line`` holds no entry, NotCommitted when the entry is not committed
    as named, EntryChanged or SamePlaceChanged when it changed before it could be committed (all
    three are LookupErrors), and the write gate's refusals.
    """
    plan = plan_forget(service, path, line, raw=raw, reason=reason, redact=redact, by=by, today=today)
    message = plan.message + "".join(f"\n{t}" for t in trailers if t)
    changes = plan_changes(plan, lambda p: service.blobs.read(plan.rev, p) if plan.rev else None)
    saved = _write(service, changes, message, env=env, target=target, branch=branch)
    return Forgotten(saved.head or "", path, plan.line, plan.text, plan.secret, saved)


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What one forget committed: the commit, and the entry as it was found in the base commit."""

    oid: str
    path: str
    line: int
    text: str
    secret: bool = False  # it held a credential: the note on purging history applies
    saved: Saved | None = None  # the write gate's answer


SECRET_IN_HISTORY = (
    "It held a credential: the tombstone keeps only a digest of it, but git history still holds "
    "the entry (the commits before this one). Rotate the credential now. To purge it, rewrite "
    "history (git filter-repo --replace-text, or BFG Repo-Cleaner) and force-push every clone: "
    "amr never rewrites history for you."
)


def plan_changes(plan: ForgetPlan, committed: Callable[[str], bytes | None]) -> list[Change]:
    """The gate's changes of ``plan``, based on ``plan.rev`` (``committed(path)``: that version)."""
    return [
        Change(p, committed(p), data, plan.rev, (plan.raw,) if p != TOMBSTONE_PATH else ())
        for p, data in plan.build(plan.rev).items()
    ]


def restore(
    service: HistorySource, fact: ForgottenFact, *, path: str | None = None, target: WriteTarget | None = None
) -> str:
    """Write a forgotten entry back as a new commit through the write gate (and drop its
    tombstone, if it has one), based on HEAD as read now: merged onto anything committed since."""
    if fact.line is None:
        raise ValueError("this fact is known only by its digest or its tombstone; amr cannot write it back")
    dest = path or fact.path
    if not dest or not _keep(dest):
        raise ValueError("name a Markdown file to restore the entry into")
    line = fact.line.strip("\r\n")
    head = service.repo.head()
    data = service.blobs.read(head, dest) if head else None
    wanted: dict[str, bytes | None] = {dest: _with_line(dest, data, line)}
    if fact.tombstone is not None and head:
        tomb = service.blobs.read(head, TOMBSTONE_PATH)
        if tomb is not None:
            tdoc = parse(tomb, TOMBSTONE_PATH)
            match = next((t for t in parse_tombstones(tdoc) if t.digest == fact.tombstone.digest), None)
            if match is not None:
                wanted[TOMBSTONE_PATH] = delete_lines(tdoc, match.line)
    changes = [Change(p, service.blobs.read(head, p) if head else None, d, head) for p, d in wanted.items()]
    trailer = f"\n\n{RESTORED_TRAILER}: {fact.commit.oid}" if fact.commit else ""
    title = f"Restore forgotten entry to {dest}: {make_visible(summarise(fact.text))}"
    return _write(service, changes, title + trailer, target=target).head or ""


def _with_line(path: str, data: bytes | None, line: str) -> bytes:
    if data is None:
        return (line + "\n").encode("utf-8", "surrogateescape")
    doc = parse(data, path)
    if path == MEMORY_FILE:
        index = next((ln for ln, lvl, t in doc.headings if lvl == 2 and t == INDEX_HEADING), None)
        if index is not None:
            at = index - 1
            while at > 0 and not doc.lines[at - 1].text.strip():
                at -= 1
            return insert_lines(doc, at, [line])
    return insert_lines(doc, len(doc.lines), new_entry_lines(doc, len(doc.lines), [line]))
