"""Who wrote each entry: the finder's ``by:NAME`` and the labels of possible contradictions.

An entry was written by what its ``by`` key says, else by the writers (``git.authors``) of the
commit that last wrote its line: the author's name and email and the commit's ``Agent`` and
``Written-with`` trailers. Cost: one ``git log`` per HEAD for every file's writers, then one
``git blame`` per file asked about, kept per HEAD and the file's stat. ``wrote`` blames a file
only when the name is among the writers of its history, so a name that never wrote a file costs
no blame there (and a name that wrote nothing costs none at all).

Contradictions (AMR033) name two lines; :meth:`Authors.label` says whether the same writer wrote
both ("one agent changed its mind") or two did ("two writers disagree").
"""

from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Protocol, TypeVar

from amr_tui.core.model import Finding
from amr_tui.git import GitRepo
from amr_tui.git.authors import ZERO, Writers, blame_commits, writers
from amr_tui.git.errors import AmrGitError

BLAMES_KEPT = 256  # files whose line commits are kept
SAME = "one agent changed its mind"
TWO = "two writers disagree"
# core.lint.repo._contradictions names the other line so: "contradicts line 4 (...)" in the same
# file, "contradicts path/to.md:4 (...)" in another.
_OTHER = re.compile(r"contradicts (?:line (?P<line>\d+)|(?P<path>.+?):(?P<pline>\d+)) \(")


def fold(text: str) -> str:
    return " ".join(text.casefold().split())


class _Result(Protocol):
    """A lint result (``services.lint.run.LintResult``): its repo and its finding."""

    @property
    def repo(self) -> str: ...

    @property
    def finding(self) -> Finding: ...


R = TypeVar("R", bound=_Result)


HEAD_TTL = 1.0  # seconds a resolved HEAD is trusted (a query, not a session)


class Authors:
    """One repo's writers, per HEAD, and its files' line commits, per HEAD and stat. Thread-safe."""

    def __init__(self, root: Path | GitRepo) -> None:
        self.repo = root if isinstance(root, GitRepo) else GitRepo(root)
        self._lock = threading.Lock()
        self._writers: tuple[str | None, Writers] | None = None
        self._blames: dict[str, tuple[tuple[object, ...], list[str]]] = {}
        self._head: tuple[float, str | None] | None = None

    def head(self) -> str | None:
        """HEAD, resolved at most once a second: a ``by:`` query asks for every line it checks
        (one ``git rev-parse`` a line made ``by:`` take minutes at 10,000 entries)."""
        now = time.monotonic()
        with self._lock:
            kept = self._head
        if kept is not None and now - kept[0] < HEAD_TTL:
            return kept[1]
        head = self.repo.resolve("HEAD")
        with self._lock:
            self._head = (now, head)
        return head

    def all(self) -> Writers:
        head = self.head()
        with self._lock:
            if self._writers is not None and self._writers[0] == head:
                return self._writers[1]
        found = writers(self.repo, head) if head else Writers({}, {}, {})
        with self._lock:
            self._writers = (head, found)
        return found

    def _commits(self, path: str) -> list[str]:
        try:
            st = os.stat(self.repo.root / path)
            key: tuple[object, ...] = (self.head(), st.st_mtime_ns, st.st_size)
        except OSError:
            return []
        with self._lock:
            kept = self._blames.get(path)
            if kept is not None and kept[0] == key:
                return kept[1]
        found = blame_commits(self.repo, path)
        with self._lock:
            self._blames[path] = (key, found)
            while len(self._blames) > BLAMES_KEPT:
                del self._blames[next(iter(self._blames))]
        return found

    def commit_of(self, path: str, line: int) -> str | None:
        """The commit that last wrote ``line`` of the work tree's ``path`` (None: not committed)."""
        commits = self._commits(path)
        oid = commits[line - 1] if 1 <= line <= len(commits) else None
        return None if oid in (None, ZERO) else oid

    def writers_of(self, path: str, line: int) -> tuple[str, ...]:
        oid = self.commit_of(path, line)
        return self.all().commits.get(oid, ()) if oid else ()

    def who(self, path: str, line: int) -> str | None:
        """The one name of who last wrote the line: the commit's Agent trailer, else its author."""
        oid = self.commit_of(path, line)
        return self.all().who.get(oid) if oid else None

    def wrote(self, path: str, line: int, name: str) -> bool:
        """``name`` (folded, a part of a writer's name or email) last wrote ``line`` of ``path``."""
        want = fold(name)
        history = self.all().files.get(path, set())
        if not any(want in fold(n) for n in history):
            return False  # never among the file's writers: no blame needed
        return any(want in fold(n) for n in self.writers_of(path, line))

    def label(self, a: tuple[str, int], b: tuple[str, int]) -> str | None:
        """``one agent changed its mind (X)`` or ``two writers disagree (X vs Y)`` for two lines;
        None when either was not committed."""
        first, second = self.who(*a), self.who(*b)
        if first is None or second is None:
            return None
        if fold(first) == fold(second):
            return f"{SAME} ({first})"
        return f"{TWO} ({first} vs {second})"


def label_contradictions(authors: Authors, findings: list[Finding]) -> list[Finding]:
    """Each AMR033 finding with who wrote its two lines added to its message."""
    out: list[Finding] = []
    for f in findings:
        d = f.diagnostic
        m = _OTHER.search(d.message) if d.code == "AMR033" else None
        said = None
        if m is not None:
            other = (f.path, int(m["line"])) if m["line"] else (m["path"], int(m["pline"]))
            try:
                said = authors.label(other, (f.path, d.line))
            except AmrGitError:
                said = None
        out.append(Finding(f.path, replace(d, message=f"{d.message} {said}")) if said else f)
    return out


def label_lint(results: list[R], roots: dict[str, Path]) -> list[R]:
    """``amr lint``'s results with their AMR033 findings labelled (``label_contradictions``),
    repo by repo (``roots``: each repo's folder; one without git is left as it is)."""
    out: list[R] = []
    by_repo: dict[str, Authors | None] = {}
    for r in results:
        if r.finding.diagnostic.code != "AMR033" or r.repo not in roots:
            out.append(r)
            continue
        if r.repo not in by_repo:
            root = roots[r.repo]
            by_repo[r.repo] = Authors(root) if (root / ".git").exists() else None
        authors = by_repo[r.repo]
        if authors is None:
            out.append(r)
            continue
        try:
            [labelled] = label_contradictions(authors, [r.finding])
        except AmrGitError:
            labelled = r.finding
        out.append(replace(r, finding=labelled))  # type: ignore[type-var]  # a LintResult: a dataclass
    return out


__all__ = ["SAME", "TWO", "Authors", "fold", "label_contradictions", "label_lint"]
