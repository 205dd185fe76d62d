"""``GitRepo``: the one object code outside ``amr_tui.git`` uses for a memory repo's git state.

It is a :class:`~amr_tui.git.handle.RepoHandle` (discovery, the primitive reads, the object
format) plus the operations built on the modules under it: history reads
(:mod:`~amr_tui.git.history`), commits (:mod:`~amr_tui.git.commit`) and the write gate
(:mod:`~amr_tui.git.gate`). Those modules take a ``RepoHandle`` and never import this one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from amr_tui.core.paths import MEMORY_FILE
from amr_tui.git import commit as _commit
from amr_tui.git import gate as _gate
from amr_tui.git import history as _history
from amr_tui.git.errors import GitError, NotARepoError, RepoStateError
from amr_tui.git.handle import RepoHandle
from amr_tui.git.journal import Journal
from amr_tui.git.models import LOG_FORMAT, CommitInfo, parse_log
from amr_tui.git.runner import GitRunner, end_of_options
from amr_tui.git.worktree import normalize_rel


def is_memory_repo(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is the top level of its own git work tree and has ``MEMORY.md``.

    (The skill's rule: ``git rev-parse --show-toplevel`` prints the path itself, not a parent.)
    Raises :class:`UnsafeRepoError` for a repo owned by someone else.
    """
    p = Path(path)
    if not p.is_dir():
        return False
    try:
        top = GitRunner(p).text(["rev-parse", "--show-toplevel"]).strip()
    except NotARepoError:
        return False
    except GitError as exc:
        if "must be run in a work tree" in exc.stderr:
            return False
        raise
    return Path(top).resolve() == p.resolve() and (p / MEMORY_FILE).is_file()


class GitRepo(RepoHandle):
    """A git work tree, addressed by any folder inside it (``root`` is the top level)."""

    # -- refs -------------------------------------------------------------------------------
    def branches(self, prefix: str = "") -> dict[str, str]:
        """Local branch name -> commit oid, optionally only those starting with ``prefix``."""
        out = self.runner.run(["for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/"]).text
        result: dict[str, str] = {}
        for line in out.splitlines():
            oid, _, ref = line.partition(" ")
            name = ref[len("refs/heads/") :]
            if name.startswith(prefix):
                result[name] = oid
        return result

    def create_branch(self, name: str, start: str) -> None:
        """Create ``refs/heads/<name>`` at commit ``start``; fails if the branch exists."""
        self.check_branch_name(name)
        oid = self.resolve(start)
        if oid is None:
            raise ValueError(f"unknown commit: {start!r}")
        self.runner.run(["update-ref", f"refs/heads/{name}", oid, self.zero_oid()], write=True)

    # -- reading ------------------------------------------------------------------------------
    def modified_paths(self) -> list[str]:
        """Tracked files with staged or unstaged changes against HEAD."""
        return [c.path for c in self.status().changes if c.kind != "unmerged"]

    def ls_files(self) -> list[str]:
        """Tracked paths (from the index), sorted as git sorts them."""
        out = self.runner.run(["ls-files", "-z", "--full-name"]).stdout
        return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]

    def log(self, limit: int = 50, skip: int = 0, rev: str = "HEAD") -> list[CommitInfo]:
        """Commits reachable from ``rev``, newest first."""
        return self._log(rev, limit, skip, (), ())

    def _log(self, rev: str, limit: int, skip: int, flags: tuple[str, ...], paths: tuple[str, ...]) -> list[CommitInfo]:
        """``git log`` of ``rev`` with ``flags``, limited to ``paths`` (none: every path); [] when ``rev`` is not a commit."""
        commit = self.resolve(rev)
        if commit is None:
            return []
        out = self.runner.run(
            [
                "log",
                "-z",
                f"--format={LOG_FORMAT}",
                *flags,
                "--no-show-signature",
                f"--max-count={int(limit)}",
                f"--skip={int(skip)}",
                *end_of_options(commit),
                "--",
                *paths,
            ]
        ).stdout
        return parse_log(out)

    def merge_base(self, a: str, b: str) -> str | None:
        """See :func:`amr_tui.git.history.merge_base`."""
        return _history.merge_base(self, a, b)

    def diff(self, old: str, new: str | None = None, path: str | None = None, context: int = 3) -> bytes:
        """Unified diff (raw bytes) from ``old`` to ``new`` (None: the work tree), optionally one
        path. Never runs external diff programs or textconv."""
        revs = [old] if new is None else [old, new]
        spec = ["--", normalize_rel(path)] if path else ["--"]
        return self.runner.run(
            [
                "diff",
                "--no-ext-diff",
                "--no-textconv",
                "--no-color",
                "--no-renames",
                f"-U{int(context)}",
                *end_of_options(*revs),
                *spec,
            ]
        ).stdout

    def changed_paths(self, old: str, new: str) -> list[tuple[str, str]]:
        """See :func:`amr_tui.git.history.changed_paths`."""
        return _history.changed_paths(self, old, new)

    # -- identity -------------------------------------------------------------------------------
    def set_local_identity(self, name: str, email: str) -> None:
        """Set ``user.name``/``user.email`` in this repo's own config (never global)."""
        for label, value in (("name", name), ("email", email)):
            if not value.strip() or any(c in value for c in "\n\r\0<>"):
                raise ValueError(f"invalid {label}: {value!r}")
        self.runner.run(["config", "--local", *end_of_options("user.name", name.strip())], write=True)
        self.runner.run(["config", "--local", *end_of_options("user.email", email.strip())], write=True)

    # -- writing --------------------------------------------------------------------------------
    commit_changes = _commit.commit_changes  # the function as a method: the repo is its first argument

    def write_files(
        self,
        changes: Sequence[_gate.Change],
        message: str,
        *,
        env: Mapping[str, str] | None = None,
        branch: str | None = None,
        probe: _gate.Probe | None = None,
        max_attempts: int = _gate.MAX_ATTEMPTS,
        journal: Journal | None = None,
    ) -> _gate.GateResult:
        """Commit changes through the write gate (see :func:`amr_tui.git.gate.commit_files`)."""
        return _gate.commit_files(
            self, changes, message, env=env, branch=branch, probe=probe, max_attempts=max_attempts, journal=journal
        )


__all__ = ["GitRepo", "RepoStateError", "is_memory_repo"]
