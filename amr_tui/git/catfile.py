"""Fast blob reads across many commits: one persistent ``git cat-file --batch``.

The batch protocol is GitPython's (``git.cmd.Git.get_object_data``: header parsing, exact-size
reads, a stream that is never left half-read). GitPython is imported on first use, not at
start-up (field note 25). Its own process launcher is not used: the ``cat-file`` process is
started here with the runner's hardened environment (``runner.build_env`` with the same
``GIT_CONFIG_*`` overrides as every other git call, ``GIT_OPTIONAL_LOCKS=0``, stripped
``GIT_DIR``-style variables) and the absolute git found by ``runner.git_binary``, then handed to
GitPython as its persistent ``cat_file_all`` command. No GitPython commit or index API is ever
used (field note 12).

Thread-safe: one lock per reader (GitPython's reader is not). If the batch process cannot run
(for instance git refuses the repo for "dubious ownership", field note 17), reads fall back to
one ``cat-file`` per call through the runner, which raises the classified error.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from typing import TYPE_CHECKING, Any

from amr_tui.git.runner import build_env, git_binary
from amr_tui.git.worktree import UnsafePathError, normalize_rel

if TYPE_CHECKING:
    from amr_tui.git.repo import GitRepo

_OID = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


def _gitpython() -> Any:
    """Import GitPython lazily. Its import-time ``git version`` probe uses our absolute git."""
    if "GIT_PYTHON_GIT_EXECUTABLE" not in os.environ:
        os.environ["GIT_PYTHON_GIT_EXECUTABLE"] = git_binary()
    import git as gitpython

    return gitpython


class BlobReader:
    """``read(commit, path)`` / ``read_oid(oid)`` through one long-lived cat-file process."""

    def __init__(self, repo: GitRepo):
        self._repo = repo
        self._lock = threading.Lock()
        self._git: Any = None
        self._broken = False
        self.reads = 0

    def _start(self) -> Any:
        gp = _gitpython()
        runner = self._repo.runner
        env = build_env(runner.env, runner._config_for_call(None), write=False)
        proc = subprocess.Popen(
            [git_binary(), "cat-file", "--batch"], cwd=str(self._repo.root), env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, shell=False,
        )
        g = gp.cmd.Git(str(self._repo.root))
        g.cat_file_all = gp.cmd.Git.AutoInterrupt(proc, ["git", "cat-file", "--batch"])
        return g

    def _object(self, spec: str) -> tuple[str, bytes] | None:
        with self._lock:
            self.reads += 1
            if not self._broken:
                try:
                    if self._git is None:
                        self._git = self._start()
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
        return self._fallback(spec)

    def _fallback(self, spec: str) -> tuple[str, bytes] | None:
        res = self._repo.runner.run(["cat-file", "--batch"], input=spec.encode("utf-8", "surrogateescape") + b"\n")
        header, _, rest = res.stdout.partition(b"\n")
        fields = header.split(b" ")
        if len(fields) != 3 or not fields[2].isdigit():
            return None
        return fields[1].decode(), rest[: int(fields[2])]

    def read(self, commit: str, path: str) -> bytes | None:
        """Bytes of ``path`` in ``commit`` (an object id), or None when it is not a blob there
        (or its name is one amr refuses: control characters, ``..``, ``.git``)."""
        if not _OID.match(commit):
            raise ValueError(f"not an object id: {commit!r}")
        try:
            rel = normalize_rel(path)
        except UnsafePathError:
            return None  # control characters, "..", ".git": amr does not read such paths
        found = self._object(f"{commit}:{rel}")
        return found[1] if found and found[0] == "blob" else None

    def read_oid(self, oid: str) -> bytes | None:
        if not _OID.match(oid):
            raise ValueError(f"not an object id: {oid!r}")
        found = self._object(oid)
        return found[1] if found and found[0] == "blob" else None

    def read_many(self, commit: str, paths: list[str]) -> dict[str, bytes | None]:
        return {p: self.read(commit, p) for p in paths}

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
