"""``RepoHandle``: a located work tree (top level, git folder, runner, object format) and the
primitive reads and the ref compare-and-swap that every git module builds on.

It sits under every module that works on a repo (:mod:`~amr_tui.git.commit`,
:mod:`~amr_tui.git.gate`, :mod:`~amr_tui.git.merging`, :mod:`~amr_tui.git.history`, ...): they take
a ``RepoHandle`` and never import :mod:`amr_tui.git.repo`. :class:`~amr_tui.git.repo.GitRepo`
extends it with the operations built on those modules, and is what code outside ``amr_tui.git``
uses (a ``GitRepo`` is a ``RepoHandle``, so it can be passed to any of them).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Self

from amr_tui.git.errors import GitError, NotARepoError, RefMovedError, UnmergedError, UnsafeRepoError
from amr_tui.git.models import Identity, RepoStatus, parse_status_v2
from amr_tui.git.overrides import RepoInfo
from amr_tui.git.runner import DEFAULT_LOCK_TIMEOUT, DEFAULT_TIMEOUT, GitRunner, end_of_options
from amr_tui.git.worktree import normalize_rel

OID = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_IDENT = re.compile(r"^(?P<name>.*?) <(?P<email>[^<>]*)> \d+ [+-]\d{4}$")


def check_branch_name(runner: GitRunner, name: str) -> str:
    """``name`` if ``refs/heads/<name>`` is a valid ref name, else ValueError."""
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
                target = Path(text[len("gitdir:") :].strip())
                return (target if target.is_absolute() else root / target).resolve() == git_dir.resolve()
    except OSError:
        return False
    return False


class RepoHandle:
    """A git work tree, addressed by any folder inside it: ``root`` (the top level), ``git_dir``,
    ``runner`` (the hardened runner, in ``root``) and :attr:`object_format`."""

    root: Path
    git_dir: Path
    runner: GitRunner

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

        def runner_in(cwd: Path, info: RepoInfo | None = None) -> GitRunner:
            return GitRunner(
                cwd,
                env=env,
                config=config,
                merge_drivers=merge_drivers,
                timeout=timeout,
                lock_timeout=lock_timeout,
                info=info,
            )

        first = runner_in(start)
        info = first.repo_info()  # one `git rev-parse` for the work tree, kept by the runners
        if info is None:
            raise NotARepoError(-1, "", [], message=f"{start} is not inside a git work tree")
        self.root = info.toplevel
        self.git_dir = info.git_dir
        if not _owns_worktree(self.root, self.git_dir):
            raise UnsafeRepoError(
                -1,
                "",
                ["rev-parse", "--show-toplevel"],
                message=(
                    f"The git config in {self.git_dir} points its work tree at {self.root} "
                    f"(core.worktree), outside the repo's own folder. amr will not read or write "
                    f"there. If you did not set it, remove it: git config --unset core.worktree"
                ),
            )
        self.runner = runner_in(self.root, info)
        self._object_format: str | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.root)!r})"

    @classmethod
    def init(
        cls,
        path: str | os.PathLike[str],
        initial_branch: str = "main",
        *,
        env: Mapping[str, str] | None = None,
        config: tuple[tuple[str, str], ...] = (),
        merge_drivers: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> Self:
        """``git init`` (creating the folder if needed) and return the repo. No commit is made."""
        target = Path(path).absolute()
        target.mkdir(parents=True, exist_ok=True)
        runner = GitRunner(target)
        check_branch_name(runner, initial_branch)
        runner.run(["init", "-q", f"--initial-branch={initial_branch}", str(target)], write=True)
        return cls(
            target, env=env, config=config, merge_drivers=merge_drivers, timeout=timeout, lock_timeout=lock_timeout
        )

    # -- objects and refs -----------------------------------------------------------------
    @property
    def object_format(self) -> str:
        """``"sha1"`` or ``"sha256"`` (asked once)."""
        if self._object_format is None:
            self._object_format = self.runner.text(["rev-parse", "--show-object-format"]).strip() or "sha1"
        return self._object_format

    def zero_oid(self) -> str:
        """The all-zero object id of this repo's object format."""
        return "0" * (64 if self.object_format == "sha256" else 40)

    def resolve(self, rev: str, kind: str = "commit") -> str | None:
        """Object id of ``rev`` peeled to ``kind``, or None if it does not exist."""
        res = self.runner.run(
            ["rev-parse", "--verify", "--quiet", *end_of_options(f"{rev}^{{{kind}}}")],
            check=False,
        )
        oid = res.text.strip()
        return oid if res.returncode == 0 and OID.match(oid) else None

    def head(self) -> str | None:
        """The commit HEAD points to, or None in an empty repo."""
        return self.resolve("HEAD")

    def current_branch(self) -> str | None:
        """The checked-out branch name (also for an empty repo), or None when HEAD is detached."""
        res = self.runner.run(["symbolic-ref", "-q", "HEAD"], check=False)
        ref = res.text.strip()
        if res.returncode != 0 or not ref.startswith("refs/heads/"):
            return None
        return ref[len("refs/heads/") :]

    def check_branch_name(self, name: str) -> str:
        """Return ``name`` if it is a valid branch name, else raise ValueError."""
        return check_branch_name(self.runner, name)

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        res = self.runner.run(["merge-base", "--is-ancestor", *end_of_options(ancestor, descendant)], ok=(0, 1))
        return res.returncode == 0

    # -- reading ----------------------------------------------------------------------------
    def status(self) -> RepoStatus:
        raw = self.runner.run(
            [
                "status",
                "--porcelain=v2",
                "--branch",
                "-z",
                "--untracked-files=all",
                "--ignore-submodules=all",
                "--no-renames",
            ]
        ).stdout
        return parse_status_v2(raw)

    def read_blob_or_none(self, rev: str, path: str) -> bytes | None:
        """Raw bytes of ``path`` at ``rev`` (no filters, no textconv), None if absent there."""
        rel = normalize_rel(path)
        commit = rev if OID.match(rev) else self.resolve(rev)
        if commit is None:
            return None
        res = self.runner.run(["cat-file", "--batch"], input=f"{commit}:{rel}\n".encode("utf-8", "surrogateescape"))
        header, _, rest = res.stdout.partition(b"\n")
        fields = header.split(b" ")
        if len(fields) != 3 or fields[1] != b"blob":
            return None
        size = int(fields[2])
        return rest[:size]

    def tree_entry(self, rev: str, path: str) -> tuple[str, str] | None:
        """``(mode, oid)`` of ``path`` at ``rev`` or None."""
        return self.tree_entries(rev, [path]).get(normalize_rel(path))

    def tree_entries(self, rev: str, paths: list[str]) -> dict[str, tuple[str, str]]:
        """``{path: (mode, oid)}`` for those of ``paths`` that exist at ``rev`` (one git call)."""
        rels = [normalize_rel(p) for p in paths]
        commit = rev if OID.match(rev) else self.resolve(rev)
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

    # -- identity and state -----------------------------------------------------------------
    def identity(self, env: Mapping[str, str] | None = None) -> Identity | None:
        """The committer identity git would use here, or None when git has none."""
        res = self.runner.run(["var", "GIT_COMMITTER_IDENT"], env=env, check=False)
        if res.returncode != 0:
            return None
        m = _IDENT.match(res.text.strip())
        return Identity(m["name"], m["email"]) if m else None

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

    # -- merging one file -------------------------------------------------------------------
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
                ["merge-file", "-p", "--diff3", "-L", labels[0], "-L", labels[1], "-L", labels[2], "--", *files],
                check=False,
            )
        if res.returncode < 0 or res.returncode >= 128:
            raise GitError(res.returncode, res.stderr, res.args)
        return res.stdout, res.returncode > 0

    def merge_versions(
        self, ours: bytes | None, base: bytes | None, theirs: bytes | None, labels: tuple[str, str, str]
    ) -> bytes | None:
        """One file's two versions merged from ``base`` (None: the file is absent there): the side
        that changed when only one did, else :meth:`merge_file`. Raises :class:`UnmergedError`
        when they do not merge."""
        if theirs == base or theirs == ours:
            return ours
        if ours == base:
            return theirs
        if ours is None or theirs is None:
            raise UnmergedError(deleted=True)
        try:
            merged, conflicted = self.merge_file(ours, base or b"", theirs, labels)
        except GitError:
            conflicted = True
        if conflicted:
            raise UnmergedError(deleted=False)
        return merged


# ---------------------------------------------------------------------------------------------
# The compare-and-swap on a ref: every ref amr moves moves from the exact value the caller saw.


def check_ref(repo: RepoHandle, ref: str, expected: str | None, kind: str = "commit") -> None:
    """RefMovedError unless ``ref`` (peeled to ``kind``) is at ``expected`` (None: absent)."""
    current = repo.resolve(ref, kind)
    if current != expected:
        raise RefMovedError(1, "", ["update-ref", ref], ref=ref, expected=expected, current=current)


def swap_ref(repo: RepoHandle, ref: str, new: str | None, old: str | None, message: str, kind: str = "commit") -> None:
    """``git update-ref -m MESSAGE REF NEW OLD``: move ``ref`` to ``new`` (None: delete it) only if
    it still points at ``old`` (None: it must not exist). RefMovedError when it no longer does;
    other failures (LockedError, timeouts...) are raised as they are."""
    zero = repo.zero_oid()
    args: Sequence[str] = [
        "update-ref",
        "-m",
        message,
        *(["-d", ref, old or zero] if new is None else [ref, new, old or zero]),
    ]
    try:
        repo.runner.run(args, write=True)
    except GitError as exc:
        if type(exc) is not GitError:  # LockedError, UnsafeRepoError, timeouts...
            raise
        now = repo.resolve(ref, kind)
        if now == old:
            raise
        raise RefMovedError(exc.returncode, exc.stderr, exc.argv, ref=ref, expected=old, current=now) from None


__all__ = ["OID", "RepoHandle", "check_branch_name", "check_ref", "swap_ref"]
