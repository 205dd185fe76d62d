"""Making dreaming runs: amr's built-in pass, and an external agent in a temporary work tree.

Both create a fresh branch ``dreams/<run-id>`` at main's tip and never touch main, its work tree
or its index:

* :func:`builtin_dream` reads main's tree from git, runs ``core.dreams.clean`` (rename map from
  ``git log -M``) and writes one commit per step on the run branch (plumbing: the branch is not
  checked out, so ``writegate.seed`` only moves its ref).
* :func:`agent_dream` adds a ``git worktree`` on the run branch in a temporary folder, runs the
  agent command there (no shell; ``AMR_DREAM_RUN``, ``AMR_DREAM_BASE`` and ``AMR_DREAM_BRANCH`` in
  its environment), and removes the work tree afterwards. Whatever the agent committed on the
  branch is the pending run; if it committed nothing, the branch is deleted again.
"""

from __future__ import annotations

import datetime as _dt
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from amr_tui.core.budget import Profile
from amr_tui.core.dreams.clean import DreamStep, Proposal, dream
from amr_tui.core.dreams.trim import Budget, trim
from amr_tui.core.format.parser import is_markdown
from amr_tui.git import history as gh
from amr_tui.git.dreamrefs import (
    AgentResult,
    add_worktree,
    list_refs,
    remove_worktree,
    run_agent,
    worktree_is_clean,
)
from amr_tui.services import writegate
from amr_tui.services.dreams.model import BRANCH_PREFIX, DECISION_PREFIX, DreamError, DreamRun, RunSource

TRAILER_DREAMER = "Dreamed-by"


def new_run_id(service: RunSource, stem: str) -> str:
    """``stem``, or ``stem-2``, ``stem-3``... : the first id with no branch and no decision."""
    taken = set(service.repo.branches(BRANCH_PREFIX))
    closed = {ref.rsplit("/", 1)[-1] for ref in list_refs(service.repo, DECISION_PREFIX)}
    n = 1
    while True:
        rid = stem if n == 1 else f"{stem}-{n}"
        if BRANCH_PREFIX + rid not in taken and rid not in closed:
            return rid
        n += 1


def _start_branch(service: RunSource, run_id: str | None, stem: str) -> tuple[str, str, str]:
    main = service.main_tip()
    if main is None:
        raise DreamError(f"{service.main} has no commits yet: there is nothing to dream about")
    rid = run_id or new_run_id(service, stem)
    branch = BRANCH_PREFIX + rid
    try:
        service.repo.check_branch_name(branch)
    except ValueError:
        raise DreamError(f"{rid!r} is not a valid run id") from None
    if service.repo.resolve(f"refs/heads/{branch}") is not None:
        raise DreamError(f"{branch} already exists")
    writegate.create_branch(service.repo, branch, main)
    return rid, branch, main


def builtin_dream(
    service: RunSource,
    *,
    today: _dt.date | None = None,
    run_id: str | None = None,
    env: dict[str, str] | None = None,
    propose: Callable[[dict[str, bytes | None]], list[Proposal]] | None = None,
) -> DreamRun | None:
    """Run amr's dreaming pass over main; returns the new pending run, or None when there is
    nothing to change (then no branch is made). ``propose(files)``: more changes to make, each
    with its reason (``services.dreams.evidence``), from main's files."""
    today = today or _dt.date.today()
    main = service.main_tip()
    if main is None:
        raise DreamError(f"{service.main} has no commits yet: there is nothing to dream about")
    tree = gh.tree_files(service.repo, main)
    files: dict[str, bytes | None] = {}
    for path in sorted(tree):
        files[path] = service.blobs.read(main, path) if is_markdown(path) else None
    renames: dict[str, str] = {}
    for _commit, old, new in reversed(gh.renames(service.repo, main)):
        renames[old] = new  # oldest first, so the newest rename of a path wins
    result = dream(files, today=today, renames=renames, proposals=propose(files) if propose is not None else ())
    if not result.steps:
        return None
    rid = _seed_run(service, main, result.steps, "built-in pass", f"{today.isoformat()}-amr", run_id, env)
    return service.run(rid)


def _seed_run(
    service: RunSource,
    main: str,
    steps: Sequence[DreamStep],
    dreamer: str,
    name: str,
    run_id: str | None,
    env: dict[str, str] | None,
) -> str:
    """A new ``dreams/<id>`` branch holding one commit per step (``Dreamer: amr (DREAMER)``); the
    branch is taken back when no step landed. Returns the run id."""
    rid, branch, head = _start_branch(service, run_id, name)
    try:
        for step in steps:
            message = step.message.rstrip("\n") + f"\n\n{TRAILER_DREAMER}: amr ({dreamer})\n"
            head = writegate.seed(service.repo, step.changes, message, head, branch, env=env)
    except BaseException:
        tip = service.repo.resolve(f"refs/heads/{branch}")
        if tip == main:
            writegate.set_ref(service.repo, f"refs/heads/{branch}", None, main, f"amr: {dreamer} failed")
        raise
    return rid


def trim_dream(
    service: RunSource,
    profile: Profile,
    *,
    style: str = "amr",
    today: _dt.date | None = None,
    run_id: str | None = None,
    env: dict[str, str] | None = None,
) -> DreamRun | None:
    """A run that brings main's MEMORY.md under ``profile``'s load budget (``core.dreams.trim``):
    merges, moves to topic files, a shorter Index, no fact deleted; one commit per step on a new
    ``dreams/<date>-trim`` branch. None when MEMORY.md fits (and is not near the budget)."""
    today = today or _dt.date.today()
    read = profile.entry
    main = service.main_tip()
    if main is None:
        raise DreamError(f"{service.main} has no commits yet: there is nothing to trim")
    if read is None or not read.limits.bounded:
        raise DreamError(f"{profile.title} sets no limit on MEMORY.md: there is no budget to trim to")
    tree = gh.tree_files(service.repo, main)
    files: dict[str, bytes | None] = {p: service.blobs.read(main, p) if is_markdown(p) else None for p in sorted(tree)}
    budget = Budget(read.limits, profile.title if profile.name != "amr" else "agents", style == "claude-code")
    result = trim(files, budget)
    if not result.steps:
        return None
    dreamer = f"trim to {profile.title}'s budget"
    rid = _seed_run(service, main, result.steps, dreamer, f"{today.isoformat()}-trim", run_id, env)
    return service.run(rid)


@dataclass(frozen=True, slots=True)
class AgentDream:
    run: DreamRun | None  # None when the agent committed nothing
    result: AgentResult
    leftovers: bool  # the agent left uncommitted changes (they were discarded with the work tree)
    output: str  # the agent's output, when captured (untrusted text)


def agent_dream(
    service: RunSource,
    argv: list[str],
    *,
    run_id: str | None = None,
    timeout: float | None = None,
    capture: bool = False,
    today: _dt.date | None = None,
) -> AgentDream:
    """Run ``argv`` in a temporary work tree on a fresh run branch (see the module docstring)."""
    today = today or _dt.date.today()
    rid, branch, main = _start_branch(service, run_id, f"{today.isoformat()}-agent")
    tmp = Path(tempfile.mkdtemp(prefix="amr-dream-"))
    work = tmp / "memory"
    leftovers = False
    try:
        add_worktree(service.repo, work, branch)
        extra = {"AMR_DREAM_RUN": rid, "AMR_DREAM_BASE": main, "AMR_DREAM_BRANCH": branch}
        result, output = run_agent(argv, work, extra, timeout=timeout, capture=capture)
        try:
            leftovers = not worktree_is_clean(work)
        except Exception:  # noqa: BLE001 - the agent may have broken its work tree; it is discarded anyway
            leftovers = True
    finally:
        try:
            remove_worktree(service.repo, work)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    tip = service.repo.resolve(f"refs/heads/{branch}")
    if tip is None or tip == main:
        if tip == main:
            writegate.set_ref(service.repo, f"refs/heads/{branch}", None, main, "amr: the agent made no commits")
        return AgentDream(None, result, leftovers, output)
    return AgentDream(service.run(rid), result, leftovers, output)
