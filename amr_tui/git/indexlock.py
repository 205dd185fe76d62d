"""Hold a work tree's ``index.lock`` the way git itself does, for amr's short critical section.

While amr holds the lock, no other git process (an agent's ``git add`` / ``git commit`` in the same
work tree) can read-modify-write the index, so "check the file is not someone else's edit, write
it, stage it, move the branch" happens as one step. The lock is created with ``O_CREAT|O_EXCL``
(waiting with backoff while another process holds it) and released either by renaming the new
index over ``index`` (git's own commit-a-lockfile protocol) or by removing the lock amr created.

amr never removes a lock it did not create: a lock that stays past the timeout raises
:class:`LockedError`, and the file stays where it is.
"""

from __future__ import annotations

import os
import secrets
import shutil
import time
from pathlib import Path

from amr_tui.git.errors import LockedError
from amr_tui.git.worktree import INDEX_COPY_PREFIX


class IndexLock:
    def __init__(self, git_dir: Path, timeout: float):
        self.git_dir = Path(git_dir)
        self.index = self.git_dir / "index"
        self.lock = self.git_dir / "index.lock"
        self.timeout = timeout
        self._ino: int | None = None
        self._staged: Path | None = None
        self._swapped = False
        self._backup: Path | None = None  # the index as it was before swap_in

    def __enter__(self) -> IndexLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def acquire(self) -> None:
        deadline = time.monotonic() + self.timeout
        delay = 0.005
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
        while True:
            try:
                fd = os.open(self.lock, flags, 0o666)
            except FileExistsError:
                if time.monotonic() >= deadline:
                    raise LockedError(
                        -1,
                        "",
                        ["index.lock"],
                        message=(
                            f"Another git process holds {self.lock}. amr waited and gave up; it never "
                            f"deletes lock files. If no git process is running, remove that file yourself."
                        ),
                    ) from None
                time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
                delay = min(delay * 2, 0.05)
                continue
            self._ino = os.fstat(fd).st_ino
            os.close(fd)
            return

    def staged_copy(self) -> Path:
        """A private copy of the current index for ``GIT_INDEX_FILE`` (next to it, in the git dir)."""
        tmp = self.git_dir / f"{INDEX_COPY_PREFIX}{secrets.token_hex(6)}"
        if self.index.exists():
            # copy2 keeps the index's mtime: git compares entries' mtimes with it to find
            # "racily clean" entries, and a newer copy would make them look trustworthy.
            shutil.copy2(self.index, tmp)
        self._staged = tmp
        return tmp

    def scratch_copy(self) -> Path:
        """A copy of the index as it is now, for a git command of the caller's (who deletes it)."""
        tmp = self.git_dir / f"{INDEX_COPY_PREFIX}{secrets.token_hex(6)}"
        if self.index.exists():
            shutil.copy2(self.index, tmp)  # the index's own mtime (racy-git, see staged_copy)
        return tmp

    def swap_in(self) -> None:
        """Make the staged copy the index now, still holding the lock.

        Call it before moving the branch: a crash between the two then leaves the new entries
        staged (the user's edit, not yet committed). Installing after the branch moved left an
        index that, once the stale lock was removed, staged a revert of the new commit, which an
        agent's next ``git commit`` would have committed.
        """
        if self._staged is None or self._ino is None:
            raise RuntimeError("nothing staged, or the lock is not held")
        if not self._staged.exists():
            return
        self._backup = None
        if self.index.exists():
            # A copy with the index's own mtime (racy-git, see staged_copy). The start-up sweep
            # leaves it alone while index.lock, which amr holds now, exists.
            self._backup = self.git_dir / f"{INDEX_COPY_PREFIX}old-{secrets.token_hex(6)}"
            shutil.copy2(self.index, self._backup)
        os.replace(self._staged, self.index)
        self._staged = None
        self._swapped = True

    def swap_back(self) -> None:
        """Undo :meth:`swap_in` (the branch did not move). No-op when nothing was swapped."""
        if not self._swapped:
            return
        try:
            if self._backup is not None:
                os.replace(self._backup, self.index)
            else:
                self.index.unlink(missing_ok=True)
        except OSError:
            pass  # the new entries stay staged: the user's edit, never a revert of a commit
        self._backup = None
        self._swapped = False

    def install(self) -> None:
        """Make the staged copy the index and release the lock (rename over lock, lock over index).
        After :meth:`swap_in` the index is already in place: this only releases the lock."""
        if self._swapped and self._ino is not None:
            if self._backup is not None:
                self._backup.unlink(missing_ok=True)
            self._backup = None
            self._swapped = False
            self._remove_own_lock()
            self._ino = None
            return
        if self._staged is None or self._ino is None:
            raise RuntimeError("nothing staged, or the lock is not held")
        if self._staged.exists():
            os.replace(self._staged, self.lock)
            self._ino = os.lstat(self.lock).st_ino
            os.replace(self.lock, self.index)
        else:  # nothing was ever written: keep the index as it is
            self._remove_own_lock()
        self._ino = None
        self._staged = None

    def release(self) -> None:
        """Drop the lock without changing the index (no-op once installed)."""
        self.swap_back()  # an exception after swap_in: the index goes back as it was
        if self._staged is not None:
            try:
                self._staged.unlink()
            except FileNotFoundError:
                pass
            self._staged = None
        if self._ino is not None:
            self._remove_own_lock()
            self._ino = None

    def _remove_own_lock(self) -> None:
        try:
            if os.lstat(self.lock).st_ino == self._ino:  # still the file this process created
                os.unlink(self.lock)
        except FileNotFoundError:
            pass
