"""The state of one amr session: mounted repos, their files, links, lint and search index.

Thread-safe: the app calls it from thread workers. It never touches a widget; the app turns
what it returns into messages.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import gc
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from amr_tui.core.budget import FileCut
from amr_tui.core.format.edit import searchable_lines
from amr_tui.core.format.links import LinkState, NameIndex, heading_line, off_by_a_folder, resolve, split_heading
from amr_tui.core.format.parser import Document, is_markdown, parse
from amr_tui.core.formats import profile_of
from amr_tui.core.graph import LinkGraph, build_graph
from amr_tui.core.linkstates import link_states_of
from amr_tui.core.lint.facts import FileFacts, facts_of, unpack
from amr_tui.core.lint.repo import (
    CONTRADICTIONS_MAX_ENTRIES,
    MEMORY_FILE,
    Finding,
    RepoSnapshot,
    links_by_name,
    lint_file,
    lint_repo,
)
from amr_tui.core.model import Diagnostic, Entry, Link, Severity
from amr_tui.core.search.index import SearchHit, SearchIndex, SearchSession
from amr_tui.git import GitRepo
from amr_tui.git.errors import AmrGitError, UnsafeRepoError
from amr_tui.git.worktree import sweep_temp_files
from amr_tui.services import writegate
from amr_tui.services.activity.service import ActivityService
from amr_tui.services.batch import diskcache
from amr_tui.services.budgets import profile_of as budget_of
from amr_tui.services.dreams.service import DreamService
from amr_tui.services.history.authors import Authors, label_contradictions
from amr_tui.services.history.service import HistoryService
from amr_tui.services.lint import cache as lintcache
from amr_tui.services.loads import file_cut_of
from amr_tui.services.search import cache as searchcache
from amr_tui.services.search import load as searchload
from amr_tui.services.search.context import SearchFacts
from amr_tui.services.session import parsepool
from amr_tui.services.session.searchctx import session_context
from amr_tui.services.session.verifying import Verifying
from amr_tui.services.session.watch import Change, RepoInfo, RepoState, Watcher
from amr_tui.services.sync.gitattrs import lint_merge_drivers
from amr_tui.services.workspace import MAX_PARSE_BYTES, Mount, path_is_safe, read_bytes, scan_files, style_of

__all__ = ["Backlink", "Change", "LockedSearch", "OpenFile", "RepoInfo", "Session"]

LARGE_FILE_BYTES = 5 * 1024 * 1024  # not loaded into the editor
FULL_RELINT_MAX_DOCS = 400  # above this, a change re-lints its own files first (whole repo on a quiet poll)
LOAD_BATCH = 100  # files parsed, then indexed in one batch and a short sleep (the UI thread gets the GIL)
KEEP_DOCS = 64  # parsed Documents kept per repo (open or read last; MEMORY.md always): see RepoState.docs


@dataclass(slots=True)
class _Parsed:
    """One Markdown file read and parsed (outside the lock): what the session keeps of it."""

    doc: Document | None  # None when a worker process parsed it (``parsepool``)
    facts: FileFacts
    entries: list[tuple[int, str]]  # for the search index


@dataclass(slots=True)
class OpenFile:
    repo: str
    path: str
    data: bytes | None  # None when not loaded (too large, unreadable)
    doc: Document | None
    head: str | None  # HEAD when it was read: the base of an edit
    read_only: str | None = None  # why it cannot be edited, or None
    message: str | None = None  # shown instead of the content when data is None


@dataclass(frozen=True, slots=True)
class Backlink:
    path: str
    line: int
    text: str


class Session:
    def __init__(self, mounts: list[Mount]) -> None:
        self.lock = threading.RLock()
        self.index = SearchIndex()
        # (repo, commit) of every write amr committed in this session, oldest first: what z undoes
        self.written: list[tuple[str, str]] = []
        self.repos: dict[str, RepoState] = {}
        self.refusals: dict[str, str] = {}  # repo -> why git refuses it (another owner...): read-only
        # What the start repaired: a write a killed amr left half done (services.writegate.recover)
        self.repairs: list[str] = []
        self._history: dict[str, HistoryService] = {}  # one per repo, made on first use
        self._dreams: dict[str, DreamService] = {}
        self._activity: dict[str, ActivityService] = {}  # the activity review's, one per repo
        self._authors: dict[str, Authors | None] = {}  # who wrote each line (by:), one per git repo
        self._search_context: SearchFacts | None = None
        self._name_indexes: dict[
            str, tuple[tuple[int, int, int], NameIndex]
        ] = {}  # repo -> (files and facts read, index)
        self._key_sets: dict[frozenset[str], frozenset[str]] = {}  # one frozenset per distinct set of metadata keys
        self.parsed_away = 0  # files of the last load parsed by worker processes (``parsepool``)
        # The first load, step by step (scan, index_files, lint_all): what is done so far.
        self._scanned = False
        self._total_files = 0
        self._indexed: set[tuple[str, str]] = set()  # (repo, path) indexed while the first indexing runs
        self._index_done = False
        self._linted = False  # before the first repo-wide lint, a change re-lints its own files only
        self._cache_stale = True  # files were read that the on-disk caches do not hold (save_caches)
        self.watch = Watcher(self)  # the poll, the re-read after a write, the badges
        self.verifying = Verifying(self)  # the last verify report of each repo, and agents' reads
        for mount in mounts:
            git: GitRepo | None
            try:
                git = GitRepo(mount.root)
                if git.root.resolve() != mount.root.resolve():
                    git = None  # a folder inside someone's work tree: read and searched, no history of its own
            except UnsafeRepoError as exc:
                git, mount = None, Mount(mount.name, mount.root, True)
                self.refusals[mount.name] = str(exc)
            except AmrGitError:
                git = None
            self.repos[mount.name] = state = RepoState(mount, git, style_of(mount))
            self.watch.baseline(state)

    # ------------------------------------------------------------------ loading
    @property
    def names(self) -> list[str]:
        return list(self.repos)

    def note_written(self, repo: str, commit: str) -> None:
        """Remember a commit amr made in this session (``z`` undoes the newest not undone)."""
        with self.lock:
            if (repo, commit) not in self.written:
                self.written.append((repo, commit))

    def refusal_note(self, repo: str) -> str:
        """Short reason a repo is read-only because git refuses it (empty when it does not)."""
        why = self.refusals.get(repo, "")
        if not why:
            return ""
        return "git refuses it: " + (
            "another user owns it" if "another user" in why else "its config points git elsewhere"
        )

    def mount(self, repo: str) -> Mount:
        return self.repos[repo].mount

    def load(
        self, progress: Callable[[int, int], None] | None = None, indexed: Callable[[], None] | None = None
    ) -> None:
        """Read every repo: files, documents and the search index (then ``indexed()``), then the
        lint findings and each repo's badge. The app runs the same steps one by one
        (``scan``, ``index_files``, ``lint_all``, ``refresh_badges``) to show each as it lands."""
        self.scan()
        self.index_files(progress)
        if indexed:
            indexed()
        self.lint_all()
        self.refresh_badges()

    def scan(self) -> int:
        """List every repo's files (one walk each, with stats; nothing parsed): the tree's rows.
        Returns how many files there are to index."""
        total = 0
        for name, state in self.repos.items():
            if name not in self.refusals:
                sweep_temp_files(state.mount.root)  # leftovers of a save that was killed
                if state.git is not None and not state.mount.read_only:
                    self.repairs.extend(writegate.recover(state.git))  # a write killed half way: finish or take back
            files, escaping, stats = scan_files(state.mount.root)
            with self.lock:
                state.files, state.escaping = files, escaping
                for rel, st in stats.items():
                    state.stats.setdefault(rel, st)  # a file read meanwhile (opened, saved) keeps its newer stat
            total += len(files)
        with self.lock:
            self._total_files = total
            self._scanned = True
        return total

    def coverage(self) -> tuple[int, int] | None:
        """(files indexed, files to index) while the first indexing runs; None once it is done."""
        with self.lock:
            if self._index_done:
                return None
            return len(self._indexed), max(self._total_files, len(self._indexed))

    def index_files(self, progress: Callable[[int, int], None] | None = None) -> None:
        """Parse every listed file and index its entries, ``LOAD_BATCH`` at a time (``progress``
        after each). A file opened or saved meanwhile was indexed then and is not read again.
        What the caches kept of files unchanged since (``warm_start``) is not read either."""
        if not self._scanned:
            self.scan()
        total_files = self._total_files
        done = 0
        if progress:
            progress(0, total_files)
        self.parsed_away = 0
        self.warm_start()
        collecting = gc.isenabled()
        gc.disable()  # parsing makes many small objects that live on: no point scanning them mid-load
        try:
            for name, state in self.repos.items():
                with self.lock:
                    files = list(state.files)
                    stats = dict(state.stats)
                    indexed = {rel for repo, rel in self._indexed if repo == name}
                    kept = set(state.docs)
                batches = [
                    [rel for rel in files[at : at + LOAD_BATCH] if rel not in indexed]
                    for at in range(0, len(files), LOAD_BATCH)
                ]
                # A big cold load is parsed by worker processes (``parsepool``), all but the files
                # whose Document the session keeps (MEMORY.md, files open) and those it does not parse.
                remote = [
                    [
                        rel
                        for rel in todo
                        if rel != MEMORY_FILE and rel not in kept and self._parses(state, rel, stats.get(rel))
                    ]
                    for todo in batches
                ]
                workers = parsepool.workers_for(sum(map(len, remote)))
                with contextlib.ExitStack() as stack:
                    readings: Iterator[list[parsepool.Parsed]] = iter(())
                    if workers:
                        try:
                            pool = stack.enter_context(parsepool.ParsePool(workers))
                            readings = pool.map(state.mount.root, state.style != "amr", [r for r in remote if r])
                        except Exception:  # no pool (no /dev/shm, a limit on processes): parse here
                            remote = [[] for _ in batches]
                    checked_dirs: dict[str, bool] = {}
                    broken = False
                    for at, todo, far in zip(range(0, len(files), LOAD_BATCH), batches, remote, strict=True):
                        size = min(LOAD_BATCH, len(files) - at)
                        if not todo:  # every file of the batch came from the caches
                            done += size
                            if progress:
                                progress(done, total_files)
                            continue
                        away: dict[str, _Parsed | None] = {}
                        if far and not broken:
                            try:
                                away = self._from_pool(next(readings))
                            except Exception:  # a worker failed: the rest is parsed here
                                broken = True
                            self.parsed_away += len(away)
                        batch = [
                            (rel, away[rel] if rel in away else self._parse(state, rel, stats.get(rel), checked_dirs))
                            for rel in todo
                        ]
                        with self.lock:
                            # Read meanwhile (opened, saved, polled): that reading is newer than this one.
                            fresh = [(rel, p) for rel, p in batch if (name, rel) not in self._indexed]
                            for rel, parsed in fresh:
                                self._absorb(state, rel, parsed)
                            self.index.set_files(name, [(rel, p.entries if p else []) for rel, p in fresh])
                            self._indexed.update((name, rel) for rel in files[at : at + LOAD_BATCH])
                        done += size
                        if progress:
                            progress(done, total_files)
                        time.sleep(0.001)  # let the UI thread paint and take keys
        finally:
            if collecting:
                gc.enable()
        with self.lock:
            self._index_done = True
            self._indexed.clear()

    def warm_start(self) -> None:
        """Take the search index ``amr search`` (or the last run) kept, and the lint facts
        ``amr lint`` (or the last run) kept, for every file whose stat has not changed since:
        ``index_files`` then reads only the others (MEMORY.md always). Nothing when there is
        no cache, it is unusable, or caches are off (``AMR_NO_CACHE``)."""
        if not diskcache.enabled():
            return
        cached = searchload.load(searchcache.cache_file([s.mount for s in self.repos.values()]))
        if cached is None:
            return
        loaded, old_stats, written = cached
        with self.lock:
            now = {
                name: {rel: state.stats[rel] for rel in state.files if rel in state.stats}
                for name, state in self.repos.items()
            }
        kept = {
            name: lintcache.fresh_facts(lintcache.facts_file(state.mount), now[name], self._key_sets)
            for name, state in self.repos.items()
        }
        with self.lock:
            warm: set[tuple[str, str]] = set()
            missed = False  # a file the caches do not hold as it is now
            for name, state in self.repos.items():
                listed = set(state.files)
                for rel in loaded.paths(name):
                    if rel not in listed:
                        loaded.remove_file(name, rel)
                again, _gone = diskcache.stale_paths(old_stats.get(name, {}), now[name], written)
                stale = set(again)
                facts = kept[name]
                for rel in state.files:
                    st = now[name].get(rel)
                    if rel in stale or st is None:
                        missed = True
                        continue
                    whole = rel in state.escaping or not is_markdown(rel) or st[1] > MAX_PARSE_BYTES
                    if not whole and rel not in facts:
                        missed = True
                    elif rel != MEMORY_FILE and (name, rel) not in self._indexed:  # those are read again
                        if not whole:
                            state.facts[rel] = facts[rel]
                        warm.add((name, rel))  # a file amr does not parse is indexed by its name only
            generation = self.index.generation
            self.index.__dict__.clear()
            self.index.__dict__.update(loaded.__dict__)
            self.index.generation = max(generation, loaded.generation) + 1  # every finder starts again
            self._indexed = warm
            self._cache_stale = missed

    def save_caches(self) -> None:
        """Keep the search index and every file's lint facts for the next start (and for
        ``amr search`` and ``amr lint``, which read the same caches), when this session read
        files the caches did not hold. The index is written under the lock (its postings
        change in place): most of the 2.8 s this takes at a million entries (docs/scale.md)."""
        if not diskcache.enabled():
            return
        with self.lock:
            if not self._cache_stale or not self._index_done:
                return
            stats = {
                name: {rel: state.stats[rel] for rel in state.files if rel in state.stats}
                for name, state in self.repos.items()
            }
            facts = {name: dict(state.facts) for name, state in self.repos.items()}
            searchload.save(searchcache.cache_file([s.mount for s in self.repos.values()]), self.index, stats)
            self._cache_stale = False
        for name, state in self.repos.items():
            lintcache.save_facts(lintcache.facts_file(state.mount), stats[name], facts[name])

    def lint_all(self) -> None:
        """The repo-wide lint of every repo (links, Index, duplicates), once every file is parsed."""
        for state in self.repos.values():
            self.relint(state)
        with self.lock:
            self._linted = True
        gc.freeze()  # what was loaded stays; later collections skip it

    def refresh_badges(self) -> None:
        """Each repo's badge (git status, ahead/behind, last sync)."""
        for name in self.repos:
            self.watch.refresh_info(name)

    def badge(self, repo: str) -> RepoInfo:
        """The repo's badge as last read, or a bare one (its name) before git status was read: no git runs."""
        with self.lock:
            info = self.repos[repo].info
        if info is not None:
            return info
        return RepoInfo(repo, read_only=self.repos[repo].mount.read_only, note=self.refusal_note(repo))

    def _stat(self, state: RepoState, rel: str) -> tuple[int, int] | None:
        try:
            st = os.lstat(state.mount.root / rel)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def load_file(self, state: RepoState, rel: str) -> None:
        """Read one file again (its stat, facts and entries; its document when one is kept)."""
        st = self._stat(state, rel)
        parsed = self._parse(state, rel, st, None)
        with self.lock:
            if st is not None:
                state.stats[rel] = st
            self._absorb(state, rel, parsed)
            self.index.set_file(state.mount.name, rel, parsed.entries if parsed else [])
            self._cache_stale = True
            if not self._index_done:
                self._indexed.add((state.mount.name, rel))

    @staticmethod
    def _parses(state: RepoState, rel: str, st: tuple[int, int] | None) -> bool:
        """``rel`` (of stat ``st``) is a Markdown file amr parses (inside the root, not too large to)."""
        return rel not in state.escaping and is_markdown(rel) and st is not None and st[1] <= MAX_PARSE_BYTES

    def _parse(
        self, state: RepoState, rel: str, st: tuple[int, int] | None, checked_dirs: dict[str, bool] | None
    ) -> _Parsed | None:
        """Read and parse one Markdown file (no lock taken); None when it is not one amr parses."""
        if not self._parses(state, rel, st):
            return None
        data = read_bytes(state.mount.root, rel, checked_dirs=checked_dirs)
        if data is None:
            return None
        return self._parsed(state, parse(data, rel))

    def _parsed(self, state: RepoState, doc: Document) -> _Parsed:
        return _Parsed(
            doc,
            facts_of(doc, self._key_sets, whole=state.style != "amr"),
            searchable_lines(doc, prose=state.style != "amr"),
        )

    def _from_pool(self, readings: list[parsepool.Parsed]) -> dict[str, _Parsed | None]:
        """A worker's readings as the session's own (no Document: it parses those it keeps)."""
        return {
            rel: None if got is None else _Parsed(None, unpack(got[0], self._key_sets), got[1]) for rel, got in readings
        }

    @staticmethod
    def _absorb(state: RepoState, rel: str, parsed: _Parsed | None) -> None:
        """Keep what a reading of ``rel`` found (under the lock): its facts and metadata, and its
        document when it is MEMORY.md or one already kept (refreshed; let go when the reading
        came from a worker, which sends no Document: it is parsed again when asked for)."""
        if parsed is None:
            state.forget_parse(rel)
            return
        state.facts[rel] = parsed.facts
        if parsed.doc is None:
            state.docs.pop(rel, None)
        elif rel == MEMORY_FILE or rel in state.docs:
            keep_doc(state, rel, parsed.doc)

    def _snapshot(self, state: RepoState, sizes: Iterable[str] | None = None) -> RepoSnapshot:
        """A copy of ``state``'s files, documents and sizes for the linter, taken under the lock.
        ``sizes``: the files whose size the lint reads (None: every file's)."""
        with self.lock:
            stats = state.stats
            return RepoSnapshot(
                state.mount.name,
                set(state.files),
                dict(state.docs),
                set(state.escaping),
                {p: s[1] for p, s in stats.items()} if sizes is None else {p: stats[p][1] for p in sizes if p in stats},
                facts=dict(state.facts),
                style=state.style,
                budget=budget_of(state.mount),
            )

    def link_graph(self, repo: str) -> LinkGraph:
        """Who links to whom in ``repo`` (``core.graph``), as far as it is read; its orphans are
        the lint's (AMR013), as the tree marks them. A thread worker's job: every link is resolved."""
        state = self.repos[repo]
        snap = self._snapshot(state, sizes=())
        with self.lock:
            orphans = [p for p, found in state.findings.items() if any(f.diagnostic.code == "AMR013" for f in found)]
        return build_graph(snap, orphans)

    def relint(self, state: RepoState) -> None:
        snap = self._snapshot(state)
        if state.git is not None and state.mount.name not in self.refusals:
            snap.undefined_merge_drivers = lint_merge_drivers(state.mount.root)
        by_file: dict[str, list[Finding]] = {}
        with self.lock:
            extra = list(state.history_findings)
        entries = sum(f.count for f in snap.facts.values())
        found = lint_repo(snap, contradictions=entries <= CONTRADICTIONS_MAX_ENTRIES)
        if state.git is not None and any(f.diagnostic.code == "AMR033" for f in found):
            authors = self.authors(state.mount.name)  # who wrote each side, as `amr lint` says it
            if authors is not None:
                found = label_contradictions(authors, found)
        for finding in [*found, *extra]:
            by_file.setdefault(finding.path, []).append(finding)
        with self.lock:
            state.findings = by_file

    def relint_some(self, state: RepoState, paths: list[str]) -> None:
        """After a few files changed: a small repo is re-linted whole; a large one re-lints those
        files now (their rules and links) and the whole-repo checks on the next quiet poll."""
        with self.lock:
            whole = self._linted and len(state.facts) <= FULL_RELINT_MAX_DOCS
        if whole:
            self.relint(state)
            return
        # lint_file reads one size, MEMORY.md's (its load budget): copying all 20,000 at 1M
        # entries was a third of a save's cost
        snap = self._snapshot(state, sizes=(MEMORY_FILE,))
        fresh = {p: lint_file(snap, p) for p in paths if p in snap.documents or p in snap.facts}
        with self.lock:
            for p in paths:
                state.findings.pop(p, None)
            for p, found in fresh.items():
                if found:
                    state.findings[p] = found
            state.lint_stale = True

    def check_history(self, repo: str) -> int:
        """Resurrected facts (AMR030) from git history; slow the first time. Returns how many."""
        state = self.repos[repo]
        if state.git is None or repo in self.refusals:
            return 0
        with self.lock:
            paths = state.history_paths
            state.history_paths = set()  # what changes from now on is looked at by the next check
            state.history_stale = False  # a change from now on asks again
            before = list(state.history_findings)
        try:
            if paths is None:
                found = list(self.history(repo).resurrections())
            else:
                # Only an entry written since can bring a forgotten fact back (one written before
                # a forget is a duplicate that stayed), and a commit since may put a forgotten fact
                # back on purpose: the changed files and those of the findings are read again.
                look = paths | {f.path for f in before}
                found = [f for f in before if f.path not in look]
                found += self.history(repo).resurrections(look) if look else []
                found.sort(key=lambda f: (f.path, f.diagnostic.line))
        except BaseException:
            with self.lock:
                state.history_paths = (
                    None if paths is None or state.history_paths is None else state.history_paths | paths
                )
                state.history_stale = True
            raise
        with self.lock:
            same = state.history_findings == found
            state.history_findings = found
        if not same:  # the marks change only when the findings do (a poll re-checks often)
            self.relint(state)
        return len(found)

    # ------------------------------------------------------------------- reads
    def style(self, repo: str) -> str:
        """The repo's memory format (``workspace.style_of``; ``core.formats`` has its profile)."""
        return self.repos[repo].style

    def files(self, repo: str) -> list[str]:
        with self.lock:
            return list(self.repos[repo].files)

    def info(self, repo: str) -> RepoInfo:
        with self.lock:
            info = self.repos[repo].info
        return info if info is not None else self.watch.refresh_info(repo)

    def document(self, repo: str, path: str, *, keep: bool = True) -> Document | None:
        """The parsed Markdown file (None when amr does not parse it: not Markdown, too large,
        outside the root, missing). Kept ones answer at once; another is read and parsed now
        and kept (``KEEP_DOCS``) unless ``keep`` is False (a scan over many files that should
        not push the files the user opened out)."""
        state = self.repos[repo]
        with self.lock:
            doc = state.docs.get(path)
            if doc is not None or path in state.escaping or not is_markdown(path):
                return doc
        if not path_is_safe(state.mount.root, path):
            return None
        st = self._stat(state, path)
        if st is None or st[1] > MAX_PARSE_BYTES:
            return None
        data = read_bytes(state.mount.root, path)
        if data is None:
            return None
        doc = parse(data, path)
        with self.lock:
            kept = state.docs.get(path)  # read meanwhile (a reload): that one is as new
            if kept is not None:
                return kept
            if keep:
                keep_doc(state, path, doc)
        return doc

    def open(self, repo: str, path: str) -> OpenFile:
        """Read a file for display or editing, with the HEAD it was read at."""
        state = self.repos[repo]
        if path in state.escaping or not path_is_safe(state.mount.root, path):
            return OpenFile(
                repo,
                path,
                None,
                None,
                None,
                "outside the repo",
                f"{path} is outside the memory root (.., an absolute path, .git or a symlink that "
                f"leaves it); amr does not open it.",
            )
        head = None
        if state.git is not None:
            try:
                head = state.git.head()
            except AmrGitError:
                head = None
        st = self._stat(state, path)
        if st is None:
            return OpenFile(repo, path, None, None, head, "missing", f"{path} does not exist (yet).")
        if st[1] > LARGE_FILE_BYTES:
            return OpenFile(
                repo,
                path,
                None,
                None,
                head,
                "too large",
                f"{path} is {st[1] / 1e6:.1f} MB: too large to load into the editor. Open it with $EDITOR (ctrl+e).",
            )
        data = read_bytes(state.mount.root, path, LARGE_FILE_BYTES)
        if data is None:
            return OpenFile(repo, path, None, None, head, "unreadable", f"{path} cannot be read.")
        doc = parse(data, path)
        read_only = None
        if state.mount.read_only:
            read_only = self.refusal_note(repo) or "the repo is mounted read-only"
        elif not doc.utf8:
            read_only = "the file is not UTF-8 (amr keeps its bytes untouched)"
        elif b"\0" in data:
            read_only = "the file is binary"
        if is_markdown(path):
            parsed = self._parsed(state, doc) if st[1] <= MAX_PARSE_BYTES else None
            with self.lock:
                keep_doc(state, path, doc)
                if parsed is not None and not self._index_done and (repo, path) not in self._indexed:
                    # Opened before the first indexing reached it: indexed now, as it was read.
                    self._absorb(state, path, parsed)
                    self.index.set_file(repo, path, parsed.entries)
                    self._indexed.add((repo, path))
                    state.stats[path] = st
        return OpenFile(repo, path, data, doc, head, read_only)

    def diagnostics(self, repo: str, path: str) -> list[Diagnostic]:
        with self.lock:
            return [f.diagnostic for f in self.repos[repo].findings.get(path, [])]

    def marks(self, repo: str, path: str) -> dict[int, Severity]:
        out: dict[int, Severity] = {}
        for d in self.diagnostics(repo, path):
            if d.line and (d.line not in out or d.severity.rank < out[d.line].rank):
                out[d.line] = d.severity
        return out

    def resolve_link(
        self, repo: str, link: Link, from_path: str | None = None
    ) -> tuple[LinkState, str | None, str | None]:
        """(state, resolved path, suggestion). Links start at the root of the repo that holds them;
        a heading link with no file (``[[#Heading]]``) names ``from_path``, the file holding it."""
        state = self.repos[repo]
        if from_path is not None and not link.target.strip() and split_heading(link.raw):
            return LinkState.OK, from_path, None
        with self.lock:
            files = set(state.files)
            escaping = set(state.escaping)
        names = self._names(state, files)
        res = resolve(link.target, files, None, names)
        if res.state is LinkState.BROKEN and (rest := off_by_a_folder(link)) is not None:
            again = resolve(rest, files, None, names)  # as lint reads it (core.format.links.off_by_a_folder)
            res = again if again.state is LinkState.OK else res
        if res.state is LinkState.OK and res.path in escaping:
            return LinkState.ESCAPES, None, None
        return res.state, res.path, res.suggestion

    def _names(self, state: RepoState, files: set[str]) -> Callable[[], NameIndex] | None:
        """What finds a note by name, when the repo's format links so (``links_by_name``); built
        once for a listing of the files."""
        if not links_by_name(state.style):
            return None
        key = (id(state.files), len(files), len(state.facts))  # titles come with the facts read

        def build() -> NameIndex:
            cached = self._name_indexes.get(state.mount.name)
            if cached is not None and cached[0] == key:
                return cached[1]
            titles = None
            links = profile_of(state.style).links
            if "title" in links:  # basic-memory's and Claude Code's [[Note Title]]
                with self.lock:
                    titles = {p: f.title for p, f in state.facts.items() if f.title}
            index = NameIndex(files, titles, typed="typed" in links)
            self._name_indexes[state.mount.name] = (key, index)
            return index

        return build

    def link_states(self, repo: str, doc: Document) -> dict[tuple[int, int], LinkState]:
        state = self.repos[repo]
        with self.lock:
            files = set(state.files)
            escaping = set(state.escaping)
        lower = functools.cache(lambda: {f.lower(): f for f in files})  # for a broken link's suggestion
        names = self._names(state, files)
        return link_states_of(doc, lambda target: resolve(target, files, lower, names), escaping)

    def link_line(self, repo: str, path: str, link: Link) -> int | None:
        """The line of the heading ``link`` names in ``path`` (a parsed Markdown file): 0 when
        the link names no heading, None when the file has no such heading."""
        heading = split_heading(link.raw)
        if not heading or heading.startswith("^"):
            return 0
        doc = self.document(repo, path)
        if doc is None:
            return 0
        return heading_line(heading, doc.headings)

    def backlinks(self, repo: str, path: str) -> list[Backlink]:
        """Every link in the repo that resolves to ``path``, with the entry (or line) holding it."""
        state = self.repos[repo]
        with self.lock:
            files = set(state.files)
            facts = dict(state.facts)
            docs = dict(state.docs)
        lower = {f.lower(): f for f in files}
        names = self._names(state, files)

        def here(links: Iterable[Link]) -> list[Link]:
            return [
                link
                for link in links
                if (res := resolve(link.target, files, lower, names)).state is LinkState.OK and res.path == path
            ]

        out: list[Backlink] = []
        for src in sorted(facts.keys() | docs.keys()):
            doc = docs.get(src)
            found = here(doc.links if doc is not None else facts[src].links)
            if found and doc is None:
                doc = self.document(repo, src, keep=False)  # only the files that link here are read again
                found = here(doc.links) if doc is not None else []  # as it reads now (facts may be a poll behind)
            if doc is None:
                continue
            for link in found:
                entry = doc.entry_at(link.line)
                text = entry.text if entry else doc.lines[link.line - 1].text.strip()
                out.append(Backlink(src, link.line, text))
        return out

    def outgoing(self, repo: str, doc: Document) -> list[tuple[Link, LinkState, str | None]]:
        states = self.link_states(repo, doc)
        out = []
        for link in doc.links:
            st = states[(link.line, link.start)]
            path = None
            if st is LinkState.OK:
                files = set(self.files(repo))
                names = self._names(self.repos[repo], files)
                path = resolve(link.target, files, None, names).path if link.target.strip() else doc.path
            out.append((link, st, path))
        return out

    def entry(self, repo: str, path: str, line: int) -> Entry | None:
        doc = self.document(repo, path)
        return doc.entry_at(line) if doc else None

    def search(self, query: str, limit: int = 50, *, repos: list[str] | None = None) -> list[SearchHit]:
        """The finder's search; raises QueryError for a malformed filter."""
        with self.lock:
            return self.index.search(query, limit, repos=repos, context=self.search_context)

    @property
    def search_context(self) -> SearchFacts:
        with self.lock:
            if self._search_context is None:
                self._search_context = session_context(self)
            return self._search_context

    def search_session(self) -> LockedSearch:
        return LockedSearch(self)

    def git(self, repo: str) -> GitRepo | None:
        return self.repos[repo].git

    def history(self, repo: str) -> HistoryService:
        """The repo's HistoryService (one per repo, kept for the session; it holds a blob reader)."""
        with self.lock:
            service = self._history.get(repo)
            if service is None:
                service = self._history[repo] = HistoryService(self.repos[repo].mount)
            return service

    def dreams(self, repo: str) -> DreamService:
        """The repo's DreamService (pending dreaming runs and their review)."""
        with self.lock:
            service = self._dreams.get(repo)
            if service is None:
                service = self._dreams[repo] = DreamService(self.repos[repo].mount)
                service.code = functools.partial(
                    self.verifying.sources, repo
                )  # the review checks new entries' evidence
            return service

    def authors(self, repo: str) -> Authors | None:
        """Who wrote each line of the repo's files (``by:``, contradiction labels); None without git."""
        with self.lock:
            if repo not in self._authors:
                state = self.repos.get(repo)
                self._authors[repo] = Authors(state.git) if state is not None and state.git is not None else None
            return self._authors[repo]

    def file_cut(self, of: OpenFile, today: _dt.date | None = None) -> FileCut | None:
        """Where the agent that reads ``of``'s repo stops loading it at session start, with its
        gauge (``services.loads``); None when that agent does not read the file at start."""
        if of.data is None or of.doc is None or of.repo not in self.repos:
            return None
        return file_cut_of(self.repos[of.repo].mount, of.path, of.data, of.doc, today)

    def activity(self, repo: str) -> ActivityService:
        """The repo's ActivityService (what others committed since the user's last review); its
        reverts go through the write gate with this session as the target (files re-read)."""
        with self.lock:
            service = self._activity.get(repo)
            if service is None:
                # resurrections come from the repo's history service: the walk AMR030 keeps
                service = self._activity[repo] = ActivityService(self.repos[repo].mount, self, self.history(repo))
            return service

    def close(self) -> None:
        with self.lock:
            services: list[HistoryService | DreamService | ActivityService] = [
                *self._history.values(),
                *self._dreams.values(),
                *self._activity.values(),
            ]
            self._history.clear()
            self._dreams.clear()
            self._activity.clear()
        for service in services:
            try:
                service.close()
            except Exception:  # closing is best effort
                pass


def keep_doc(state: RepoState, path: str, doc: Document) -> None:
    """Keep ``doc`` as ``path``'s newest parsed document (under the lock), the oldest kept one
    (never MEMORY.md) dropped past ``KEEP_DOCS``."""
    docs = state.docs
    docs.pop(path, None)
    docs[path] = doc
    if len(docs) > KEEP_DOCS:
        for old in docs:
            if old != MEMORY_FILE and old != path:
                del docs[old]
                break


class LockedSearch:
    """A per-search-box session that narrows between keystrokes, safe to call from a worker."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._search = SearchSession(session.index)

    def __call__(self, query: str, limit: int = 50) -> list[SearchHit]:
        with self.session.lock:
            return self._search.search(query, limit, context=self.session.search_context)
