"""Reading many files on every core, for the command line's cold runs.

``amr lint`` or ``amr search`` on a fresh clone parses every Markdown file; that is most of the
cost, and each file is independent of the others. ``map_files`` splits the files over forked
worker processes: each one reads and parses its share (through the same safe ``load_document``
as a serial run) and sends back plain data (tuples, strings and ints: ``core.lint.facts.pack``
for lint (``services.lint.fresh.packed_facts``), (line, text) pairs for search). The rest (the repo-wide checks, the index) runs in
this process, exactly as it does for files whose facts a cache kept.

Only where it pays: with ``fork`` available (workers start with the modules already loaded),
more than one usable core (or ``AMR_JOBS``), enough files, and no other thread in this
process (a forked child inherits the locks other threads hold: the app never forks). A pool that cannot run returns ``None`` and the
caller reads serially: a pool is a speed-up, never a requirement.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from amr_tui.services.workspace import is_markdown, load_document, paused_gc, repo_style

MIN_FILES = 200  # below this a pool costs more than it saves (fork, pipes, pickling)
MAX_WORKERS = 8

T = TypeVar("T")
FileJob = Callable[[Path, str], T | None]  # (root, rel) -> plain data, or None to leave the file out


def processes() -> int:
    """How many processes may parse: ``AMR_JOBS`` when set (1 turns the pool off), else the
    cores this process may run on."""
    wanted = os.environ.get("AMR_JOBS", "").strip()
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _run(job: tuple[FileJob[Any], str, list[str]]) -> list[tuple[str, Any]]:
    func, root, rels = job
    base = Path(root)
    out: list[tuple[str, Any]] = []
    with paused_gc():
        for rel in rels:
            value = func(base, rel)
            if value is not None:
                out.append((rel, value))
    return out


def map_files(func: FileJob[T], root: Path, rels: list[str]) -> dict[str, T] | None:
    """``func(root, rel)`` of each file, computed in worker processes (``func`` is a module-level
    function); None when a pool would not pay (few files, one core, no fork) or could not run."""
    import multiprocessing  # lazy: only when a pool may pay (a big repo, from the CLI)

    if threading.active_count() > 1:  # a fork copies locks other threads hold: only from the CLI's one thread
        return None
    workers = min(processes(), MAX_WORKERS, len(rels) // (MIN_FILES // 2))
    if workers < 2 or len(rels) < MIN_FILES or "fork" not in multiprocessing.get_all_start_methods():
        return None
    # Interleaved shares: files of one folder tend to be alike in size.
    jobs = [(func, os.fspath(root), rels[k::workers]) for k in range(workers)]
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts: list[list[tuple[str, Any]]] = pool.map(_run, jobs, chunksize=1)
    except Exception:  # no pool (no /dev/shm, a limit on processes, ...): read serially
        return None
    return {rel: value for part in parts for rel, value in part}


def entry_texts(root: Path, rel: str) -> list[tuple[int, str]]:
    """(line, text) of each entry with text: what the search index holds of a file."""
    if not is_markdown(rel):
        return []
    from amr_tui.core.format.edit import searchable_lines  # the parser: only a cold run, in its workers

    doc = load_document(root, rel, check=False)  # entries only: no lint
    return searchable_lines(doc, prose=folder_style(str(root)) != "amr") if doc is not None else []


@functools.lru_cache(maxsize=64)
def folder_style(root: str) -> str:
    """The folder's format, read once per worker process (a run is minutes at most)."""
    return repo_style(Path(root))
