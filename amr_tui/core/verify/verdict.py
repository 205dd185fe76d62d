"""Judging evidence against a code repo: :class:`CodeFacts` (gathered with git by
``amr_tui.git.codefacts``) and :func:`check` (pure).

Each piece of evidence **holds** (it is there at the code repo's HEAD), **moved** (git knows a
rename: a file ``git log -M`` saw renamed, a script or target renamed in its manifest with the
same command, an identifier whose removed line came back in the same commit with another name
in its place), is **gone** (it was there and is not: deleted, a reverted commit, a branch merged
and deleted; the commit and day say since when) or is **unknown** (never in the code repo's
history: the fact may be about another repo, and is never flagged).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from amr_tui.core.verify.evidence import Evidence
from amr_tui.core.verify.manifests import FAMILY_OF_TOOL

HOLDS, MOVED, GONE, UNKNOWN = "holds", "moved", "gone", "unknown"
STALE = (GONE, MOVED)
_RANK = {GONE: 0, MOVED: 1, HOLDS: 2, UNKNOWN: 3}


@dataclass(frozen=True, slots=True)
class Change:
    """A commit that removed or renamed something: its id, day (``YYYY-MM-DD``), subject and,
    for a rename, the new name."""

    commit: str
    date: str
    subject: str
    to: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {"commit": self.commit, "date": self.date, "subject": self.subject, "to": self.to}

    @classmethod
    def of(cls, data: object) -> Change | None:
        if not isinstance(data, dict):
            return None
        return cls(str(data.get("commit", "")), str(data.get("date", "")), str(data.get("subject", "")), data.get("to"))


@dataclass(frozen=True, slots=True)
class CommitFact:
    oid: str
    date: str
    subject: str
    on_head: bool  # reachable from HEAD


@dataclass(slots=True)
class CodeFacts:
    """What amr knows of one code repo at one HEAD (plain data, cached per HEAD)."""

    name: str
    head: str
    files: set[str] = field(default_factory=set)
    path_changes: dict[str, Change] = field(default_factory=dict)  # old path -> newest delete/rename
    scripts: dict[str, dict[str, str]] = field(default_factory=dict)  # family -> {name: command} now
    script_changes: dict[str, dict[str, Change]] = field(default_factory=dict)  # family -> name -> change
    branches: set[str] = field(default_factory=set)
    merged: dict[str, Change] = field(default_factory=dict)  # branch -> the merge that took it
    words: dict[str, bool] = field(default_factory=dict)  # identifier -> found at HEAD
    word_changes: dict[str, Change | None] = field(default_factory=dict)  # absent identifier -> removal
    commits: dict[str, CommitFact | None] = field(default_factory=dict)  # prefix as written -> the commit
    reverts: dict[str, Change] = field(default_factory=dict)  # commit id -> the commit that reverted it
    _by_base: dict[str, list[str]] | None = None
    _dirs: set[str] | None = None
    _old_by_base: dict[str, list[str]] | None = None
    _by_stem: dict[str, list[str]] | None = None

    # -- indexes, built on first use
    def by_base(self) -> dict[str, list[str]]:
        if self._by_base is None:
            self._by_base = _grouped(self.files, _base_name)
        return self._by_base

    def by_stem(self) -> dict[str, list[str]]:
        """Files by their name without its extension (``redis`` -> ``lib/cache/redis.ts``)."""
        if self._by_stem is None:
            self._by_stem = _grouped(self.files, lambda p: _base_name(_stem(p)))
        return self._by_stem

    def dirs(self) -> set[str]:
        if self._dirs is None:
            out: set[str] = set()
            for p in self.files:
                parts = p.split("/")[:-1]
                for i in range(1, len(parts) + 1):
                    out.add("/".join(parts[:i]) + "/")
            self._dirs = out
        return self._dirs

    def old_by_base(self) -> dict[str, list[str]]:
        if self._old_by_base is None:
            self._old_by_base = _grouped(self.path_changes, _base_name)
        return self._old_by_base


def _base_name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _grouped(paths: Iterable[str], key: Callable[[str], str]) -> dict[str, list[str]]:
    """``paths`` by ``key`` (a name, for the indexes of ``CodeFacts``)."""
    index: dict[str, list[str]] = {}
    for p in paths:
        index.setdefault(key(p), []).append(p)
    return index


@dataclass(frozen=True, slots=True)
class Verdict:
    status: str  # holds, moved, gone, unknown
    detail: str  # one sentence for a person
    to: str | None = None  # where it moved
    commit: str | None = None  # the commit that removed or renamed it
    date: str | None = None  # that commit's day

    def to_json(self) -> dict[str, str | None]:
        return {"status": self.status, "detail": self.detail, "to": self.to, "commit": self.commit, "date": self.date}


def worst(statuses: Iterable[str]) -> str | None:
    """The status an entry gets from its evidence: gone before moved before holds; None when
    nothing could be judged (no evidence, or only unknown)."""
    found = sorted(statuses, key=lambda s: _RANK.get(s, 9))
    return found[0] if found and found[0] != UNKNOWN else None


def words_of(ev: Evidence) -> list[str]:
    """The identifiers ``git grep -w`` looks for to judge a symbol or config name (each part of a
    qualified name: ``LedgerService.post_entry`` is ``LedgerService`` and ``post_entry``)."""
    if ev.kind not in ("symbol", "config"):
        return []
    parts = ev.value.replace("::", ".").replace("#", ".").split(".")
    return [p for p in parts if p]


def _stem(path: str) -> str:
    """``lib/cache/redis.ts`` -> ``lib/cache/redis``."""
    head, _, name = path.rpartition("/")
    stem = name.rsplit(".", 1)[0] if "." in name.strip(".") else name
    return f"{head}/{stem}" if head else stem


def _short(oid: str) -> str:
    return oid[:7]


def _since(ch: Change) -> str:
    return f"in {_short(ch.commit)} on {ch.date}" if ch.commit else "(when is not known)"


def check(ev: Evidence, facts: CodeFacts) -> Verdict:
    """The verdict on one piece of evidence (see the module docstring)."""
    if ev.kind == "path":
        return _path(ev.value, facts)
    if ev.kind == "module":
        return _module(ev.value, facts)
    if ev.kind in ("symbol", "config"):
        return _words(ev, facts)
    if ev.kind in ("script", "target"):
        return _script(ev, facts)
    if ev.kind == "branch":
        return _branch(ev.value, facts)
    if ev.kind == "commit":
        return _commit(ev.value, facts)
    return Verdict(UNKNOWN, f"amr does not check a {ev.kind}")


# ------------------------------------------------------------------ paths


def _matches_now(path: str, facts: CodeFacts) -> list[str]:
    """Files or folders at HEAD the cited path names: itself, or a path ending in it."""
    if path.endswith("/"):
        dirs = facts.dirs()
        if path in dirs:
            return [path]
        return sorted(d for d in dirs if d.endswith("/" + path))
    if path in facts.files:
        return [path]
    if path + "/" in facts.dirs():
        return [path + "/"]
    base = path.rsplit("/", 1)[-1]
    out = [p for p in facts.by_base().get(base, []) if p.endswith("/" + path)]
    if out:
        return sorted(out)
    if "." not in base:  # lib/redis: lib/redis.ts, or a folder named by its tail
        out = sorted(d for d in facts.dirs() if d.endswith("/" + path + "/"))
        if out:
            return out
        return sorted(p for p in facts.by_stem().get(base, []) if _stem(p) == path or _stem(p).endswith("/" + path))
    return []


def _history(path: str, facts: CodeFacts) -> list[str]:
    """Paths in history (deleted or renamed) the cited path names."""
    if path.endswith("/"):
        return sorted(p for p in facts.path_changes if p.startswith(path) or ("/" + path) in "/" + p)
    if path in facts.path_changes:
        return [path]
    base = path.rsplit("/", 1)[-1]
    out = [p for p in facts.old_by_base().get(base, []) if p.endswith("/" + path)]
    if "/" not in path and len(out) > 1:
        return []  # a bare name several deleted files had: which one is meant is not known
    if out or "." in base:
        return sorted(out)
    return sorted(p for p in facts.path_changes if p.startswith(path + ".") and "/" not in p[len(path) :])


def _follow(path: str, facts: CodeFacts) -> tuple[str, Change, Change]:
    """Follow renames from ``path``: (where it ends, the first change, the last change)."""
    first = facts.path_changes[path]
    last = first
    cur = path
    seen = {path}
    while True:
        ch = facts.path_changes.get(cur)
        if ch is None or ch.to is None:
            return cur, first, last if ch is None else ch
        last = ch
        cur = ch.to
        if cur in seen or cur in facts.files:
            return cur, first, last
        seen.add(cur)


def _path(path: str, facts: CodeFacts) -> Verdict:
    now = _matches_now(path, facts)
    if now:
        shown = now[0] if now[0] != path else path
        more = f" (and {len(now) - 1} more)" if len(now) > 1 else ""
        return Verdict(HOLDS, f"{shown} is in {facts.name}{more}" if shown != path else f"in {facts.name} at HEAD")
    old = _history(path, facts)
    if not old:
        return Verdict(UNKNOWN, f"never in the history of {facts.name}")
    if path.endswith("/"):
        return _folder(path, old, facts)
    for p in old:
        end, first, last = _follow(p, facts)
        if end in facts.files and end != p:
            return Verdict(MOVED, f"renamed to {end} {_since(first)}", end, first.commit, first.date)
    newest = max((facts.path_changes[p] for p in old), key=lambda c: c.date)
    return Verdict(GONE, f"deleted {_since(newest)}: {newest.subject}", None, newest.commit, newest.date)


def _folder(path: str, old: list[str], facts: CodeFacts) -> Verdict:
    targets = set()
    for p in old:
        end, _first, _last = _follow(p, facts)
        if end in facts.files:
            rest = p[p.index(path) + len(path) :] if path in p else p.rsplit("/", 1)[-1]
            if end.endswith(rest):
                targets.add(end[: len(end) - len(rest)])
    changes = [facts.path_changes[p] for p in old]
    newest = max(changes, key=lambda c: c.date)
    if len(targets) == 1:
        to = targets.pop()
        return Verdict(MOVED, f"its files moved to {to} {_since(newest)}", to, newest.commit, newest.date)
    return Verdict(
        GONE, f"its files were deleted; the last {_since(newest)}: {newest.subject}", None, newest.commit, newest.date
    )


def _module(name: str, facts: CodeFacts) -> Verdict:
    base = name.replace(".", "/")
    for cand in (base + ".py", base + "/__init__.py", base + "/__main__.py", base + "/"):
        if _matches_now(cand, facts):
            return Verdict(HOLDS, f"module {name} is in {facts.name}")
    for cand in (base + ".py", base + "/__init__.py"):
        v = _path(cand, facts)
        if v.status != UNKNOWN:
            return v
    return Verdict(UNKNOWN, f"never in the history of {facts.name} (a library module?)")


# ------------------------------------------------------------------ identifiers


def _words(ev: Evidence, facts: CodeFacts) -> Verdict:
    parts = words_of(ev)
    missing = [p for p in parts if not facts.words.get(p, False)]
    if not missing:
        return Verdict(HOLDS, f"found in {facts.name} at HEAD")
    for word in missing:
        ch = facts.word_changes.get(word)
        if ch is None:
            continue
        if ch.to and facts.words.get(ch.to, False):
            to = ev.value.replace(word, ch.to) if word != ev.value else ch.to
            return Verdict(MOVED, f"renamed to {to} {_since(ch)}: {ch.subject}", to, ch.commit, ch.date)
        return Verdict(GONE, f"{word} was removed {_since(ch)}: {ch.subject}", None, ch.commit, ch.date)
    return Verdict(UNKNOWN, f"{missing[0]} was never in the history of {facts.name}")


# ------------------------------------------------------------------ scripts and targets


def _families(ev: Evidence) -> list[str]:
    if ev.tool in FAMILY_OF_TOOL:
        return [FAMILY_OF_TOOL[ev.tool]]
    return ["package", "pyproject"] if ev.kind == "script" else ["make", "just"]


def _script(ev: Evidence, facts: CodeFacts) -> Verdict:
    fams = _families(ev)
    for fam in fams:
        if ev.value in facts.scripts.get(fam, {}):
            return Verdict(HOLDS, f"{_where(fam)} has {ev.value}")
    for fam in fams:
        ch = facts.script_changes.get(fam, {}).get(ev.value)
        if ch is None:
            continue
        what = "target" if fam in ("make", "just") else "script"
        if ch.to and ch.to in facts.scripts.get(fam, {}):
            return Verdict(MOVED, f"the {what} was renamed {ch.to} {_since(ch)}", ch.to, ch.commit, ch.date)
        return Verdict(GONE, f"{_where(fam)} dropped the {what} {_since(ch)}: {ch.subject}", None, ch.commit, ch.date)
    return Verdict(UNKNOWN, f"no {_where(fams[0])} of {facts.name} ever had it")


def _where(fam: str) -> str:
    return {"package": "package.json", "pyproject": "pyproject.toml", "make": "the Makefile", "just": "the justfile"}[
        fam
    ]


# ------------------------------------------------------------------ branches and commits


def _branch(name: str, facts: CodeFacts) -> Verdict:
    if name in facts.branches:
        return Verdict(HOLDS, f"branch {name} exists")
    ch = facts.merged.get(name)
    if ch is not None:
        return Verdict(GONE, f"merged {_since(ch)} and deleted", None, ch.commit, ch.date)
    return Verdict(UNKNOWN, f"no branch {name} in {facts.name}, and no merge of it")


def _commit(prefix: str, facts: CodeFacts) -> Verdict:
    found = facts.commits.get(prefix)
    if found is None:
        return Verdict(UNKNOWN, f"no commit {prefix} in {facts.name}")
    rev = facts.reverts.get(found.oid)
    if rev is not None:
        return Verdict(GONE, f"reverted {_since(rev)}", None, rev.commit, rev.date)
    where = "on HEAD's history" if found.on_head else "not on HEAD's history"
    return Verdict(HOLDS, f"{_short(found.oid)} ({found.date}, {where}): {found.subject}")


__all__ = [
    "GONE",
    "HOLDS",
    "MOVED",
    "STALE",
    "UNKNOWN",
    "Change",
    "CodeFacts",
    "CommitFact",
    "Verdict",
    "check",
    "words_of",
    "worst",
]
