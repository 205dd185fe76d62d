"""The app's cold load, parsed on the other cores (issue 44, point 1).

A first start on a big repo (a fresh clone, no caches) reads and parses every Markdown file:
at a million entries that was 28 s of one core while the other stayed idle. Each file is
independent, so ``ParsePool`` hands batches of files to worker processes that read them (the
same safe ``read_bytes`` as a serial load), parse them and send back plain data: the lint facts
packed (``core.lint.facts.pack``) and the (line, text) pairs the search index takes. The
session unpacks and indexes them, batch by batch and in the files' order, exactly as it does
what it parsed itself; MEMORY.md and the files whose Document it keeps are parsed in-process.

The app has threads (the load itself runs in one), and a forked child inherits the locks other
threads hold, so the workers come from a ``forkserver``: a fresh interpreter that imports this
module once and forks each worker from there, with no thread of the app in it. It pays only for
a big load (``MIN_FILES``); with one usable core (or ``AMR_JOBS=1``), or when a pool cannot
start (no ``/dev/shm``, a limit on processes), the session parses serially: a pool is a
speed-up, never a requirement.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from amr_tui.core.format.edit import searchable_lines
from amr_tui.core.format.parser import parse
from amr_tui.core.lint.facts import PackedFacts, facts_of, pack
from amr_tui.services.batch.parallel import processes
from amr_tui.services.workspace import paused_gc, read_bytes

MIN_FILES = 1_000  # files to parse below which starting the pool (~0.3 s) costs more than it saves
MAX_WORKERS = 4

#: One file's reading: (rel, None) when it cannot be read safely, else its packed facts and
#: searchable lines.
Parsed = tuple[str, tuple[PackedFacts, list[tuple[int, str]]] | None]


def parse_batch(task: tuple[str, bool, list[str]]) -> list[Parsed]:
    """Read and parse ``rels`` under ``root`` (in a worker): what ``Session._parse`` keeps of each."""
    root, prose, rels = task
    base = Path(root)
    checked: dict[str, bool] = {}
    out: list[Parsed] = []
    with paused_gc():
        for rel in rels:
            data = read_bytes(base, rel, checked_dirs=checked)
            if data is None:
                out.append((rel, None))
                continue
            doc = parse(data, rel)
            out.append((rel, (pack(facts_of(doc, whole=prose)), searchable_lines(doc, prose=prose))))
    return out


def _quiet() -> None:
    """A worker writes nothing where the app draws: its output goes nowhere."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)


def workers_for(files: int) -> int:
    """How many worker processes a load of ``files`` files to parse is given (0: parse serially)."""
    if files < MIN_FILES:
        return 0
    n = min(processes(), MAX_WORKERS)
    return n if n >= 2 and "forkserver" in multiprocessing.get_all_start_methods() else 0


class ParsePool:
    """Worker processes that parse batches of files, in the order the batches are given."""

    def __init__(self, workers: int) -> None:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([__name__])  # each worker forks with the parser imported
        # multiprocessing hands its helper processes ``sys.stderr``'s descriptor; inside the app
        # that is Textual's capture of prints, which has none ("bad value(s) in fds_to_keep"):
        # they get a real one that writes nowhere, never the terminal the app draws on.
        with open(os.devnull, "w") as null, contextlib.redirect_stderr(null):
            self._pool: Any = ctx.Pool(workers, initializer=_quiet)

    def map(self, root: Path, prose: bool, batches: list[list[str]]) -> Iterator[list[Parsed]]:
        """Each batch's readings, in the batches' order, as they come."""
        tasks = [(str(root), prose, rels) for rels in batches]
        return iter(self._pool.imap(parse_batch, tasks, chunksize=1))

    def __enter__(self) -> ParsePool:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._pool.terminate()  # the work is done or given up: no worker outlives the load
        self._pool.join()


__all__ = ["MIN_FILES", "ParsePool", "parse_batch", "workers_for"]
