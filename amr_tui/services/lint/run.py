"""Running lint over repos on disk, and applying its safe fixes."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from amr_tui.core.model import Finding
from amr_tui.services.batch import diskcache
from amr_tui.services.lint import cache as lintcache
from amr_tui.services.workspace import (
    Mount,
    discover,
    find_repo_root,
    is_markdown,
    looks_like_memory_root,
    memory_children,
    paused_gc,
    scan_files,
)

if TYPE_CHECKING:  # annotations only: these are imported where used (below)
    from amr_tui.git.history import SkippedBlob

# Lazy imports: at the start-up of `amr lint`, the parser and the rules (fresh.py, which
# imports core.format and core.lint.repo) and git (tracked.py, services.sync,
# services.history) are imported inside the functions that need them. A repo answered from the
# cache (services.lint.cache) never needs them, and they are most of the time of such a run.

MAX_FIX_ROUNDS = 50


class FixRefusedError(Exception):
    """``amr lint --fix`` will not write in this repo (git refuses it); nothing was written."""


@dataclass(frozen=True, slots=True)
class LintTarget:
    mount: Mount
    only: frozenset[str] | None  # files to report on (None: the whole repo)
    display_root: str  # how to show the repo's root in text output


@dataclass(frozen=True, slots=True)
class LintResult:
    repo: str
    finding: Finding
    display_path: str


def _display(root: Path) -> str:
    try:
        rel = os.path.relpath(root, Path.cwd())
    except ValueError:
        return str(root)
    return "" if rel == "." else rel


def notes_root(path: Path, *, explicit: bool) -> Path | None:
    """Where to lint ``path`` when no MEMORY.md is at or above it (lint then reports AMR001).

    The top of the git work tree ``path`` is in, or, outside git, the folder itself when it was
    named on the command line (not the current folder by default); None unless that root holds a
    Markdown file (a symlink out of the root does not count).
    """
    path = path.resolve()
    start = path if path.is_dir() else path.parent
    top = next((c for c in (start, *start.parents) if (c / ".git").exists()), None)
    root = top if top is not None else (start if explicit and path.is_dir() else None)
    if root is None:
        return None
    files, escaping, _ = scan_files(root)
    return root if any(is_markdown(f) and f not in escaping for f in files) else None


def _no_memory_repo(path: Path) -> FileNotFoundError:
    return FileNotFoundError(
        f"{path} is not inside a memory repo: no MEMORY.md, and no git work tree or "
        f"named folder with Markdown files to lint"
    )


def resolve_targets(paths: list[Path], *, explicit: bool = True) -> list[LintTarget]:
    """What to lint for these paths. ``explicit``: the paths were named (a folder outside git
    that holds Markdown but no MEMORY.md is linted only when named)."""
    targets: dict[Path, tuple[Mount, set[str] | None]] = {}
    for path in paths:
        if path.is_file():
            root = find_repo_root(path)
            if root is not None:
                mount = discover([root])[0]
            else:
                root = notes_root(path, explicit=explicit) if is_markdown(path.name) else None
                if root is None:
                    raise FileNotFoundError(
                        f"{path} is not inside a memory repo (no MEMORY.md above it, "
                        f"and not a Markdown file in a git work tree)"
                    )
                mount = Mount(root.name, root)
            rel = path.resolve().relative_to(root).as_posix()
            prev = targets.get(root)
            if prev is None:
                targets[root] = (mount, {rel})
            elif prev[1] is not None:
                prev[1].add(rel)
        else:
            if not path.exists():
                raise FileNotFoundError(f"no such file or folder: {path}")
            try:
                if (
                    not explicit
                    and find_repo_root(path) is None
                    and not looks_like_memory_root(path)
                    and not (path.is_dir() and memory_children(path))
                ):
                    # the current folder, unnamed: only a repo, a format's folder, or a folder of repos
                    raise FileNotFoundError(path)
                mounts = discover([path])
            except FileNotFoundError:
                if not path.is_dir():
                    raise
                root = notes_root(path, explicit=explicit)
                if root is None:
                    raise _no_memory_repo(path) from None
                mounts = [Mount(root.name, root)]
            for mount in mounts:
                targets[mount.root] = (mount, None)
    return [
        LintTarget(mount, frozenset(only) if only is not None else None, _display(mount.root))
        for mount, only in targets.values()
    ]


def lint_targets(
    targets: list[LintTarget],
    *,
    duplicates: bool = True,
    history: bool = False,
    near_duplicates: bool = True,
    use_cache: bool = False,
    skipped: list[SkippedBlob] | None = None,
    unlooked: list[str] | None = None,
) -> list[LintResult]:
    """Findings of every target; ``near_duplicates=False`` skips AMR015 (info) when not shown,
    and AMR033 in a repo of more than ``CONTRADICTIONS_MAX_ENTRIES`` entries (``unlooked``, when
    given, gets those repos).
    ``use_cache``: reuse the findings of a repo that did not change (services.lint.cache).
    ``skipped``, when given, gets the files the ``history`` walk did not read (over
    ``MAX_PARSE_BYTES``), each path shown as lint shows its findings' paths."""
    results: list[LintResult] = []
    for target in targets:
        findings, looked = _repo_findings(target.mount, duplicates, near_duplicates, use_cache and diskcache.enabled())
        if not looked and unlooked is not None:
            unlooked.append(target.display_root or target.mount.name)
        if history:
            from amr_tui.services.history.service import resurrections  # loads git: see the top

            walked: list[SkippedBlob] = []
            findings = sorted(
                [*findings, *resurrections(target.mount, walked)],
                key=lambda f: (f.path, f.diagnostic.line, f.diagnostic.column, f.diagnostic.code),
            )
            if skipped is not None:
                skipped.extend(
                    replace(s, path=f"{target.display_root}/{s.path}" if target.display_root else s.path)
                    for s in dict.fromkeys(walked)
                )
        if any(f.diagnostic.code == "AMR013" and f.diagnostic.fix is not None for f in findings):
            from amr_tui.services.lint.tracked import tracked_links_only  # loads git: see the top

            findings = tracked_links_only(findings, target.mount.root)
        for finding in findings:
            if target.only is not None and finding.path not in target.only:
                continue
            shown = f"{target.display_root}/{finding.path}" if target.display_root else finding.path
            results.append(LintResult(target.mount.name, finding, shown))
    return results


def _merge_drivers(root: Path, files: Iterable[str]) -> list[tuple[str, int, str]]:
    """AMR027's facts from git; without any gitattributes file there is nothing to ask git."""
    dot_git = root / ".git"
    if (
        not any(p == ".gitattributes" or p.endswith("/.gitattributes") for p in files)
        and dot_git.is_dir()
        and not (dot_git / "info" / "attributes").exists()
    ):
        return []
    from amr_tui.services.sync.gitattrs import lint_merge_drivers  # loads git: see the top of the module

    return lint_merge_drivers(root)


def _repo_findings(mount: Mount, duplicates: bool, near: bool, use_cache: bool) -> tuple[list[Finding], bool]:
    """The repo's findings, and whether possible contradictions (AMR033) were looked for."""
    probe = lintcache.probe(mount, duplicates=duplicates, near=near) if use_cache else None
    scanned = (probe.files, probe.escaping, probe.stats) if probe is not None else scan_files(mount.root)
    drivers = _merge_drivers(mount.root, scanned[2])
    if probe is not None:
        probe.drivers = drivers
        with paused_gc():
            cached = lintcache.lookup(probe)
        if cached is not None:
            return cached
    from amr_tui.services.lint.fresh import fresh_findings  # the rules: see the top of the module

    return fresh_findings(mount, probe, scanned, drivers, duplicates, near)
