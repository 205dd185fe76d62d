"""The first look at the memory, before the session exists: every repo's files and the first file.

The main screen's first useful frame (the tree's rows, MEMORY.md's entries) needs one walk of
each repo and one parsed file, not the session (git, the search index, lint). This runs in a
thread worker: the workspace's walk and safe read, and the parser; nothing else is imported.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from amr_tui.core.format.links import LinkState, heading_line, resolve, split_heading
from amr_tui.core.format.parser import Document, parse
from amr_tui.core.paths import MEMORY_FILE, is_markdown
from amr_tui.services.workspace import MAX_PARSE_BYTES, Mount, read_bytes, scan_files

__all__ = ["FIRST_ROWS", "FirstLook", "Lookahead", "first_files", "first_look", "link_states"]

FIRST_ROWS = 80  # the tree's rows in the first frame (more than a screenful); the rest follow at once


@dataclass(frozen=True, slots=True)
class FirstLook:
    files: dict[str, list[str]]  # repo -> its files, as the tree lists them
    repo: str | None = None  # the first file, parsed (None: there is none to show)
    path: str = ""
    doc: Document | None = None
    states: dict[tuple[int, int], LinkState] | None = None
    first_rows: dict[str, list[str]] | None = None  # repo -> what its first FIRST_ROWS rows need (first_files)


def link_states(doc: Document, files: list[str], escaping: set[str]) -> dict[tuple[int, int], LinkState]:
    """Each link of ``doc`` resolved against the repo's files (as ``Session.link_states``)."""
    known = set(files)
    lower = {f.lower(): f for f in known}
    out: dict[tuple[int, int], LinkState] = {}
    for link in doc.links:
        if not link.target.strip() and (heading := split_heading(link.raw)):  # [[#Heading]]: this file
            ok = heading_line(heading, doc.headings) is not None or heading.startswith("^")
            out[(link.line, link.start)] = LinkState.OK if ok else LinkState.BROKEN
            continue
        res = resolve(link.target, known, lower)
        out[(link.line, link.start)] = (
            LinkState.ESCAPES if res.state is LinkState.OK and res.path in escaping else res.state
        )
    return out


def first_files(files: list[str], rows: int = FIRST_ROWS) -> list[str]:
    """The files that can show in the first ``rows`` rows of a repo's tree with every folder open
    (the tree lists MEMORY.md, then the folders, then the other files, each group by name, case
    aside): all of them for a small repo; else the root's files and the top folders in that
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
    for name in sorted(folders, key=str.lower):
        if held >= rows:
            break
        keep += folders[name]
        held += len(folders[name])
    return keep


def first_look(mounts: list[Mount], first: tuple[str, str, int] | None) -> FirstLook:
    """Every mounted repo's files (one walk each) and the first file to show, parsed: ``first``
    (repo, path, line) when given, else the first repo's MEMORY.md."""
    files: dict[str, list[str]] = {}
    escaping: dict[str, set[str]] = {}
    for mount in mounts:
        listed, escapes, _none = scan_files(mount.root, stats=False)  # names only: 20,000 files in 17 ms, not 70
        files[mount.name], escaping[mount.name] = listed, escapes
    if not mounts:
        return FirstLook(files)
    rows = {name: first_files(listed) for name, listed in files.items()}
    repo, path = (first[0], first[1]) if first is not None and first[0] in files else (mounts[0].name, MEMORY_FILE)
    root = next(m.root for m in mounts if m.name == repo)
    if path not in files[repo] or path in escaping[repo] or not is_markdown(path):
        return FirstLook(files, first_rows=rows)
    data = read_bytes(root, path, MAX_PARSE_BYTES)
    if data is None:
        return FirstLook(files, first_rows=rows)
    doc = parse(data, path)
    return FirstLook(files, repo, path, doc, link_states(doc, files[repo], escaping[repo]), rows)


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
        try:
            self._look = first_look(self.mounts, self.first)
        except Exception:  # the session reads it all again and reports what fails
            self._look = None
        finally:
            self._done.set()

    def ready(self) -> FirstLook | None:
        """The look when it is done (None: not yet, or it failed)."""
        return self._look if self._done.is_set() else None

    def wait(self, timeout: float) -> FirstLook | None:
        self._done.wait(timeout)
        return self._look
