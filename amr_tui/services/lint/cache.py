"""``amr lint``'s caches: files that did not change since the last lint are not parsed again.

Two files per repo. The *findings* (keyed by the root and the checks asked for) answer a run
in which nothing changed: every file has the same (mtime_ns, size), the same symlinks leave
the root, and git's merge-driver set-up (AMR027, read afresh every run) is the same. The
*facts* (``core.lint.facts``: each Markdown file's line-local findings, links and normalised
entries, with its stat) serve a run in which some files changed: only those (and MEMORY.md)
are parsed, and the repo-wide checks run over the facts of the others. A file younger than the
racy window is always parsed. See ``diskcache`` for where the files live and why loading one
never runs code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from amr_tui.core.lint.facts import FileFacts, pack, pack_diagnostic, unpack, unpack_diagnostic
from amr_tui.core.model import Finding
from amr_tui.services.batch import diskcache
from amr_tui.services.budgets import current_budgets
from amr_tui.services.workspace import Mount, scan_files

FORMAT = 29  # 29: path captions, template slot fields, direction marks in RTL lines, project links as written; 28: task status lines, history logs; 27: logs, templates, status lines, one credential per line; 26: to-do lists; 25: pointers by arrow or count, URL fields, bare paths, Thai word size, payment cards; 24: OpenClaw write-ups, form blanks and captions, Claude Code names without their type, quoted values after a key word; 23: vault facts of five words, textbook passwords, sample Basic logins; 22: named list items, relative links one level off, [[]] in templates; 21: relative [[../x]] links, GitHub anchors, code values, checklist items; 20: credential shapes of more services and documentation samples, one AMR017 per pasted terminal output, plain fields; 19: each file's heading and front-matter lines (FileFacts.heads) and front-matter scope; 18: an AMR entry is its line (whole items in other formats); 17: whole-item facts (labels, fields and pointers left out), front-matter titles, AMR036; 16: AMR035 and the credential check of issue 38; 15: AMR033 without --severity info in small repos, and whether it was looked for; 14: entries as one joined string and a line array; 13: each file's entry metadata (the app's finder filters); 12: Markdown links and their labels; 4: AMR031; 5: the severities of docs/format.md section 6; 6: AMR012 on symlinks out of the root (findings kept before lack them); 7: AMR032 and each file's headings; 8: AMR033; 9: each entry's text as written (AMR033); 10: AMR012 on symlink loops; 11: AMR034


@dataclass(slots=True)
class Probe:
    """What the repo looks like now: enough to check the cache, and to write it after a miss."""

    path: Path
    facts_path: Path
    files: list[str]
    stats: diskcache.Stats
    escaping: set[str]
    drivers: list[tuple[str, int, str]]


def probe(mount: Mount, *, duplicates: bool, near: bool) -> Probe:
    """The repo's files now (``drivers`` is the caller's to fill in: it asks git)."""
    files, escaping, stats = scan_files(mount.root)
    root = os.fspath(mount.root.resolve())
    return Probe(
        # The budgets AMR003 is held to (the config's [budgets], [loads]) are part of the key.
        diskcache.cache_path("lint", ["lint", root, mount.name, duplicates, near, current_budgets().signature]),
        facts_file(mount),
        files,
        stats,
        escaping,
        [],
    )


def lookup(p: Probe) -> tuple[list[Finding], bool] | None:
    """The cached findings when nothing they depend on changed (and whether possible
    contradictions, AMR033, were looked for), else None."""
    payload = diskcache.load(p.path, FORMAT)
    if payload is None:
        return None
    try:
        again, gone = diskcache.stale_paths(payload["stats"], p.stats, int(payload["written"]))
        if again or gone or set(payload["escaping"]) != p.escaping or list(payload["drivers"]) != p.drivers:
            return None
        return [_unpack(t) for t in payload["findings"]], bool(payload["contradictions"])
    except Exception:  # a payload of the wrong shape is a cache miss
        return None


def store(p: Probe, findings: list[Finding], *, contradictions: bool = True) -> None:
    diskcache.save(
        p.path,
        FORMAT,
        {
            "stats": p.stats,
            "escaping": sorted(p.escaping),
            "drivers": p.drivers,
            "findings": [_pack(f) for f in findings],
            "contradictions": contradictions,
        },
    )


# Findings travel as plain tuples (the cache holds data only; see diskcache).
def _pack(f: Finding) -> tuple[Any, ...]:
    return f.path, pack_diagnostic(f.diagnostic)


def _unpack(t: tuple[Any, ...]) -> Finding:
    return Finding(t[0], unpack_diagnostic(t[1]))


def facts_file(mount: Mount) -> Path:
    """Where the facts of ``mount``'s files are kept (``amr lint`` and the app share it)."""
    return diskcache.cache_path("lint", ["facts", os.fspath(mount.root.resolve()), mount.name])


def cached_facts(p: Probe) -> dict[str, FileFacts]:
    """Facts of the files whose stat is what it was when they were kept (not racy)."""
    return fresh_facts(p.facts_path, p.stats)


def fresh_facts(
    path: Path, stats: diskcache.Stats, keys: dict[frozenset[str], frozenset[str]] | None = None
) -> dict[str, FileFacts]:
    """Facts kept at ``path`` of the files whose stat is still the one in ``stats`` (not racy).
    ``keys``: shared metadata key sets (see ``facts_of``)."""
    payload = diskcache.load(path, FORMAT)
    if payload is None:
        return {}
    try:
        written = int(payload["written"])
        kept = payload["facts"]
        again, _gone = diskcache.stale_paths(payload["stats"], stats, written)
        stale = set(again)
        return {path: unpack(t, keys) for path, t in kept.items() if path in stats and path not in stale}
    except Exception:  # a payload of the wrong shape is a cache miss
        return {}


def store_facts(p: Probe, facts: dict[str, FileFacts]) -> None:
    save_facts(p.facts_path, p.stats, facts)


def save_facts(path: Path, stats: diskcache.Stats, facts: dict[str, FileFacts]) -> None:
    """Keep ``facts`` (with each file's stat in ``stats``) at ``path``."""
    diskcache.save(
        path,
        FORMAT,
        {
            "stats": {rel: stats[rel] for rel in facts if rel in stats},
            "facts": {rel: pack(f) for rel, f in facts.items()},
        },
    )
