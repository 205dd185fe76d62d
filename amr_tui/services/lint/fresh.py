"""Linting a repo the cache could not answer for: parse what changed, run the rules, store the result.

run.py imports this module only then: a repo answered from the cache (cache.py) never
loads the parser or the rules (core.format, core.lint.repo), most of the time of such a run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from amr_tui.core.lint.facts import FileFacts, facts_of, pack, unpack
from amr_tui.core.lint.repo import CONTRADICTIONS_MAX_ENTRIES, RepoSnapshot, entry_count, lint_repo
from amr_tui.services.batch.parallel import folder_style, map_files
from amr_tui.services.budgets import profile_of
from amr_tui.services.lint import cache as lintcache
from amr_tui.services.workspace import MEMORY_FILE, Mount, is_markdown, load_document, paused_gc, style_of

if TYPE_CHECKING:
    from amr_tui.core.model import Finding


def packed_facts(root: Path, rel: str) -> tuple[Any, ...] | None:
    """Lint's facts of one file, packed (``core.lint.facts``); None when it cannot be read. Run in
    the workers of ``parallel.map_files``."""
    doc = load_document(root, rel)
    return pack(facts_of(doc, whole=folder_style(str(root)) != "amr")) if doc is not None else None


def fresh_findings(
    mount: Mount,
    probe: lintcache.Probe | None,
    scanned: tuple[list[str], set[str], dict[str, tuple[int, int]]],
    drivers: list[tuple[str, int, str]],
    duplicates: bool,
    near: bool,
) -> tuple[list[Finding], bool]:
    """The repo's findings, and whether possible contradictions (AMR033) were looked for; stored
    in the cache when ``probe`` is given."""
    with paused_gc():
        kept = lintcache.cached_facts(probe) if probe is not None else {}
    snapshot = _snapshot(mount, *scanned, kept)
    snapshot.undefined_merge_drivers = drivers
    with paused_gc():
        # AMR033 (info) is looked for in a small repo even when info is not shown: lint says
        # how many it found instead of "All clean."
        findings = lint_repo(
            snapshot, duplicates=duplicates, near_duplicates=near, contradictions_max=CONTRADICTIONS_MAX_ENTRIES
        )
        looked = duplicates and (near or entry_count(snapshot) <= CONTRADICTIONS_MAX_ENTRIES)
        if probe is not None:
            lintcache.store(probe, findings, contradictions=looked)
            facts = {p: snapshot.file_facts(p) for p in snapshot.markdown_paths()}  # each has facts
            lintcache.store_facts(probe, {p: f for p, f in facts.items() if f is not None})
    return findings, looked


def _snapshot(
    mount: Mount, files: list[str], escaping: set[str], stats: dict[str, tuple[int, int]], kept: dict[str, FileFacts]
) -> RepoSnapshot:
    """The repo for lint. Files whose facts were ``kept`` (by the cache) are not read again; the
    others are parsed, on every core when there are many (services.batch.parallel). MEMORY.md is
    always parsed here: the checks of the entry point read its document."""
    with paused_gc():
        documents, facts, sizes = {}, {}, {}
        todo: list[str] = []
        for rel in files:
            if rel in escaping or rel not in stats:
                continue
            sizes[rel] = stats[rel][1]
            if not is_markdown(rel):
                continue
            if rel in kept and rel != MEMORY_FILE:
                facts[rel] = kept[rel]
            elif rel != MEMORY_FILE:
                todo.append(rel)
        parsed = map_files(packed_facts, mount.root, todo)
        if parsed is not None:
            facts.update((rel, unpack(packed)) for rel, packed in parsed.items())
            todo = []
        for rel in [*todo, MEMORY_FILE] if MEMORY_FILE in sizes else todo:
            doc = load_document(mount.root, rel)
            if doc is not None:
                documents[rel] = doc
    return RepoSnapshot(
        mount.name,
        set(files),
        documents,
        set(escaping),
        sizes,
        facts=facts,
        style=style_of(mount),
        budget=profile_of(mount),
    )
