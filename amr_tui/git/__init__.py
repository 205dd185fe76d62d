"""amr_tui.git: the only package that runs git.

Everything else imports from here: :class:`GitRepo` for repository work, :func:`is_memory_repo`,
the exception classes, and the safe work-tree file helpers (re-exported by amr_tui.services.fs).
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
from amr_tui.git.models import CommitInfo, FileChange, Identity, RepoStatus
from amr_tui.git.repo import GitRepo, is_memory_repo
from amr_tui.git.runner import GitResult, GitRunner, end_of_options, git_binary, run_git
from amr_tui.git.worktree import FileTooLargeError, UnsafePathError

__all__ = [
    "AmrGitError", "CommitInfo", "ConflictError", "DetachedHeadError", "DirtyFileError",
    "FileChange", "FileTooLargeError", "GitError", "GitNotFoundError", "GitRepo", "GitResult",
    "GitRunner", "GitTimeoutError", "Identity", "LockedError", "NoIdentityError", "NotARepoError",
    "OperationInProgressError", "RefMovedError", "RepoStateError", "RepoStatus", "UnsafePathError",
    "UnsafeRepoError", "blob_oid", "end_of_options", "git_binary", "is_memory_repo", "run_git",
]
