"""Exceptions raised by amr_tui.git.

Two families:

* ``GitError`` and its subclasses: a git command failed. They carry the exit code, git's stderr
  (decoded with ``errors="replace"``; treat it as untrusted text) and the argument list.
* ``RepoStateError`` and its subclasses: amr refused to do something because of the state of the
  repository (an operation in progress, a detached HEAD, someone else's uncommitted edit, no
  identity, a conflicting concurrent change). Their ``str()`` is a sentence meant for a person.

Everything derives from ``AmrGitError`` so a caller can catch the lot.
"""

from __future__ import annotations

from collections.abc import Sequence


class AmrGitError(Exception):
    """Base class of every exception raised by amr_tui.git."""


class GitNotFoundError(AmrGitError):
    """The git executable could not be found."""


class GitError(AmrGitError):
    """A git command exited with a status amr did not expect."""

    def __init__(self, returncode: int, stderr: str, args: Sequence[str], message: str | None = None):
        argv = tuple(args)
        super().__init__(returncode, stderr, argv)
        self.returncode = returncode
        self.stderr = stderr
        self.argv = argv
        self._message = message

    def __str__(self) -> str:
        if self._message:
            return self._message
        cmd = " ".join(self.argv[:3])
        detail = self.stderr.strip().splitlines()
        first = detail[-1] if detail else "no error output"
        return f"git {cmd} failed with exit code {self.returncode}: {first}"


class GitTimeoutError(GitError):
    """A git command took longer than its timeout and was killed."""


class NotARepoError(GitError):
    """The folder is not inside a git work tree."""


class UnsafeRepoError(GitError):
    """Git refuses the repository because another user owns it ("dubious ownership").

    amr never adds ``safe.directory`` itself; the message tells the person what git wants.
    """


class LockedError(GitError):
    """A lock file (``index.lock`` or a ref lock) stayed in place past the retry budget.

    amr never deletes lock files: another git process may be working, or one crashed and a
    person has to decide.
    """


class RefMovedError(GitError):
    """A compare-and-swap ref update failed because the ref no longer points where we expected."""

    def __init__(
        self,
        returncode: int,
        stderr: str,
        args: Sequence[str],
        *,
        ref: str,
        expected: str | None,
        current: str | None,
    ):
        super().__init__(
            returncode,
            stderr,
            args,
            message=f"{ref} moved: expected {expected or '(none)'}, found {current or '(none)'}",
        )
        self.ref = ref
        self.expected = expected
        self.current = current


class RepoStateError(AmrGitError):
    """amr refused an operation because of the repository's state. ``str()`` explains why."""


class OperationInProgressError(RepoStateError):
    def __init__(self, operation: str):
        super().__init__(
            f"A git {operation} is in progress in this repository. Finish or abort it with git before saving from amr."
        )
        self.operation = operation


class DetachedHeadError(RepoStateError):
    def __init__(self) -> None:
        super().__init__(
            "HEAD is detached (no branch is checked out), so a save would create a commit that no "
            "branch points to. Check out a branch, for example `git switch main`, then save again."
        )


class DirtyFileError(RepoStateError):
    def __init__(self, path: str):
        super().__init__(
            f"{path} has uncommitted changes that did not come from this editor. amr will not "
            f"overwrite them: commit or discard them with git, then reopen the file."
        )
        self.path = path


class NoIdentityError(RepoStateError):
    def __init__(self, where: str = "this repository", note: str = ""):
        super().__init__(
            f"Git has no author name and email for {where}, so it cannot make a commit. Set one "
            f'for this memory repo only with `git config user.name "Your Name"` and '
            f"`git config user.email you@example.com` run inside it (amr can do this for you), "
            f"or set it globally yourself. amr never changes your global git config." + (f" {note}" if note else "")
        )
        self.where = where


class ConflictError(RepoStateError):
    """The user's edit and a concurrent change to the same file could not be merged cleanly.

    Attributes hold raw bytes (``None`` means the file does not exist on that side):
    ``ours`` (the user's new text), ``base`` (what the user started from), ``theirs`` (the version
    at ``head``), ``merged`` (ours and theirs with diff3 conflict markers, or ``None`` when git
    could not produce one, e.g. binary data or a delete/modify conflict).
    """

    def __init__(
        self,
        path: str,
        *,
        ours: bytes | None,
        base: bytes | None,
        theirs: bytes | None,
        merged: bytes | None,
        head: str | None,
    ):
        super().__init__(
            f"{path} was changed by someone else since you opened it, and the changes overlap. "
            f"Nothing was saved: compare both versions and save again."
        )
        self.path = path
        self.ours = ours
        self.base = base
        self.theirs = theirs
        self.merged = merged
        self.head = head


class UnmergedError(AmrGitError):
    """Two versions of a file that do not merge (``RepoHandle.merge_versions``): ``deleted`` when
    one side deleted the file the other changed, else both changed the same lines (or git could
    not merge them)."""

    def __init__(self, deleted: bool):
        super().__init__(
            "deleted on one side, changed on the other" if deleted else "both sides changed the same lines"
        )
        self.deleted = deleted


class EntryGoneError(RepoStateError):
    """An entry a write names (by its exact line) was committed when the writer read it and is
    not in the version the write would be committed onto: someone removed or changed it since.
    Nothing was written; read the file again."""

    def __init__(self, path: str, line: str):
        super().__init__(
            f"The entry in {path} was changed or removed by someone else since it was read; nothing was "
            "written. Look at the file again."
        )
        self.path = path
        self.line = line
