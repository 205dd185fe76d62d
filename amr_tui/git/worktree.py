"""Safe, bytes-only file access inside a work tree.

This lives in ``amr_tui.git`` (the lowest I/O layer) so that :class:`GitRepo` can write work-tree
files atomically without importing ``amr_tui.services`` (the layer contract forbids it); the
other layers import them from here.

Rules: paths are repo-relative with ``/`` separators; absolute paths, ``..``, anything inside a
``.git`` folder, control characters, and anything whose real location is outside the root are
rejected. Content is bytes and is never decoded or re-encoded (CRLF survives).
"""

from __future__ import annotations

import ctypes
import os
import secrets
import stat
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

TEMP_PREFIX = ".amr-tmp-"
INDEX_COPY_PREFIX = "amr-index-"  # private index copies in .git (amr_tui.git.indexlock)
DEFAULT_MAX_BYTES = 16 * 1024 * 1024


class UnsafePathError(ValueError):
    """A path that amr refuses to read or write (escapes the root, inside .git, a symlink...)."""


class FileTooLargeError(ValueError):
    """A file is larger than the caller's ``max_bytes``."""


def normalize_rel(rel: str | os.PathLike[str]) -> str:
    """Validate a repo-relative path and return it in canonical ``a/b/c`` form."""
    text = os.fspath(rel)
    if not text:
        raise UnsafePathError("empty path")
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text):
        raise UnsafePathError(f"path contains control characters: {text!r}")
    if "\\" in text and os.sep == "\\":
        text = text.replace("\\", "/")
    if text.startswith("/") or PurePosixPath(text).is_absolute() or (len(text) > 1 and text[1] == ":"):
        raise UnsafePathError(f"absolute paths are not allowed: {text!r}")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if not parts:
        raise UnsafePathError(f"path names the root itself: {text!r}")
    for part in parts:
        if part == "..":
            raise UnsafePathError(f"path escapes the memory root: {text!r}")
        if part.rstrip(" .").casefold() == ".git":
            raise UnsafePathError(f"paths inside .git are not allowed: {text!r}")
    return "/".join(parts)


def safe_path(root: str | os.PathLike[str], rel: str | os.PathLike[str]) -> Path:
    """Return ``root/rel`` after checking it stays inside ``root`` once symlinks are resolved.

    The returned path is the lexical one (under the resolved root); its final component may be a
    symlink whose target is inside the root. Raises :class:`UnsafePathError`.
    """
    root_real = Path(root).resolve()
    norm = normalize_rel(rel)
    candidate = root_real.joinpath(*norm.split("/"))
    real = candidate.resolve(strict=False)
    if not real.is_relative_to(root_real):
        raise UnsafePathError(f"{norm} resolves outside the memory root")
    if real == root_real:
        raise UnsafePathError(f"{norm} resolves to the root itself")
    if any(p.rstrip(" .").casefold() == ".git" for p in real.relative_to(root_real).parts):
        raise UnsafePathError(f"{norm} resolves inside .git")
    return candidate


def read_file(
    root: str | os.PathLike[str],
    rel: str | os.PathLike[str],
    max_bytes: int | None = DEFAULT_MAX_BYTES,
) -> bytes:
    """Read a work-tree file as bytes. Follows a symlink only when its target is inside the root.

    Raises FileNotFoundError, IsADirectoryError, :class:`UnsafePathError`, :class:`FileTooLargeError`.
    """
    real = safe_path(root, rel).resolve(strict=False)
    # O_NOFOLLOW: if the (already resolved) final component was swapped for a symlink since the
    # check, the open fails instead of following it.
    fd = os.open(real, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(str(rel))
        if not stat.S_ISREG(st.st_mode):
            raise UnsafePathError(f"{rel} is not a regular file")
        if max_bytes is not None and st.st_size > max_bytes:
            raise FileTooLargeError(f"{rel} is {st.st_size} bytes, more than {max_bytes}")
        chunks = []
        total = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if max_bytes is not None and total > max_bytes:
                raise FileTooLargeError(f"{rel} grew past {max_bytes} bytes while reading")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_file_or_none(
    root: str | os.PathLike[str], rel: str | os.PathLike[str], max_bytes: int | None = DEFAULT_MAX_BYTES
) -> bytes | None:
    """Like :func:`read_file` but returns None when the file does not exist."""
    try:
        return read_file(root, rel, max_bytes)
    except FileNotFoundError:
        return None


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(root: str | os.PathLike[str], rel: str | os.PathLike[str], data: bytes) -> Path:
    """Replace ``root/rel`` with ``data`` atomically; returns the path written.

    Writes a temp file ``.amr-tmp-*`` in the same folder, fsyncs it, renames it over the target
    and fsyncs the folder, so a crash leaves either the old or the new content, never a torn file.
    An existing file's permission bits are kept. Refuses to replace a symlink or a directory.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("atomic_write takes bytes")
    target, st = _target_for_write(root, rel)
    folder = target.parent
    tmp = _write_temp(folder, target.name, bytes(data), stat.S_IMODE(st.st_mode) if st is not None else None)
    try:
        os.replace(tmp, target)
    except BaseException:
        with _suppress_os():
            os.unlink(tmp)
        raise
    _fsync_dir(folder)
    return target


def remove_file(root: str | os.PathLike[str], rel: str | os.PathLike[str]) -> bool:
    """Delete a regular file (or symlink itself) inside the root; True if something was removed."""
    target = safe_path(root, rel)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(str(rel))
    os.unlink(target)
    _fsync_dir(target.parent)
    return True


def sweep_temp_files(root: str | os.PathLike[str], older_than: float = 10.0) -> list[Path]:
    """Remove ``.amr-tmp-*`` files left by interrupted saves, if older than ``older_than`` seconds,
    and the ``amr-index-*`` index copies an interrupted commit left in ``.git`` (never a lock).

    Sweeps nothing while ``index.lock`` exists (a save may be under way). Skips the rest of
    ``.git`` and never follows symlinks. Returns the removed paths.
    """
    removed: list[Path] = []
    cutoff = time.time() - older_than
    git_dir = Path(root) / ".git"
    if (git_dir / "index.lock").exists():
        return removed  # a save (or a git command) may be under way: its files are not leftovers
    if git_dir.is_dir() and not git_dir.is_symlink():
        for path in git_dir.glob(f"{INDEX_COPY_PREFIX}*"):
            _remove_if_older(path, cutoff, removed)
    for dirpath, dirnames, filenames in os.walk(Path(root), followlinks=False):
        dirnames[:] = [d for d in dirnames if d.casefold() != ".git"]
        for name in filenames:
            if not name.startswith(TEMP_PREFIX):
                continue
            _remove_if_older(Path(dirpath) / name, cutoff, removed)
    return removed


def _remove_if_older(path: Path, cutoff: float, removed: list[Path]) -> None:
    """Unlink a regular file (never a symlink or folder) last modified before ``cutoff``."""
    try:
        st = os.lstat(path)
        if stat.S_ISREG(st.st_mode) and st.st_mtime < cutoff:
            os.unlink(path)
            removed.append(path)
    except OSError:
        pass


# --------------------------------------------------------------- checked replacement
#
# An agent can write a work-tree file at any moment, including between amr reading it and amr
# renaming its new version over it. A plain ``os.replace`` would then throw the agent's bytes
# away with the old inode. ``replace_checked`` swaps the new file in with Linux's atomic
# ``renameat2(RENAME_EXCHANGE)``: the name that held the temp file now holds exactly the inode
# that was displaced, whatever was written to it up to that instant, and the caller is told when
# that is not what it read (so it can merge those bytes back in). Where the exchange is not
# available the displaced inode is read through a descriptor opened before the rename.

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_renameat2 = None
try:  # pragma: no branch - Linux with glibc >= 2.28
    import ctypes

    _libc = ctypes.CDLL(None, use_errno=True)
    _renameat2 = _libc.renameat2
    _renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    _renameat2.restype = ctypes.c_int
except (OSError, AttributeError):  # another libc: fall back to replace + descriptor check
    _renameat2 = None


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two names. False when the system cannot (the caller falls back)."""
    if _renameat2 is None:
        return False

    rc = _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: the file system cannot exchange
        return False
    raise OSError(err, os.strerror(err), str(b))


def _read_fd(fd: int) -> bytes:
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def _write_temp(folder: Path, name: str, data: bytes, mode: int | None) -> Path:
    tmp = folder / f"{TEMP_PREFIX}{name[:40]}-{secrets.token_hex(6)}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(tmp, flags, 0o666)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        view = memoryview(bytes(data))
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with _suppress_os():
            os.unlink(tmp)
        raise
    os.close(fd)
    return tmp


class _suppress_os:
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: object, tb: object) -> bool:
        return isinstance(exc, OSError)


def _target_for_write(root: str | os.PathLike[str], rel: str | os.PathLike[str]) -> tuple[Path, os.stat_result | None]:
    target = safe_path(root, rel)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise UnsafePathError(f"{rel} is a symlink; amr does not write through symlinks")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise UnsafePathError(f"{rel} is not a regular file")
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.parent.resolve().is_relative_to(Path(root).resolve()):
        raise UnsafePathError(f"{rel} resolves outside the memory root")
    return target, st


@dataclass(slots=True)
class Displaced:
    """An open descriptor on the inode a replacement displaced, and what it held then: a writer
    that opened the file before the swap may still write to it (see :func:`late_writes`)."""

    fd: int
    path: Path
    seen: bytes


HOLDER_WAIT_S = 1.0  # how long a displaced inode is watched while another process holds it open


def _held_elsewhere(fd: int) -> bool:
    """Another process has the inode of ``fd`` open (Linux: ``/proc/*/fd``). A writer that
    opened the file before the swap and has not written yet holds it: its bytes are still to
    come. False where /proc cannot tell (another OS, no permission)."""
    try:
        st = os.fstat(fd)
        me = str(os.getpid())
        pids = [p for p in os.listdir("/proc") if p.isdigit() and p != me]
    except OSError:
        return False
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for name in fds:
            try:
                other = os.stat(f"/proc/{pid}/fd/{name}")
            except OSError:
                continue
            if other.st_ino == st.st_ino and other.st_dev == st.st_dev:
                return True
    return False


def late_writes(watch: list[Displaced]) -> list[tuple[Path, bytes, bytes]]:
    """Close every watched descriptor; return ``(path, seen, now)`` for each displaced inode
    that was written after it was displaced (the caller merges those bytes back in). While
    another process still holds a displaced inode open (it opened the file before the swap),
    wait for it, up to ``HOLDER_WAIT_S``: an appending agent writes and closes in moments."""
    late = []
    for d in watch:
        try:
            deadline = time.monotonic() + HOLDER_WAIT_S
            while time.monotonic() < deadline and _held_elsewhere(d.fd):
                time.sleep(0.005)
            now = _read_fd(d.fd)
        finally:
            os.close(d.fd)
        if now != d.seen:
            late.append((d.path, d.seen, now))
    watch.clear()
    return late


def replace_checked(
    root: str | os.PathLike[str],
    rel: str | os.PathLike[str],
    data: bytes | None,
    expected: bytes | None,
    watch: list[Displaced] | None = None,
) -> tuple[bool, bytes | None]:
    """Put ``data`` at ``root/rel`` (None removes the file) if the file still holds ``expected``
    (None: the file must not exist), without ever losing bytes someone wrote meanwhile.

    Returns ``(done, displaced)``. ``done`` is True when the file now holds ``data``; then
    ``displaced`` is None when what was replaced was exactly ``expected``, else the bytes that
    were really there (a write that landed after the caller read the file: the caller merges them
    back in and calls again). ``done`` False means nothing was changed because the file did not
    hold ``expected`` to begin with; ``displaced`` is what it holds now.
    Crash-safe like :func:`atomic_write`: the file is always either version, never torn.
    With ``watch``, the displaced inode stays open there for :func:`late_writes`.
    """
    target, st = _target_for_write(root, rel)
    now = _read_regular(target)
    if now != expected:
        return False, now
    folder = target.parent
    if data is None:
        if now is None:
            return True, None
        aside = folder / f"{TEMP_PREFIX}{target.name[:40]}-{secrets.token_hex(6)}"
        os.rename(target, aside)  # captures exactly the inode that was there
        try:
            gone = _read_regular(aside)
            if gone == expected:
                return True, None
            # Written after the caller read it: give the name back (unless someone made a new file).
            try:
                os.link(aside, target)
            except FileExistsError:
                pass
            return True, gone
        finally:
            with _suppress_os():
                os.unlink(aside)
            _fsync_dir(folder)
    tmp = _write_temp(folder, target.name, data, stat.S_IMODE(st.st_mode) if st is not None else None)
    try:
        if now is None:
            try:
                os.link(tmp, target)  # create only if still absent
            except FileExistsError:
                return False, _read_regular(target)
            return True, None
        held = os.open(target, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            if _exchange(tmp, target):
                out = os.open(tmp, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
                os.close(held)
                held = out  # the inode that was at the name when it swapped
            else:
                os.replace(tmp, target)
            displaced = _read_fd(held)
        except BaseException:
            os.close(held)
            raise
        if watch is not None:
            watch.append(Displaced(held, Path(target), displaced))
        else:
            os.close(held)
        return True, (None if displaced == expected else displaced)
    finally:
        with _suppress_os():
            os.unlink(tmp)
        _fsync_dir(folder)


def _read_regular(path: Path) -> bytes | None:
    """A regular file's bytes, None when absent; refuses symlinks and anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == 40:  # ELOOP: a symlink
            raise UnsafePathError(f"{path.name} is a symlink; amr does not write through symlinks") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafePathError(f"{path.name} is not a regular file")
        return _read_fd(fd)
    finally:
        os.close(fd)
