"""The facts of a code repo at its HEAD, gathered with git once and kept per HEAD.

:func:`facts_for` opens the code repo (a repo git refuses, or one whose config points its work
tree elsewhere, is refused like a memory repo would be), reads HEAD and returns a
:class:`~amr_tui.core.verify.verdict.CodeFacts` holding what the evidence asked needs: the files
at HEAD and the deletions and renames of history, the scripts and targets of its manifests and
their history, its branches, merged branches and reverts (read once per HEAD), and for the
identifiers and commits asked, whether they are there (``git grep`` of all of them at once) and,
for those that are not, when they went (one ``git log -p``). Everything read is cached in the
user's cache folder (``verify/``), keyed by the code repo's path and HEAD: a second run against
the same HEAD runs ``git rev-parse`` and nothing else. ``AMR_NO_CACHE=1`` skips the cache.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from amr_tui.core.verify.verdict import Change, CodeFacts, CommitFact
from amr_tui.git import codefacts as cf
from amr_tui.git.errors import AmrGitError
from amr_tui.git.handle import RepoHandle
from amr_tui.services.batch import diskcache

FORMAT = 1


class CodeRepoError(Exception):
    """The code repo cannot be read (not a git repo, refused, no commits); the message says why."""


def _change(c: Change) -> tuple[str, str, str, str | None]:
    return (c.commit, c.date, c.subject, c.to)


def _unchange(t: Any) -> Change:
    return Change(str(t[0]), str(t[1]), str(t[2]), None if t[3] is None else str(t[3]))


def to_plain(f: CodeFacts) -> dict[str, Any]:
    return {
        "name": f.name,
        "head": f.head,
        "files": sorted(f.files),
        "path_changes": {k: _change(v) for k, v in f.path_changes.items()},
        "scripts": f.scripts,
        "script_changes": {fam: {k: _change(v) for k, v in d.items()} for fam, d in f.script_changes.items()},
        "branches": sorted(f.branches),
        "merged": {k: _change(v) for k, v in f.merged.items()},
        "words": f.words,
        "word_changes": {k: None if v is None else _change(v) for k, v in f.word_changes.items()},
        "commits": {k: None if v is None else (v.oid, v.date, v.subject, v.on_head) for k, v in f.commits.items()},
        "reverts": {k: _change(v) for k, v in f.reverts.items()},
    }


def from_plain(d: dict[str, Any]) -> CodeFacts:
    return CodeFacts(
        name=str(d["name"]),
        head=str(d["head"]),
        files=set(d["files"]),
        path_changes={k: _unchange(v) for k, v in d["path_changes"].items()},
        scripts={fam: dict(v) for fam, v in d["scripts"].items()},
        script_changes={fam: {k: _unchange(v) for k, v in m.items()} for fam, m in d["script_changes"].items()},
        branches=set(d["branches"]),
        merged={k: _unchange(v) for k, v in d["merged"].items()},
        words=dict(d["words"]),
        word_changes={k: None if v is None else _unchange(v) for k, v in d["word_changes"].items()},
        commits={
            k: None if v is None else CommitFact(str(v[0]), str(v[1]), str(v[2]), bool(v[3]))
            for k, v in d["commits"].items()
        },
        reverts={k: _unchange(v) for k, v in d["reverts"].items()},
    )


def open_code_repo(path: Path) -> RepoHandle:
    """The code repo at ``path`` (its top level: a folder inside a work tree is that work tree)."""
    if not path.is_dir():
        raise CodeRepoError(f"{path}: no such folder")
    try:
        return RepoHandle(path)
    except AmrGitError as exc:
        raise CodeRepoError(f"{path}: {exc}") from None


def _cache_file(root: Path) -> Path | None:
    if not diskcache.enabled():
        return None
    return diskcache.cache_path("verify", {"code": str(root.resolve())})


def facts_for(path: Path, *, words: Iterable[str] = (), commits: Iterable[str] = ()) -> CodeFacts:
    """The facts of the code repo at ``path`` at its HEAD, holding at least ``words`` and
    ``commits`` (see the module docstring). Raises CodeRepoError."""
    repo = open_code_repo(path)
    try:
        head = repo.head()
    except AmrGitError as exc:
        raise CodeRepoError(f"{path}: {exc}") from None
    if head is None:
        raise CodeRepoError(f"{repo.root}: the code repo has no commits yet")
    cache = _cache_file(repo.root)
    facts: CodeFacts | None = None
    if cache is not None:
        payload = diskcache.load(cache, FORMAT)
        if payload is not None and payload.get("head") == head:
            try:
                facts = from_plain(payload["facts"])
            except (KeyError, TypeError, ValueError, IndexError):
                facts = None
    changed = False
    try:
        if facts is None:
            facts = _base(repo, head)
            changed = True
        changed |= _add_words(repo, facts, words)
        changed |= _add_commits(repo, facts, commits)
    except AmrGitError as exc:
        raise CodeRepoError(f"{repo.root}: {exc}") from None
    if cache is not None and changed:
        diskcache.save(cache, FORMAT, {"head": head, "facts": to_plain(facts)})
    return facts


def _base(repo: RepoHandle, head: str) -> CodeFacts:
    files = cf.files_at(repo, head)
    changes = cf.path_changes(repo, head)
    scripts, dropped = cf.manifest_facts(repo, head, files, changes)
    branches, merged = cf.branch_facts(repo, head)
    return CodeFacts(
        name=repo.root.name,
        head=head,
        files=files,
        path_changes=changes,
        scripts=scripts,
        script_changes=dropped,
        branches=branches,
        merged=merged,
        reverts=cf.reverts(repo, head),
    )


def _add_words(repo: RepoHandle, facts: CodeFacts, words: Iterable[str]) -> bool:
    new = sorted({w for w in words if w and w not in facts.words})
    if not new:
        return False
    found = cf.grep_words(repo, facts.head, new)
    for w in new:
        facts.words[w] = w in found
    absent = [w for w in new if w not in found]
    if absent:
        facts.word_changes.update(cf.word_removals(repo, facts.head, absent))
        renamed = {c.to for w in absent if (c := facts.word_changes.get(w)) is not None and c.to}
        ask = sorted(t for t in renamed if t not in facts.words)
        if ask:
            there = cf.grep_words(repo, facts.head, ask)
            for t in ask:
                facts.words[t] = t in there
    return True


def _add_commits(repo: RepoHandle, facts: CodeFacts, commits: Iterable[str]) -> bool:
    new = sorted({c for c in commits if c and c not in facts.commits})
    if not new:
        return False
    facts.commits.update(cf.commit_facts(repo, facts.head, new))
    return True


__all__ = ["CodeRepoError", "facts_for", "from_plain", "open_code_repo", "to_plain"]
