"""The first look at the memory, before the session exists: every repo's files and the first file.

The main screen's first useful frame (the tree's rows, MEMORY.md's entries) needs one walk of
each repo and one parsed file, not the session (git, the search index, lint). This runs in a
thread worker: the workspace's walk and safe read, and the parser; nothing else is imported.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from amr_tui.core.format.links import LinkState, candidates, resolve
from amr_tui.core.format.parser import Document, parse
from amr_tui.core.linkstates import link_states_of
from amr_tui.core.order import tree_key
from amr_tui.core.paths import entry_file, is_markdown
from amr_tui.services.workspace import (
    MAX_PARSE_BYTES,
    Mount,
    holds_files,
    listed_as,
    read_bytes,
    scan_files,
    top_folders,
)

__all__ = ["FIRST_ROWS", "FirstLook", "Lookahead", "first_files", "first_listing", "first_look", "link_states"]

FIRST_ROWS = 80  # the tree's rows in the first frame (more than a screenful); the rest follow at once
LOOK_SWITCH_INTERVAL_S = 0.0002  # sys.setswitchinterval while the lookahead runs (see Lookahead._run)


@dataclass(frozen=True, slots=True)
class FirstLook:
    files: dict[str, list[str]]  # repo -> its files, as the tree lists them
    repo: str | None = None  # the first file, parsed (None: there is none to show)
    path: str = ""
    doc: Document | None = None
    states: dict[tuple[int, int], LinkState] | None = None
    first_rows: dict[str, list[str]] | None = None  # repo -> what its first FIRST_ROWS rows need (first_files)
    complete: bool = True  # False: ``files`` holds only ``first_rows`` (a bounded look); the walk goes on


def link_states(doc: Document, files: list[str], escaping: set[str]) -> dict[tuple[int, int], LinkState]:
    """Each link of ``doc`` resolved against the repo's files (as ``Session.link_states``)."""
    known = set(files)
    lower = {f.lower(): f for f in known}
    return link_states_of(doc, lambda target: resolve(target, known, lower), escaping)


def first_files(files: list[str], rows: int = FIRST_ROWS) -> list[str]:
    """The files that can show in the first ``rows`` rows of a repo's tree with every folder open
    (the tree lists MEMORY.md, then the folders, then the other files, each group in natural
    order: ``core.order.tree_key``): all of them for a small repo; else the root's files and the top folders in that
    order until they hold ``rows`` files. The first frame builds its rows from these (at 1M, 2,000
    of 20,000 paths), in this thread rather than on the UI thread; the whole tree follows."""
    if len(files) <= rows * 8:
        return files
    folders: dict[str, list[str]] = {}
    keep: list[str] = []
    for path in files:
        top, slash, _rest = path.partition("/")
        if slash:
            folders.setdefault(top + "/", []).append(path)
        else:
            keep.append(path)  # after the folders in the tree (but MEMORY.md): past the first rows
    held = 0
    for name in sorted(folders, key=tree_key):
        if held >= rows:
            break
        keep += folders[name]
        held += len(folders[name])
    return keep


def first_listing(root: Path, rows: int = FIRST_ROWS) -> tuple[list[str], set[str], bool]:
    """What the first ``rows`` rows of the repo's tree need, walked alone: the root's files, then
    its folders in the tree's order, each walked whole, until they hold ``rows`` files (what
    ``first_files`` keeps of the whole walk). At a million entries that is 2,000 of 20,000 paths:
    the first frame no longer waits for the whole walk. (files, escaping, whether that was all)."""
    files, escaping, _none = scan_files(root, stats=False, descend=False)
    held = 0
    folders = sorted(top_folders(root), key=lambda n: tree_key(n + "/"))
    for at, name in enumerate(folders):
        if held >= rows and any(holds_files(root / rest) for rest in folders[at:]):
            return files, escaping, False  # "not all" only when a file is left (one is enough to know)
        sub, sub_escaping, _none = scan_files(root, stats=False, start=name)
        files += sub
        escaping |= sub_escaping
        held += len(sub)
    return files, escaping, True


def first_look(mounts: list[Mount], first: tuple[str, str, int] | None, *, bounded: bool = False) -> FirstLook:
    """Every mounted repo's files (one walk each) and the first file to show, parsed: ``first``
    (repo, path, line) when given, else the first repo's MEMORY.md. ``bounded``: only what the
    first rows of each tree need (``first_listing``); the first file's links are then resolved by
    looking each one up (``listed_as``), as the whole walk would list them."""
    files: dict[str, list[str]] = {}
    escaping: dict[str, set[str]] = {}
    complete = True
    for mount in mounts:
        if bounded:
            listed, escapes, whole = first_listing(mount.root)
            complete = complete and whole
        else:
            listed, escapes, _none = scan_files(mount.root, stats=False)  # names only: 20,000 files in 17 ms, not 70
        files[mount.name], escaping[mount.name] = listed, escapes
    if not mounts:
        return FirstLook(files)
    rows = {name: first_files(listed) for name, listed in files.items()}
    repo, path = (
        (first[0], first[1])
        if first is not None and first[0] in files
        else (mounts[0].name, entry_file(files[mounts[0].name]))
    )
    root = next(m.root for m in mounts if m.name == repo)
    known, escapes = files[repo], escaping[repo]
    if not complete and path not in known:  # `amr FILE`, past the first rows
        state = listed_as(root, path)
        known, escapes = known + [path] if state else known, escapes | {path} if state == "escaping" else escapes
    if path not in known or path in escapes or not is_markdown(path):
        return FirstLook(files, first_rows=rows, complete=complete)
    data = read_bytes(root, path, MAX_PARSE_BYTES)
    if data is None:
        return FirstLook(files, first_rows=rows, complete=complete)
    doc = parse(data, path)
    if not complete:
        known, escapes = _with_link_targets(root, doc, known, escapes)
    return FirstLook(files, repo, path, doc, link_states(doc, known, escapes), rows, complete)


def _with_link_targets(root: Path, doc: Document, files: list[str], escaping: set[str]) -> tuple[list[str], set[str]]:
    """``files`` and ``escaping`` with each file ``doc``'s links may name, as the whole walk lists
    it: what a bounded look needs to resolve them exactly."""
    have = set(files)
    more: list[str] = []
    escapes = set(escaping)
    names: dict[str, set[str] | None] = {}
    for link in doc.links:
        for cand in candidates(link.target):
            if cand in have:
                continue
            have.add(cand)
            state = listed_as(root, cand, names)
            if state is not None:
                more.append(cand)
                if state == "escaping":
                    escapes.add(cand)
    return files + more, escapes


class Lookahead:
    """``first_look`` in a thread started when the app is built, so its result is there by the
    time the main screen mounts and its first frame is already the useful one. The mounting
    screen waits for it a moment at most (``FIRST_LOOK_WAIT_S``), then leaves it to its peek
    worker; ``ready()`` answers at once."""

    def __init__(self, mounts: list[Mount], first: tuple[str, str, int] | None) -> None:
        self.mounts = list(mounts)
        self.first = first
        self._look: FirstLook | None = None
        self._done = threading.Event()
        threading.Thread(target=self._run, name="amr-first-look", daemon=True).start()

    def _run(self) -> None:
        # Each call that lets go of the interpreter (a folder listing, a stat, a read) waited for
        # it to come back: up to the switch interval (5 ms) while Textual's start-up held it, and
        # a 4 ms look took 46 ms. A short interval until the look is done hands it back sooner.
        interval = sys.getswitchinterval()
        sys.setswitchinterval(LOOK_SWITCH_INTERVAL_S)
        try:
            # Bounded: the first frame waits for a screenful of rows, not for the whole walk
            # (at 1M entries 20,000 files, 30-60 ms while Textual starts); the session's own
            # walk, right after the frame, brings the rest of the tree.
            self._look = first_look(self.mounts, self.first, bounded=True)
        except Exception:  # the session reads it all again and reports what fails
            self._look = None
        finally:
            sys.setswitchinterval(interval)
            self._done.set()

    def ready(self) -> FirstLook | None:
        """The look when it is done (None: not yet, or it failed)."""
        return self._look if self._done.is_set() else None

    def wait(self, timeout: float) -> FirstLook | None:
        self._done.wait(timeout)
        return self._look
