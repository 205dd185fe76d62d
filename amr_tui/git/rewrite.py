"""A new repository holding only some paths of another, history included (for partial shares).

Each commit of the source branch is rewritten with plumbing only: ``ls-tree -r`` of the selected
paths into a throwaway index, ``write-tree``, ``commit-tree`` with the original author, committer,
dates and message. A commit whose filtered tree equals its (single) rewritten parent's is dropped,
so history shows only commits that touched the selection. The rewrite is deterministic: the same
source and selection always give the same commit ids.

The rewritten commits are built in a temporary bare repository that borrows the source's objects
(an alternate), then cloned from it over git's own transport (``--no-local``): the clone receives
exactly the objects reachable from the rewritten branch and nothing else. No blob of a path
outside the selection can reach the new repository.

Symlinks and submodules are never copied (only regular files, modes 100644 and 100755).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from amr_tui.git.repo import GitRepo
from amr_tui.git.runner import GitRunner, end_of_options
from amr_tui.git.worktree import normalize_rel

_REGULAR = (b"100644", b"100755")


@dataclass(frozen=True)
class RewriteResult:
    dest: Path
    branch: str
    tip: str | None
    commits: int  # commits kept
    dropped: int  # commits that did not touch the selection


def list_tree(repo: GitRepo, rev: str, paths: Sequence[str] = ()) -> dict[str, tuple[str, str]]:
    """``{path: (mode, blob oid)}`` of regular files at ``rev`` (under ``paths``, when given)."""
    spec = ["--", *[normalize_rel(p) for p in paths]] if paths else []
    out = repo.runner.run(["ls-tree", "-r", "-z", "--full-tree", *end_of_options(rev), *spec]).stdout
    files: dict[str, tuple[str, str]] = {}
    for rec in out.split(b"\0"):
        meta, _, name = rec.partition(b"\t")
        if not meta:
            continue
        mode, kind, oid = meta.split(b" ")
        if kind == b"blob" and mode in _REGULAR:
            files[name.decode("utf-8", "surrogateescape")] = (mode.decode(), oid.decode())
    return files


def selection_filter(paths: Sequence[str]) -> Callable[[str], bool]:
    """True for a file equal to a selected path or inside a selected folder."""
    sel = [normalize_rel(p) for p in paths]

    def keep(path: str) -> bool:
        return any(path == s or path.startswith(s + "/") for s in sel)

    return keep


def _commit_meta(repo: GitRepo, oid: str) -> tuple[dict[str, str], bytes]:
    raw = repo.runner.run(["cat-file", "commit", oid]).stdout
    head, _, message = raw.partition(b"\n\n")
    env: dict[str, str] = {}
    for line in head.decode("utf-8", "surrogateescape").split("\n"):
        key, _, value = line.partition(" ")
        if key in ("author", "committer"):
            name_email, _, when = value.rpartition("> ")
            name, _, email = name_email.partition(" <")
            who = key.upper()
            env[f"GIT_{who}_NAME"] = name
            env[f"GIT_{who}_EMAIL"] = email
            env[f"GIT_{who}_DATE"] = "@" + when
    return env, message


def _filtered_tree(repo: GitRepo, oid: str, paths: Sequence[str], keep: Callable[[str], bool],
                   tmp: Path, cache: dict[tuple, str]) -> str:
    entries = sorted((p, m, o) for p, (m, o) in list_tree(repo, oid, paths).items() if keep(p))
    key = tuple(entries)
    if key in cache:
        return cache[key]
    index = tmp / "index"
    if index.exists():
        index.unlink()
    env = {"GIT_INDEX_FILE": str(index)}
    data = b"".join(f"{m} {o}\t".encode() + p.encode("utf-8", "surrogateescape") + b"\0" for p, m, o in entries)
    repo.runner.run(["update-index", "-z", "--index-info"], input=data, env=env, write=True)
    tree = repo.runner.text(["write-tree"], env=env, write=True).strip()
    cache[key] = tree
    return tree


def rewrite_history(source: GitRepo, rev: str, paths: Sequence[str], dest: str | os.PathLike[str],
                    branch: str = "main", progress: Callable[[int, int], None] | None = None) -> RewriteResult:
    """Create the repository ``dest`` holding only ``paths`` (files or folders) of ``rev``'s history."""
    target = Path(dest).absolute()
    if target.exists() and any(target.iterdir()):
        raise FileExistsError(f"{target} exists and is not empty")
    source.check_branch_name(branch)
    tip_src = source.resolve(rev)
    if tip_src is None:
        raise ValueError(f"{rev!r} is not a commit in {source.root}")
    keep = selection_filter(paths)
    sel = [normalize_rel(p) for p in paths]
    with tempfile.TemporaryDirectory(prefix="amr-share-") as tmpdir:
        tmp = Path(tmpdir)
        work = _borrowing_repo(source, tmp / "work")
        order = work.runner.text(["rev-list", "--topo-order", "--reverse", "--parents",
                                  *end_of_options(tip_src)]).splitlines()
        mapped: dict[str, str | None] = {}
        trees: dict[str, str] = {}
        cache: dict[tuple, str] = {}
        kept = dropped = 0
        for n, line in enumerate(order, 1):
            oid, *parents = line.split()
            tree = _filtered_tree(work, oid, sel, keep, tmp, cache)
            new_parents: list[str] = []
            for p in parents:
                m = mapped.get(p)
                if m is not None and m not in new_parents:
                    new_parents.append(m)
            if len(new_parents) > 1:  # a side branch that never touched the selection: no merge left
                independent = set(work.runner.text(["merge-base", "--independent",
                                                    *end_of_options(*new_parents)]).split())
                new_parents = [p for p in new_parents if p in independent]
            if len(new_parents) <= 1 and tree == (trees[new_parents[0]] if new_parents else _empty(work, cache, tmp)):
                mapped[oid] = new_parents[0] if new_parents else None
                dropped += 1
            else:
                env, message = _commit_meta(work, oid)
                args = ["commit-tree", "--no-gpg-sign"]
                for p in new_parents:
                    args += ["-p", p]
                new = work.runner.text([*args, *end_of_options(tree)], input=message, env=env, write=True).strip()
                mapped[oid] = new
                trees[new] = tree
                kept += 1
            if progress:
                progress(n, len(order))
        tip = mapped.get(tip_src)
        target.parent.mkdir(parents=True, exist_ok=True)
        if tip is None:
            GitRepo.init(target, initial_branch=branch)
        else:
            work.runner.run(["update-ref", f"refs/heads/{branch}", tip], write=True)
            work.runner.run(["symbolic-ref", "HEAD", f"refs/heads/{branch}"], write=True)
            runner = GitRunner(target.parent)
            runner.run(["clone", "--no-local", "--no-hardlinks", "--quiet", "--no-recurse-submodules",
                        "--single-branch", "--branch", branch, "-c", "transfer.fsckObjects=true",
                        "--", str(work.root), str(target)], write=True)
            GitRepo(target).runner.run(["remote", "remove", "origin"], write=True)
    return RewriteResult(target, branch, tip, kept, dropped)


def _borrowing_repo(source: GitRepo, path: Path) -> GitRepo:
    """A scratch repository that can read every object of ``source`` (``objects/info/alternates``)."""
    work = GitRepo.init(path)
    objects = source.runner.text(["rev-parse", "--git-path", "objects"]).strip()
    src_objects = Path(objects) if Path(objects).is_absolute() else source.root / objects
    (work.git_dir / "objects" / "info").mkdir(parents=True, exist_ok=True)
    (work.git_dir / "objects" / "info" / "alternates").write_text(str(src_objects.resolve()) + "\n")
    return work


def _empty(repo: GitRepo, cache: dict[tuple, str], tmp: Path) -> str:
    if () not in cache:
        cache[()] = repo.runner.text(["mktree", "-z"], input=b"", write=True).strip()
    return cache[()]


def remove_tree(path: Path) -> None:
    """Delete a folder amr created (used to clean up a failed share)."""
    shutil.rmtree(path, ignore_errors=True)
