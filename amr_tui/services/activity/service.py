"""``ActivityService``: one repo's unreviewed activity, its "reviewed up to" mark, and reverts.

* Who is "the user": the author git would write for a commit here (``git var
  GIT_AUTHOR_IDENT``: the repo's ``user.email``, or the environment's). Every commit whose author
  email differs (case aside) is someone else's: agents writing through ``amr mcp`` commit as
  ``<client> <agent@amr.invalid>``. Merge commits are left out (what they bring is listed as
  the commits it comes from).
* Where the activity starts (:meth:`ActivityService.activity`): after ``since`` when asked;
  else after the mark; else, with no mark yet, from the root (everything), at most the last
  ``MAX_UNMARKED`` commits, which the start's reason says. The user's own commits never move the
  start: only an explicit review (:meth:`ActivityService.mark_reviewed`) does. A mark that is
  not on the branch any more (the branch was rewritten) counts from where the two meet.
* What is listed: each of those commits with its own entry diff (its parent -> it), and the
  changes as a whole (start -> HEAD over the files those commits touched), keeping only the
  entry changes with a line some others' commit wrote or removed (the user's own edits in
  between are not theirs to review). ``count()`` (what the tree shows) is the number of those.
* Reverting one entry change, or a whole commit, is a new commit through the write gate
  (``services.writegate.write``), with ``Activity-Revert: <oid>`` trailers: history is never
  rewritten; the revert (the user's own commit) leaves the rest still to review.

Thread-safe; the diffs of a (start, HEAD) pair are cached.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from amr_tui.core.budget import crossed, first_unloaded
from amr_tui.core.diff.entries import ChangeKind, EntryChange, EntryDiff, diff_entries
from amr_tui.core.format.edit import summarise
from amr_tui.core.format.parser import Document, parse
from amr_tui.git import GitRepo
from amr_tui.git import history as gh
from amr_tui.git.catfile import BlobReader, BlobTooLargeError
from amr_tui.git.errors import AmrGitError, ConflictError, UnmergedError
from amr_tui.git.gate import Change
from amr_tui.git.watch import watch_signature
from amr_tui.services import writegate
from amr_tui.services.activity.model import (
    REVIEWED_FILE,
    TRAILER_ENTRY,
    TRAILER_REVERT,
    Activity,
    ActivityChange,
    ActivityCommit,
    ActivityError,
)
from amr_tui.services.activity.revert import revert_entry
from amr_tui.services.budgets import profile_of
from amr_tui.services.history.forgotten import Resurrection
from amr_tui.services.history.service import HistoryService
from amr_tui.services.workspace import MAX_PARSE_BYTES, MEMORY_FILE, Mount
from amr_tui.services.writegate import Saved, WriteTarget

_IDENT = re.compile(r"^(?P<name>.*?) <(?P<email>[^<>]*)> \d+ [+-]\d{4}$")
CACHE = 4  # activities kept per service, by (start, why there, HEAD, user)
MAX_UNMARKED = 200  # with no mark, at most this many of the latest commits are looked at
PARSED_KEPT = 32  # versions of files kept parsed (by their bytes' digest)
COMMIT_DIFFS = 2 * MAX_UNMARKED  # single commits' entry diffs kept (the activities hold them anyway)


class OneRepo:
    """A :class:`~amr_tui.services.writegate.WriteTarget` for one repo on its own (the command
    line, tests): the app passes its session instead, which re-reads the files written."""

    def __init__(self, mount: Mount):
        self._mount = mount
        self._git = GitRepo(mount.root)
        self.refusals: dict[str, str] = {}

    def mount(self, repo: str) -> Mount:
        return self._mount

    def git(self, repo: str) -> GitRepo | None:
        return self._git

    @property
    def watch(self) -> OneRepo:
        return self  # no session to tell: nothing is re-read

    def reload_files(self, repo: str, paths: list[str], committed: str | None = None) -> None:
        return None


class ActivityService:
    """The activity of one memory repo. ``target``: what writes go through (default: the repo
    on its own, :class:`OneRepo`)."""

    def __init__(
        self, mount: Mount | Path | str, target: WriteTarget | None = None, history: HistoryService | None = None
    ):
        self.mount = mount if isinstance(mount, Mount) else Mount(Path(mount).name, Path(mount))
        self.repo = GitRepo(self.mount.root)
        self.target: WriteTarget = target if target is not None else OneRepo(self.mount)
        self.blobs = BlobReader(self.repo)
        # Where resurrections are decided (the same walk as AMR030's): the session's, else our own.
        self._history = history
        self._own_history = history is None
        self._lock = threading.Lock()
        self._cache: dict[tuple[str | None, str, str | None, str | None, bool], Activity] = {}
        # Each commit's own entry diff, by (parent, commit): it never changes, and a badge re-read
        # after every agent commit would otherwise parse every commit since the start again.
        self._commit_diffs: dict[tuple[str | None, str], EntryDiff] = {}
        self._docs: dict[tuple[str, bytes], Document] = {}  # (path, digest of the bytes): see _parsed

    def close(self) -> None:
        self.blobs.close()
        if self._own_history and self._history is not None:
            self._history.close()

    @property
    def history(self) -> HistoryService:
        with self._lock:
            if self._history is None:
                self._history = HistoryService(self.mount)
            return self._history

    # -- who, and from where ---------------------------------------------------------------------
    def user_email(self) -> str | None:
        """The author email git would write here (None: git has no identity)."""
        res = self.repo.runner.run(["var", "GIT_AUTHOR_IDENT"], check=False)
        if res.returncode != 0:
            return None
        m = _IDENT.match(res.text.strip())
        return m["email"] if m else None

    def signature(self) -> tuple[object, ...]:
        """Changes when HEAD moves or the review mark does (a few stats, no git): the activity
        review follows it (``git.watch.watch_signature``)."""
        return watch_signature(self.repo, files=(REVIEWED_FILE,))

    def mark(self) -> tuple[bool, str | None]:
        """``(there is a mark, the commit it holds)``; a mark of None is "from the root"."""
        try:
            data = json.loads((self.repo.git_dir / REVIEWED_FILE).read_text("utf-8"))
        except (OSError, ValueError):
            return False, None
        if not isinstance(data, dict) or "commit" not in data:
            return False, None
        commit = data["commit"]
        return True, commit if isinstance(commit, str) and commit else None

    def _save_mark(self, commit: str | None) -> None:
        target = self.repo.git_dir / REVIEWED_FILE
        target.parent.mkdir(parents=True, exist_ok=True)
        data: dict[str, Any] = {"commit": commit, "date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")}
        fd, tmp = tempfile.mkstemp(prefix=".amr-", dir=target.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, target)
        with self._lock:
            self._cache.clear()

    def mark_reviewed(self, commit: str | None = None) -> str | None:
        """Move the mark to ``commit`` (default: HEAD): everything up to it is reviewed."""
        oid = self.repo.resolve(commit or "HEAD")
        if commit is not None and oid is None:
            raise ActivityError(f"no commit {commit!r} in {self.mount.name}")
        self._save_mark(oid)
        return oid

    def _start(self, head: str, since: str | None, user: str | None) -> tuple[str | None, str]:
        if since is not None:
            oid = self.repo.resolve(since)
            if oid is None:
                raise ActivityError(f"--since {since!r}: no such commit in {self.mount.name}")
            return oid, "since"
        have, marked = self.mark()
        if have:
            if marked is None:
                return None, "root"
            if self.repo.resolve(marked) is None:
                pass  # the marked commit is gone (gc after a rewrite): as if there were no mark
            elif self.repo.is_ancestor(marked, head):
                return marked, "mark"
            else:
                return gh.merge_base(self.repo, marked, head), "mark (off this branch)"
        # No mark: from the root, whatever the user committed. The user's own commit is no review
        # (a forget or an edit says nothing of the agents' changes around it); only an explicit
        # review (``mark_reviewed``) moves the start.
        return None, "root"

    # -- reading -----------------------------------------------------------------------------------
    def _files(self, commit: str | None, paths: list[str]) -> dict[str, Document]:
        out: dict[str, Document] = {}
        if commit is None:
            return out
        for p in paths:
            try:
                data = self.blobs.read(commit, p, max_bytes=MAX_PARSE_BYTES)
            except BlobTooLargeError:
                continue  # too large to parse: left out of the entry diff
            if data is not None:
                out[p] = self._parsed(p, data)
        return out

    def _parsed(self, path: str, data: bytes) -> Document:
        """``data`` parsed, from the last few versions parsed: a commit's new version is the next
        commit's old one, and the whole activity's old side is the same for every HEAD."""
        key = (path, hashlib.blake2b(data, digest_size=16).digest())
        with self._lock:
            doc = self._docs.pop(key, None)
        if doc is None:
            doc = parse(data, path)
        with self._lock:
            self._docs[key] = doc
            while len(self._docs) > PARSED_KEPT:
                del self._docs[next(iter(self._docs))]
        return doc

    def _diff(self, old: str | None, new: str, paths: list[str] | None = None) -> EntryDiff:
        if paths is None:
            paths = [c.path for c in gh.tree_changes(self.repo, old, new)]
        return diff_entries(self._files(old, paths), self._files(new, paths))

    def _commit_diff(self, parent: str | None, commit: str, paths: list[str] | None = None) -> EntryDiff:
        """What ``commit`` itself changed, entry by entry (kept for the next activities);
        ``paths``: the files it changed, when known (``gh.commit_changes_of``)."""
        key = (parent, commit)
        with self._lock:
            diff = self._commit_diffs.pop(key, None)
        if diff is None:
            diff = self._diff(parent, commit, paths)
        with self._lock:
            self._commit_diffs[key] = diff  # the newest last: the oldest go first
            while len(self._commit_diffs) > COMMIT_DIFFS:
                del self._commit_diffs[next(iter(self._commit_diffs))]
        return diff

    def activity(self, since: str | None = None) -> Activity:
        """What others committed after the start (see the module's doc) up to HEAD."""
        head = self.repo.resolve("HEAD")
        user = self.user_email()
        if head is None:
            return Activity(None, None, "root", user, [], diff_entries({}, {}))
        start, reason = self._start(head, since, user)
        # Resurrections of facts deleted without a tombstone need the history walk: used once it
        # is done (the app's AMR030 walk), never waited for (minutes on a long history).
        walked = self.history.walked(head)
        key = (start, reason, head, user, walked)
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None:
            return cached
        entries = gh.log_entries(self.repo, head, exclude=(start,) if start else ())
        if reason == "root" and len(entries) > MAX_UNMARKED:
            # No review yet on a long history: the last MAX_UNMARKED commits, not every commit
            # since the first (an entry diff each); a mark or --since reaches further back.
            start, reason = entries[MAX_UNMARKED].oid, f"the last {MAX_UNMARKED} commits (no review yet)"
            entries = gh.log_entries(self.repo, head, exclude=(start,))
        commits: list[ActivityCommit] = []
        own = 0
        theirs = [
            e for e in entries if len(e.parents) <= 1 and (user is None or e.info.author_email.lower() != user.lower())
        ]
        with self._lock:
            known = set(self._commit_diffs)
        pairs = [(e.parents[0] if e.parents else None, e.oid) for e in theirs]
        changed = gh.commit_changes_of(self.repo, [p for p in pairs if p not in known])  # one git for them all
        for e in reversed(entries):
            if len(e.parents) > 1:
                continue
            if user is not None and e.info.author_email.lower() == user.lower():
                own += 1
                continue
            parent = e.parents[0] if e.parents else None
            files = changed.get(e.oid)
            diff = self._commit_diff(parent, e.oid, None if files is None else [c.path for c in files])
            commits.append(
                ActivityCommit(
                    e.oid,
                    parent,
                    e.info.author_name,
                    e.info.author_email,
                    e.info.author_date,
                    e.info.subject,
                    diff,
                    *self._past_cut(parent, e.oid, diff),
                )
            )
        paths = sorted({p for c in commits for p in c.diff.changed_paths})
        # From the root, the changes as a whole are taken from just before the first commit by
        # someone else: an agent's reword of the user's first entries reads as a reword, not new.
        base = commits[0].parent if commits and start is None else start
        together = self._diff(base, head, paths) if commits else diff_entries({}, {})
        # An agent writing a forgotten fact again is a resurrection, decided as AMR030 decides it
        # (services.history: forgotten by someone else, written again after): marked in the commit
        # that wrote it, and in the changes as a whole, where the old line (the one forgotten) is
        # not its counterpart: reverting it removes the line written again, nothing more.
        risen = self._risen(head, paths, {c.oid for c in commits}, walked) if commits else {}
        if risen:
            commits = [_mark_risen(c, risen) for c in commits]
            together = _mark_together(together, risen)
        wrote: dict[tuple[str, str], ActivityCommit] = {}  # (path, line) -> the last commit that wrote it
        removed: dict[tuple[str, str], ActivityCommit] = {}  # ... that removed (or changed) it
        for c in commits:  # oldest first: the last one wins
            for ch in c.diff.changes:
                for ref in ch.old:
                    removed[(ref.path, ref.raw)] = c
                if ch.new is not None:
                    wrote[(ch.new.path, ch.new.raw)] = c
        changes: list[ActivityChange] = []
        for ch in together.changes:
            # whose change it is: who wrote its new line, else who removed its old lines
            by = wrote.get((ch.new.path, ch.new.raw)) if ch.new is not None else None
            if by is None:
                olds = [removed[(r.path, r.raw)] for r in ch.old if (r.path, r.raw) in removed]
                by = max(olds, key=commits.index) if olds else None
            if by is not None:
                changes.append(ActivityChange(ch, by))
        activity = Activity(head, start, reason, user, commits, together, changes, own)
        with self._lock:
            self._cache[key] = activity
            while len(self._cache) > CACHE:
                del self._cache[next(iter(self._cache))]
        return activity

    def _risen(
        self, head: str, paths: list[str], others: set[str], walked: bool
    ) -> dict[tuple[str, str], Resurrection]:
        """The resurrections at ``head`` in ``paths`` that one of ``others`` (commits) wrote, by
        (path, line as written): of tombstoned facts, and of facts deleted without one when the
        history is ``walked``."""
        found = self.history.resurrected_at(head, paths, walk=walked)
        return {(r.path, r.raw): r for r in found if r.commit in others}

    def _past_cut(
        self, parent: str | None, commit: str, diff: EntryDiff
    ) -> tuple[tuple[str, ...], tuple[str, ...], str]:
        """What ``commit`` did to the cut of the file the repo's agent loads (MEMORY.md for most):
        ``(pushed, landed, what the cut is)`` (``core.budget.crossed``)."""
        profile = profile_of(self.mount)
        read = profile.entry
        if read is None or not read.limits.bounded or MEMORY_FILE not in diff.changed_paths:
            return (), (), ""
        try:
            new = self.blobs.read(commit, MEMORY_FILE, max_bytes=MAX_PARSE_BYTES)
            old = self.blobs.read(parent, MEMORY_FILE, max_bytes=MAX_PARSE_BYTES) if parent else None
        except BlobTooLargeError:
            return (), (), ""
        if new is None:
            return (), (), ""
        new_cut = first_unloaded(new, read.limits)
        if new_cut is None:
            return (), (), ""
        old_doc = self._parsed(MEMORY_FILE, old) if old is not None else None
        old_cut = first_unloaded(old, read.limits) if old is not None else None
        pushed, landed = crossed(old_doc, old_cut, self._parsed(MEMORY_FILE, new), new_cut)
        said = f"{profile.verb('stop', start=False)} loading MEMORY.md before line {new_cut}"
        return tuple(pushed), tuple(landed), said

    def count(self) -> int:
        """How many entry changes are unreviewed (0 for a repo with no commits)."""
        try:
            return self.activity().count
        except (AmrGitError, ValueError, ActivityError):
            return 0

    # -- reverting ---------------------------------------------------------------------------------
    def _write(self, head: str, changes: Mapping[str, bytes | None], message: str, trailers: list[str]) -> Saved:
        gate = [Change(p, self.blobs.read(head, p), data, head) for p, data in changes.items()]
        try:
            return writegate.write(self.target, self.mount.name, gate, message, trailers=(writegate.TRAILER, *trailers))
        except ConflictError as exc:
            raise ActivityError(
                f"{exc.path} changed in the same place meanwhile; nothing was written. Look again."
            ) from None

    def revert_change(self, change_id: str, commit: str | None = None, *, since: str | None = None) -> Saved:
        """Undo one entry change (of the activity as a whole, or of ``commit``'s own diff) as a
        new commit; the commit's other changes stay."""
        activity = self.activity(since)
        found = activity.change(change_id, commit)
        if found is None or activity.head is None:
            raise ActivityError(f"no unreviewed entry change {change_id!r}: `amr activity` lists them")
        change, base, _diff = found
        head = activity.head
        now = {p: self.blobs.read(head, p) for p in change.paths}
        before: dict[str, bytes | None] = {p: self.blobs.read(base, p) if base else None for p in change.paths}
        files = revert_entry(change, now, before)
        by = next((c.commit for c in activity.changes if c.change.id == change_id), None)
        oids = (
            [by.oid]
            if by is not None and commit is None
            else [c.oid for c in activity.commits if commit and c.oid.startswith(commit)]
        )
        text = summarise((change.new or change.old[0]).text, 60)
        title = f'Revert the {change.kind.value} entry in {change.primary_path}: "{text}"'
        return self._write(
            head, files, title[:200], [*(f"{TRAILER_REVERT}: {o}" for o in oids), f"{TRAILER_ENTRY}: {change.id}"]
        )

    def revert_commit(self, commit: str, *, since: str | None = None) -> Saved:
        """Undo everything ``commit`` changed, on the files as they are now (three-way), as one
        new commit. Refused when a later commit changed the same lines."""
        activity = self.activity(since)
        ac = activity.commit(commit)
        if ac is None or activity.head is None:
            raise ActivityError(f"no unreviewed commit {commit!r} by someone else: `amr activity` lists them")
        head = activity.head
        files: dict[str, bytes | None] = {}
        for tc in gh.tree_changes(self.repo, ac.parent, ac.oid):
            path = tc.path
            ours = self.blobs.read(head, path)
            mine = self.blobs.read(ac.oid, path)
            theirs = self.blobs.read(ac.parent, path) if ac.parent else None
            try:
                result = _three_way(self.repo, path, ours, mine, theirs)
            except ActivityError:
                result = self._entry_by_entry(ac, path, ours, theirs)
            if result != ours:
                files[path] = result
        if not files:
            raise ActivityError(f"{ac.short} is already undone: the files read as before it")
        title = f'Revert "{ac.subject}" ({ac.short}, by {ac.author_name})'
        return self._write(head, files, title[:200], [f"{TRAILER_REVERT}: {ac.oid}"])

    def _entry_by_entry(self, ac: ActivityCommit, path: str, ours: bytes | None, theirs: bytes | None) -> bytes | None:
        """``path`` with each of ``ac``'s entry changes in it undone one by one: for a file a later
        commit changed next to the same lines (an Index that grew at its end), where a three-way
        merge of the whole file conflicts. Refused when a change spans files or was changed since."""
        mine = [c for c in ac.diff.changes if path in c.paths]
        if not mine or any(c.paths != (path,) for c in mine):
            raise ActivityError(f"{path}: a later commit changed the same lines; revert its entries one by one")
        current: bytes | None = ours
        for change in mine:
            current = revert_entry(change, {path: current}, {path: theirs}).get(path, current)
        return current


def _mark_risen(c: ActivityCommit, risen: Mapping[tuple[str, str], Resurrection]) -> ActivityCommit:
    """``c`` with the lines it wrote again marked resurrected (in a copy: its diff is kept)."""
    changes: list[EntryChange] = []
    hit = False
    for ch in c.diff.changes:
        r = risen.get((ch.new.path, ch.new.raw)) if ch.new is not None else None
        if r is not None and r.commit == c.oid:
            ch = replace(ch, kind=ChangeKind.RESURRECTED, resurrects=r.label)
            hit = True
        changes.append(ch)
    return replace(c, diff=replace(c.diff, changes=changes)) if hit else c


def _mark_together(diff: EntryDiff, risen: Mapping[tuple[str, str], Resurrection]) -> EntryDiff:
    """The changes as a whole with each line written again a resurrection of its own: paired with
    nothing (the old line is the one forgotten, by someone else), also when the line reads as it
    did at the start (no change at all from there)."""
    changes: list[EntryChange] = []
    unchanged: list[EntryChange] = []
    for ch, keep in [*((ch, changes) for ch in diff.changes), *((ch, unchanged) for ch in diff.unchanged)]:
        r = risen.get((ch.new.path, ch.new.raw)) if ch.new is not None else None
        if r is None:
            keep.append(ch)
            continue
        changes.append(
            replace(
                ch,
                kind=ChangeKind.RESURRECTED,
                old=(),
                reworded=False,
                metadata=False,
                lost_sources=(),
                resurrects=r.label,
            )
        )
    return replace(diff, changes=changes, unchanged=unchanged)


def _three_way(repo: GitRepo, path: str, ours: bytes | None, base: bytes | None, theirs: bytes | None) -> bytes | None:
    """``theirs`` (the parent's version) applied onto ``ours`` (now), from ``base`` (the commit's)."""
    try:
        return repo.merge_versions(ours, base, theirs, ("now", "commit", "before"))
    except UnmergedError as exc:
        why = "changed again since (or deleted)" if exc.deleted else "a later commit changed the same lines"
        raise ActivityError(f"{path}: {why}; revert its entries one by one") from None
