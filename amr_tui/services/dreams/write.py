"""Accepting, rejecting and undoing dreaming runs. Every ref moves by compare-and-swap.

* **Accept the whole run** when its base is main's tip (and nothing of it was accepted before):
  main fast-forwards to the run's tip (``writegate.fast_forward``; the work tree follows when
  main is checked out, each file brought forward by merging). Otherwise, and for **some files** or **some entry changes**, one new
  commit on main applies them (files three-way from base to tip onto main's version; entry
  changes replayed by ``core.dreams.apply``), with trailers ``Dream-Run: <id>``, one
  ``Dream-Commit: <oid>`` per run commit and one ``Dream-Accepted: all|file <path>|entry <id>``
  per accepted item. The commit is built on the main tip it read and retried if an agent
  committed meanwhile: no agent commit is ever dropped.
* **Closing** a run (a whole accept, or a reject) writes a decision record: a commit whose parent
  is the run's tip (so the run's commits stay reachable) and whose message holds the decision
  (``Dream-Decision``, ``Dream-Main-Before``/``After``, ``Dream-Accept-Commit``), under
  ``refs/amr/dreams/accepted/<id>`` or ``refs/amr/dreams/rejected/<id>``; then the branch
  ``dreams/<id>`` is deleted (compare-and-swap: a run that moved meanwhile stays pending).
* **Undo** reverses the last decision: a rejected run is reopened (its branch comes back, the
  record goes); an accepted run gets a new commit on main reverting what was accepted
  (``Dream-Undo: <id>``, ``Dream-Reverted: <oid>``) and is reopened; a pending run with
  accepted parts gets those parts reverted. History is never rewritten.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from amr_tui.core.diff.entries import EntryChange
from amr_tui.core.diff.text import describe
from amr_tui.core.dreams import apply as dreamapply
from amr_tui.core.format.parser import parse
from amr_tui.core.secrets import redact_secrets
from amr_tui.core.textsafety import make_visible
from amr_tui.git import history as gh
from amr_tui.git.errors import ConflictError, RefMovedError, UnmergedError
from amr_tui.git.gate import Change
from amr_tui.services import writegate
from amr_tui.services.dreams import threeway
from amr_tui.services.dreams.model import (
    BRANCH_PREFIX,
    DECISION_PREFIX,
    TRAILER_ACCEPTED,
    TRAILER_COMMIT,
    TRAILER_RUN,
    TRAILER_UNDO,
    DreamError,
    DreamRun,
    RunReview,
    RunSource,
    run_id_of,
    trailer_values,
)

TRAILER_REVERTED = "Dream-Reverted"


@dataclass(frozen=True, slots=True)
class Accepted:
    run: str
    how: str  # "fast-forward", "commit" or "nothing" (main already had it all)
    commit: str | None  # main's tip afterwards
    closed: bool  # the run left the pending list
    items: tuple[str, ...]  # "all", "file <path>", "entry <id>"


def _three_way(
    service: RunSource, path: str, ours: bytes | None, base: bytes | None, theirs: bytes | None
) -> bytes | None:
    try:
        return service.repo.merge_versions(ours, base, theirs, ("main", "base", "run"))
    except UnmergedError as exc:
        if exc.deleted:
            raise DreamError(
                f"{path}: the run and main both changed it (one deleted it); accept it entry by entry"
            ) from None
        raise DreamError(
            f"{path}: the run and main changed the same lines; accept it entry by entry or "
            f"ask the agent for a new run on the current main"
        ) from None


def _file_changes(service: RunSource, run: DreamRun, main: str, paths: list[str]) -> dict[str, bytes | None]:
    assert run.base is not None  # plan() refuses a run that shares no history with main
    out: dict[str, bytes | None] = {}
    for path in paths:
        ours = service.blobs.read(main, path)
        result = _three_way(service, path, ours, service.blobs.read(run.base, path), service.blobs.read(run.tip, path))
        if result != ours:
            out[path] = result
    return out


def _entry_changes(
    service: RunSource,
    run: DreamRun,
    main: str,
    ids: list[str],
    edits: dict[str, str],
    start: dict[str, bytes | None],
    replace: Collection[str] = (),
) -> dict[str, bytes | None]:
    """``start`` (file-level results) with the entry changes replayed on top; only what differs
    from main is returned. For the ids in ``replace`` that main changed since the run started,
    main's version of the entry goes too: the run's replaces it instead of standing beside it."""
    review = service.review(run.id, history=False)
    current: dict[str, bytes | None] = {}
    original: dict[str, bytes | None] = {}
    for cid in ids:
        change = review.change(cid)
        if change is None:
            raise DreamError(f"run {run.id} has no entry change {cid!r}: `amr dreams show {run.id}` lists them")
        mine = review.main_now.get(cid) if cid in replace else None
        if mine is not None and mine not in change.old:
            change = dataclasses.replace(change, old=(mine, *change.old))
        for path in change.paths:
            if path not in current:
                original[path] = service.blobs.read(main, path)
                current[path] = start[path] if path in start else original[path]
        tip = {change.new.path: service.blobs.read(run.tip, change.new.path)} if change.new else {}
        try:
            current.update(dreamapply.apply_change(current, change, tip, edited=edits.get(cid)))
        except dreamapply.EditError as exc:
            raise DreamError(f"{cid}: {exc}") from None
    out = dict(start)
    out.update({p: d for p, d in current.items() if d != original[p]})
    return out


def _message(title: str, run: DreamRun, lines: list[str], items: list[str]) -> str:
    body = "\n".join(f"- {make_visible(redact_secrets(x))}" for x in lines)
    trailers = [f"{TRAILER_RUN}: {run.id}"]
    trailers += [f"{TRAILER_COMMIT}: {c.oid}" for c in reversed(run.commits)]
    trailers += [f"{TRAILER_ACCEPTED}: {make_visible(i)}" for i in items]
    return f"{title}\n\n" + (body + "\n\n" if body else "") + "\n".join(trailers) + "\n"


@dataclass(slots=True)
class Plan:
    """What an accept takes from a run: which files whole, which entry changes."""

    run: DreamRun
    review: RunReview  # made without the history walk
    files: list[str]
    entries: list[str]
    whole: bool  # the whole run was asked for
    partial_whole: bool  # ... and parts of it were rejected: the rest file by file, entry by entry
    changed: list[str]  # every path the run changes

    def changes(
        self, service: RunSource, main: str, edits: dict[str, str], replace: Collection[str] = ()
    ) -> dict[str, bytes | None]:
        """The files (new bytes, or None for deleted) that differ from ``main`` after the accept
        (``replace``: see ``_entry_changes``)."""
        paths = self.changed if self.whole and not self.partial_whole else list(self.files)
        changes = _file_changes(service, self.run, main, paths)
        if self.entries:
            changes = _entry_changes(service, self.run, main, self.entries, edits, changes, replace)
        return changes


def plan(service: RunSource, name: str, *, files: list[str], entries: list[str]) -> Plan:
    run = service.run(name)
    if run.state != "pending":
        raise DreamError(f"run {run.id} is already {run.state}; `amr dreams undo {run.id}` reopens it")
    if run.base is None or run.main is None:
        raise DreamError(f"{run.branch} shares no history with {service.main}")
    whole = not files and not entries
    review = service.review(run.id, history=False)
    if whole and (review.rejected or review.rejected_files):
        # The rest of the run: untouched files three-way, files with rejected parts entry by entry.
        blocked = set(review.rejected_files) | {
            p for c in review.diff.changes if c.id in review.rejected for p in c.paths
        }
        files = [p for p in review.diff.changed_paths if p not in blocked]
        entries = [c.id for c in review.diff.changes if c.id not in review.rejected and blocked & set(c.paths)]
        partial_whole = True
    else:
        partial_whole = False
    changed = [p for _, p in gh.changed_paths(service.repo, run.base, run.tip)]
    unknown = [f for f in files if f not in changed]
    if unknown:
        raise DreamError(f"run {run.id} does not change {unknown[0]}")
    return Plan(run, review, list(files), list(entries), whole, partial_whole, changed)


def emptied_by(
    service: RunSource,
    name: str,
    *,
    files: list[str],
    entries: list[str],
    edits: dict[str, str],
    replace: Collection[str] = (),
) -> list[str]:
    """The Markdown files that ``accept`` with these arguments would leave with no entry (only a
    heading), on main as it is now: the reviewer may want them deleted in the same commit."""
    p = plan(service, name, files=files, entries=entries)
    main = service.main_tip()
    if main is None:
        return []
    return threeway.emptied_files(p.changes(service, main, edits, replace))


def close_if_decided(service: RunSource, name: str) -> str | None:
    """Close a pending run whose every entry change is decided: on main already (accepted) or
    rejected. It is recorded ``accepted`` when some of it reached main, else ``rejected``, and
    leaves the pending list. None: something is still undecided (or the run is not pending)."""
    run = service.run(name)
    if run.state != "pending" or run.base is None:
        return None
    review = service.review(run, history=False)
    # accepted earlier: on main as the run wrote it, or named by an accept commit (an entry
    # accepted as the reviewer edited it reads differently on main)
    decided = set(review.applied) | set(review.rejected)
    files: set[str] = set()
    for oid in run.accept_commits:
        for e in gh.log_entries(service.repo, oid, limit=1, body=True):
            for item in trailer_values(e.body, TRAILER_ACCEPTED):
                kind, _, what = item.partition(" ")
                if kind == "entry":
                    decided.add(what)
                elif kind == "file":
                    files.add(what)
    if any(c.id not in decided and not set(c.paths) <= files for c in review.diff.changes):
        return None
    state = "accepted" if run.accept_commits else "rejected"
    if not _close(service, run, state, run.main, run.main, list(run.accept_commits)):
        return None
    return state


def accept(
    service: RunSource,
    name: str,
    *,
    files: list[str],
    entries: list[str],
    edits: dict[str, str],
    delete: list[str] | None = None,
    replace: Collection[str] = (),
) -> Accepted:
    """Accept (see the module docstring). ``delete``: files to delete in the same commit, among
    those the accept leaves with no entry (``emptied_by``); others are refused. ``replace``: the
    entry changes whose version replaces main's where main changed the entry since the run."""
    p = plan(service, name, files=files, entries=entries)
    run, review, files, entries, whole = p.run, p.review, p.files, p.entries, p.whole
    assert run.base is not None and run.main is not None  # plan() refuses a run without them
    if whole and not p.partial_whole and run.base == run.main and not run.accept_commits:
        writegate.fast_forward(service.repo, service.main, run.tip, run.main)
        closed = _close(service, run, "accepted", run.main, run.tip, [])
        return Accepted(run.id, "fast-forward", run.tip, closed, ("all",))
    if whole and not p.partial_whole:
        items = ["all"]
    else:
        items = [f"file {f}" for f in files] + [f"entry {e}" for e in entries]
    if whole:
        rejected = [f"rejected file {p}" for p in sorted(review.rejected_files)] + [
            f"rejected {describe(c)}" for c in review.diff.changes if c.id in review.rejected
        ]
        title, lines = f"Accept dreaming run {run.id}: {run.summary}", rejected
    main = service.main_tip()
    assert main is not None
    changes = p.changes(service, main, edits, replace)
    if not whole:
        lines = list(files)
        for e in entries:
            c = review.change(e)
            if c is None:
                lines.append(e)
            elif e in edits or _takes_effect(service, c, main, changes):
                mine = review.main_now.get(e) if e in replace else None
                said = describe(c) if e not in edits else _edited(dreamapply.as_edited(c, edits[e]))
                lines.append(said + (f" (replaces main's version: {mine.text})" if mine else ""))
            else:  # main already reads so (or it could not be placed): the message says so
                lines.append(f"nothing to apply, main already reads so: {describe(c)}")
        what = []
        if files:
            what.append(f"{len(files)} file{'s' if len(files) != 1 else ''}")
        if entries:
            what.append(f"{len(entries)} entry change{'s' if len(entries) != 1 else ''}")
        title = f"Accept {' and '.join(what)} from dreaming run {run.id}"
    message = _message(title[:200], run, lines, items)
    if delete:
        empty = set(threeway.emptied_files(changes))
        for path in delete:
            if path not in empty:
                raise DreamError(f"{path}: this accept leaves entries in it; amr deletes only a file left without any")
            changes[path] = None
        message = message.rstrip("\n") + "\n" + "".join(f"Dream-Deleted-Empty: {make_visible(d)}\n" for d in delete)
    new: str | None = main
    if changes:
        new = _through_gate(service, main, changes, message)
    how = "commit" if new != run.main else "nothing"
    closed = False
    if whole:
        done = [*run.accept_commits, *([new] if how == "commit" and new else [])]
        closed = _close(service, run, "accepted", run.main, new, done)
    elif close_if_decided(service, run.id) is not None:
        closed = True  # that was the last undecided part: the run leaves the pending list
    return Accepted(run.id, how, new, closed, tuple(items))


def _edited(change: EntryChange) -> str:
    """An entry change accepted with the reviewer's text: the line names what was written."""
    written = change.new.text if change.new is not None else ""
    return f'{describe(change)} (edited in review: "{written}")'


def _takes_effect(service: RunSource, change: EntryChange, main: str, changes: dict[str, bytes | None]) -> bool:
    """Does the accept's result differ from ``main`` where ``change`` acts: an old line of it gone,
    or its new line there, that main did not already read so."""

    def lines(path: str, data: bytes | None) -> set[str]:
        return {ln.text for ln in parse(data, path).lines} if data is not None else set()

    def before(path: str) -> set[str]:
        return lines(path, service.blobs.read(main, path))

    def after(path: str) -> set[str]:
        return lines(path, changes[path]) if path in changes else before(path)

    if change.new is not None and change.new.raw in after(change.new.path) - before(change.new.path):
        return True
    kept = change.new.raw if change.new is not None else None
    return any(o.raw != kept and o.raw in before(o.path) - after(o.path) for o in change.old)


def _close(
    service: RunSource, run: DreamRun, state: str, before: str | None, after: str | None, accept_commits: list[str]
) -> bool:
    lines = [
        f"amr: dreaming run {run.id} {state}",
        "",
        f"{TRAILER_RUN}: {run.id}",
        f"Dream-Decision: {state}",
        f"Dream-Tip: {run.tip}",
    ]
    if before:
        lines.append(f"Dream-Main-Before: {before}")
    if after:
        lines.append(f"Dream-Main-After: {after}")
    lines += [f"Dream-Accept-Commit: {c}" for c in accept_commits]
    record = writegate.record(service.repo, run.tip, [run.tip], "\n".join(lines))
    ref = f"{DECISION_PREFIX}{state}/{run.id}"
    writegate.set_ref(service.repo, ref, record, service.repo.resolve(ref, "object"), f"amr: dream {state}")
    try:
        writegate.set_ref(service.repo, f"refs/heads/{BRANCH_PREFIX}{run.id}", None, run.tip, f"amr: dream {state}")
    except RefMovedError:
        writegate.set_ref(service.repo, ref, None, record, "amr: dream run moved")
        return False
    return True


def reject(service: RunSource, name: str) -> str:
    run = service.run(name)
    if run.state != "pending":
        raise DreamError(f"run {run.id} is already {run.state}")
    if not _close(service, run, "rejected", run.main, run.main, list(run.accept_commits)):
        raise DreamError(f"{run.branch} moved while it was being rejected; review it again")
    return f"{DECISION_PREFIX}rejected/{run.id}"


def _revert(service: RunSource, pairs: Sequence[tuple[str, str, str | None]], rid: str) -> str:
    """One commit on main that reverts each ``(before, after, label)`` pair, newest first."""
    title = f"Undo dreaming run {rid}"
    labels: list[str] = []
    for before, after, label in pairs:
        if label:
            labels.append(label)
        labels += [e.oid for e in gh.log_entries(service.repo, after, exclude=(before,)) if e.oid not in labels]
    trailers = [f"{TRAILER_UNDO}: {rid}"] + [f"{TRAILER_REVERTED}: {oid}" for oid in labels]
    message = f"{title}\n\n" + "\n".join(trailers) + "\n"
    main = service.main_tip()
    assert main is not None
    current: dict[str, bytes | None] = {}
    original: dict[str, bytes | None] = {}
    for before, after, _label in pairs:
        for _, path in gh.changed_paths(service.repo, before, after):
            if path not in current:
                current[path] = original[path] = service.blobs.read(main, path)
            current[path] = _three_way(
                service, path, current[path], service.blobs.read(after, path), service.blobs.read(before, path)
            )
    changes = {p: d for p, d in current.items() if d != original[p]}
    if not changes:
        return main
    return _through_gate(service, main, changes, message) or main


def _through_gate(service: RunSource, main: str, changes: dict[str, bytes | None], message: str) -> str | None:
    """Commit ``changes`` (made from ``main``'s versions) on main through the write gate: merged
    onto anything committed since, only these files, nobody's uncommitted edit swept in."""
    gate_changes = [Change(path, service.blobs.read(main, path), data, main) for path, data in changes.items()]
    try:
        return writegate.commit(service.repo, gate_changes, message, branch=service.main).head
    except ConflictError as exc:
        raise DreamError(
            f"{exc.path} changed on {service.main} in the same place meanwhile; nothing was "
            f"written. Review the run again."
        ) from None


def undo(service: RunSource, name: str) -> str:
    rid = run_id_of(name)
    run = service.run(rid)
    branch_ref = f"refs/heads/{BRANCH_PREFIX}{rid}"
    if run.state == "pending":
        if not run.accept_commits:
            raise DreamError(f"run {rid} is pending and none of it was accepted: nothing to undo")
        pairs = [(_parent(service, c), c, c) for c in run.accept_commits]
        reverted = _revert(service, pairs, rid)
        return (
            f"reverted {len(pairs)} accepted part{'s' if len(pairs) != 1 else ''} of run {rid} on "
            f"{service.main} ({reverted[:7]}); the run is still pending"
        )
    decision = run.decision
    assert decision is not None
    note = ""
    if decision.state == "accepted":
        if decision.accept_commits:
            pairs = [(_parent(service, c), c, c) for c in reversed(decision.accept_commits)]
        elif decision.main_before and decision.main_after:
            pairs = [(decision.main_before, decision.main_after, decision.main_after)]
        else:
            pairs = []
        before_undo = service.main_tip()
        new = _revert(service, pairs, rid) if pairs else before_undo
        note = f"reverted on {service.main} ({(new or '')[:7]}), "
        if not decision.accept_commits and new and new != before_undo:
            # A fast-forwarded run's commits are in main's history now: reopen it as one commit on
            # top of the undo that puts its changes back, so it can be reviewed again.
            subjects = [
                e.info.subject.removeprefix("dream: ")
                for e in reversed(
                    gh.log_entries(
                        service.repo, decision.tip, exclude=(decision.main_before,) if decision.main_before else ()
                    )
                )
            ]
            text = f"dream: {'; '.join(subjects) or rid} (reopened)\n\nDream-Reopened-From: {decision.tip}"
            tip = writegate.record(service.repo, _parent(service, new), [new], text)
            writegate.set_ref(service.repo, branch_ref, tip, None, "amr: dream undo")
            writegate.set_ref(service.repo, decision.ref, None, decision.record, "amr: dream undo")
            return f"run {rid} was accepted: {note}reopened as {BRANCH_PREFIX}{rid}"
    writegate.set_ref(service.repo, branch_ref, decision.tip, None, "amr: dream undo")
    writegate.set_ref(service.repo, decision.ref, None, decision.record, "amr: dream undo")
    return f"run {rid} was {decision.state}: {note}reopened as {BRANCH_PREFIX}{rid}"


def _parent(service: RunSource, commit: str) -> str:
    entries = gh.log_entries(service.repo, commit, limit=1)
    if not entries or not entries[0].parents:
        raise DreamError(f"{commit[:7]} has no parent to revert to")
    return entries[0].parents[0]
