"""amr_tui.git: the only package that runs git.

Code outside this package uses :class:`GitRepo` for repository work, plus the feature modules
below by name (``history``, ``merging``, ``remote``, ``gate``, ``dreamrefs``, ``rewrite``,
``watch``), :func:`is_memory_repo`, the exception classes and the safe work-tree file helpers
(``worktree``).

The package map, bottom to top (a module imports only modules on the lines above it):

* ``errors``: the exception classes (imports nothing).
* ``models``: parsed records (:class:`CommitInfo`, :class:`RepoStatus`, ...) and their parsers.
* ``overrides``: the config that disarms everything a repo could make git run, per repo, cached.
* ``worktree``: safe reads and atomic writes of work-tree files (no git).
* ``runner``: :class:`GitRunner`, the one hardened way a git process is started.
* ``indexlock``: holding ``index.lock`` the way git does.
* ``mergedriver``: amr's merge driver configuration.
* ``handle``: :class:`~amr_tui.git.handle.RepoHandle`, a located work tree (root, git folder,
  runner, object format), its primitive reads, and the one ref compare-and-swap
  (``check_ref``, ``swap_ref``).
* ``catfile``: persistent ``cat-file`` blob reads and blob sizes.
* ``commit``: compare-and-swap commits from plumbing (``commit_changes``) and their helpers.
* ``history``: logs, patches, blame, grep, and the one call for each of: merge bases
  (``merge_bases``/``merge_base``) and the files that differ between two commits
  (``tree_changes``, and ``changed_paths`` from it).
* ``gate``: the write gate's git half (``commit_files``, ``advance``) and ``cas_attempts``, the one
  compare-and-swap retry loop.
* ``merging``: ``merge-tree`` merges and moving a branch with its work tree (sync).
* ``dreamrefs``: dream refs, fast-forwards, throwaway work trees and the dreaming agent.
* ``remote``: fetch, push and why a network call failed.
* ``rewrite``: the repositories a share builds.
* ``watch``: a cheap fingerprint of a repo's git state (stats only, no git).
* ``repo``: :class:`GitRepo`, a ``RepoHandle`` plus the operations built on ``history``,
  ``commit`` and ``gate``; the top of the package. No module here imports it: each takes a
  ``RepoHandle``, and a ``GitRepo`` is one.
"""

from amr_tui.git.commit import blob_oid
from amr_tui.git.errors import (
    AmrGitError,
    ConflictError,
    DetachedHeadError,
    DirtyFileError,
    GitError,
    GitNotFoundError,
    GitTimeoutError,
    LockedError,
    NoIdentityError,
    NotARepoError,
    OperationInProgressError,
    RefMovedError,
    RepoStateError,
    UnsafeRepoError,
)
from amr_tui.git.handle import RepoHandle
from amr_tui.git.models import CommitInfo, FileChange, Identity, RepoStatus
from amr_tui.git.repo import GitRepo, is_memory_repo
from amr_tui.git.runner import GitResult, GitRunner, end_of_options, git_binary, run_git
from amr_tui.git.worktree import FileTooLargeError, UnsafePathError

__all__ = [
    "AmrGitError",
    "CommitInfo",
    "ConflictError",
    "DetachedHeadError",
    "DirtyFileError",
    "FileChange",
    "FileTooLargeError",
    "GitError",
    "GitNotFoundError",
    "GitRepo",
    "GitResult",
    "GitRunner",
    "GitTimeoutError",
    "Identity",
    "LockedError",
    "NoIdentityError",
    "NotARepoError",
    "OperationInProgressError",
    "RefMovedError",
    "RepoHandle",
    "RepoStateError",
    "RepoStatus",
    "UnsafePathError",
    "UnsafeRepoError",
    "blob_oid",
    "end_of_options",
    "git_binary",
    "is_memory_repo",
    "run_git",
]
