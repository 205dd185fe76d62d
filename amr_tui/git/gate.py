"""The write gate's git half: every change amr makes to a memory repo's branch comes through here.

A change is given as, per file, the bytes it was *based on* and the bytes it *wants*. The gate:

1. reads the branch tip and each file's committed version, and merges the change onto it three
   ways (base -> want, base -> committed): an agent's concurrent commit is kept, and where the
   same entry changed on both sides a :class:`ConflictError` says so. Nothing is ever decided
   from the work tree, so an edit started before a live refresh cannot revert what the refresh
   brought in;
2. builds the commit from the committed versions plus that change only (plumbing, a throwaway
   index): someone else's uncommitted edit is never swept into amr's commit;
3. takes ``index.lock`` and, holding it, checks the branch has not moved, then brings each work
   tree file and index entry forward from the committed version to the new one *by merging*: a
   foreign uncommitted edit stays in the file and in the index as it was (it is reported in
   :attr:`GateResult.foreign`). Files are replaced with :func:`replace_checked`, so a write that
   lands between amr's read and its rename is detected and merged back, never dropped;
4. swaps the staged index in and moves the branch with a compare-and-swap ``update-ref NEW OLD``.
   A lost race (an agent's commit landed) puts the work tree and index back and starts again
   from 1 on the new tip; after ``ESCALATE_AFTER`` lost races the gate holds ``index.lock`` for a
   whole attempt, so agents committing faster than a write takes wait for it instead of
   starving it.

``probe`` is called with the name of each step, and so is every hook registered with
:func:`observe_steps` (for any write, from any caller or thread): a test races an agent's
write at exactly that point.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from amr_tui.core.merge.parts import Conflict
from amr_tui.core.merge.three_way import merge3
from amr_tui.core.paths import is_markdown
from amr_tui.core.secrets import redact_secrets
from amr_tui.git.commit import (
    _REGULAR_MODES,
    _clean_message,
    _make_commit,
    _preflight,
    _update_index,
    _update_ref,
    blob_oid,
)
from amr_tui.git.errors import ConflictError, DirtyFileError, EntryGoneError, GitError, LockedError, RefMovedError
from amr_tui.git.handle import RepoHandle, check_ref
from amr_tui.git.indexlock import IndexLock
from amr_tui.git.journal import FileIntent, Intent, Journal
from amr_tui.git.worktree import (
    Displaced,
    UnsafePathError,
    late_writes,
    normalize_rel,
    read_file_or_none,
    replace_checked,
    safe_path,
)

Probe = Callable[[str], None]
STEPS = ("head", "merged", "built", "locked", "read", "written", "staged", "moved")
MAX_ATTEMPTS = 25  # compare-and-swap attempts of one write before RefMovedError
ESCALATE_AFTER = 3  # lost compare-and-swap races before a write holds index.lock for a whole attempt
_SWAP_ROUNDS = 50  # writes merged back in while replacing one file before giving up


_observers: list[Probe] = []


@contextlib.contextmanager
def observe_steps(hook: Probe) -> Iterator[None]:
    """Call ``hook(step)`` at each step of every write made while the block runs."""
    _observers.append(hook)
    try:
        yield
    finally:
        _observers.remove(hook)


def _stepper(probe: Probe | None) -> Probe:
    def step(name: str) -> None:
        if probe is not None:
            probe(name)
        for hook in list(_observers):
            hook(name)

    return step


class ForeignConflictError(DirtyFileError):
    """The work tree holds someone else's uncommitted edit to the very entries this change
    touches, so the two cannot both be kept in the file. Nothing was written."""

    def __init__(self, path: str):
        super().__init__(path)
        self.args = (
            f"{path} holds an uncommitted change by someone else to the same lines. amr did not "
            f"write anything. Commit that change first (amr can: 'Commit others' changes'), then "
            f"save again.",
        )


@dataclass(frozen=True, slots=True)
class Change:
    path: str
    base: bytes | None  # what the change was computed from; None: the file did not exist
    want: bytes | None  # what the writer wants; None: delete the file
    # The commit HEAD was at when ``base`` was read, when known. ``base`` may hold someone
    # else's uncommitted edit (read from the work tree): against that commit's version the gate
    # tells that edit apart from the writer's own change, and commits only the latter.
    base_commit: str | None = None
    # The exact lines of the entries this change is about (the entry edited, removed or moved).
    # Each one that was committed at ``base_commit`` must still be committed in the version the
    # change is merged onto, at every attempt; else EntryGoneError and nothing is written.
    named: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GateResult:
    head: str | None  # the branch tip afterwards
    committed: bool  # False when the change was already there (nothing to commit)
    content: Mapping[str, bytes | None] = field(default_factory=dict)  # what the commit holds per file
    merged: tuple[str, ...] = ()  # files where a concurrent commit was merged with the change
    foreign: tuple[str, ...] = ()  # files whose work-tree copy keeps someone else's uncommitted edit


def merge_bytes(
    repo: RepoHandle | None, rel: str, base: bytes | None, ours: bytes | None, theirs: bytes | None, head: str | None
) -> bytes | None:
    """Three-way merge of one file (entry-aware for Markdown); ConflictError when it does not merge."""

    def conflict(merged: bytes | None) -> ConflictError:
        return ConflictError(rel, ours=ours, base=base, theirs=theirs, merged=merged, head=head)

    if theirs == base or theirs == ours:
        return ours
    if ours == base:
        return theirs
    if ours is None or theirs is None:
        raise conflict(None)  # deleted on one side, changed on the other
    if is_markdown(rel):
        result = merge3(base, ours, theirs, rel, labels=("yours", "base", "theirs"))
        if not result.clean:
            raise conflict(result.merged)
        return result.merged
    if repo is None:
        raise conflict(None)
    try:
        merged, conflicted = repo.merge_file(ours, base or b"", theirs)
    except GitError:
        raise conflict(None) from None
    if conflicted:
        raise conflict(merged)
    return merged


def merge_change(repo: RepoHandle, rel: str, ch: Change, committed: bytes | None, head: str | None) -> bytes | None:
    """The writer's change (``ch.base -> ch.want``) applied to the committed version.

    Lines of ``ch.base`` that are not in the committed version drop out (someone's uncommitted
    edit the writer saw, or lines a later commit removed), so only the writer's change is
    committed. Where the writer edited a line that was someone's *uncommitted* text when it was
    read (absent from ``ch.base_commit``'s version), the writer's line wins: they replaced it.
    A committed line the writer saw and kept is never dropped that way (an uncommitted *move*
    of a fact can make the merge pair it with the edited line): it stays next to the writer's
    line. Any other overlap is a :class:`ConflictError`.
    """
    if committed is None and ch.base is not None and ch.want is not None and head is None:
        return ch.want  # the first commit of an empty repo: the file as the writer saw it, changed
    try:
        return merge_bytes(repo, rel, ch.base, ch.want, committed, head)
    except ConflictError as exc:
        if ch.base_commit is None or ch.base is None or ch.want is None or committed is None or not is_markdown(rel):
            raise
        resolved = _resolve_over_uncommitted(repo, rel, ch, committed)
        if resolved is None:
            raise exc from None
        return resolved


def _text_lines(data: bytes) -> list[str]:
    """Lines without their end of line, split the way the Markdown parser splits them."""
    text = data.decode("utf-8", "surrogateescape")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = re.split(r"\r\n|\n|\r", text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _kept_lines(committed: bytes, base: bytes, want: bytes) -> Counter[str]:
    """How many copies of each committed (non-blank) line the writer's change keeps: a line the
    writer saw (in ``base``) and did not delete must be in the commit as often as it is committed,
    give or take the copies the writer added or removed."""
    c, b, w = Counter(_text_lines(committed)), Counter(_text_lines(base)), Counter(_text_lines(want))
    need: Counter[str] = Counter()
    for line, n in c.items():
        if line.strip() and b[line]:
            need[line] = max(0, n + w[line] - b[line])
    return need


def _resolve_over_uncommitted(repo: RepoHandle, rel: str, ch: Change, committed: bytes) -> bytes | None:
    """The conflicts of ``ch`` with ``committed`` resolved as the writer's where the writer edited
    someone's uncommitted text; None when any conflict is something else (a real conflict)."""
    assert ch.base is not None and ch.want is not None and ch.base_commit is not None
    read_at = repo.read_blob_or_none(ch.base_commit, rel) or b""
    known = set(_text_lines(read_at))
    result = merge3(ch.base, ch.want, committed, rel, labels=("yours", "base", "theirs"))

    def from_uncommitted(c: Conflict) -> bool:
        # theirs is still what was committed when the writer read the file (no commit since
        # touched it): the overlap is with the uncommitted edit the writer saw and changed.
        if c.theirs:
            return set(c.theirs) <= known
        return bool(c.base) and not known.intersection(c.base)

    if not all(from_uncommitted(c) for c in result.conflicts):
        return None
    need = _kept_lines(committed, ch.base, ch.want)
    as_ours = {c.index: "ours" for c in result.conflicts}
    short = need - Counter(_text_lines(result.resolve(as_ours)))  # committed lines resolving as ours drops
    choices: dict[int, str | list[str]] = dict(as_ours)
    for c in result.conflicts:
        # The committed lines here the writer never saw were replaced by the uncommitted text
        # the writer edited: they give way. A committed line the writer saw and kept elsewhere
        # in the file is one that moved (uncommitted): it stays, before the writer's lines.
        kept = []
        for t in c.theirs:
            if short[t] > 0:
                short[t] -= 1
                kept.append(t)
        if kept:
            choices[c.index] = kept + list(c.ours)
    merged = result.resolve(choices)
    have = Counter(_text_lines(merged))
    if any(have[line] < n for line, n in need.items()):
        return None  # a committed line the writer kept would still be dropped: a real conflict
    return merged


def cas_attempts(
    repo: RepoHandle, *, max_attempts: int = MAX_ATTEMPTS, escalate: bool = True, escalate_after: int = ESCALATE_AFTER
) -> Iterator[IndexLock | None]:
    """The one compare-and-swap retry loop: yields once per attempt (the caller ``continue``-s on
    :class:`RefMovedError` and returns on success). From attempt ``escalate_after`` on it yields
    a held ``index.lock`` the caller works under; it is released when the loop ends (or by the
    caller's successful install, which releases it)."""
    held: IndexLock | None = None
    try:
        for attempt in range(max_attempts):
            if escalate and attempt >= escalate_after and held is None:
                held = IndexLock(repo.git_dir, repo.runner.lock_timeout)
                held.acquire()
            yield held
    finally:
        if held is not None:
            held.release()


def commit_files(
    repo: RepoHandle,
    changes: Sequence[Change],
    message: str,
    *,
    env: Mapping[str, str] | None = None,
    branch: str | None = None,
    probe: Probe | None = None,
    max_attempts: int = MAX_ATTEMPTS,
    journal: Journal | None = None,
) -> GateResult:
    """Commit ``changes`` on ``branch`` (default: the checked-out one) through the gate.

    ``journal``: where the write keeps its intent while it changes the work tree (see
    :mod:`amr_tui.git.journal`), so that :func:`repair` can finish or take back a write whose
    process was killed.

    Raises ConflictError (the change and a commit made since its base overlap; nothing written),
    ForeignConflictError, OperationInProgressError, DetachedHeadError, NoIdentityError,
    LockedError, UnsafePathError, RefMovedError after ``max_attempts`` lost races.
    """
    norm: dict[str, Change] = {}
    for ch in changes:
        rel = normalize_rel(ch.path)
        if rel in norm:
            raise ValueError(f"{rel} is named twice")
        norm[rel] = Change(rel, _as_bytes(ch.base), _as_bytes(ch.want), ch.base_commit, tuple(ch.named))
    if not norm:
        raise ValueError("no changes to commit")
    # A credential never reaches a commit message, whoever wrote the message (the last guard:
    # the callers' summaries are redacted already).
    text = redact_secrets(_clean_message(message))
    branch, on_worktree = _preflight(repo, branch, env)
    repo.check_branch_name(branch)
    if on_worktree:
        for rel in norm:
            safe_path(repo.root, rel)  # before anything is written: a symlinked folder out of the root

    ref = f"refs/heads/{branch}"
    fmt = repo.object_format
    zero = repo.zero_oid()
    step = _stepper(probe)
    must_stay = {rel: _named_committed(repo, rel, ch) for rel, ch in norm.items() if ch.named}
    last: RefMovedError | None = None
    for held in cas_attempts(repo, max_attempts=max_attempts, escalate=on_worktree):
        head = repo.resolve(ref)
        step("head")
        committed = _committed(repo, head, list(norm))
        content = {rel: merge_change(repo, rel, ch, committed[rel], head) for rel, ch in norm.items()}
        for rel, named in must_stay.items():
            _check_named(rel, named, committed[rel])
        merged = tuple(
            rel
            for rel, ch in norm.items()
            if content[rel] != ch.want and _changed_since(repo, rel, ch, committed[rel], head)
        )
        step("merged")
        unchanged = all(content[rel] == committed[rel] for rel in norm)
        new = head
        if not unchanged:
            records = _records(repo, content, committed, head, zero)
            new = _make_commit(repo, records, zero, text, head, env)
        step("built")
        try:
            if not on_worktree:
                if not unchanged:
                    assert new is not None
                    _update_ref(repo, ref, new, head, text)
                step("moved")
                return GateResult(new, not unchanged, content, merged)
            # The work tree takes the writer's change as made (on the bytes it saw); the index
            # goes from the committed version to the new one.
            foreign = _move_checked_out(
                repo,
                ref,
                head,
                new,
                {rel: (committed[rel], content[rel], norm[rel].base, norm[rel].want) for rel in norm},
                text,
                zero,
                fmt,
                held,
                step,
                journal,
            )
        except RefMovedError as exc:
            last = exc
            continue
        return GateResult(new, not unchanged, content, merged, foreign)
    assert last is not None
    raise last


def advance(
    repo: RepoHandle,
    branch: str,
    old: str | None,
    new: str,
    message: str,
    files: Mapping[str, tuple[bytes | None, bytes | None]],
    *,
    probe: Probe | None = None,
    held: IndexLock | None = None,
    journal: Journal | None = None,
) -> tuple[str, ...]:
    """Move the checked-out ``branch`` from ``old`` to the ready commit ``new`` (compare-and-swap),
    bringing each of ``files`` (path -> (bytes at old, bytes at new)) forward in the work tree and
    index by merging, so uncommitted edits stay. Returns the files that keep a foreign edit.
    ``held``: an ``index.lock`` the caller holds (:func:`cas_attempts`); the caller releases it.
    Raises RefMovedError (nothing changed), ForeignConflictError, LockedError."""
    fmt = repo.object_format
    zero = repo.zero_oid()
    text = _clean_message(message)
    return _move_checked_out(
        repo,
        f"refs/heads/{branch}",
        old,
        new,
        {rel: (was, now, was, now) for rel, (was, now) in files.items()},
        text,
        zero,
        fmt,
        held,
        _stepper(probe),
        journal,
    )


# ------------------------------------------------------------------------------ internals
def _changed_since(repo: RepoHandle, rel: str, ch: Change, committed: bytes | None, head: str | None) -> bool:
    """Did a commit change ``rel`` after the writer read it?"""
    if ch.base_commit is None:
        return committed != ch.base
    return head != ch.base_commit and repo.read_blob_or_none(ch.base_commit, rel) != committed


def _named_committed(repo: RepoHandle, rel: str, ch: Change) -> tuple[str, ...]:
    """The lines ``ch`` names that were committed when it was read (read once per write)."""
    if not ch.named:
        return ()
    was = repo.read_blob_or_none(ch.base_commit, rel) if ch.base_commit else ch.base
    seen = set(_text_lines(was or b""))
    return tuple(line for line in ch.named if line in seen)


def _check_named(rel: str, named: tuple[str, ...], committed: bytes | None) -> None:
    """Raise EntryGoneError when a line of ``named`` is not in ``committed`` (the version the
    change is merged onto) any more."""
    if not named:
        return
    now = set(_text_lines(committed or b""))
    for line in named:
        if line not in now:
            raise EntryGoneError(rel, line)


def _as_bytes(data: bytes | None) -> bytes | None:
    if data is not None and not isinstance(data, (bytes, bytearray)):
        raise TypeError("file content must be bytes or None")
    return None if data is None else bytes(data)


def _committed(repo: RepoHandle, head: str | None, rels: list[str]) -> dict[str, bytes | None]:
    entries = repo.tree_entries(head, rels) if head else {}
    for rel, (mode, _oid) in entries.items():
        if mode not in _REGULAR_MODES:
            raise UnsafePathError(f"{rel} is not a regular file in git (mode {mode}); amr will not change it")
    return {rel: (repo.read_blob_or_none(head, rel) if head and rel in entries else None) for rel in rels}


def _records(
    repo: RepoHandle,
    content: Mapping[str, bytes | None],
    committed: Mapping[str, bytes | None],
    head: str | None,
    zero: str,
) -> list[tuple[str, str, str]]:
    entries = repo.tree_entries(head, list(content)) if head else {}
    records: list[tuple[str, str, str]] = []
    for rel, data in content.items():
        if data is None:
            if committed[rel] is not None:
                records.append(("0", zero, rel))
            continue
        oid = _write_blob(repo, data)
        records.append((entries[rel][0] if rel in entries else "100644", oid, rel))
    return records


def _read_object(repo: RepoHandle, oid: str) -> bytes:
    return repo.runner.run(["cat-file", "blob", oid]).stdout


def _write_blob(repo: RepoHandle, data: bytes) -> str:
    return repo.runner.text(["hash-object", "-w", "--no-filters", "--stdin"], input=data, write=True).strip()


def _move_checked_out(
    repo: RepoHandle,
    ref: str,
    old: str | None,
    new: str | None,
    files: dict[str, tuple[bytes | None, bytes | None, bytes | None, bytes | None]],
    text: str,
    zero: str,
    fmt: str,
    held: IndexLock | None,
    step: Probe,
    journal: Journal | None = None,
) -> tuple[str, ...]:
    """Steps 3-4 under ``index.lock``; returns the files that keep someone else's edit.
    ``files``: path -> (committed before, committed after, work-tree base, work-tree want).
    ``new == old`` moves no ref (the change was already committed; the work tree still takes it).
    With a ``journal``, the write's intent is kept there from before the first file changes
    until the branch has moved (or the change was taken back), under the lock throughout."""
    lock_cm = contextlib.nullcontext(held) if held is not None else IndexLock(repo.git_dir, repo.runner.lock_timeout)
    with lock_cm as lock:
        assert lock is not None
        step("locked")
        check_ref(repo, ref, old)
        stage: list[tuple[str, str, str]] = []
        undo: list[tuple[str, bytes | None, bytes | None]] = []  # (path, before, what amr wrote)
        foreign: list[str] = []
        watch: list[Displaced] = []
        staged = lock.staged_copy()
        begun = False
        try:
            targets = {}
            for rel, (was, now, wt_base, wt_want) in files.items():
                targets[rel] = _index_target(repo, rel, was, now, wt_base, wt_want, fmt, zero)
            if journal is not None:
                journal.begin(_intent(repo, ref, old, new, text, files, targets, fmt))
                begun = True
            for rel, (_was, now, wt_base, wt_want) in files.items():
                idx_record, idx_foreign, _before = targets[rel]
                if idx_record is not None:
                    stage.append(idx_record)
                before, wrote = _bring_forward(repo, rel, wt_base, wt_want, step, None, watch)
                if wrote is not before:
                    undo.append((rel, wt_base, wt_want))  # amr's own change, to take back out
                if idx_foreign or wrote != now:
                    foreign.append(rel)
            if stage:
                _update_index(repo, stage, zero, str(staged))
            lock.swap_in()  # before the branch moves: a crash can leave the change staged, never reverted
            step("staged")
            if new != old:
                assert new is not None
                _update_ref(repo, ref, new, old, text)
            step("moved")
        except BaseException:
            lock.swap_back()
            _settle(repo, repo.root, watch)
            _undo(repo, undo)
            if begun:
                assert journal is not None
                journal.end(repo.git_dir)
            raise
        if begun:
            assert journal is not None
            journal.end(repo.git_dir)  # the branch moved: nothing left to finish
        lock.install()  # releases the lock too (a held one's later release is then a no-op)
    _settle(repo, repo.root, watch)
    return tuple(foreign)


def _intent(
    repo: RepoHandle,
    ref: str,
    old: str | None,
    new: str | None,
    text: str,
    files: dict[str, tuple[bytes | None, bytes | None, bytes | None, bytes | None]],
    targets: Mapping[str, tuple[tuple[str, str, str] | None, bool, tuple[str, str, int] | None]],
    fmt: str,
) -> Intent:
    """What the write is about to do, with every blob it names in the object store."""

    def oid(data: bytes | None, known: tuple[str | None, ...] = ()) -> str | None:
        if data is None:
            return None
        have = blob_oid(data, fmt)
        return have if have in known else _write_blob(repo, data)

    out = []
    for rel, (was, now, wt_base, wt_want) in files.items():
        record, _foreign, before = targets[rel]
        was_oid = blob_oid(was, fmt) if was is not None else None  # in the old commit
        now_oid = blob_oid(now, fmt) if now is not None else None  # in the new commit (or == was)
        if record is None:
            after = (before[0], before[1]) if before is not None else None  # left as it was
        else:
            after = None if record[0] == "0" else (record[0], record[1])
        out.append(
            FileIntent(
                rel,
                was_oid,
                now_oid,
                oid(wt_base, (was_oid, now_oid)),
                oid(wt_want, (was_oid, now_oid)),
                (before[0], before[1]) if before is not None else None,
                after,
            )
        )
    subject = text.splitlines()[0][:200] if text.strip() else ""
    return Intent(str(repo.root), str(repo.git_dir), ref, old, new, subject, os.getpid(), tuple(out))


def _index_target(
    repo: RepoHandle,
    rel: str,
    was: bytes | None,
    now: bytes | None,
    wt_base: bytes | None,
    wt_want: bytes | None,
    fmt: str,
    zero: str,
) -> tuple[tuple[str, str, str] | None, bool, tuple[str, str, int] | None]:
    """The index record that brings ``rel`` forward, whether it keeps a foreign staged edit, and
    the index entry as it is (mode, blob, stage).
    ``was -> now`` is the committed change; ``wt_base -> wt_want`` the writer's change as made."""
    idx = repo.index_entry(rel)
    if idx is not None and idx[2] != 0:
        raise DirtyFileError(rel)  # an unmerged entry: a merge is half done
    staged_oid = idx[1] if idx is not None else None
    mode = idx[0] if idx is not None else "100644"

    def oid(data: bytes | None) -> str | None:
        return blob_oid(data, fmt) if data is not None else None

    def record(data: bytes | None) -> tuple[str, str, str] | None:
        if data is None:
            return ("0", zero, rel) if idx is not None else None
        return (mode, _write_blob(repo, data), rel)

    if staged_oid == oid(was):
        return record(now), False, idx
    if staged_oid == oid(now):
        return None, False, idx
    if staged_oid == oid(wt_base):  # what the writer saw was staged: stage what it wants
        return record(wt_want), wt_want != now, idx
    # Someone staged their own version: keep it, with this change merged in.
    staged_bytes = _read_object(repo, staged_oid) if staged_oid is not None else None
    try:
        target = merge_bytes(repo, rel, was, now, staged_bytes, None)
    except ConflictError:
        try:
            target = merge_bytes(repo, rel, wt_base, wt_want, staged_bytes, None)
        except ConflictError:
            raise ForeignConflictError(rel) from None
    return record(target), target != now, idx


def apply_in_worktree(
    root: str | os.PathLike[str], changes: Sequence[Change], repo: RepoHandle | None = None, probe: Probe | None = None
) -> list[str]:
    """Apply each change (``base -> want``) to the file as it is on disk now, committing nothing:
    bytes written since the change's base was read stay. Returns the files written. Raises
    ForeignConflictError (that file is left as it was) when the file changed in the same place."""
    written = []
    watch: list[Displaced] = []
    try:
        for ch in changes:
            rel = normalize_rel(ch.path)
            before, wrote = _bring_forward(repo, rel, ch.base, ch.want, probe or (lambda _n: None), root, watch)
            if wrote is not before:
                written.append(rel)
    finally:
        _settle(repo, root, watch)
    return written


def _bring_forward(
    repo: RepoHandle | None,
    rel: str,
    was: bytes | None,
    now: bytes | None,
    step: Probe,
    root: str | os.PathLike[str] | None = None,
    watch: list[Displaced] | None = None,
) -> tuple[bytes | None, bytes | None]:
    """Apply the change ``was -> now`` to the work-tree file, keeping whatever else it holds.
    Returns ``(before, wrote)``; ``wrote is before`` when nothing was written."""
    if root is None:
        assert repo is not None
        root = repo.root
    for _ in range(_SWAP_ROUNDS):
        disk = read_file_or_none(root, rel, max_bytes=None)
        step("read")
        if disk == now:
            return disk, disk
        if disk == was:
            target = now
        elif now is None:
            return disk, disk  # deleted in git; someone's uncommitted edit stays as an untracked file
        else:
            try:
                target = merge_bytes(repo, rel, was, now, disk, None)
            except ConflictError:
                raise ForeignConflictError(rel) from None
        wrote = _put(repo, rel, target, disk, step, root, watch)
        if wrote is not None:
            return disk, wrote
    raise ForeignConflictError(rel)


def _settle(repo: RepoHandle | None, root: str | os.PathLike[str], watch: list[Displaced]) -> None:
    """Writes that reached a displaced inode after the swap (a writer that had the file open
    before it) are applied to the file as it is now. Called once the operation is done."""
    base = Path(root).resolve()
    for _round in range(3):
        late = late_writes(watch)
        if not late:
            return
        for path, seen, now in late:
            rel = path.resolve().relative_to(base).as_posix() if path.is_absolute() else str(path)
            with contextlib.suppress(ConflictError, UnsafePathError, ForeignConflictError, ValueError):
                _bring_forward(repo, rel, seen, now, lambda _n: None, root, watch)


def _put(
    repo: RepoHandle | None,
    rel: str,
    target: bytes | None,
    expected: bytes | None,
    step: Probe,
    root: str | os.PathLike[str] | None = None,
    watch: list[Displaced] | None = None,
) -> bytes | None:
    """Replace ``expected`` by ``target``; a write that lands meanwhile is merged back in.
    Returns the final bytes written, or None when the file no longer held ``expected`` (the
    caller reads it again)."""
    if root is None:
        assert repo is not None
        root = repo.root
    wrote_once = False
    for _ in range(_SWAP_ROUNDS):
        done, found = replace_checked(root, rel, target, expected, watch)
        step("written")
        if done and found is None:
            return target
        if not done and not wrote_once:
            return None  # nothing written yet: the caller starts again from what is there now
        # Either bytes were written between the read and the swap (``found`` is what was
        # displaced), or, after such a round, the file moved on again before the next swap
        # (``found`` is what it holds now, and it still lacks the displaced bytes held in
        # ``target``). Both ways: put that change onto ours and swap again.
        try:
            fixed = merge_bytes(repo, rel, expected, target, found, None)
        except ConflictError:
            fixed = found  # theirs wins on disk; amr's change is still committed
        if done:
            expected, target = target, fixed
        else:
            expected, target = found, fixed
        wrote_once = True
    raise ForeignConflictError(rel)


def _undo(repo: RepoHandle, undo: list[tuple[str, bytes | None, bytes | None]]) -> None:
    """The branch did not move: take amr's own change (``base -> want``) back out of each file it
    wrote, onto the file as it is now, so any byte written since (also one merged back in while
    swapping) stays."""
    for rel, base, want in undo:
        with contextlib.suppress(Exception):
            disk = read_file_or_none(repo.root, rel, max_bytes=None)
            back = merge_bytes(repo, rel, want, base, disk, None)
            if back != disk:
                _put(repo, rel, back, disk, lambda _n: None)


# ------------------------------------------------------------------------------ repair
@dataclass(frozen=True, slots=True)
class Repair:
    """What :func:`repair` did about a write a killed process left half done."""

    subject: str  # the write's commit subject
    how: str  # "finished" (its commit had landed), "taken back" (it had not), "locked" (not yet)
    files: tuple[str, ...]  # the files the repair changed
    commit: str | None  # the branch tip afterwards

    def describe(self) -> str:
        names = ", ".join(self.files) or "no file"
        if self.how == "finished":
            return (
                f'amr was stopped in the middle of a write ("{self.subject}"). Its commit '
                f"{(self.commit or '')[:8]} had landed; amr finished bringing {names} up to it."
            )
        if self.how == "taken back":
            return (
                f'amr was stopped in the middle of a write ("{self.subject}") before it committed. amr took '
                f"that change back out of {names}: nothing of it is committed. Make it again if you still want it."
            )
        return (
            f'amr was stopped in the middle of a write ("{self.subject}") and .git/index.lock is still there. '
            "If no git process is running, remove that file: amr repairs the files the next time it opens the repo."
        )


def repair(repo: RepoHandle, journal: Journal, *, timeout: float | None = None) -> Repair | None:
    """Finish or take back the write whose intent ``journal`` holds for this repo (its process was
    killed while it changed the work tree): when the branch holds the write's commit, each file
    is brought forward to it; otherwise amr's change is taken back out of each file (and of the
    index), keeping whatever anyone else wrote. A file whose change was committed by someone
    else meanwhile (``git commit -a``) is left as it is. Runs under ``index.lock``: a write under
    way in another process holds it for as long as its intent exists.

    Returns None when there was nothing to do (no intent; or the files were already right);
    a ``"locked"`` repair, with the intent kept, when ``index.lock`` is held past ``timeout``.
    """
    if journal.find(repo.git_dir) is None:
        return None
    lock = IndexLock(repo.git_dir, repo.runner.lock_timeout if timeout is None else timeout)
    try:
        lock.acquire()
    except LockedError:
        found = journal.find(repo.git_dir)
        return Repair(found.subject, "locked", (), None) if found is not None else None
    try:
        intent = journal.find(repo.git_dir)  # again, holding the lock: a live write has ended by now
        if intent is None:
            return None
        changed, stage = _repair_files(repo, intent)
        if stage:
            staged = lock.staged_copy()
            _update_index(repo, stage, repo.zero_oid(), str(staged))
            lock.swap_in()
            lock.install()
        journal.end(repo.git_dir)
        tip = repo.resolve(intent.ref)
        if not changed and not stage:
            return None
        landed = tip == intent.new and intent.new is not None
        return Repair(intent.subject, "finished" if landed else "taken back", tuple(changed), tip)
    finally:
        lock.release()


def _repair_files(repo: RepoHandle, intent: Intent) -> tuple[list[str], list[tuple[str, str, str]]]:
    """Bring each file of ``intent`` forward (its commit landed) or back (it did not); returns
    the files changed and the index records to stage."""
    tip = repo.resolve(intent.ref)
    landed = intent.new is not None and tip == intent.new
    moved_on = not landed and tip != intent.old  # someone committed since the write died

    def blob(oid: str | None) -> bytes | None:
        return _read_object(repo, oid) if oid is not None else None

    zero = repo.zero_oid()
    changed: list[str] = []
    stage: list[tuple[str, str, str]] = []
    for f in intent.files:
        base, want = blob(f.base), blob(f.want)
        disk = read_file_or_none(repo.root, f.path, max_bytes=None)
        at_tip = repo.read_blob_or_none(tip, f.path) if moved_on and tip else None
        cur = repo.index_entry(f.path)
        now_idx = (cur[0], cur[1]) if cur is not None and cur[2] == 0 else None
        if landed:
            frm, to = base, want
            if now_idx == f.staged_before and f.staged_after != f.staged_before:
                stage.append(_index_record(f.path, f.staged_after, zero))
        else:
            frm, to = want, base
            keep_index = moved_on and now_idx is not None and at_tip is not None
            if not keep_index and now_idx == f.staged_after and f.staged_after != f.staged_before:
                stage.append(_index_record(f.path, f.staged_before, zero))
            if moved_on and disk == at_tip:
                continue  # committed as it is by someone since: left alone
        if disk == to:
            continue
        if disk == frm:
            target = to
        elif to is None or frm is None or disk is None:
            continue  # created or deleted on one side and changed on the other: left as it is
        else:
            try:
                target = merge_bytes(repo, f.path, frm, to, disk, None)
            except ConflictError:
                continue
        if target != disk and _put(repo, f.path, target, disk, lambda _n: None) is not None:
            changed.append(f.path)
    return changed, stage


def _index_record(path: str, entry: tuple[str, str] | None, zero: str) -> tuple[str, str, str]:
    return ("0", zero, path) if entry is None else (entry[0], entry[1], path)


__all__ = [
    "Change",
    "ForeignConflictError",
    "GateResult",
    "Repair",
    "STEPS",
    "advance",
    "apply_in_worktree",
    "cas_attempts",
    "commit_files",
    "merge_bytes",
    "observe_steps",
    "repair",
]
