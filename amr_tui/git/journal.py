"""The write journal: what a write to a checked-out branch is about to do, kept while it does it.

The write gate brings the work-tree files of a change forward one by one, then moves the branch
(:func:`amr_tui.git.gate.commit_files`). A process killed between two files left one file changed
and the other not, with the branch not moved: the half-done change looked like someone else's
uncommitted edit, and ``U`` or an agent's ``git commit -a`` would have committed it. So before it
touches the first file, the gate writes an :class:`Intent` here: the branch, the commit it moves
from and to, and per file the blobs of the change and the index entry before and after. It
removes the intent once the branch has moved (or the change was taken back out of the files).
An intent found later belongs to a write whose process died: :func:`amr_tui.git.gate.repair`
finishes it when its commit landed, and takes it back out of the files when it did not.

Intents live outside the repo, in a folder the caller names (the user data folder: opening a
repo writes nothing in it, not even in the git dir), one file per git dir, and only while a
write runs. Every blob an intent names is in the repo's object store before the intent is
written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

VERSION = 1


@dataclass(frozen=True, slots=True)
class FileIntent:
    """One file of a write: blob ids (None: no file)."""

    path: str
    was: str | None  # committed before
    now: str | None  # committed after
    base: str | None  # the work-tree change as the writer made it: from ...
    want: str | None  # ... to
    staged_before: tuple[str, str] | None  # (mode, blob) in the index before; None: not in it
    staged_after: tuple[str, str] | None  # what the write stages


@dataclass(frozen=True, slots=True)
class Intent:
    root: str
    git_dir: str
    ref: str
    old: str | None  # the branch before
    new: str | None  # the commit it moves to (== old: nothing to commit, the work tree takes it)
    subject: str  # the commit message's first line
    pid: int
    files: tuple[FileIntent, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "root": self.root,
            "git_dir": self.git_dir,
            "ref": self.ref,
            "old": self.old,
            "new": self.new,
            "subject": self.subject,
            "pid": self.pid,
            "files": [
                {
                    "path": f.path,
                    "was": f.was,
                    "now": f.now,
                    "base": f.base,
                    "want": f.want,
                    "staged_before": list(f.staged_before) if f.staged_before else None,
                    "staged_after": list(f.staged_after) if f.staged_after else None,
                }
                for f in self.files
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Intent:
        def pair(v: Any) -> tuple[str, str] | None:
            return (str(v[0]), str(v[1])) if v else None

        def oid(v: Any) -> str | None:
            return str(v) if v else None

        return cls(
            str(data["root"]),
            str(data["git_dir"]),
            str(data["ref"]),
            oid(data.get("old")),
            oid(data.get("new")),
            str(data.get("subject", "")),
            int(data.get("pid", 0)),
            tuple(
                FileIntent(
                    str(f["path"]),
                    oid(f.get("was")),
                    oid(f.get("now")),
                    oid(f.get("base")),
                    oid(f.get("want")),
                    pair(f.get("staged_before")),
                    pair(f.get("staged_after")),
                )
                for f in data["files"]
            ),
        )


class Journal:
    """The folder that keeps the intents of writes under way (one file per git dir)."""

    def __init__(self, folder: str | os.PathLike[str]):
        self.folder = Path(folder)

    def file_for(self, git_dir: str | os.PathLike[str]) -> Path:
        key = hashlib.sha256(str(Path(git_dir).resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:32]
        return self.folder / f"{key}.json"

    def begin(self, intent: Intent) -> None:
        """Keep ``intent`` (on disk, synced) before the write touches the work tree."""
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self.file_for(intent.git_dir)
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}")
        data = json.dumps(intent.to_json(), sort_keys=True).encode()
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        with contextlib.suppress(OSError):
            dfd = os.open(self.folder, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)

    def end(self, git_dir: str | os.PathLike[str]) -> None:
        """The write is done (or taken back): its intent goes."""
        with contextlib.suppress(FileNotFoundError):
            self.file_for(git_dir).unlink()

    def find(self, git_dir: str | os.PathLike[str]) -> Intent | None:
        """The intent a write to this git dir left, or None. An unreadable one is None too (and
        stays, for a person to look at)."""
        path = self.file_for(git_dir)
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        try:
            data = json.loads(raw)
            if not isinstance(data, dict) or data.get("version") != VERSION:
                return None
            intent = Intent.from_json(data)
        except (ValueError, KeyError, TypeError, IndexError):
            return None
        if Path(intent.git_dir).resolve() != Path(git_dir).resolve():
            return None
        return intent


__all__ = ["FileIntent", "Intent", "Journal"]
