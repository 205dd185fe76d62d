"""Plain data returned by :class:`amr_tui.git.repo.GitRepo`, and the parsers that build it.

Paths are ``str``: git's raw bytes decoded as UTF-8 with surrogate escapes, so a non-UTF-8 name
round-trips through ``os.fsencode``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


def _dec(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class FileChange:
    """One changed path from ``git status``.

    ``xy``: git's two-letter code (index, work tree), ``.`` meaning unchanged, e.g. ``.M``, ``A.``.
    ``kind``: ``"changed"``, ``"renamed"`` (``orig_path`` set) or ``"unmerged"``.
    """

    path: str
    xy: str
    kind: str = "changed"
    orig_path: str | None = None

    @property
    def staged(self) -> bool:
        return self.xy[0] not in ".?"


@dataclass(frozen=True)
class RepoStatus:
    """Parsed ``git status --porcelain=v2 --branch -z``.

    ``branch`` is None when HEAD is detached; ``head`` is None in an empty repo (no commits yet).
    ``ahead``/``behind`` are None without an upstream.
    """

    branch: str | None
    head: str | None
    detached: bool
    upstream: str | None = None
    ahead: int | None = None
    behind: int | None = None
    changes: tuple[FileChange, ...] = ()
    untracked: tuple[str, ...] = ()
    ignored: tuple[str, ...] = field(default=())

    @property
    def is_empty_repo(self) -> bool:
        return self.head is None

    @property
    def is_clean(self) -> bool:
        """What the skill requires before writing: no staged, unstaged or untracked changes."""
        return not self.changes and not self.untracked

    @property
    def conflicted(self) -> tuple[str, ...]:
        return tuple(c.path for c in self.changes if c.kind == "unmerged")


def parse_status_v2(raw: bytes) -> RepoStatus:
    branch: str | None = None
    head: str | None = None
    detached = False
    upstream: str | None = None
    ahead = behind = None
    changes: list[FileChange] = []
    untracked: list[str] = []
    ignored: list[str] = []
    records = raw.split(b"\0")
    i = 0
    while i < len(records):
        rec = records[i]
        i += 1
        if not rec:
            continue
        if rec.startswith(b"# "):
            key, _, value = rec[2:].partition(b" ")
            val = _dec(value)
            if key == b"branch.oid":
                head = None if val == "(initial)" else val
            elif key == b"branch.head":
                if val == "(detached)":
                    detached = True
                else:
                    branch = val
            elif key == b"branch.upstream":
                upstream = val
            elif key == b"branch.ab":
                a, _, b = val.partition(" ")
                try:
                    ahead, behind = int(a.lstrip("+")), abs(int(b))
                except ValueError:
                    pass
            continue
        kind = rec[:2]
        if kind == b"1 ":
            fields = rec.split(b" ", 8)
            changes.append(FileChange(_dec(fields[8]), _dec(fields[1])))
        elif kind == b"2 ":
            fields = rec.split(b" ", 9)
            orig = records[i] if i < len(records) else b""
            i += 1
            changes.append(FileChange(_dec(fields[9]), _dec(fields[1]), "renamed", _dec(orig)))
        elif kind == b"u ":
            fields = rec.split(b" ", 10)
            changes.append(FileChange(_dec(fields[10]), _dec(fields[1]), "unmerged"))
        elif kind == b"? ":
            untracked.append(_dec(rec[2:]))
        elif kind == b"! ":
            ignored.append(_dec(rec[2:]))
    return RepoStatus(
        branch=branch,
        head=head,
        detached=detached,
        upstream=upstream,
        ahead=ahead,
        behind=behind,
        changes=tuple(changes),
        untracked=tuple(untracked),
        ignored=tuple(ignored),
    )


@dataclass(frozen=True)
class Identity:
    name: str
    email: str


@dataclass(frozen=True)
class CommitInfo:
    oid: str
    author_name: str
    author_email: str
    author_date: datetime
    committer_name: str
    committer_email: str
    committer_date: datetime
    subject: str


#: ``git log`` format matching :func:`parse_log`; records are NUL-terminated with ``-z``.
LOG_FORMAT = "%H%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%s"
_LOG_FIELDS = 8


def parse_log(raw: bytes) -> list[CommitInfo]:
    parts = raw.split(b"\0")
    if parts and parts[-1] in (b"", b"\n"):
        parts.pop()
    out: list[CommitInfo] = []
    for start in range(0, len(parts) - _LOG_FIELDS + 1, _LOG_FIELDS):
        f = [_dec(p) for p in parts[start : start + _LOG_FIELDS]]
        oid = f[0].strip("\n")
        out.append(
            CommitInfo(
                oid=oid,
                author_name=f[1],
                author_email=f[2],
                author_date=datetime.fromisoformat(f[3]),
                committer_name=f[4],
                committer_email=f[5],
                committer_date=datetime.fromisoformat(f[6]),
                subject=f[7],
            )
        )
    return out
