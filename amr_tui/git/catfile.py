"""Fast blob reads across many commits: one persistent ``git cat-file --batch``.

The batch protocol is GitPython's (``git.cmd.Git.get_object_data``: header parsing, exact-size
reads, a stream that is never left half-read). GitPython is imported on first use, not at
start-up (importing it takes a noticeable moment). Its own process launcher is not used: the ``cat-file`` process is
started here with the runner's hardened environment (``runner.build_env`` with the same
``GIT_CONFIG_*`` overrides as every other git call, ``GIT_OPTIONAL_LOCKS=0``, stripped
``GIT_DIR``-style variables) and the absolute git found by ``runner.git_binary``, then handed to
GitPython as its persistent ``cat_file_all`` command. No GitPython commit or index API is ever
used: they run git outside the hardened runner, and every write goes through the write gate.

Thread-safe: one lock per reader (GitPython's reader is not). If the batch process cannot run
(for instance git refuses the repo for "dubious ownership"), reads fall back to
one ``cat-file`` per call through the runner, which raises the classified error.

Size limit: a reader made with ``max_bytes`` (or a read given one) first asks a second persistent
``cat-file --batch-check`` process for the object's size and raises :class:`BlobTooLargeError`
when it is over the limit, so such a blob is never read, not even into a pipe buffer.
:func:`blob_sizes` asks for many sizes in one ``--batch-check``.
"""

from __future__ import annotations

import enum
import os
import subprocess
import threading
from collections.abc import Iterable
from typing import Any

from amr_tui.core.textsafety import describe_size
from amr_tui.git.handle import OID, RepoHandle
from amr_tui.git.runner import build_env, git_binary
from amr_tui.git.worktree import FileTooLargeError, UnsafePathError, normalize_rel


class _ReaderLimit(enum.Enum):
    """A read's ``max_bytes`` default: the reader's own limit."""

    DEFAULT = enum.auto()


_UNLIMITED = _ReaderLimit.DEFAULT


class BlobTooLargeError(FileTooLargeError):
    """A blob over the caller's size limit: it was not read. ``path`` is None for a read by oid."""

    def __init__(self, path: str | None, commit: str | None, size: int, limit: int):
        self.path, self.commit, self.size, self.limit = path, commit, size, limit
        where = f"{path} in commit {commit[:7]}" if path is not None and commit else (path or "a blob")
        super().__init__(
            f"{where} is {describe_size(size)}, more than the {describe_size(limit)} "
            f"amr reads from git; it was not read"
        )


def blob_sizes(repo: RepoHandle, oids: Iterable[str | None]) -> dict[str, int]:
    """``oid -> size`` of the blobs among ``oids`` (one ``cat-file --batch-check``; missing
    objects and other kinds are left out). Nothing is read but the object headers."""
    wanted = sorted({o for o in oids if o and OID.match(o)})
    if not wanted:
        return {}
    res = repo.runner.run(
        ["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"],
        input=("\n".join(wanted) + "\n").encode("ascii"),
    )
    sizes: dict[str, int] = {}
    for line in res.stdout.split(b"\n"):
        fields = line.decode("ascii", "replace").split(" ")
        if len(fields) == 3 and fields[1] == "blob" and fields[2].isdigit():
            sizes[fields[0]] = int(fields[2])
    return sizes


def _gitpython() -> Any:
    """Import GitPython lazily. Its import-time ``git version`` probe uses our absolute git."""
    if "GIT_PYTHON_GIT_EXECUTABLE" not in os.environ:
        os.environ["GIT_PYTHON_GIT_EXECUTABLE"] = git_binary()
    import git as gitpython  # GitPython: not on the first frame's path; the variable above is set first

    return gitpython


class _TooLarge(Exception):
    def __init__(self, size: int):
        self.size = size


class BlobReader:
    """``read(commit, path)`` / ``read_oid(oid)`` through one long-lived cat-file process.

    ``max_bytes``: the default size limit of every read (None: no limit); a read over it raises
    :class:`BlobTooLargeError` without reading the blob."""

    def __init__(self, repo: RepoHandle, *, max_bytes: int | None = None):
        self._repo = repo
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._git: Any = None
        self._broken = False
        self.reads = 0

    def _popen(self, mode: str) -> Any:
        runner = self._repo.runner
        env = build_env(runner.env, runner._config_for_call(None), write=False)
        proc = subprocess.Popen(
            [git_binary(), "cat-file", mode],
            cwd=str(self._repo.root),
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            shell=False,
        )
        return _gitpython().cmd.Git.AutoInterrupt(proc, ["git", "cat-file", mode])

    def _start(self) -> Any:
        g = _gitpython().cmd.Git(str(self._repo.root))
        g.cat_file_all = self._popen("--batch")
        return g

    def _object(self, spec: str, max_bytes: int | None) -> tuple[str, bytes] | None:
        with self._lock:
            self.reads += 1
            if not self._broken:
                try:
                    if self._git is None:
                        self._git = self._start()
                    if max_bytes is not None:
                        if self._git.cat_file_header is None:  # never GitPython's own launcher
                            self._git.cat_file_header = self._popen("--batch-check")
                        _sha, kind, size = self._git.get_object_header(spec)
                        if kind in ("blob", b"blob") and size > max_bytes:
                            raise _TooLarge(size)
                    _sha, kind, _size, data = self._git.get_object_data(spec)
                    return (kind.decode() if isinstance(kind, bytes) else kind), data
                except ValueError as exc:
                    if "could not be resolved" in str(exc):
                        return None  # "<spec> missing": the stream is still in step
                    self._stop()
                    self._broken = True
                except (OSError, AttributeError):
                    self._stop()
                    self._broken = True
        return self._fallback(spec, max_bytes)

    def _fallback(self, spec: str, max_bytes: int | None) -> tuple[str, bytes] | None:
        line = spec.encode("utf-8", "surrogateescape") + b"\n"
        if max_bytes is not None:
            head = self._repo.runner.run(["cat-file", "--batch-check"], input=line).stdout.split(b" ")
            if len(head) == 3 and head[1] == b"blob" and head[2].strip().isdigit() and int(head[2]) > max_bytes:
                raise _TooLarge(int(head[2]))
        res = self._repo.runner.run(["cat-file", "--batch"], input=line)
        header, _, rest = res.stdout.partition(b"\n")
        fields = header.split(b" ")
        if len(fields) != 3 or not fields[2].isdigit():
            return None
        return fields[1].decode(), rest[: int(fields[2])]

    def _limit(self, max_bytes: int | None | _ReaderLimit) -> int | None:
        return self.max_bytes if max_bytes is _UNLIMITED else max_bytes

    def read(self, commit: str, path: str, *, max_bytes: int | None | _ReaderLimit = _UNLIMITED) -> bytes | None:
        """Bytes of ``path`` in ``commit`` (an object id), or None when it is not a blob there
        (or its name is one amr refuses: control characters, ``..``, ``.git``).

        Raises :class:`BlobTooLargeError` (nothing read) when the object is over ``max_bytes``
        (default: the reader's limit; None: no limit)."""
        if not OID.match(commit):
            raise ValueError(f"not an object id: {commit!r}")
        try:
            rel = normalize_rel(path)
        except UnsafePathError:
            return None  # control characters, "..", ".git": amr does not read such paths
        limit = self._limit(max_bytes)
        try:
            found = self._object(f"{commit}:{rel}", limit)
        except _TooLarge as big:
            raise BlobTooLargeError(rel, commit, big.size, limit or 0) from None
        return found[1] if found and found[0] == "blob" else None

    def read_oid(self, oid: str, *, max_bytes: int | None | _ReaderLimit = _UNLIMITED) -> bytes | None:
        if not OID.match(oid):
            raise ValueError(f"not an object id: {oid!r}")
        limit = self._limit(max_bytes)
        try:
            found = self._object(oid, limit)
        except _TooLarge as big:
            raise BlobTooLargeError(None, None, big.size, limit or 0) from None
        return found[1] if found and found[0] == "blob" else None

    def _stop(self) -> None:
        if self._git is not None:
            try:
                self._git.clear_cache()
            except Exception:  # noqa: BLE001 - closing a dead process must not raise
                pass
            self._git = None

    def close(self) -> None:
        with self._lock:
            self._stop()

    def __del__(self) -> None:
        try:
            self._stop()
        except Exception:  # noqa: BLE001
            pass
