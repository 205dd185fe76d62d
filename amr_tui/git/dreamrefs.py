"""Refs, fast-forwards and temporary work trees for dreaming runs (docs/dreams.md).

* :func:`set_ref` is a compare-and-swap on any ref (create, move or delete), like every ref
  change amr makes: a ref only moves from the exact value the caller saw.
* :func:`fast_forward` moves a branch to a descendant commit. When that branch is checked out it
  moves through the write gate (:func:`amr_tui.git.merging.advance_branch`): under ``index.lock``
  each changed work-tree file and index entry is brought forward by merging (someone's
  uncommitted edit stays), then the ref is swapped; on a lost race the files are put back.
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

from amr_tui.git.errors import GitError
from amr_tui.git.handle import RepoHandle, check_ref, swap_ref
from amr_tui.git.journal import Journal
from amr_tui.git.merging import advance_branch
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


def fast_forward(repo: RepoHandle, branch: str, new: str, expected: str, *, journal: Journal | None = None) -> None:
    """Move ``refs/heads/<branch>`` from ``expected`` to its descendant ``new`` (see module doc)."""
    repo.check_branch_name(branch)
    if not repo.is_ancestor(expected, new):
        raise ValueError(f"{new} does not descend from {expected}: not a fast-forward")
    if repo.current_branch() != branch:
        set_ref(repo, f"refs/heads/{branch}", new, expected, f"amr: fast-forward {branch}")
        return
    advance_branch(repo, branch, expected, new, f"amr: fast-forward {branch}", journal=journal)


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
