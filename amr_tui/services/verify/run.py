"""``amr verify``: each fact of a memory repo whose evidence no longer holds in its code.

:func:`verify_mount` reads every Markdown file of one mounted memory repo (amr's own records in
``.amr/`` excepted), finds the facts (``core.verify.units``) and what each cites
(``core.verify.evidence``), gathers the code repo's facts at its HEAD for all of them at once
(``services.verify.facts``: cached per HEAD) and judges each piece of evidence
(``core.verify.verdict``). With several code repos a piece of evidence takes its best verdict
(it holds in one of them: it holds). Nothing from the code repo is run and nothing is written in
either repo.

An entry's ``verified`` date is its ``verified:`` metadata (for a line of prose, the file's front
matter ``verified:``); an entry is **due** when it has evidence that holds and was last verified,
or else added, longer ago than the config's ``[verify] every`` (90 days), or never.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from amr_tui.core.format.parser import Document, parse
from amr_tui.core.format.rules import is_real_date
from amr_tui.core.paths import in_amr_folder, is_markdown
from amr_tui.core.verify.evidence import Evidence, extract
from amr_tui.core.verify.stamps import front_matter_line
from amr_tui.core.verify.units import units
from amr_tui.core.verify.verdict import GONE, HOLDS, MOVED, STALE, UNKNOWN, CodeFacts, Verdict, check, words_of, worst
from amr_tui.services.batch import diskcache
from amr_tui.services.verify.coderepo import CodeSource
from amr_tui.services.verify.facts import CodeRepoError, facts_for
from amr_tui.services.workspace import Mount, read_bytes, scan_files, style_of

_BEST = {HOLDS: 0, MOVED: 1, GONE: 2, UNKNOWN: 3}


@dataclass(frozen=True, slots=True)
class Checked:
    """One piece of evidence and its verdict (in the code repo named ``code``)."""

    evidence: Evidence
    verdict: Verdict
    code: str

    def to_json(self) -> dict[str, object]:
        ev = self.evidence
        return {
            "kind": ev.kind,
            "value": ev.value,
            "written": ev.written,
            "line_hint": ev.line,
            "tool": ev.tool,
            "code": self.code,
            **self.verdict.to_json(),
        }


@dataclass(slots=True)
class EntryCheck:
    repo: str
    path: str
    line: int
    text: str
    entry: bool  # a bullet (metadata can be written on it), else a line of prose
    checks: list[Checked]
    verified: str | None = None
    added: str | None = None
    due: bool = False

    @property
    def status(self) -> str | None:
        """gone, moved or holds (the worst of its evidence); None when nothing could be judged."""
        return worst(c.verdict.status for c in self.checks)

    @property
    def stale(self) -> bool:
        return self.status in STALE

    def to_json(self) -> dict[str, object]:
        return {
            "repo": self.repo,
            "path": self.path,
            "line": self.line,
            "text": self.text,
            "status": self.status,
            "verified": self.verified,
            "added": self.added,
            "due": self.due,
            "evidence": [c.to_json() for c in self.checks],
        }


@dataclass(slots=True)
class VerifyReport:
    repo: str
    sources: list[CodeSource]
    heads: dict[str, str] = field(default_factory=dict)  # code repo name -> HEAD judged
    entries: list[EntryCheck] = field(default_factory=list)  # facts with evidence, in file order
    errors: list[str] = field(default_factory=list)

    @property
    def stale(self) -> list[EntryCheck]:
        return [e for e in self.entries if e.stale]

    @property
    def due(self) -> list[EntryCheck]:
        return [e for e in self.entries if e.due and not e.stale]

    def at(self, path: str, line: int) -> EntryCheck | None:
        return next((e for e in self.entries if e.path == path and e.line == line), None)


def front_matter_value(doc: Document, key: str) -> str | None:
    """A plain ``key: value`` of the file's front matter."""
    found = front_matter_line(doc, key)
    return (found[1].strip().strip("'\"") or None) if found else None


def memory_files(mount: Mount) -> list[str]:
    files, escaping, _ = scan_files(mount.root, stats=False)
    return [p for p in files if is_markdown(p) and p not in escaping and not in_amr_folder(p)]


def facts_of(
    repo: str, path: str, doc: Document, *, prose: bool
) -> list[tuple[int, str, bool, list[Evidence], str | None, str | None]]:
    """(line, text, entry, evidence, verified, added) of each fact of ``doc`` that cites evidence."""
    out = []
    file_verified: str | None = None
    checked_front = False
    for unit in units(doc, prose=prose):
        found = extract(unit.text)
        if not found:
            continue
        verified = added = None
        if unit.entry:
            entry = doc.entry_at(unit.line)
            if entry is not None:
                verified, added = entry.first("verified"), entry.first("added")
        if verified is None and not unit.entry or verified is None and doc.front_matter:
            if not checked_front:
                file_verified, checked_front = front_matter_value(doc, "verified"), True
            verified = verified or file_verified
        out.append((unit.line, unit.text, unit.entry, found, verified, added))
    return out


def own_names(files: list[str]) -> set[str]:
    """The memory repo's own Markdown files, by path and by name: a path an entry cites that is
    one of them is a memory reference, not code."""
    return set(files) | {f.rsplit("/", 1)[-1] for f in files}


def names_memory(value: str, names: set[str]) -> bool:
    return value in names or value.rstrip("/") + ".md" in names


def due(verified: str | None, added: str | None, today: _dt.date, every: int) -> bool:
    """Last verified (or else added) longer than ``every`` days ago, or never."""
    last = next((d for d in (verified, added) if d and is_real_date(d.strip()[:10])), None)
    if last is None:
        return True
    return (today - _dt.date.fromisoformat(last.strip()[:10])).days > every


def judge(found: list[Evidence], facts: list[CodeFacts]) -> list[Checked]:
    """The best verdict of each piece of evidence across the code repos."""
    out = []
    for ev in found:
        best: Checked | None = None
        for f in facts:
            v = check(ev, f)
            if best is None or _BEST[v.status] < _BEST[best.verdict.status]:
                best = Checked(ev, v, f.name)
        if best is not None:
            out.append(best)
    return out


Found = tuple[str, int, str, bool, list[Evidence], str | None, str | None]  # path, line, text, entry, ...
MEMORY_CACHE_FORMAT = 1


def _plain(found: list[Found]) -> list[tuple[object, ...]]:
    return [
        (line, text, entry, [(e.kind, e.value, e.written, e.start, e.end, e.line, e.tool) for e in evs], v, a)
        for _p, line, text, entry, evs, v, a in found
    ]


def _unplain(path: str, rows: list[tuple[Any, ...]]) -> list[Found]:
    return [(path, line, text, entry, [Evidence(*e) for e in evs], v, a) for line, text, entry, evs, v, a in rows]


def gather(repo: str, path: str, data: bytes, *, prose: bool) -> list[Found]:
    """The facts of one memory file that cite evidence."""
    doc = parse(data, path)
    return [(path, *fact) for fact in facts_of(repo, path, doc, prose=prose)]


def verify_mount(
    mount: Mount,
    sources: list[CodeSource],
    *,
    today: _dt.date | None = None,
    every: int = 90,
    paths: list[str] | None = None,
) -> VerifyReport:
    """Judge every fact of ``mount`` (or of ``paths`` only) against the code repos ``sources``.

    What each file cites is kept in the user's cache folder (``verify-memory/``) by the file's
    stat, so a second run reads and parses only the files that changed."""
    files, escaping, stats = scan_files(mount.root)
    own = [p for p in files if is_markdown(p) and p not in escaping and not in_amr_folder(p)]
    style = style_of(mount)
    wanted = [p for p in (paths if paths is not None else own) if p in stats]
    cache = (
        diskcache.cache_path("verify-memory", {"root": str(mount.root.resolve()), "style": style})
        if diskcache.enabled()
        else None
    )
    payload = diskcache.load(cache, MEMORY_CACHE_FORMAT) if cache is not None else None
    old_stats: dict[str, tuple[int, int]] = payload["stats"] if payload else {}
    kept: dict[str, list[tuple[Any, ...]]] = payload["facts"] if payload else {}
    again, _gone = diskcache.stale_paths(old_stats, {p: stats[p] for p in wanted}, payload["written"] if payload else 0)
    again_set = set(again)
    found: list[Found] = []
    prose = style != "amr"
    changed = False
    for path in wanted:
        if path not in again_set and path in kept:
            found += _unplain(path, kept[path])
            continue
        data = read_bytes(mount.root, path)
        if data is None:
            continue
        got = gather(mount.name, path, data, prose=prose)
        found += got
        kept[path] = _plain(got)
        old_stats[path] = stats[path]
        changed = True
    if cache is not None and (changed or set(old_stats) - set(own)):
        live = set(own)
        diskcache.save(
            cache,
            MEMORY_CACHE_FORMAT,
            {
                "stats": {p: st for p, st in old_stats.items() if p in live},
                "facts": {p: f for p, f in kept.items() if p in live},
            },
        )
    return judge_found(mount.name, found, sources, today=today, every=every, own=own)


def verify_files(
    repo: str,
    files: Mapping[str, bytes],
    sources: list[CodeSource],
    style: str,
    *,
    today: _dt.date | None = None,
    every: int = 90,
    own: list[str] | None = None,
) -> VerifyReport:
    """Judge the facts of ``files`` (path -> bytes: a work tree's, or a commit's) of the memory
    repo ``repo`` (its format ``style``; ``own``: all its Markdown files, default ``files``')."""
    found: list[Found] = []
    for path, data in files.items():
        if is_markdown(path) and not in_amr_folder(path):
            found += gather(repo, path, data, prose=style != "amr")
    return judge_found(repo, found, sources, today=today, every=every, own=list(files) if own is None else own)


def judge_found(
    repo: str,
    gathered: list[Found],
    sources: list[CodeSource],
    *,
    today: _dt.date | None = None,
    every: int = 90,
    own: list[str],
) -> VerifyReport:
    """Judge gathered facts against the code repos (a path naming one of the memory repo's own
    files, ``own``, is a memory reference, not code evidence)."""
    today = today or _dt.date.today()
    report = VerifyReport(repo, list(sources))
    names = own_names(own)
    found: list[Found] = []
    for path, line, text, entry, evidence, verified, added in gathered:
        evidence = [ev for ev in evidence if not (ev.kind == "path" and names_memory(ev.value, names))]
        if evidence:
            found.append((path, line, text, entry, evidence, verified, added))
    words = {w for *_, evidence, _v, _a in found for ev in evidence for w in words_of(ev)}
    commits = {ev.value for *_, evidence, _v, _a in found for ev in evidence if ev.kind == "commit"}
    facts: list[CodeFacts] = []
    for source in sources:
        try:
            got = facts_for(source.path, words=words, commits=commits)
        except CodeRepoError as exc:
            report.errors.append(str(exc))
            continue
        facts.append(got)
        report.heads[got.name] = got.head
    if not facts:
        if not sources:
            report.errors.append(
                f"{repo}: no code repo to check against: give --code PATH, or name it in the config "
                f'([repo."{repo}"] code = ["~/src/project"])'
            )
        return report
    for path, line, text, entry, evidence, verified, added in found:
        checks = judge(evidence, facts)
        ec = EntryCheck(repo, path, line, text, entry, checks, verified, added)
        if ec.status == HOLDS:
            ec.due = due(verified, added, today, every)
        report.entries.append(ec)
    report.entries.sort(key=lambda e: (e.path, e.line))
    return report


__all__ = [
    "Checked",
    "EntryCheck",
    "VerifyReport",
    "due",
    "facts_of",
    "front_matter_value",
    "judge",
    "memory_files",
    "gather",
    "judge_found",
    "verify_files",
    "verify_mount",
]
