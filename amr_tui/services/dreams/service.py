"""Pending dreaming runs and their review: list, inspect, accept, reject, undo (docs/dreams.md).

A pending run is a branch ``dreams/<run-id>`` whose commits sit on the main branch as it was when
the run started (its *base* is the merge base with main). :class:`DreamService` is thread-safe
and UI-shaped:

* :meth:`~DreamService.runs` - the pending runs as cards (summary, age, files changed, entry lines
  added and removed, how far main moved since the base). A few git calls and blob reads per
  run, cached per (base, tip).
* :meth:`~DreamService.changed_files` - the run's files from git alone (status, line counts,
  viewed marks): a handful of git calls, what the review screen shows first.
* :meth:`~DreamService.review` - the entry-level changes of one run (``core.diff.entries``), per file
  with "viewed" marks, and which changes main already has. ``history=True`` also checks new
  entries against forgotten facts (SLOW the first time: walks the history); in stages,
  ``review(history=False)`` then :meth:`~DreamService.with_forgotten`. The entry diff of a
  (base, tip) pair and the forgotten-facts matcher of a (main, HEAD) pair are cached.
* :meth:`~DreamService.rows` - one file side by side, entries aligned.
* :meth:`~DreamService.accept`, :meth:`~DreamService.reject`, :meth:`~DreamService.undo` - write
  through compare-and-swap ref updates only (:mod:`amr_tui.services.dreams.write`).

The review's reads never touch a blob over ``MAX_PARSE_BYTES``: such a file is left out of the
entry diff on both sides and named in ``RunReview.skipped`` (with the history walk's own skips
when forgotten facts are checked).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from amr_tui.core.diff.align import Row, align, applied_ids, entry_line_counts, file_summaries
from amr_tui.core.diff.entries import EntryDiff, diff_entries, mark_forgotten
from amr_tui.core.dreams.clean import REASON_TRAILER
from amr_tui.core.format.parser import parse
from amr_tui.core.lint.contradictions import find_contradictions
from amr_tui.core.paths import in_amr_folder
from amr_tui.core.tombstones import TOMBSTONE_PATH, FactMatcher, parse_tombstones
from amr_tui.git import GitRepo
from amr_tui.git import history as gh
from amr_tui.git.catfile import BlobReader, BlobTooLargeError
from amr_tui.git.dreamrefs import list_refs
from amr_tui.git.watch import watch_signature
from amr_tui.git.worktree import normalize_rel
from amr_tui.services.dreams import threeway
from amr_tui.services.dreams.evidence import entry_notes
from amr_tui.services.dreams.model import (
    BRANCH_PREFIX,
    DECISION_PREFIX,
    TRAILER_RUN,
    TRAILER_UNDO,
    ChangedFile,
    Decision,
    DreamError,
    DreamRun,
    FileReview,
    RunReview,
    run_id_of,
    trailer_values,
)
from amr_tui.services.dreams.write import Accepted, accept, close_if_decided, emptied_by, reject, undo
from amr_tui.services.history.service import HistoryService
from amr_tui.services.workspace import MAX_PARSE_BYTES, Mount

VIEWED_FILE = "amr/viewed.json"  # inside the git dir, never in the work tree
REJECTED_FILE = "amr/rejected.json"  # per-file and per-entry rejections of pending runs
GIT_STATUS = {"A": "added", "D": "deleted"}  # anything else (M, T) reads as "modified"
DIFF_CACHE = 4  # entry diffs kept per service


if TYPE_CHECKING:
    from amr_tui.services.verify.coderepo import CodeSource


def reasons_of(run: DreamRun, diff: EntryDiff) -> dict[str, str]:
    """Change id -> the reason the run's commits give for it: ``Dream-Reason: PATH:LINE: why``
    lines (PATH:LINE the entry in the run's base), as amr's built-in pass writes them and any
    dreaming agent may."""
    said: dict[tuple[str, int], str] = {}
    for commit in run.commits:
        for value in trailer_values(commit.body, REASON_TRAILER):
            where, _, why = value.partition(": ")
            path, _, line = where.rpartition(":")
            if path and line.isdigit() and why:
                said.setdefault((path, int(line)), why)
    out: dict[str, str] = {}
    for change in diff.changes:
        for ref in change.old:
            reason = said.get((ref.path, ref.line))
            if reason:
                out[change.id] = reason
                break
    return out


class DreamService:
    """Dreaming runs of one memory repo. ``main``: the branch runs are reviewed against
    (default: the checked-out branch, else ``main``)."""

    def __init__(self, mount: Mount | Path | str, *, main: str | None = None):
        self.mount = mount if isinstance(mount, Mount) else Mount(Path(mount).name, Path(mount))
        self.repo = GitRepo(self.mount.root)
        current = self.repo.current_branch()
        self.main = main or (current if current and not current.startswith(BRANCH_PREFIX) else "main")
        self.repo.check_branch_name(self.main)
        self.blobs = BlobReader(self.repo)
        self._lock = threading.Lock()
        self._counts: dict[tuple[str, str], tuple[int, int, int]] = {}
        self._diffs: dict[tuple[str, str], EntryDiff] = {}  # (base, tip) -> entry diff, newest last
        self._skipped: dict[tuple[str, str], list[gh.SkippedBlob]] = {}  # (base, tip) -> files not read
        self._matcher: tuple[tuple[str | None, str | None], FactMatcher] | None = None  # ((main, HEAD), matcher)
        self._history: HistoryService | None = None  # for forgotten facts, made on first use
        self.code: Callable[[], list[CodeSource]] | None = None  # the code new entries are checked against

    def close(self) -> None:
        self.blobs.close()
        if self._history is not None:
            self._history.close()

    def main_tip(self) -> str | None:
        return self.repo.resolve(f"refs/heads/{self.main}")

    def signature(self) -> tuple[object, ...]:
        """Changes when a run is made, moves or is decided, or main moves (a few stats, no git):
        the pending list follows it (``git.watch.watch_signature``)."""
        refs = (f"refs/heads/{BRANCH_PREFIX.rstrip('/')}", DECISION_PREFIX.rstrip("/"), f"refs/heads/{self.main}")
        return watch_signature(self.repo, head=False, refs=refs)

    # -- listing --------------------------------------------------------------------------------
    def runs(self, *, closed: bool = False) -> list[DreamRun]:
        """Pending runs, oldest first (``closed`` adds accepted and rejected ones)."""
        main = self.main_tip()
        out = [self._run(run_id_of(b), tip, main) for b, tip in sorted(self.repo.branches(BRANCH_PREFIX).items())]
        if closed:
            for ref, record in sorted(list_refs(self.repo, DECISION_PREFIX).items()):
                decision = self._decision(ref, record)
                if decision is not None:
                    rid = ref[len(DECISION_PREFIX) + len(decision.state) + 1 :]
                    out.append(self._run(rid, decision.tip, main, decision))
        out.sort(key=lambda r: (r.started.timestamp() if r.started else 0.0, r.id))
        return out

    def run(self, name: str, *, counts: bool = True) -> DreamRun:
        """A run by id or branch name: the pending one, else the latest decision about it.

        ``counts=False`` leaves the entry counts at 0 unless they are cached (no entry diff)."""
        rid = run_id_of(name)
        if not rid:
            raise DreamError("name a run: its id or its dreams/<id> branch")
        try:
            self.repo.check_branch_name(BRANCH_PREFIX + rid)
        except ValueError:
            raise DreamError(f"{rid!r} is not a valid run id") from None
        main = self.main_tip()
        tip = self.repo.resolve(f"refs/heads/{BRANCH_PREFIX}{rid}")
        if tip is not None:
            return self._run(rid, tip, main, counts=counts)
        for state in ("accepted", "rejected"):
            ref = f"{DECISION_PREFIX}{state}/{rid}"
            record = self.repo.resolve(ref)
            if record is not None:
                decision = self._decision(ref, record)
                if decision is not None:
                    return self._run(rid, decision.tip, main, decision, counts=counts)
        raise DreamError(f"no dreaming run {rid!r}: `amr dreams list` shows the pending ones")

    def _run(
        self, rid: str, tip: str, main: str | None, decision: Decision | None = None, *, counts: bool = True
    ) -> DreamRun:
        base = gh.merge_base(self.repo, main, tip) if main else None
        commits = gh.log_entries(self.repo, tip, exclude=(base,) if base else (), body=True)
        run = DreamRun(
            rid,
            BRANCH_PREFIX + rid,
            decision.state if decision else "pending",
            tip,
            base,
            main,
            commits,
            decision=decision,
        )
        if base is not None:
            key = (base, tip)
            with self._lock:
                cached = self._counts.get(key)
            if cached is None and counts:
                diff = self._diff(base, tip, history=False)
                added, removed = entry_line_counts(diff)
                cached = (len(diff.changed_paths), added, removed)
                with self._lock:
                    self._counts[key] = cached
            if cached is not None:
                run.files_changed, run.entries_added, run.entries_removed = cached
            run.main_moved = gh.count_between(self.repo, base, main) if main else 0
            run.accept_commits = self._accept_commits(rid, base, main) if main else []
        return run

    def _accept_commits(self, rid: str, base: str, main: str) -> list[str]:
        """Commits on main since the base that accepted parts of the run and were not undone."""
        undone: set[str] = set()
        for e in gh.log_entries(self.repo, main, exclude=(base,), body=True, grep=f"{TRAILER_UNDO}: {rid}"):
            if rid in trailer_values(e.body, TRAILER_UNDO):
                undone.update(trailer_values(e.body, "Dream-Reverted"))
        return [
            e.oid
            for e in gh.log_entries(self.repo, main, exclude=(base,), body=True, grep=f"{TRAILER_RUN}: {rid}")
            if rid in trailer_values(e.body, TRAILER_RUN) and e.oid not in undone
        ]

    def _decision(self, ref: str, record: str) -> Decision | None:
        entries = gh.log_entries(self.repo, record, limit=1, body=True)
        if not entries or not entries[0].parents:
            return None
        e = entries[0]
        state = (trailer_values(e.body, "Dream-Decision") or [""])[0]
        if state not in ("accepted", "rejected"):
            return None
        before = next(iter(trailer_values(e.body, "Dream-Main-Before")), None)
        after = next(iter(trailer_values(e.body, "Dream-Main-After")), None)
        return Decision(
            state,
            ref,
            record,
            e.parents[0],
            before,
            after,
            tuple(trailer_values(e.body, "Dream-Accept-Commit")),
            e.info.committer_date,
        )

    # -- reviewing ------------------------------------------------------------------------------
    def _files(self, commit: str, paths: list[str], skipped: list[gh.SkippedBlob] | None = None) -> dict[str, bytes]:
        """The paths' bytes at ``commit``; one over ``MAX_PARSE_BYTES`` is not read (and named in
        ``skipped``)."""
        out: dict[str, bytes] = {}
        for p in paths:
            try:
                data = self.blobs.read(commit, p, max_bytes=MAX_PARSE_BYTES)
            except BlobTooLargeError as big:
                if skipped is not None:
                    skipped.append(gh.SkippedBlob(p, commit, big.size))
                continue
            if data is not None:
                out[p] = data
        return out

    def _diff(self, base: str, tip: str, *, history: bool) -> EntryDiff:
        """The entry diff from ``base`` to ``tip`` (cached: both are commits), with the
        forgotten-fact marks when ``history``."""
        key = (base, tip)
        with self._lock:
            diff = self._diffs.get(key)
        if diff is None:
            paths = [p for _, p in gh.changed_paths(self.repo, base, tip)]
            skipped: list[gh.SkippedBlob] = []
            old, new = self._files(base, paths, skipped), self._files(tip, paths, skipped)
            for s in skipped:  # a file too large on one side is left out on both
                old.pop(s.path, None)
                new.pop(s.path, None)
            diff = diff_entries(old, new)
            with self._lock:
                self._diffs[key] = diff
                self._skipped[key] = skipped
                while len(self._diffs) > DIFF_CACHE:
                    del self._diffs[next(iter(self._diffs))]
                while len(self._skipped) > DIFF_CACHE:
                    del self._skipped[next(iter(self._skipped))]
        return mark_forgotten(diff, self._forgotten_matcher()) if history else diff

    def _forgotten_matcher(self) -> FactMatcher:
        """Tombstones on main, and facts deleted over main's history that are not back (cached
        while neither main nor HEAD moves)."""
        main = self.main_tip()
        key = (main, self.repo.resolve("HEAD"))
        with self._lock:
            if self._matcher is not None and self._matcher[0] == key:
                return self._matcher[1]
        matcher = FactMatcher()
        try:
            data = self.blobs.read(main, TOMBSTONE_PATH, max_bytes=MAX_PARSE_BYTES) if main else None
        except BlobTooLargeError:  # the history service's tombstones() names it
            data = None
        for t in parse_tombstones(data) if data else []:
            matcher.add(t.text, t.describe(), t.digest, fuzzy=t.superseded_by is None)
        with self._lock:
            if self._history is None:
                self._history = HistoryService(self.mount)  # keeps its walk of the history cached
            service = self._history
        for fact in service.forgotten():
            if fact.commit is not None and fact.line is not None:
                matcher.add(
                    fact.text, f'deleted on {fact.date} in {fact.commit.oid[:7]} "{fact.commit.subject}" ({fact.path})'
                )
        with self._lock:
            self._matcher = (key, matcher)
        return matcher

    def changed_files(self, run: DreamRun) -> list[ChangedFile]:
        """The files ``run`` changes, from git alone: status, text lines added and removed, viewed."""
        if run.base is None:
            raise DreamError(f"{run.branch} shares no history with {self.main}")
        lines = gh.line_counts(self.repo, run.base, run.tip)
        viewed = self.viewed(run)
        return [
            ChangedFile(p, GIT_STATUS.get(st, "modified"), lines.get(p), viewed.get(p, False))
            for st, p in gh.changed_paths(self.repo, run.base, run.tip)
        ]

    def link_targets(self, run: DreamRun) -> frozenset[str]:
        """The paths a ``[[link]]`` in an entry of ``run`` may name: main's files now and the
        run's (an entry the reviewer edits is checked against them as it is typed)."""
        main = self.main_tip()
        return frozenset(gh.tree_files(self.repo, run.tip)) | frozenset(gh.tree_files(self.repo, main) if main else ())

    def review(self, name: str | DreamRun, *, history: bool = True) -> RunReview:
        """The entry-level review of a run (by name, or a :class:`DreamRun` just read)."""
        run = name if isinstance(name, DreamRun) else self.run(name)
        if run.base is None:
            raise DreamError(f"{run.branch} shares no history with {self.main}")
        review = self._review(run)
        return self.with_forgotten(review) if history else review

    def with_forgotten(self, review: RunReview) -> RunReview:
        """``review`` (made with ``history=False``) with the new entries that match forgotten
        facts marked ``resurrected``: the same as ``review(..., history=True)``."""
        diff = mark_forgotten(review.diff, self._forgotten_matcher())
        files = [
            FileReview(f.path, f.status, s.counts, s.changes, f.viewed, f.rejected)
            for f, s in zip(review.files, file_summaries(diff), strict=True)
        ]
        with self._lock:
            history = self._history
        walked = history.history_skipped() if history is not None else []
        return RunReview(
            review.run,
            diff,
            files,
            set(review.applied),
            set(review.rejected),
            set(review.rejected_files),
            list(dict.fromkeys([*review.skipped, *walked])),
            review.now,
            dict(review.now_map),
            dict(review.main_changed),
            dict(review.contradictions),
            dict(review.main_now),
            dict(review.reasons),
        )

    def _review(self, run: DreamRun) -> RunReview:
        assert run.base is not None  # review() refuses a run that shares no history with main
        diff = self._diff(run.base, run.tip, history=False)
        viewed = self.viewed(run)
        marks = self.rejections(run.id)
        bad_files = set(marks["files"]) & set(diff.changed_paths)
        rejected = {c.id for c in diff.changes if c.id in marks["changes"] or bad_files & set(c.paths)}
        files = [
            FileReview(f.path, f.status, f.counts, f.changes, viewed.get(f.path, False), f.path in bad_files)
            for f in file_summaries(diff)
        ]
        with self._lock:
            skipped = list(self._skipped.get((run.base, run.tip), []))
        main_files = self._files(run.main, diff.changed_paths, skipped) if run.main else {}
        review = RunReview(
            run, diff, files, applied_ids(diff, main_files), rejected, bad_files, list(dict.fromkeys(skipped))
        )
        review.reasons = reasons_of(run, diff)
        if run.main and run.main != run.base:
            # main moved: what it did to these files since the base, and main now against the tip
            tip = {p: d for p, d in diff.new_docs.items() if p in diff.changed_paths}
            base = {p: d for p, d in diff.old_docs.items() if p in diff.changed_paths}
            main_diff = diff_entries(base, main_files)
            review.now = diff_entries(main_files, tip)
            review.now_map = threeway.change_map(diff, main_diff, review.now)
            review.main_changed = threeway.main_changed(diff, main_diff)
            review.main_now = threeway.main_versions(diff, main_diff)
        return review

    def evidence_notes(self, review: RunReview) -> dict[str, list[tuple[str, bool]]]:
        """Change id -> whether each entry the run adds or rewrites cites a source that exists and
        evidence that holds in the code (``services.dreams.evidence.entry_notes``; the code is
        ``self.code()``, which the session sets: none, and only sources are checked)."""
        return entry_notes(review, self.code() if self.code is not None else [])

    def contradictions(self, review: RunReview) -> dict[str, list[str]]:
        """Change id -> "contradicts path:line (A vs B)?" for each entry the run writes that may
        contradict another entry of main now or of the run's result (``core.lint.contradictions``)."""
        run = review.run
        changed = set(review.diff.changed_paths)
        texts: list[str] = []
        where: list[tuple[str, int]] = []
        mine: dict[int, str] = {}
        for c in review.diff.changes:
            if c.new is not None and not c.new.links_only and c.new.text.strip():
                mine[len(texts)] = c.id
                texts.append(c.new.text)
                where.append((c.new.path, c.new.line))
        if not mine:
            return {}
        written = {(p, ln) for p, ln in where}
        for path, doc in review.diff.new_docs.items():  # the run's result of the files it changes
            if in_amr_folder(path):
                continue
            for e in doc.entries:
                if (path, e.line) not in written and e.text.strip():
                    texts.append(e.text)
                    where.append((path, e.line))
        others = [p for p in gh.tree_files(self.repo, run.main).keys() if p.endswith(".md")] if run.main else []
        main_files = (
            self._files(run.main, [p for p in others if p not in changed and not in_amr_folder(p)]) if run.main else {}
        )
        for path, data in main_files.items():
            for e in parse(data, path, check=False).entries:
                if e.text.strip():
                    texts.append(e.text)
                    where.append((path, e.line))
        out: dict[str, list[str]] = {}
        for pair in find_contradictions(texts, only=mine):
            a, b = pair.a, pair.b
            if a in mine:
                cid, other, values = mine[a], b, pair.found.describe()
            else:
                cid, other = mine[b], a
                values = f"{' '.join(pair.found.b_values)} vs {' '.join(pair.found.a_values)}"
            path, line = where[other]
            out.setdefault(cid, []).append(f"contradicts {path}:{line} ({values})?")
            if a in mine and b in mine:
                path, line = where[a]
                back = f"{' '.join(pair.found.b_values)} vs {' '.join(pair.found.a_values)}"
                out.setdefault(mine[b], []).append(f"contradicts {path}:{line} ({back})?")
        return out

    def rows(self, name: str, path: str) -> list[Row]:
        """``path`` in the run side by side (base left, tip right), entries aligned."""
        return align(self.review(name, history=False).diff, path)

    # -- viewed marks and rejections (files inside the git dir) ------------------------------------
    def _load(self, name: str) -> dict[str, Any]:
        try:
            data = json.loads((self.repo.git_dir / name).read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self, name: str, data: dict[str, Any]) -> None:
        target = self.repo.git_dir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".amr-", dir=target.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, target)

    def _blob_at_tip(self, run: DreamRun, path: str) -> str:
        try:
            entry = self.repo.tree_entry(run.tip, path)
        except ValueError:  # a name amr refuses to handle
            return "-"
        return entry[1] if entry else "-"

    def viewed(self, run: DreamRun) -> dict[str, bool]:
        """``path -> viewed`` for the files marked viewed whose content has not changed since."""
        with self._lock:
            marks = self._load(VIEWED_FILE).get(run.id, {})
        if not isinstance(marks, dict):
            return {}
        try:
            found = self.repo.tree_entries(run.tip, list(marks))  # one git call for all of them
            now = {p: found[normalize_rel(p)][1] if normalize_rel(p) in found else "-" for p in marks}
        except ValueError:  # a name amr refuses to handle: one by one
            now = {p: self._blob_at_tip(run, p) for p in marks}
        return {p: marks[p] == now[p] for p in marks}

    def mark_viewed(self, name: str, path: str, viewed: bool = True) -> None:
        """Mark a file of a run viewed (as its content is now) or not viewed."""
        run = self.run(name)
        oid = self._blob_at_tip(run, path)
        with self._lock:
            data = self._load(VIEWED_FILE)
            marks = data.setdefault(run.id, {})
            if viewed:
                marks[path] = oid
            else:
                marks.pop(path, None)
            self._save(VIEWED_FILE, data)

    def rejections(self, name: str) -> dict[str, list[str]]:
        """``{"files": [...], "changes": [...]}`` the reviewer rejected in a pending run."""
        with self._lock:
            marks = self._load(REJECTED_FILE).get(run_id_of(name), {})
        if not isinstance(marks, dict):
            return {"files": [], "changes": []}
        return {"files": list(marks.get("files", [])), "changes": list(marks.get("changes", []))}

    def reject_parts(
        self,
        name: str,
        *,
        files: list[str] | tuple[str, ...] = (),
        changes: list[str] | tuple[str, ...] = (),
        rejected: bool = True,
    ) -> None:
        """Reject (or un-reject) files or entry changes of a pending run: they stay out of main
        when the rest of the run is accepted. Nothing is committed."""
        run = self.run(name)
        if run.state != "pending":
            raise DreamError(f"run {run.id} is already {run.state}")
        with self._lock:
            data = self._load(REJECTED_FILE)
            marks = data.setdefault(run.id, {"files": [], "changes": []})
            for key, items in (("files", files), ("changes", changes)):
                have = list(marks.get(key, []))
                for item in items:
                    if rejected and item not in have:
                        have.append(item)
                    elif not rejected and item in have:
                        have.remove(item)
                marks[key] = have
            self._save(REJECTED_FILE, data)

    # -- writing (.write, .check, .make) ---------------------------------------------------------
    def accept(
        self,
        name: str,
        *,
        files: list[str] | tuple[str, ...] = (),
        entries: list[str] | tuple[str, ...] = (),
        edits: dict[str, str] | None = None,
        delete: list[str] | tuple[str, ...] = (),
        replace: list[str] | tuple[str, ...] = (),
    ) -> Accepted:
        """Accept the whole run, or some files, or some entry changes (``edits``: id -> new text).

        A whole run based on main's tip fast-forwards main; anything else is one new commit on
        main with ``Dream-Run`` / ``Dream-Commit`` trailers. ``delete``: files the accept leaves
        with no entry (``emptied_by``) to delete in the same commit. A part-accept that leaves
        nothing undecided closes the run. ``replace``: entry changes whose version replaces
        main's where main changed that entry since the run started (else both are kept)."""
        return accept(
            self,
            name,
            files=list(files),
            entries=list(entries),
            edits=edits or {},
            delete=list(delete),
            replace=list(replace),
        )

    def emptied_by(
        self,
        name: str,
        *,
        files: list[str] | tuple[str, ...] = (),
        entries: list[str] | tuple[str, ...] = (),
        edits: dict[str, str] | None = None,
        replace: list[str] | tuple[str, ...] = (),
    ) -> list[str]:
        """The files ``accept`` with the same arguments would leave with no entry (only a heading)."""
        return emptied_by(self, name, files=list(files), entries=list(entries), edits=edits or {}, replace=replace)

    def close_if_decided(self, name: str) -> str | None:
        """Close the run when every entry change is on main or rejected ("accepted" or
        "rejected", as recorded); None while something is undecided."""
        return close_if_decided(self, name)

    def reject(self, name: str) -> str:
        """Close the run unaccepted; its commits stay under ``refs/amr/dreams/rejected/<id>``."""
        return reject(self, name)

    def undo(self, name: str) -> str:
        """Undo the last decision on a run (see docs/dreams.md). Returns what was done."""
        return undo(self, name)
