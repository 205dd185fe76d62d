"""Mounted memory repos on disk: discovery, file listing, loading into core snapshots.

This is the glue between the disk (and git, through amr_tui.git) and the pure core.
Both the CLI and the app go through it. It is the bottom of ``amr_tui.services``: it imports
nothing from there, and every other part of it may import it. The app imports it before its
first frame (tests/test_startup_path.py), so the parser and lint are imported where used.
"""

from __future__ import annotations

import errno
import gc
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

from amr_tui.core.paths import MAX_PARSE_BYTES as MAX_PARSE_BYTES  # larger files are listed, never parsed
from amr_tui.core.paths import MEMORY_FILE as MEMORY_FILE  # the path rules: core.paths imports nothing
from amr_tui.core.paths import is_markdown as is_markdown

if TYPE_CHECKING:  # the parser and lint load on first use: `amr` imports this before its first frame
    from amr_tui.core.format.parser import Document
    from amr_tui.core.lint.repo import RepoSnapshot

_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"}
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


@dataclass(frozen=True, slots=True)
class Mount:
    name: str
    root: Path
    read_only: bool = False
    style: str = ""  # the memory format, when configured ("" : read from the folder, ``style_of``)


def is_memory_repo(path: Path) -> bool:
    """A git work tree whose top is ``path`` itself, with MEMORY.md at the top (the skill's rule)."""
    return (path / ".git").exists() and (path / MEMORY_FILE).is_file()


def looks_like_memory_root(path: Path) -> bool:
    """MEMORY.md at the top, git or not (lint also runs on plain folders), or a folder another
    agent's memory format marks as its own (``memory_format``): what is opened without being named."""
    return (path / MEMORY_FILE).is_file() or memory_format(path) is not None


#: Folders (or files) that mark a memory format other than AMR, at a folder's top.
_FORMAT_MARKS = (
    ("obsidian", ".obsidian", True),
    ("hermes", "memories/MEMORY.md", False),
    ("hermes", "memories/USER.md", False),
    ("openclaw", "SOUL.md", False),
    ("openclaw", "IDENTITY.md", False),
    ("openclaw", "HEARTBEAT.md", False),
    ("memory-bank", "memory-bank", True),
    ("memory-bank", "projectbrief.md", False),
    ("letta", "system", True),
)


_CLAUDE_INDEX = re.compile(r"^\s{0,3}[-*+] +\[[^\]\n]+\]\([^)\s]+\.md\)", re.MULTILINE)
_HERMES_SEP = re.compile(r"^\s*\u00a7\s*$", re.MULTILINE)


def repo_style(root: Path) -> str:
    """The memory format of a mounted folder, from the folder itself (``RepoSnapshot.style``):
    ``obsidian`` (a ``.obsidian`` folder), ``hermes`` (MEMORY.md in ``\u00a7`` paragraphs),
    ``claude-code`` (MEMORY.md a list of ``[Title](file.md)`` links and no ``## Index``), ``amr``
    (any other MEMORY.md), ``memory-bank``, ``letta``, ``basic-memory`` (notes with a
    ``permalink`` in their front matter) or ``folder`` (Markdown, no format of its own)."""
    if (root / ".obsidian").is_dir():
        return "obsidian"
    if is_hermes_home(root):
        return "hermes"
    memory = root / MEMORY_FILE
    if memory.is_file():
        try:
            with open(memory, "rb") as fh:
                head = fh.read(64 * 1024).decode("utf-8", "replace")
        except OSError:
            return "amr"
        if _HERMES_SEP.search(head):
            return "hermes"
        if memory_format(root) == "openclaw" or ("## Index" not in head and _daily_logs(root / "memory")):
            return "openclaw"
        if "## Index" not in head and (("[[" not in head and _CLAUDE_INDEX.search(head)) or _claude_topics(root)):
            return "claude-code"
        return "amr"
    found = memory_format(root)
    if found is not None:
        return found
    return _notes_style(root)


_CLAUDE_TOPIC = re.compile(r"^(?:user|feedback|project|reference)_[^/]+\.md$")
_AMR_META = re.compile(r"^\s*[-*+] .*\[(?:source|added): [^\]]*\]\s*$", re.MULTILINE)


def _claude_topics(root: Path) -> bool:
    """Claude Code's topic files beside MEMORY.md: two or more ``feedback_*.md``, ``project_*.md``,
    ``reference_*.md`` or ``user_*.md``."""
    try:
        names = os.listdir(root)
    except OSError:
        return False
    return sum(1 for n in names if _CLAUDE_TOPIC.match(n)) >= 2


_DAILY_LOG = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")


def _daily_logs(folder: Path) -> bool:
    """OpenClaw's daily logs: ``memory/2026-03-05.md`` files beside a MEMORY.md."""
    try:
        return any(_DAILY_LOG.match(n) for n in os.listdir(folder))
    except OSError:
        return False


def is_hermes_home(root: Path) -> bool:
    """A Hermes agent's home (``~/.hermes``, a profile's folder): ``memories/MEMORY.md`` or
    ``memories/USER.md`` below it, the agent's ``SOUL.md`` beside them."""
    return (root / "memories" / MEMORY_FILE).is_file() or (root / "memories" / "USER.md").is_file()


def _notes_style(root: Path, *, limit: int = 20) -> str:
    """The format of a folder of notes with no mark of its own, from its first ``limit`` notes:
    ``basic-memory`` (front matter with a ``permalink``), ``amr`` (entries with the format's
    ``[source: ...]`` or ``[added: ...]`` metadata: AMR memory without its MEMORY.md), else ``folder``."""
    seen = 0
    shaped = False
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".")]
        for name in filenames:
            if not is_markdown(name):
                continue
            seen += 1
            try:
                with open(os.path.join(dirpath, name), "rb") as fh:
                    head = fh.read(4096).decode("utf-8", "replace")
            except OSError:
                continue
            if head.startswith("---") and re.search(r"^permalink:", head, re.MULTILINE):
                return "basic-memory"
            shaped = shaped or _AMR_META.search(head) is not None
            if seen >= limit:
                return "amr" if shaped else "folder"
    return "amr" if shaped else "folder"


#: The memory formats amr reads (``repo_style``); ``[formats]`` in the config names one per repo.
STYLES = frozenset(
    {"amr", "claude-code", "openclaw", "letta", "basic-memory", "obsidian", "memory-bank", "hermes", "folder"}
)
_CONFIGURED: dict[str, str] = {}


def set_formats(formats: dict[str, str]) -> None:
    """The config's ``[formats]``: repo name (or folder) -> format, for ``style_of``."""
    _CONFIGURED.clear()
    for key, style in formats.items():
        if style not in STYLES:
            continue
        _CONFIGURED[key] = style
        if "/" in key or key.startswith("~"):  # a folder, not a repo's name
            _CONFIGURED[str(Path(key).expanduser().resolve())] = style


def style_of(mount: Mount) -> str:
    """The mount's memory format: set on the mount, else in the config's ``[formats]`` (by repo
    name or folder), else read from the folder (``repo_style``)."""
    if mount.style:
        return mount.style
    configured = _CONFIGURED.get(mount.name) or _CONFIGURED.get(str(mount.root.resolve()))
    return configured or repo_style(mount.root)


def memory_format(path: Path) -> str | None:
    """The memory format a folder's own layout names: ``obsidian`` (a ``.obsidian`` folder),
    ``hermes`` (a Hermes home: ``memories/MEMORY.md`` or ``memories/USER.md``), ``openclaw`` (an
    OpenClaw workspace: ``SOUL.md``, ``IDENTITY.md`` or ``HEARTBEAT.md``), ``memory-bank`` (Cline /
    Cursor: a ``memory-bank`` folder or ``projectbrief.md``), ``letta`` (a ``system`` folder of
    Markdown blocks); None otherwise."""
    for name, mark, folder in _FORMAT_MARKS:
        target = path / mark
        if (target.is_dir() if folder else target.is_file()) and (mark != "system" or holds_markdown(target)):
            return name
    return None


def holds_files(path: Path) -> bool:
    """Whether ``scan_files`` would list a file under ``path`` (stops at the first one)."""
    todo = [path]
    for entry in _entries(todo):
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            if entry.name not in _SKIP_DIRS and not entry.is_symlink():
                todo.append(Path(entry.path))
            continue
        try:
            listed = entry.is_symlink() or entry.is_file(follow_symlinks=False)
        except OSError:
            continue
        if listed and not entry.name.startswith(".amr-tmp-"):
            return True
    return False


def holds_markdown(path: Path, *, limit: int = 2000) -> bool:
    """A Markdown file in ``path`` or below (the first ``limit`` entries looked at; skipped
    folders and symlinks not entered)."""
    todo = [path]
    for seen, entry in enumerate(_entries(todo), 1):
        if seen > limit:
            break
        if entry.is_file(follow_symlinks=False) and is_markdown(entry.name):
            return True
        if entry.is_dir(follow_symlinks=False) and entry.name not in _SKIP_DIRS:
            todo.append(Path(entry.path))
    return False


def _entries(todo: list[Path]) -> Iterator[os.DirEntry[str]]:
    """The entries of each folder popped from ``todo`` (the caller adds the folders to enter as it
    meets them); a folder that cannot be listed is passed over."""
    while todo:
        try:
            listing = os.scandir(todo.pop())
        except OSError:
            continue
        with listing:
            yield from listing


def find_repo_root(path: Path) -> Path | None:
    """The nearest folder at or above ``path`` that holds MEMORY.md and .git (or just MEMORY.md)."""
    path = path.resolve()
    if path.is_file():
        path = path.parent
    fallback = None
    for cand in (path, *path.parents):
        if (cand / MEMORY_FILE).is_file():
            if (cand / ".git").exists():
                return cand
            fallback = fallback or cand
        if (cand / ".git").exists():
            break
    return fallback


def memory_children(folder: Path) -> list[Path]:
    """The folders right under ``folder`` that are memory repos (``looks_like_memory_root``), by
    name: what a folder holding several repos mounts (``discover``)."""
    return sorted(c for c in folder.iterdir() if c.is_dir() and looks_like_memory_root(c))


def _marked_above(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` that a memory format marks as its own
    (``memory_format``: a vault's ``.obsidian``, a ``memory-bank``...), not past the top of the git
    work tree ``folder`` is in; None when there is none."""
    for cand in (folder, *folder.parents):
        if memory_format(cand) is not None:
            return cand
        if (cand / ".git").exists():
            return None
    return None


def discover(paths: list[Path], read_only: set[str] | None = None) -> list[Mount]:
    """Each path is a memory repo, a file inside one, or a folder that holds several."""
    roots: list[Path] = []
    for p in paths:
        p = p.expanduser()
        if not p.exists():
            raise FileNotFoundError(f"no such file or folder: {p}")
        if p.is_dir() and not looks_like_memory_root(p):
            children = memory_children(p)
            if children:
                roots.extend(c.resolve() for c in children)
                continue
        root = find_repo_root(p)
        if root is None:
            # Any folder of Markdown memory opens (AMR001 is then a finding, not a refusal):
            # the folder named, or for a file the folder its format marks above it (a note of an
            # Obsidian vault opens the vault), else the file's folder.
            folder = p.resolve() if p.is_dir() else p.resolve().parent
            if not holds_markdown(folder):
                raise FileNotFoundError(f"{p}: no memory here (no MEMORY.md and no Markdown file)")
            root = folder if p.is_dir() else (_marked_above(folder) or folder)
        if root.name == "memories" and is_hermes_home(root.parent):
            root = root.parent  # Hermes' memories/ is part of its home: SOUL.md and git are there
        roots.append(root)
    mounts: list[Mount] = []
    seen: set[Path] = set()
    names: set[str] = set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        name = root.name
        if name in names:
            name = f"{root.parent.name}/{root.name}"
        names.add(name)
        mounts.append(Mount(name, root, name in (read_only or set()) or root.name in (read_only or set())))
    return mounts


@dataclass(frozen=True)
class Opening:
    """What the editor opens: the repos mounted, what went wrong finding them, and the file to
    show first as (repo, path, line), when one was asked for."""

    mounts: list[Mount]
    problems: list[str]
    first: tuple[str, str, int] | None = None
    bare: tuple[Path, ...] = ()
    """Folders named that hold no memory (a git repo with no MEMORY.md and no notes): where the
    welcome screen offers to create one."""


def opening(
    paths: list[Path],
    *,
    read_only: set[str],
    config_repos: list[Path],
    open_at: tuple[Path, int] | None = None,
) -> Opening:
    """The repos to open: ``paths``, else the current folder if it is memory, else the config's."""
    problems: list[str] = []
    candidates = list(paths)
    if not candidates:
        cwd = Path.cwd()
        if looks_like_memory_root(cwd):
            candidates = [cwd]
        else:
            candidates = [p for p in config_repos if p.exists()]
            problems += [f"Config names a repo that is not there: {p}" for p in config_repos if not p.exists()]
    mounts: list[Mount] = []
    bare: list[Path] = []
    for path in candidates:
        try:
            mounts.extend(discover([path], read_only))
        except FileNotFoundError as exc:
            problems.append(str(exc))
            if path in paths and path.expanduser().is_dir():
                bare.append(path.expanduser().resolve())
    if open_at is None:
        return Opening(mounts, problems, bare=tuple(bare))
    target = open_at[0].expanduser().resolve()
    mount = next((m for m in mounts if target.is_relative_to(m.root.resolve())), None)
    if mount is None:
        return Opening(mounts, [*problems, f"{open_at[0]} is not in a mounted repo; not opened"], bare=tuple(bare))
    first = (mount.name, target.relative_to(mount.root.resolve()).as_posix(), open_at[1])
    return Opening(mounts, problems, first, tuple(bare))


def list_files(root: Path) -> tuple[list[str], set[str]]:
    """(files, symlinks pointing outside the root). Posix paths relative to the root, sorted."""
    files, escaping, _ = scan_files(root)
    return files, escaping


def scan_files(
    root: Path, *, stats: bool = True, start: str = "", descend: bool = True
) -> tuple[list[str], set[str], dict[str, tuple[int, int]]]:
    """As ``list_files``, plus each file's (mtime_ns, size): one ``scandir`` walk, one lstat a file
    (``stats=False``: no lstat but for symlinks, the file types the directory listing gives, and
    an empty dict).

    Folders named in ``_SKIP_DIRS`` are not entered; symlinked folders are never entered (and are
    listed as escaping when they point outside the root); a symlinked file is listed, and escaping
    when it points outside the root or into ``.git``.

    ``start``: one of the root's folders (``top_folders``) to walk instead of the whole root, its
    paths still relative to the root; ``descend=False``: only the files right in it (or in the root).
    """
    files: list[str] = []
    escaping: set[str] = set()
    found: dict[str, tuple[int, int]] = {}
    root = root.resolve()
    todo = [(start, os.path.join(root, start) if start else str(root))]
    while todo:
        rel_dir, dirpath = todo.pop()
        try:
            listing = os.scandir(dirpath)
        except OSError:
            continue
        with listing:
            for entry in listing:
                name = entry.name
                rel = f"{rel_dir}/{name}" if rel_dir else name
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if is_dir:
                    if name in _SKIP_DIRS:
                        continue
                    if entry.is_symlink():
                        if not _inside(_real(entry.path), root):
                            escaping.add(rel)
                    elif descend:
                        todo.append((rel, entry.path))
                    continue
                try:
                    if stats:
                        st = entry.stat(follow_symlinks=False)
                        link, regular = stat.S_ISLNK(st.st_mode), stat.S_ISREG(st.st_mode)
                    else:
                        link, regular = entry.is_symlink(), entry.is_file(follow_symlinks=False)
                except OSError:
                    continue
                if link:
                    if not _inside(_real(entry.path), root, git_ok=False):
                        escaping.add(rel)  # outside, into .git, or a loop: never followed
                elif not regular:
                    continue
                if name.startswith(".amr-tmp-"):
                    continue
                files.append(rel)
                if stats:
                    found[rel] = (st.st_mtime_ns, st.st_size)
    files.sort()
    return files, escaping, found


def _real(path: str) -> Path | None:
    """Where the symlink ``path`` leads (``Path.resolve``), or None for a symlink loop."""
    try:
        return Path(path).resolve(strict=False)
    except (RuntimeError, OSError):
        return None


def _inside(target: Path | None, root: Path, *, git_ok: bool = True) -> bool:
    """``target`` is inside ``root`` (and not in its ``.git``, unless ``git_ok``); a loop is not."""
    if target is None or not target.is_relative_to(root):
        return False
    return git_ok or ".git" not in target.relative_to(root).parts


def top_folders(root: Path) -> list[str]:
    """The root's folders that ``scan_files`` walks into (not skipped, not symlinked), by name."""
    out: list[str] = []
    try:
        with os.scandir(root.resolve()) as listing:
            for entry in listing:
                try:
                    if entry.is_dir() and not entry.is_symlink() and entry.name not in _SKIP_DIRS:
                        out.append(entry.name)
                except OSError:
                    continue
    except OSError:
        return []
    return sorted(out)


def listed_as(root: Path, rel: str, names: dict[str, set[str] | None] | None = None) -> str | None:
    """How ``scan_files(root)`` lists the file ``rel``, found without the walk: "file", "escaping"
    (a symlink pointing outside the root or into ``.git``), or None (not listed). ``names``: a
    cache of folder listings, shared by the calls of one look (names are compared exactly, as
    the walk sees them, also where the file system ignores case)."""
    cache: dict[str, set[str] | None] = names if names is not None else {}
    parts = rel.split("/")
    if not rel or any(p in ("", ".", "..") for p in parts):
        return None
    base = str(root.resolve())
    here = base
    for i, name in enumerate(parts):
        if here not in cache:
            try:
                cache[here] = set(os.listdir(here))
            except OSError:
                cache[here] = None
        listing = cache[here]
        if listing is None or name not in listing:
            return None
        path = os.path.join(here, name)
        try:
            st = os.lstat(path)
        except OSError:
            return None
        last = i == len(parts) - 1
        if stat.S_ISLNK(st.st_mode):
            try:
                is_dir = os.path.isdir(path)
            except OSError:
                is_dir = False
            if not last or is_dir:
                return None  # a symlinked folder is never entered, nor listed as a file
            if name.startswith(".amr-tmp-"):
                return None
            return "file" if _inside(_real(path), Path(base), git_ok=False) else "escaping"
        if stat.S_ISDIR(st.st_mode):
            if last or name in _SKIP_DIRS:
                return None
            here = path
            continue
        if not last or not stat.S_ISREG(st.st_mode) or name.startswith(".amr-tmp-"):
            return None
        return "file"
    return None


def path_is_safe(root: Path, rel: str) -> bool:
    """False for ``..``, absolute paths, ``.git`` (any case, trailing dots) and paths whose real
    location (symlinked folders resolved) is outside the root or in ``.git``. Names with control
    characters may be read (they are shown with visible stand-ins); amr_tui.git refuses to write them."""
    if not rel or "\0" in rel or rel.startswith(("/", "\\")) or (len(rel) > 1 and rel[1] == ":"):
        return False
    parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts or any(p.rstrip(" .").casefold() == ".git" for p in parts):
        return False
    # Path.resolve() semantics on strings (a load checks 2,000 paths: pathlib was half the cost):
    # realpath, then a stat that turns a symlink loop into a refusal.
    root_real = _resolve(os.fspath(root), loop_ok=False)
    try:
        real = _resolve(os.path.join(root_real, *parts), loop_ok=True)
    except (OSError, RuntimeError, ValueError):
        return False
    if real is None:
        return False
    prefix = root_real if root_real.endswith(os.sep) else root_real + os.sep
    if real == root_real or not real.startswith(prefix):
        return False
    return not any(p.rstrip(" .").casefold() == ".git" for p in real[len(prefix) :].split(os.sep))


@overload
def _resolve(path: str, *, loop_ok: Literal[False]) -> str: ...


@overload
def _resolve(path: str, *, loop_ok: bool) -> str | None: ...


def _resolve(path: str, *, loop_ok: bool) -> str | None:
    """``str(Path(path).resolve())``; a symlink loop gives None (``loop_ok``) or RuntimeError."""
    real = os.path.realpath(path)
    try:
        os.stat(real)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            if loop_ok:
                return None
            raise RuntimeError(f"Symlink loop from {exc.filename!r}") from None
    return real


def read_bytes(
    root: Path, rel: str, max_bytes: int = MAX_PARSE_BYTES, *, checked_dirs: dict[str, bool] | None = None
) -> bytes | None:
    """Read a file inside the root without following symlinks; None when too large or unsafe.

    ``checked_dirs`` (folder -> safe), shared across the reads of one load, checks each folder
    once: the file itself is opened with O_NOFOLLOW, so a safe folder and a plain name are a
    safe path (the same answer as ``path_is_safe`` on the whole path, for a fraction of the cost).
    """
    if checked_dirs is None or "\\" in rel or rel.startswith("/") or (len(rel) > 1 and rel[1] == ":"):
        if not path_is_safe(root, rel):
            return None
    else:
        folder, _, name = rel.rpartition("/")
        if not name or "\0" in name or name in (".", "..") or name.rstrip(" .").casefold() == ".git":
            return None
        safe = checked_dirs.get(folder)
        if safe is None:
            safe = checked_dirs[folder] = True if folder == "" else path_is_safe(root, folder)
        if not safe:
            return None
    full = os.path.join(root, rel)  # not pathlib: a load reads thousands of files
    try:
        fd = os.open(full, os.O_RDONLY | _NOFOLLOW)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
            return None
        data = os.read(fd, st.st_size + 1)  # the whole file in one call, unless it grew meanwhile
        if len(data) <= st.st_size:
            return data
        chunks = [data]
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def load_document(root: Path, rel: str, *, check: bool = True) -> Document | None:
    if not is_markdown(rel):
        return None
    data = read_bytes(root, rel)
    if data is None:
        return None
    from amr_tui.core.format.parser import parse  # lazy: not on the app's start-up path

    return parse(data, rel, check=check)


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while many files are parsed.

    Parsed documents hold no reference cycles, but each one is hundreds of objects, and the
    collector's full passes walk every object again as the heap grows: at 100,000 entries
    that was about half the time of parsing. Objects are still freed by reference counting.
    The previous state is restored (another thread may have paused it too).
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def load_snapshot(mount: Mount) -> RepoSnapshot:
    with paused_gc():
        return _load_snapshot(mount)


def _load_snapshot(mount: Mount) -> RepoSnapshot:
    from amr_tui.core.lint.repo import RepoSnapshot  # lazy: not on the app's start-up path

    files, escaping = list_files(mount.root)
    documents: dict[str, Document] = {}
    sizes: dict[str, int] = {}
    for rel in files:
        if rel in escaping:
            continue
        try:
            sizes[rel] = os.lstat(mount.root / rel).st_size
        except OSError:
            continue
        if is_markdown(rel):
            doc = load_document(mount.root, rel)
            if doc is not None:
                documents[rel] = doc
    return RepoSnapshot(mount.name, set(files), documents, escaping, sizes, style=style_of(mount))
