"""Refs, fast-forwards and temporary work trees for dreaming runs (docs/dreams.md).

* :func:`set_ref` is a compare-and-swap on any ref (create, move or delete), like every ref
  change amr makes: a ref only moves from the exact value the caller saw.
* :func:`fast_forward` moves a branch to a descendant commit. When that branch is checked out it
  does what ``commit_changes`` does (see :mod:`amr_tui.git.commit`): under ``index.lock`` it checks
  that every changed work-tree file still holds the old version, writes the new ones, stages
  them, and only then swaps the ref; on a lost race the files are put back.
* :func:`add_worktree` / :func:`remove_worktree` manage the throwaway ``git worktree`` that an
  external dreaming agent runs in, and :func:`run_agent` starts that agent there. The agent is
  the user's own command: it gets the user's environment minus the variables that would point
  git at another repository (``GIT_DIR``, ``GIT_INDEX_FILE``, ...), and whatever it commits on
  the run's branch becomes the pending run.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from amr_tui.git.commit import _check_worktree, _index_info, _restore_worktree, _write_worktree
from amr_tui.git.errors import GitError
from amr_tui.git.handle import RepoHandle, check_ref, swap_ref
from amr_tui.git.history import changed_paths, tree_files
from amr_tui.git.indexlock import IndexLock
from amr_tui.git.runner import _STRIPPED_ENV, _STRIPPED_PREFIXES


def list_refs(repo: RepoHandle, prefix: str) -> dict[str, str]:
    """``refname -> oid`` for every ref under ``prefix`` (e.g. ``refs/amr/dreams/``)."""
    if not prefix.startswith("refs/"):
        raise ValueError("prefix must start with refs/")
    out = repo.runner.text(["for-each-ref", "--format=%(objectname) %(refname)", "--end-of-options", prefix])
    refs: dict[str, str] = {}
    for line in out.splitlines():
        oid, _, ref = line.partition(" ")
        if ref:
            refs[ref] = oid
    return refs


def check_ref_name(repo: RepoHandle, ref: str) -> str:
    if not ref.startswith("refs/") or repo.runner.run(["check-ref-format", ref], check=False).returncode != 0:
        raise ValueError(f"invalid ref name: {ref!r}")
    return ref


def set_ref(repo: RepoHandle, ref: str, new: str | None, old: str | None, message: str = "amr") -> None:
    """Move ``ref`` from ``old`` to ``new`` atomically (None: must not exist / delete).

    Raises :class:`RefMovedError` when ``ref`` is not at ``old``.
    """
    check_ref_name(repo, ref)
    check_ref(repo, ref, old, "object")
    swap_ref(repo, ref, new, old, message[:200], "object")


def make_commit(
    repo: RepoHandle, tree_of: str, parents: Sequence[str], message: str, env: Mapping[str, str] | None = None
) -> str:
    """A commit object with the tree of ``tree_of`` (a commit) and these parents. No ref moves."""
    tree = repo.resolve(tree_of, "tree")
    if tree is None:
        raise ValueError(f"unknown commit: {tree_of!r}")
    args = ["commit-tree", "--no-gpg-sign"]
    for p in parents:
        args += ["-p", p]
    text = message.strip() + "\n"
    return repo.runner.text([*args, tree], input=text.encode("utf-8"), env=env, write=True).strip()


def fast_forward(repo: RepoHandle, branch: str, new: str, expected: str) -> None:
    """Move ``refs/heads/<branch>`` from ``expected`` to its descendant ``new`` (see module doc)."""
    repo.check_branch_name(branch)
    ref = f"refs/heads/{branch}"
    if not repo.is_ancestor(expected, new):
        raise ValueError(f"{new} does not descend from {expected}: not a fast-forward")
    if repo.current_branch() != branch:
        set_ref(repo, ref, new, expected, f"amr: fast-forward {branch}")
        return
    fmt = repo.object_format
    zero = repo.zero_oid()
    paths = [p for _, p in changed_paths(repo, expected, new)]
    old_tree = tree_files(repo, expected)
    new_tree = tree_files(repo, new)
    norm: dict[str, bytes | None] = {}
    records: list[tuple[str, str, str]] = []
    for rel in paths:
        if rel in new_tree:
            norm[rel] = repo.read_blob(new, rel)
            records.append((new_tree[rel][0], new_tree[rel][1], rel))
        else:
            norm[rel] = None
            records.append(("0", zero, rel))
    head_oids = {rel: old_tree[rel][1] if rel in old_tree else None for rel in paths}
    allowed = {rel: {data} for rel, data in norm.items()}
    with IndexLock(repo.git_dir, repo.runner.lock_timeout) as lock:
        check_ref(repo, ref, expected)
        before = _check_worktree(repo, norm, head_oids, allowed, fmt)
        _write_worktree(repo, norm, before)
        staged = lock.staged_copy()
        try:
            if records:
                repo.runner.run(
                    ["update-index", "-z", "--index-info"],
                    input=_index_info(records, zero),
                    env={"GIT_INDEX_FILE": str(staged)},
                    write=True,
                )
            lock.swap_in()  # before the branch moves (see amr_tui.git.commit): a crash never stages a revert
            set_ref(repo, ref, new, expected, f"amr: fast-forward {branch}")
        except BaseException:
            lock.swap_back()
            _restore_worktree(repo, norm, before)
            raise
        lock.install()


# ---------------------------------------------------------------------------------------------
# Temporary work trees and the external agent


def add_worktree(repo: RepoHandle, path: str | os.PathLike[str], branch: str) -> Path:
    """``git worktree add PATH BRANCH`` (the branch must exist and not be checked out)."""
    repo.check_branch_name(branch)
    target = Path(path).absolute()
    repo.runner.run(["worktree", "add", "--quiet", "--end-of-options", str(target), branch], write=True)
    return target


def remove_worktree(repo: RepoHandle, path: str | os.PathLike[str]) -> None:
    """Remove a work tree made by :func:`add_worktree`, even with leftover changes, then prune."""
    target = Path(path).absolute()
    res = repo.runner.run(
        ["worktree", "remove", "--force", "--force", "--end-of-options", str(target)], write=True, check=False
    )
    if res.returncode != 0 and target.exists():
        raise GitError(res.returncode, res.stderr, res.args)
    repo.runner.run(["worktree", "prune"], write=True, check=False)


def worktree_is_clean(repo_at: str | os.PathLike[str]) -> bool:
    """True when the work tree at ``repo_at`` has no change (``git status`` is empty)."""
    return RepoHandle(repo_at).status().is_clean


@dataclass(frozen=True, slots=True)
class AgentResult:
    returncode: int
    timed_out: bool


def agent_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _STRIPPED_ENV and not k.startswith(_STRIPPED_PREFIXES)}
    env.update(extra or {})
    return env


def run_agent(
    argv: Sequence[str],
    cwd: str | os.PathLike[str],
    extra_env: Mapping[str, str] | None = None,
    *,
    timeout: float | None = None,
    capture: bool = False,
) -> tuple[AgentResult, str]:
    """Run the agent command (no shell) in ``cwd``; returns its result and, with ``capture``,
    its combined output (decoded, untrusted). Standard input is closed."""
    if not argv:
        raise ValueError("empty agent command")
    try:
        proc = subprocess.run(
            list(argv),
            cwd=str(cwd),
            env=agent_env(extra_env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE if capture else None,
            stderr=subprocess.STDOUT if capture else None,
            timeout=timeout,
            shell=False,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        partial = exc.stdout or b""
        return AgentResult(-1, True), partial.decode("utf-8", "replace") if isinstance(partial, bytes) else str(partial)
    out = proc.stdout.decode("utf-8", "replace") if capture and proc.stdout else ""
    return AgentResult(proc.returncode, False), out
