"""``GitRepo``: every read and write amr does to a memory repo's git state.

All git runs through :class:`amr_tui.git.runner.GitRunner`. Writing (``commit_changes``,
``save_file``) lives in :mod:`amr_tui.git.commit`; this module holds discovery and reads.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from amr_tui.git import commit as _commit
from amr_tui.git.errors import GitError, NotARepoError, RepoStateError, UnsafeRepoError
from amr_tui.git.models import (
    LOG_FORMAT,
    CommitInfo,
    Identity,
    RepoStatus,
    parse_log,
    parse_status_v2,
)
from amr_tui.git.runner import DEFAULT_LOCK_TIMEOUT, DEFAULT_TIMEOUT, GitRunner, end_of_options
from amr_tui.git.worktree import normalize_rel

if TYPE_CHECKING:
    from amr_tui.git.gate import GateResult

_OID = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_IDENT = re.compile(r"^(?P<name>.*?) <(?P<email>[^<>]*)> \d+ [+-]\d{4}$")


def _check_branch_name(runner: GitRunner, name: str) -> str:
    if not name or name.startswith("-"):
        raise ValueError(f"invalid branch name: {name!r}")
    res = runner.run(["check-ref-format", f"refs/heads/{name}"], check=False)
    if res.returncode != 0:
        raise ValueError(f"invalid branch name: {name!r}")
    return name


def _owns_worktree(root: Path, git_dir: Path) -> bool:
    """True when ``root/.git`` is ``git_dir`` (a folder, or a ``gitdir:`` file for a linked work tree).

    False when the repo's config (``core.worktree``) sends git's work tree somewhere else: then
    every file amr wrote and every commit it made would land in that other folder or repo.
    """
    dot = root / ".git"
    try:
        if dot.is_dir():
            return dot.resolve() == git_dir.resolve()
        if dot.is_file():
            text = dot.read_bytes()[:4096].decode("utf-8", "replace")
            if text.startswith("gitdir:"):
                target = Path(text[len("gitdir:"):].strip())
                return (target if target.is_absolute() else root / target).resolve() == git_dir.resolve()
    except OSError:
        return False
    return False


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
    return Path(top).resolve() == p.resolve() and (p / "MEMORY.md").is_file()


class GitRepo:
    """A git work tree, addressed by any folder inside it (``root`` is the top level)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        env: Mapping[str, str] | None = None,
        config: tuple[tuple[str, str], ...] = (),
        merge_drivers: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ):
        start = Path(path)
        if not start.is_dir():
            raise NotARepoError(-1, "", [], message=f"{start} is not a folder")
        opts = dict(env=env, config=config, merge_drivers=merge_drivers, timeout=timeout,
                    lock_timeout=lock_timeout)
        probe = GitRunner(start, **opts)
        out = probe.text(["rev-parse", "--show-toplevel", "--absolute-git-dir"]).splitlines()
        if len(out) < 2:
            raise NotARepoError(-1, "", [], message=f"{start} is not inside a git work tree")
        self.root = Path(out[0])
        self.git_dir = Path(out[1])
        if not _owns_worktree(self.root, self.git_dir):
            raise UnsafeRepoError(
                -1, "", ["rev-parse", "--show-toplevel"],
                message=(f"The git config in {self.git_dir} points its work tree at {self.root} "
                         f"(core.worktree), outside the repo's own folder. amr will not read or write "
                         f"there. If you did not set it, remove it: git config --unset core.worktree"),
            )
        self.runner = GitRunner(self.root, **opts)

    def __repr__(self) -> str:
        return f"GitRepo({str(self.root)!r})"

    # -- creation ---------------------------------------------------------------------------
    @classmethod
    def init(cls, path: str | os.PathLike[str], initial_branch: str = "main", **kwargs) -> GitRepo:
        """``git init`` (creating the folder if needed) and return the repo. No commit is made."""
        target = Path(path).absolute()
        target.mkdir(parents=True, exist_ok=True)
        runner = GitRunner(target)
        _check_branch_name(runner, initial_branch)
        runner.run(["init", "-q", f"--initial-branch={initial_branch}", str(target)], write=True)
        return cls(target, **kwargs)

    # -- refs -------------------------------------------------------------------------------
    def resolve(self, rev: str, kind: str = "commit") -> str | None:
        """Object id of ``rev`` peeled to ``kind``, or None if it does not exist."""
        res = self.runner.run(
            ["rev-parse", "--verify", "--quiet", *end_of_options(f"{rev}^{{{kind}}}")],
            check=False,
        )
        oid = res.text.strip()
        return oid if res.returncode == 0 and _OID.match(oid) else None

    def head(self) -> str | None:
        """The commit HEAD points to, or None in an empty repo."""
        return self.resolve("HEAD")

    def current_branch(self) -> str | None:
        """The checked-out branch name (also for an empty repo), or None when HEAD is detached."""
        res = self.runner.run(["symbolic-ref", "-q", "HEAD"], check=False)
        ref = res.text.strip()
        if res.returncode != 0 or not ref.startswith("refs/heads/"):
            return None
        return ref[len("refs/heads/"):]

    def branches(self, prefix: str = "") -> dict[str, str]:
        """Local branch name -> commit oid, optionally only those starting with ``prefix``."""
        out = self.runner.run(
            ["for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/"]
        ).text
        result: dict[str, str] = {}
        for line in out.splitlines():
            oid, _, ref = line.partition(" ")
            name = ref[len("refs/heads/"):]
            if name.startswith(prefix):
                result[name] = oid
        return result

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        res = self.runner.run(
            ["merge-base", "--is-ancestor", *end_of_options(ancestor, descendant)], ok=(0, 1)
        )
        return res.returncode == 0

    def create_branch(self, name: str, start: str) -> None:
        """Create ``refs/heads/<name>`` at commit ``start``; fails if the branch exists."""
        self.check_branch_name(name)
        oid = self.resolve(start)
        if oid is None:
            raise ValueError(f"unknown commit: {start!r}")
        self.runner.run(["update-ref", f"refs/heads/{name}", oid, self.zero_oid()], write=True)

    def check_branch_name(self, name: str) -> str:
        """Return ``name`` if it is a valid branch name, else raise ValueError."""
        return _check_branch_name(self.runner, name)

    def zero_oid(self) -> str:
        fmt = self.runner.text(["rev-parse", "--show-object-format"]).strip()
        return "0" * (64 if fmt == "sha256" else 40)

    # -- reading ------------------------------------------------------------------------------
    def status(self) -> RepoStatus:
        raw = self.runner.run(
            ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all",
             "--ignore-submodules=all", "--no-renames"]
        ).stdout
        return parse_status_v2(raw)

    def modified_paths(self) -> list[str]:
        """Tracked files with staged or unstaged changes against HEAD."""
        return [c.path for c in self.status().changes if c.kind != "unmerged"]

    def read_blob_or_none(self, rev: str, path: str) -> bytes | None:
        """Raw bytes of ``path`` at ``rev`` (no filters, no textconv), None if absent there."""
        rel = normalize_rel(path)
        commit = rev if _OID.match(rev) else self.resolve(rev)
        if commit is None:
            return None
        res = self.runner.run(["cat-file", "--batch"], input=f"{commit}:{rel}\n".encode("utf-8", "surrogateescape"))
        header, _, rest = res.stdout.partition(b"\n")
        fields = header.split(b" ")
        if len(fields) != 3 or fields[1] != b"blob":
            return None
        size = int(fields[2])
        return rest[:size]

    def read_blob(self, rev: str, path: str) -> bytes:
        data = self.read_blob_or_none(rev, path)
        if data is None:
            raise FileNotFoundError(f"{path} does not exist at {rev}")
        return data

    def tree_entry(self, rev: str, path: str) -> tuple[str, str] | None:
        """``(mode, oid)`` of ``path`` at ``rev`` or None."""
        return self.tree_entries(rev, [path]).get(normalize_rel(path))

    def tree_entries(self, rev: str, paths: list[str]) -> dict[str, tuple[str, str]]:
        """``{path: (mode, oid)}`` for those of ``paths`` that exist at ``rev`` (one git call)."""
        rels = [normalize_rel(p) for p in paths]
        commit = rev if _OID.match(rev) else self.resolve(rev)
        if commit is None or not rels:
            return {}
        out = self.runner.run(["ls-tree", "-z", "--full-tree", commit, "--", *rels]).stdout
        wanted = set(rels)
        found: dict[str, tuple[str, str]] = {}
        for rec in out.split(b"\0"):
            meta, _, name = rec.partition(b"\t")
            rel = name.decode("utf-8", "surrogateescape")
            if rel in wanted:
                mode, _type, oid = meta.decode().split(" ")
                found[rel] = (mode, oid)
        return found

    def ls_files(self) -> list[str]:
        """Tracked paths (from the index), sorted as git sorts them."""
        out = self.runner.run(["ls-files", "-z", "--full-name"]).stdout
        return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]

    def index_entry(self, path: str) -> tuple[str, str, int] | None:
        """``(mode, oid, stage)`` of ``path`` in the real index (first entry), or None."""
        rel = normalize_rel(path)
        out = self.runner.run(["ls-files", "-s", "-z", "--full-name", "--", rel]).stdout
        for rec in out.split(b"\0"):
            meta, _, name = rec.partition(b"\t")
            if name.decode("utf-8", "surrogateescape") == rel:
                mode, oid, stage = meta.decode().split(" ")
                return mode, oid, int(stage)
        return None

    def file_log(self, path: str, limit: int = 50, skip: int = 0, rev: str = "HEAD") -> list[CommitInfo]:
        """Commits reachable from ``rev`` that touched ``path``, newest first."""
        rel = normalize_rel(path)
        commit = self.resolve(rev)
        if commit is None:
            return []
        out = self.runner.run(
            ["log", "-z", f"--format={LOG_FORMAT}", "--no-ext-diff", "--no-textconv",
             "--no-show-signature", f"--max-count={int(limit)}", f"--skip={int(skip)}",
             *end_of_options(commit), "--", rel]
        ).stdout
        return parse_log(out)

    def log(self, limit: int = 50, skip: int = 0, rev: str = "HEAD") -> list[CommitInfo]:
        """Commits reachable from ``rev``, newest first."""
        commit = self.resolve(rev)
        if commit is None:
            return []
        out = self.runner.run(
            ["log", "-z", f"--format={LOG_FORMAT}", "--no-show-signature",
             f"--max-count={int(limit)}", f"--skip={int(skip)}", *end_of_options(commit), "--"]
        ).stdout
        return parse_log(out)

    def merge_base(self, a: str, b: str) -> str | None:
        res = self.runner.run(["merge-base", *end_of_options(a, b)], ok=(0, 1))
        oid = res.text.strip()
        return oid if res.returncode == 0 and _OID.match(oid) else None

    def diff(self, old: str, new: str | None = None, path: str | None = None, context: int = 3) -> bytes:
        """Unified diff (raw bytes) from ``old`` to ``new`` (None: the work tree), optionally one
        path. Never runs external diff programs or textconv."""
        revs = [old] if new is None else [old, new]
        spec = ["--", normalize_rel(path)] if path else ["--"]
        return self.runner.run(
            ["diff", "--no-ext-diff", "--no-textconv", "--no-color", "--no-renames",
             f"-U{int(context)}", *end_of_options(*revs), *spec]
        ).stdout

    def changed_paths(self, old: str, new: str) -> list[tuple[str, str]]:
        """``[(status letter, path), ...]`` between two commits (A added, M modified, D deleted...)."""
        out = self.runner.run(
            ["diff", "--no-ext-diff", "--no-textconv", "--name-status", "-z", "--no-renames",
             *end_of_options(old, new), "--"]
        ).stdout
        parts = [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]
        return [(parts[i][:1], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]

    # -- identity -------------------------------------------------------------------------------
    def identity(self, env: Mapping[str, str] | None = None) -> Identity | None:
        """The committer identity git would use here, or None when git has none."""
        res = self.runner.run(["var", "GIT_COMMITTER_IDENT"], env=env, check=False)
        if res.returncode != 0:
            return None
        m = _IDENT.match(res.text.strip())
        return Identity(m["name"], m["email"]) if m else None

    def set_local_identity(self, name: str, email: str) -> None:
        """Set ``user.name``/``user.email`` in this repo's own config (never global)."""
        for label, value in (("name", name), ("email", email)):
            if not value.strip() or any(c in value for c in "\n\r\0<>"):
                raise ValueError(f"invalid {label}: {value!r}")
        self.runner.run(["config", "--local", *end_of_options("user.name", name.strip())], write=True)
        self.runner.run(["config", "--local", *end_of_options("user.email", email.strip())], write=True)

    # -- state ----------------------------------------------------------------------------------
    def operation_in_progress(self) -> str | None:
        """``"merge"``, ``"rebase"``, ``"am"``, ``"cherry-pick"``, ``"revert"``, ``"bisect"`` or None."""
        g = self.git_dir
        if (g / "rebase-merge").is_dir():
            return "rebase"
        if (g / "rebase-apply").is_dir():
            return "am" if (g / "rebase-apply" / "applying").exists() else "rebase"
        if (g / "MERGE_HEAD").exists():
            return "merge"
        if (g / "CHERRY_PICK_HEAD").exists():
            return "cherry-pick"
        if (g / "REVERT_HEAD").exists():
            return "revert"
        if (g / "BISECT_LOG").exists():
            return "bisect"
        return None

    # -- merging --------------------------------------------------------------------------------
    def merge_file(
        self,
        ours: bytes,
        base: bytes,
        theirs: bytes,
        labels: tuple[str, str, str] = ("yours", "base", "theirs"),
    ) -> tuple[bytes, bool]:
        """Three-way merge of one file's bytes with ``git merge-file -p --diff3``.

        Returns ``(result, conflicted)``; a conflicted result holds diff3 markers.
        Raises :class:`GitError` when git cannot merge (e.g. binary content).
        """
        with tempfile.TemporaryDirectory(prefix="amr-merge-") as tmp:
            files = []
            for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
                f = Path(tmp) / name
                f.write_bytes(data)
                files.append(str(f))
            res = self.runner.run(
                ["merge-file", "-p", "--diff3",
                 "-L", labels[0], "-L", labels[1], "-L", labels[2], "--", *files],
                check=False,
            )
        if res.returncode < 0 or res.returncode >= 128:
            raise GitError(res.returncode, res.stderr, res.args)
        return res.stdout, res.returncode > 0

    # -- writing (see amr_tui.git.commit) -------------------------------------------------------
    def commit_changes(
        self,
        changes: Mapping[str, bytes | None],
        message: str,
        expected_head: str | None,
        branch: str | None = None,
        **kwargs,
    ) -> str:
        return _commit.commit_changes(self, changes, message, expected_head, branch, **kwargs)

    commit_changes.__doc__ = _commit.commit_changes.__doc__

    def write_files(self, changes, message: str, **kwargs) -> GateResult:
        """Commit changes through the write gate (see :mod:`amr_tui.git.gate`)."""
        from amr_tui.git import gate

        return gate.commit_files(self, changes, message, **kwargs)

    def save_file(
        self,
        path: str,
        new_bytes: bytes | None,
        base_bytes: bytes | None,
        base_head: str | None,
        message: str,
        **kwargs,
    ) -> str:
        """One file through the write gate: ``base_bytes`` is what the edit started from."""
        from amr_tui.git import gate

        change = gate.Change(path, base_bytes, new_bytes, base_head)
        return gate.commit_files(self, [change], message, **kwargs).head or ""


__all__ = ["GitRepo", "is_memory_repo", "RepoStateError"]
