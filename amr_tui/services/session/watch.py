"""Noticing change: the 1-second poll, the re-read after a save, and the repo badges (git status).

:class:`Watcher` is the session's (``Session.watch``), composed with it through the
:class:`WatchHost` protocol. The re-index path (stat, parse, lint,
search index) never waits for git: ``poll`` and ``reload_files`` only mark a repo's badge as
stale, and ``refresh_stale_info`` runs ``git status`` afterwards, only for repos whose files or
git state (``amr_tui.git.watch.state_signature``: a few stats under ``.git``) changed, and at
least every ``INFO_MAX_AGE_S`` as a safety net.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import os
import stat as _stat_mod
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from amr_tui.core.format.parser import Document
from amr_tui.core.inbox import oldest, total
from amr_tui.core.lint.facts import FileFacts
from amr_tui.core.lint.repo import Finding
from amr_tui.core.search.index import SearchIndex
from amr_tui.git import GitRepo
from amr_tui.git.errors import AmrGitError
from amr_tui.git.watch import head_oid, head_signature, state_signature
from amr_tui.services.activity.model import ActivityError
from amr_tui.services.dreams.model import DreamError
from amr_tui.services.inbox import activity_pending, dream_pending
from amr_tui.services.sync.state import load_state
from amr_tui.services.workspace import Mount, path_is_safe, scan_files

if TYPE_CHECKING:
    from amr_tui.services.activity.service import ActivityService
    from amr_tui.services.dreams.service import DreamService

INFO_MAX_AGE_S = 30.0  # repo badges are re-read at least this often, changed or not
_OP_NOTES = {
    "merge": "merging",
    "rebase": "rebasing",
    "am": "applying patches",
    "cherry-pick": "cherry-picking",
    "revert": "reverting",
    "bisect": "bisecting",
}


@dataclass(slots=True)
class RepoInfo:
    name: str
    branch: str = ""
    dirty: bool = False
    ahead: int = 0
    behind: int = 0
    read_only: bool = False
    note: str = ""
    head: str | None = None
    last_sync: str | None = None  # ISO time of the last successful sync
    offline: bool = False
    unreviewed: int = 0  # entry changes others committed since the user's last review (services.activity)
    pending: int = 0  # all that waits for review: those changes, pending runs, review-mode writes (services.inbox)
    oldest: str | None = None  # ISO time the oldest of them started waiting


@dataclass(frozen=True, slots=True)
class Change:
    repo: str
    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    head_moved: bool

    def describe(self) -> str:
        parts = []
        if self.changed:
            parts.append("changed " + ", ".join(self.changed[:3]) + ("…" if len(self.changed) > 3 else ""))
        if self.added:
            parts.append("added " + ", ".join(self.added[:3]) + ("…" if len(self.added) > 3 else ""))
        if self.removed:
            parts.append("removed " + ", ".join(self.removed[:3]) + ("…" if len(self.removed) > 3 else ""))
        if not parts and self.head_moved:
            parts.append("new commit")
        return f"{self.repo}: " + "; ".join(parts)


@dataclass(slots=True)
class RepoState:
    """One mounted repo as the session holds it (under the session's lock)."""

    mount: Mount
    git: GitRepo | None
    style: str = "amr"  # the memory format (``workspace.style_of``): how links resolve, which findings apply
    files: list[str] = field(default_factory=list)
    escaping: set[str] = field(default_factory=set)
    stats: dict[str, tuple[int, int]] = field(default_factory=dict)  # path -> (mtime_ns, size)
    # Parsed documents of MEMORY.md and the few files open or read last (``Session.keep_doc``),
    # oldest first; every other Markdown file is known by its lint facts and its entries'
    # metadata (the search index holds its entries' text). A million entries' Documents would
    # be most of a gigabyte.
    docs: dict[str, Document] = field(default_factory=dict)
    facts: dict[str, FileFacts] = field(default_factory=dict)  # every parsed Markdown file's (and its metadata)
    findings: dict[str, list[Finding]] = field(default_factory=dict)
    history_findings: list[Finding] = field(default_factory=list)  # AMR030, computed in the background
    history_stale: bool = False  # files or commits changed since history_findings were found
    history_paths: set[str] | None = None  # the files changed since (None: every file, as at the start)
    lint_stale: bool = False  # only the changed files were re-linted; the whole-repo checks are due
    info: RepoInfo | None = None
    info_stale: bool = True  # files or git state changed since the badge was read
    info_at: float = 0.0  # time.monotonic() of the last badge read
    head_sig: tuple[object, ...] | None = None  # amr_tui.git.watch signatures at the last look
    git_sig: tuple[object, ...] | None = None
    own_head: str | None = None  # the commit amr made last: HEAD moving to it is not news (reload_files)
    head_news: bool = False  # HEAD moved since the last poll reported it (a badge read may see it first)

    def forget(self, path: str) -> None:
        """Drop what is known of a file that is gone (under the session's lock)."""
        self.forget_parse(path)
        self.stats.pop(path, None)

    def forget_parse(self, path: str) -> None:
        """Drop what a parse of ``path`` gave (it is no longer one amr parses)."""
        self.docs.pop(path, None)
        self.facts.pop(path, None)


class WatchHost(Protocol):
    """What the watcher needs from the session it watches for."""

    lock: threading.RLock
    index: SearchIndex
    repos: dict[str, RepoState]
    refusals: dict[str, str]  # repo -> why git refuses it

    def load_file(self, state: RepoState, rel: str) -> None:
        """Read, parse and index one file."""
        ...

    def relint(self, state: RepoState) -> None:
        """Lint the whole repo."""
        ...

    def relint_some(self, state: RepoState, paths: list[str]) -> None:
        """Lint after these files changed."""
        ...

    def activity(self, repo: str) -> ActivityService:
        """The repo's activity review."""
        ...

    def dreams(self, repo: str) -> DreamService:
        """The repo's dreaming runs (and review-mode write branches)."""
        ...

    def note_written(self, repo: str, commit: str) -> None:
        """Remember a commit amr made in this session."""
        ...

    def refusal_note(self, repo: str) -> str:
        """Why git refuses the repo, short (empty when it does not)."""
        ...


class Watcher:
    """Noticing change for a session (``Session.watch``): the poll, the re-read after a write,
    and the repo badges."""

    def __init__(self, host: WatchHost) -> None:
        self.host = host
        #: Badges count the unreviewed entry changes (an entry diff per repo): the app turns it on
        #: once its load is done; the agent interface never does.
        self.count_unreviewed = False

    def mark_info_stale(self, repo: str) -> None:
        """Have the next ``refresh_stale_info`` read this repo's badge again (the review mark moved)."""
        with self.host.lock:
            self.host.repos[repo].info_stale = True

    # ----------------------------------------------------------------- changes
    def poll(self) -> list[Change]:
        """Find what changed on disk or in git since the last look, and re-index it.

        Reads only: one walk of the work tree (with its stats) and a few stats under .git. No
        git process runs here; the repos that changed get their badge re-read by
        ``refresh_stale_info`` (``git status`` with optional locks off).
        """
        changes: list[Change] = []
        for name, state in self.host.repos.items():
            files, escaping, stats = scan_files(state.mount.root)
            with self.host.lock:
                old_files = set(state.files)
                old_stats = dict(state.stats)
            new_set = set(files)
            added = sorted(new_set - old_files)
            removed = sorted(old_files - new_set)
            changed = sorted(p for p in new_set & old_files if stats.get(p) != old_stats.get(p))
            with self.host.lock:
                state.files, state.escaping = files, escaping
                for p in removed:
                    state.forget(p)
                    self.host.index.remove_file(name, p)
            for p in added + changed:
                self.host.load_file(state, p)
            head_moved = self._git_moved(state) | state.head_news
            state.head_news = False
            if added or removed or changed or head_moved:
                state.info_stale = True
                state.history_stale = True
                if state.history_paths is not None:
                    state.history_paths.update(added + changed + removed)
                self.host.relint_some(state, added + changed + removed)
                changes.append(Change(name, tuple(added), tuple(changed), tuple(removed), head_moved))
            elif state.lint_stale:
                state.lint_stale = False
                self.host.relint(state)  # a quiet moment: the whole-repo checks catch up
        return changes

    def baseline(self, state: RepoState) -> None:
        """Take the git signatures a new session starts from, before it reads any file: a
        commit from then on is news at the first poll, however long the load takes."""
        self._git_moved(state)

    def _git_moved(self, state: RepoState) -> bool:
        """True when HEAD may have moved; marks the badge stale when any git state changed.
        A move seen here and not returned to a poll (a badge read) waits in ``head_news``."""
        if state.git is None or state.mount.name in self.host.refusals:
            return False
        try:
            head_sig, sig = head_signature(state.git), state_signature(state.git)
        except OSError:
            return False
        moved = state.head_sig is not None and head_sig != state.head_sig
        if moved and state.own_head is not None and head_oid(state.git) == state.own_head:
            moved = False  # HEAD is the commit amr just made (a save): no one else's change to show
        state.own_head = None
        if sig != state.git_sig:
            state.info_stale = True
        state.head_sig, state.git_sig = head_sig, sig
        return moved

    def reload_files(self, repo: str, paths: list[str], committed: str | None = None) -> None:
        """Re-read these files after amr wrote them (a save, a rename): no walk of the repo, no git.
        ``committed``: the commit amr made of them; the next poll does not report HEAD moving to
        it as someone else's change (an agent's commit on top still is: HEAD is then another)."""
        state = self.host.repos[repo]
        if committed is not None:
            state.own_head = committed
            self.host.note_written(repo, committed)
        root = state.mount.root
        present: list[str] = []
        for path in dict.fromkeys(paths):
            try:
                st = os.lstat(root / path)
            except OSError:
                st = None
            is_file = st is not None and (_stat_mod.S_ISREG(st.st_mode) or _stat_mod.S_ISLNK(st.st_mode))
            with self.host.lock:
                if is_file:
                    if path not in state.files:
                        bisect.insort(state.files, path)
                    if st is not None and _stat_mod.S_ISLNK(st.st_mode) and not path_is_safe(root, path):
                        state.escaping.add(path)
                    present.append(path)
                elif path in state.files:
                    state.files.remove(path)
                    state.escaping.discard(path)
                    state.forget(path)
                    self.host.index.remove_file(repo, path)
        for path in present:
            self.host.load_file(state, path)
        self.host.relint_some(state, list(dict.fromkeys(paths)))
        state.info_stale = True
        state.history_stale = True  # amr's own write may put a fact back, or remove one written again
        if state.history_paths is not None:
            state.history_paths.update(paths)

    # ------------------------------------------------------------ repo badges
    def refresh_stale_info(self, max_age: float = INFO_MAX_AGE_S) -> list[str]:
        """Re-read the badge (git status) of repos whose files or git state changed, or that were
        not read for ``max_age`` seconds. Returns the repos whose badge now reads differently."""
        now = time.monotonic()
        out = []
        for name, state in self.host.repos.items():
            if state.info_stale or state.info is None or now - state.info_at >= max_age:
                before = state.info
                if self.refresh_info(name) != before:
                    out.append(name)
        return out

    def _pending(self, repo: str, info: RepoInfo) -> None:
        """The badge's pending count and the age of the oldest (``services.inbox``)."""
        try:
            items = activity_pending(repo, self.host.activity(repo)) + dream_pending(
                repo, self.host.dreams(repo), _dt.datetime.now(_dt.UTC)
            )
        except (AmrGitError, ActivityError, DreamError, ValueError):
            return
        info.pending = total(items)
        first = oldest(items)
        info.oldest = first.since.isoformat() if first is not None else None

    def refresh_info(self, repo: str) -> RepoInfo:
        state = self.host.repos[repo]
        if self._git_moved(state):  # the signatures this status belongs to
            state.head_news = True  # for the next poll to show
        state.info_stale = False
        state.info_at = time.monotonic()
        info = RepoInfo(repo, read_only=state.mount.read_only)
        if repo in self.host.refusals:
            info.note = self.host.refusal_note(repo)
        elif state.git is None:
            info.note = "not a git repo"
        else:
            try:
                st = state.git.status()
                info.branch = st.branch or ""
                info.head = st.head
                info.dirty = not st.is_clean
                info.ahead = st.ahead or 0
                info.behind = st.behind or 0
                if st.detached:
                    info.note = "detached"
                elif st.is_empty_repo:
                    info.note = "empty"
                op = state.git.operation_in_progress()
                if op:
                    info.note = _OP_NOTES.get(op, op)
                recorded = load_state(state.git)
                info.last_sync = recorded.get("last_sync")
                info.offline = bool(recorded.get("offline_since"))
                if self.count_unreviewed and not st.is_empty_repo:
                    info.unreviewed = self.host.activity(repo).count()
                    self._pending(repo, info)
            except AmrGitError as exc:
                info.note = str(exc)[:80]
        with self.host.lock:
            state.info = info
        return info
