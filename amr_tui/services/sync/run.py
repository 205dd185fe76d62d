"""Sync a memory repo with its remote: fetch, merge with amr's driver, push. Never forced.

Pure data in and out, safe to call from a worker thread (one sync per repository at a time: a
thread lock plus an advisory ``flock`` on ``.git/amr/sync.lock`` that the OS drops if the process
dies; amr never deletes a lock file). ``progress`` is called with :class:`SyncProgress` as the
sync moves on.

The loop, at most ``attempts`` rounds:

1. fetch the branch from the remote;
2. if only the remote has new commits: fast-forward the branch and work tree to them;
3. if both sides have: merge them (``git merge-tree``, amr's driver run in this process when
   there is one merge base: the work tree is untouched until the merge is complete), push the
   merge commit, and only then move the branch and work tree to it (compare-and-swap; when the
   clone's own agents committed meanwhile, the merge is merged in on top, after a few lost races
   holding ``index.lock`` for a whole attempt). The race with other clones' pushes lasts from the
   fetch to the push only, so a clone that has to merge is not starved by one that does not;
4. otherwise push the branch. A push refused because someone pushed first goes round again (at
   once after a merge, and up to ``PUSH_RACE_EXTRA`` rounds more than ``attempts`` while the sync
   is younger than ``PUSH_RACE_SECONDS``; with exponential backoff otherwise); any other refusal
   stops.

A merge conflict stops the loop with the repository unchanged and clean: nothing is half-merged,
agents keep committing. The result carries a :class:`PendingMerge`
with every conflicting entry (ours, base, theirs); :func:`amr_tui.services.sync.resolve.resolve`
finishes the merge with the chosen resolutions and syncs again. Offline is a result, not an
exception: it is recorded (``offline_since``) and the next sync tries again.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from amr_tui.git import GitRepo
from amr_tui.git.errors import AmrGitError, GitError, NoIdentityError, RefMovedError, RepoStateError
from amr_tui.git.gate import cas_attempts
from amr_tui.git.merging import (
    WorktreeBusyError,
    deferred_runner,
    merge_bases,
    merge_commits,
    tree_with_files,
)
from amr_tui.git.remote import (
    AuthError,
    NoRemoteError,
    OfflineError,
    PushRejectedError,
    ahead_behind,
    fetch,
    remotes,
)
from amr_tui.git.runner import GitRunner
from amr_tui.services import writegate
from amr_tui.services.sync.gitattrs import install_merge_driver
from amr_tui.services.sync.state import (
    FileConflict,
    SyncState,
    describe_path,
    load_state,
    now_iso,
    resurrected_facts,
    update_state,
)

try:  # advisory lock released by the OS when the process ends (not on Windows)
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

SYNCED, UP_TO_DATE, CONFLICT, OFFLINE = "synced", "up-to-date", "conflict", "offline"
AUTH, NO_REMOTE, BUSY, REJECTED, ERROR = "auth", "no-remote", "busy", "rejected", "error"
EXIT_CODES = {SYNCED: 0, UP_TO_DATE: 0, CONFLICT: 1, OFFLINE: 3}
DEFAULT_ATTEMPTS = 6
DEFAULT_BACKOFF = 0.2
INTEGRATE_ATTEMPTS = 8  # compare-and-swap attempts of one merge or fast-forward (the last ones under index.lock)
# Lost races before a merge or fast-forward holds index.lock for a whole attempt: one, since its
# agents commit faster than a merge takes (the lock is held for about one merge: ~0.1 s).
ESCALATE_AFTER = 1
# A sync that has to merge and loses the push race to another clone goes round again at once; it
# may take this many rounds more than ``attempts`` while it is younger than PUSH_RACE_SECONDS.
PUSH_RACE_EXTRA = 6
PUSH_RACE_SECONDS = 4.0
MAX_BACKOFF = 3.0


@dataclass(frozen=True)
class SyncProgress:
    stage: str  # "fetch", "merge", "push", "retry", "done"
    message: str
    attempt: int = 1


@dataclass(frozen=True)
class PendingMerge:
    """A merge that stopped on conflicts: ``ours`` (our branch tip then) and ``theirs``."""

    root: Path
    remote: str
    branch: str
    ours: str
    theirs: str
    tree: str
    files: tuple[FileConflict, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "remote": self.remote,
            "branch": self.branch,
            "ours": self.ours,
            "theirs": self.theirs,
            "files": [f.to_json() for f in self.files],
        }


@dataclass(frozen=True)
class SyncResult:
    status: str
    message: str
    root: Path
    remote: str = ""
    branch: str = ""
    head: str | None = None
    pushed: bool = False
    merges: int = 0
    attempts: int = 0
    ahead: int | None = None
    behind: int | None = None
    pending: PendingMerge | None = None
    resurrected: tuple[tuple[str, str], ...] = ()
    last_sync: str | None = None
    auto_resolved: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.status in (SYNCED, UP_TO_DATE)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.status, 2)

    def to_json(self) -> dict[str, object]:
        return {
            "status": self.status,
            "message": self.message,
            "repo": str(self.root),
            "remote": self.remote,
            "branch": self.branch,
            "head": self.head,
            "pushed": self.pushed,
            "merges": self.merges,
            "attempts": self.attempts,
            "ahead": self.ahead,
            "behind": self.behind,
            "last_sync": self.last_sync,
            "auto_resolved": list(self.auto_resolved),
            "resurrected": [{"path": p, "fact": f} for p, f in self.resurrected],
            "pending": self.pending.to_json() if self.pending else None,
        }


Progress = Callable[[SyncProgress], None]

_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


@contextmanager
def repo_lock(repo: GitRepo) -> Iterator[None]:
    """One sync (or resolve) per repository at a time, across threads and processes."""
    key = str(repo.git_dir.resolve())
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        folder = repo.git_dir / "amr"
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / "sync.lock", os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def target(repo: GitRepo, remote: str | None, branch: str | None) -> tuple[str, str, str]:
    """``(remote, local branch, remote branch)``: the branch's upstream when it has one."""
    local = branch or repo.current_branch()
    if local is None:
        raise RepoStateError("HEAD is detached: check out the branch to sync (for example `git switch main`).")
    repo.check_branch_name(local)

    def cfg(key: str) -> str | None:
        res = repo.runner.run(["config", "--get", "--end-of-options", key], ok=(0, 1))
        return res.text.strip() or None

    up_remote = cfg(f"branch.{local}.remote")
    up_merge = cfg(f"branch.{local}.merge")
    remote_branch = local
    if up_merge and up_merge.startswith("refs/heads/") and (remote is None or remote == up_remote):
        remote_branch = up_merge[len("refs/heads/") :]
    return remote or up_remote or "origin", local, remote_branch


def sync_state(root: str | os.PathLike[str], remote: str | None = None, branch: str | None = None) -> SyncState:
    """The recorded state plus current ahead/behind against the remote-tracking branch (the
    upstream of ``branch``, on ``remote`` when named), as of the last fetch; when they cannot be
    counted, ``note`` says why."""
    repo = GitRepo(root)
    st = load_state(repo)
    ahead = behind = upstream = None
    note = ""
    try:
        remote, local, rbranch = target(repo, remote, branch)
        if remote not in remotes(repo):
            note = "no remote" if not remotes(repo) else f"no remote named {remote}"
        elif repo.resolve(f"refs/remotes/{remote}/{rbranch}") is None:
            note = f"{remote}/{rbranch} not fetched yet (amr sync fetches it)"
        else:
            ahead, behind = ahead_behind(repo, f"refs/heads/{local}", f"refs/remotes/{remote}/{rbranch}")
            upstream = f"{remote}/{rbranch}"
    except (AmrGitError, ValueError) as exc:
        note = str(exc)
    return SyncState(
        st.get("last_sync"),
        st.get("last_attempt"),
        st.get("last_status"),
        st.get("last_message", ""),
        st.get("offline_since"),
        bool(st.get("pending")),
        ahead,
        behind,
        upstream,
        note,
    )


def _emit(progress: Progress | None, stage: str, message: str, attempt: int) -> None:
    if progress is not None:
        progress(SyncProgress(stage, message, attempt))


def _sleep_for(attempt: int, backoff: float) -> float:
    return float(min(MAX_BACKOFF, backoff * (2 ** (attempt - 1))) * (0.5 + random.random()))


def merge_commit(
    repo: GitRepo,
    local: str,
    head: str,
    theirs: str,
    label: str,
    *,
    amr_command: str | None = None,
    bases: list[str] | None = None,
    runner: GitRunner | None = None,
    identity_checked: bool = False,
) -> tuple[str | None, PendingMerge | None, list[str]]:
    """The merge commit of ``theirs`` into ``head`` (no ref, index or work tree touched):
    ``(merge, None, auto_resolved)``, or ``(None, pending, [])`` when it conflicts."""
    if not identity_checked and repo.identity() is None:
        raise NoIdentityError(str(repo.root), "A merge commit needs an author.")
    tm = merge_commits(repo, head, theirs, amr_command=amr_command, bases=bases, runner=runner)
    tree = tm.tree
    auto: list[str] = []
    if not tm.clean:
        files = [describe_path(repo, cp) for cp in tm.conflicts]
        stuck = tuple(f for f in files if f.whole_file or f.result is None or not f.result.clean)
        if stuck:
            return None, PendingMerge(repo.root, "", local, head, theirs, tree, stuck), []
        changes = {f.path: f.resolved_bytes({}) for f in files}
        tree = tree_with_files(repo, tree, changes)
        auto = sorted(changes)
    return writegate.write_merge(repo, tree, [head, theirs], f"Merge {label} into {local} (amr sync)"), None, auto


def integrate(
    repo: GitRepo,
    local: str,
    theirs: str,
    label: str,
    *,
    amr_command: str | None = None,
    max_attempts: int = INTEGRATE_ATTEMPTS,
) -> tuple[str, str, PendingMerge | None, list[tuple[str, str]], list[str]]:
    """Bring commit ``theirs`` into branch ``local``: fast-forward or merge.

    Returns ``(outcome, head, pending, resurrected, auto_resolved)`` with outcome ``"same"``,
    ``"ff"``, ``"merged"`` or ``"conflict"``. The branch moves by compare-and-swap; when agents'
    commits move it meanwhile the merge is made again on the new tip (the write gate's retry loop:
    after ``ESCALATE_AFTER`` lost race(s) a whole attempt, merge included, runs holding
    ``index.lock``, so agents committing in this work tree wait for it instead of starving it).
    Raises RefMovedError when the branch still moved in each of ``max_attempts`` attempts.
    """
    ref = f"refs/heads/{local}"
    checked_out = repo.current_branch() == local
    last: RefMovedError | None = None
    for held in cas_attempts(repo, max_attempts=max_attempts, escalate=checked_out, escalate_after=ESCALATE_AFTER):
        head = repo.resolve(ref)
        if head == theirs or (head is not None and repo.is_ancestor(theirs, head)):
            return "same", head, None, [], []
        try:
            if head is None or repo.is_ancestor(head, theirs):
                writegate.advance(repo, local, head, theirs, f"amr sync: fast-forward to {label}", held=held)
                return "ff", theirs, None, [], []
            merge, pending, auto = merge_commit(repo, local, head, theirs, label, amr_command=amr_command)
            if merge is None:
                return "conflict", head, pending, [], []
            writegate.advance(repo, local, head, merge, f"amr sync: merge {label}", held=held)
        except RefMovedError as exc:
            last = exc
            continue
        return "merged", merge, None, resurrected_facts(repo, head, theirs, merge), auto
    assert last is not None
    raise last


def _conflict(finish: Callable[..., SyncResult], pending: PendingMerge, remote: str, attempt: int) -> SyncResult:
    pending = PendingMerge(
        pending.root, remote, pending.branch, pending.ours, pending.theirs, pending.tree, pending.files
    )
    n = sum(len(f.conflicts) for f in pending.files)
    return finish(
        CONFLICT,
        f"{n} conflict{'s' if n != 1 else ''} in "
        f"{', '.join(f.path for f in pending.files)}: resolve them, then sync again",
        attempt=attempt,
        pending=pending,
    )


def sync(
    root: str | os.PathLike[str],
    *,
    remote: str | None = None,
    branch: str | None = None,
    progress: Progress | None = None,
    attempts: int = DEFAULT_ATTEMPTS,
    backoff: float = DEFAULT_BACKOFF,
    push_changes: bool = True,
    amr_command: str | None = None,
    merge_driver: bool = False,
) -> SyncResult:
    """Fetch, merge and push one repository. Never raises for offline, auth, conflicts or
    rejections: the result's ``status`` says what happened (and ``exit_code`` for the CLI).

    ``merge_driver``: first install amr's entry-aware merge driver where it is missing (the
    ``*.md merge=amr`` attribute, committed and so pushed to the other clones, and this clone's
    ``merge.amr.*`` config), so a plain ``git pull`` anywhere merges entries as amr does."""
    try:
        repo = GitRepo(root)
    except AmrGitError as exc:
        return SyncResult(ERROR, str(exc), Path(root))
    installed = ""
    if merge_driver:
        installed = _install_driver(repo)
    with repo_lock(repo):
        result = _sync_locked(repo, remote, branch, progress, max(1, attempts), backoff, push_changes, amr_command)
    return replace(result, message=f"{result.message} {installed}") if installed else result


def _install_driver(repo: GitRepo) -> str:
    """Install the merge driver where it is missing; what was done, in a sentence (or "")."""
    try:
        done = install_merge_driver(repo.root)
    except (AmrGitError, OSError) as exc:
        return f"(amr's merge driver could not be installed: {exc})"
    what = []
    if done.attributes_changed:
        what.append("committed `*.md merge=amr` in .gitattributes")
    if done.config_changed:
        what.append("set merge.amr.* in this clone's config")
    return f"(Installed amr's merge driver: {' and '.join(what)}.)" if what else ""


def _sync_locked(
    repo: GitRepo,
    remote: str | None,
    branch: str | None,
    progress: Progress | None,
    attempts: int,
    backoff: float,
    push_changes: bool,
    amr_command: str | None,
) -> SyncResult:
    started = now_iso()
    remote_name, local, rbranch = remote or "origin", branch or "", branch or ""
    merges = 0
    pulled = False
    risen: list[tuple[str, str]] = []
    auto: list[str] = []

    def finish(
        status: str, message: str, *, pushed: bool = False, attempt: int = 0, pending: PendingMerge | None = None
    ) -> SyncResult:
        state: dict[str, object] = {
            "last_attempt": started,
            "last_status": status,
            "last_message": message,
            "remote": remote_name,
            "branch": local,
        }
        if status in (SYNCED, UP_TO_DATE):
            state.update(last_sync=now_iso(), offline_since=None, pending=None)
        elif status == OFFLINE:
            prev = load_state(repo).get("offline_since")
            state["offline_since"] = prev or started
        if pending is not None:
            state["pending"] = {
                "ours": pending.ours,
                "theirs": pending.theirs,
                "remote": pending.remote,
                "branch": pending.branch,
                "recorded": started,
                "paths": [f.path for f in pending.files],
            }
        saved = update_state(repo, **state)
        head = repo.resolve(f"refs/heads/{local}") if local else None
        ahead = behind = None
        if local and repo.resolve(f"refs/remotes/{remote_name}/{rbranch}"):
            ahead, behind = ahead_behind(repo, f"refs/heads/{local}", f"refs/remotes/{remote_name}/{rbranch}")
        _emit(progress, "done", message, attempt)
        return SyncResult(
            status,
            message,
            repo.root,
            remote_name,
            local,
            head,
            pushed,
            merges,
            attempt,
            ahead,
            behind,
            pending,
            tuple(sorted(set(risen))),
            saved.get("last_sync"),
            tuple(auto),
        )

    try:
        remote_name, local, rbranch = target(repo, remote, branch)
        label = f"{remote_name}/{rbranch}"
        ref = f"refs/heads/{local}"
        clock = time.monotonic()
        merger: GitRunner | None = None  # made once per sync, at its first merge
        identity_checked = False
        attempt = 0
        while True:
            attempt += 1
            _emit(progress, "fetch", f"fetching {label}", attempt)
            fetched = fetch(repo, remote_name, rbranch)
            tip = fetched.tip
            pushed_merge: str | None = None
            refused: PushRejectedError | None = None
            gave_up = False
            head = repo.resolve(ref) if tip is not None and push_changes else None
            bases = merge_bases(repo, head, tip) if head is not None and tip is not None and head != tip else []
            if head is not None and tip is not None and head != tip and bases != [tip] and bases != [head]:
                # Both sides have commits. The merge commit goes to the remote first, then
                # the local branch takes it: the race with other clones' pushes lasts only
                # from the fetch to this push (the local branch, where agents commit, can
                # take a while), and a lost race leaves nothing to undo.
                if not identity_checked and repo.identity() is None:
                    raise NoIdentityError(str(repo.root), "A merge commit needs an author.")
                identity_checked = True
                merger = merger or deferred_runner(repo)
                merge, pending, resolved = merge_commit(
                    repo,
                    local,
                    head,
                    tip,
                    label,
                    amr_command=amr_command,
                    bases=bases,
                    runner=merger,
                    identity_checked=True,
                )
                if merge is None:
                    assert pending is not None
                    return _conflict(finish, pending, remote_name, attempt)
                _emit(progress, "push", f"pushing the merge with {label}", attempt)
                try:
                    writegate.push(repo, remote_name, rbranch, merge)
                    pushed_merge = merge
                except PushRejectedError as exc:
                    if not exc.non_fast_forward:
                        refused = exc  # the merge still lands here; the push is reported refused
                    elif attempt < attempts or (
                        attempt < attempts + PUSH_RACE_EXTRA and time.monotonic() - clock < PUSH_RACE_SECONDS
                    ):
                        # Someone pushed first; nothing changed here. Go again at once (a
                        # moment's jitter only, and a few extra rounds while the sync is young):
                        # backing off would hand the remote to the clone that won, which
                        # pushes again meanwhile.
                        _emit(progress, "retry", "someone pushed first: fetching and merging again", attempt)
                        time.sleep(random.random() * backoff / 2)
                        continue
                    else:
                        gave_up = True  # the merge still lands here; the sync is reported busy
                merges += 1
                risen.extend(resurrected_facts(repo, head, tip, merge))
                auto.extend(resolved)
                _emit(progress, "merge", f"merged {label}", attempt)
                tip = merge
            if tip is not None:
                try:
                    outcome, _head, pending, found, resolved = integrate(
                        repo, local, tip, label, amr_command=amr_command
                    )
                except (RefMovedError, WorktreeBusyError) as exc:
                    if pushed_merge is not None or refused is not None or gave_up:
                        if pushed_merge is None:
                            return finish(
                                BUSY,
                                f"the push was refused and the branch kept changing ({exc}); sync again",
                                attempt=attempt,
                            )
                        return finish(
                            SYNCED,
                            f"pushed to {label}; this clone's branch kept moving, it takes the merge at the next sync",
                            pushed=True,
                            attempt=attempt,
                        )
                    if attempt >= attempts:
                        return finish(
                            BUSY, f"the branch or work tree kept changing ({exc}); sync again", attempt=attempt
                        )
                    _emit(progress, "retry", str(exc), attempt)
                    time.sleep(_sleep_for(attempt, backoff))
                    continue
                if outcome == "conflict":
                    assert pending is not None
                    return _conflict(finish, pending, remote_name, attempt)
                pulled = pulled or outcome in ("ff", "merged") or pushed_merge is not None
                if outcome == "merged":
                    merges += 1
                    risen.extend(found)
                    auto.extend(resolved)
                    _emit(progress, "merge", f"merged {label}", attempt)
            if refused is not None:
                return finish(REJECTED, str(refused), attempt=attempt)
            if gave_up:
                return finish(
                    BUSY,
                    f"someone kept pushing first; gave up after {attempt} tries (their commits "
                    f"are merged here; sync again to push)",
                    attempt=attempt,
                )
            if pushed_merge is not None:
                return finish(SYNCED, f"pushed to {label}", pushed=True, attempt=attempt)
            head = repo.resolve(ref)
            if head is None or head == tip or not push_changes:
                return finish(
                    SYNCED if pulled else UP_TO_DATE, f"brought in {label}" if pulled else "up to date", attempt=attempt
                )
            _emit(progress, "push", f"pushing to {label}", attempt)
            try:
                writegate.push(repo, remote_name, rbranch, head)
                return finish(SYNCED, f"pushed to {label}", pushed=True, attempt=attempt)
            except PushRejectedError as exc:
                if not exc.non_fast_forward:
                    return finish(REJECTED, str(exc), attempt=attempt)
                if attempt >= attempts:
                    return finish(
                        BUSY, f"someone kept pushing first; gave up after {attempt} tries (sync again)", attempt=attempt
                    )
                _emit(progress, "retry", "someone pushed first: fetching and merging again", attempt)
                time.sleep(_sleep_for(attempt, backoff))
    except OfflineError as exc:
        return finish(OFFLINE, f"{exc}; nothing was lost, sync again when online")
    except AuthError as exc:
        return finish(AUTH, str(exc))
    except NoRemoteError as exc:
        return finish(NO_REMOTE, str(exc))
    except (RepoStateError, GitError, ValueError) as exc:
        return finish(ERROR, str(exc))
