"""Who wrote what: the writers of every commit and file (one ``git log``), and the commit of each
line of a file (``git blame``), for the finder's ``by:`` filter and the contradiction labels.

A commit's *writers* are its author's name and email and the values of its ``Agent`` and
``Written-with`` trailers (what ``amr mcp`` writes: ``Agent: claude-code 2.1.0``,
``Written-with: amr mcp``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from amr_tui.git.handle import OID, RepoHandle
from amr_tui.git.worktree import normalize_rel

_MARK = ("amr" + secrets.token_hex(8)).encode()
_TRAILERS = ("Agent", "Written-with")
ZERO = "0" * 40  # blame's commit for a line not committed yet


@dataclass(frozen=True, slots=True)
class Writers:
    """Every commit's writers, and every path's (the writers of each commit that touched it)."""

    commits: dict[str, tuple[str, ...]]
    files: dict[str, set[str]]
    who: dict[str, str]  # commit -> who wrote it, in one name: its Agent trailer, else its author's name


def _dec(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def writers(repo: RepoHandle, rev: str = "HEAD") -> Writers:
    """One ``git log`` over ``rev``'s history: each commit's writers, and each file's (by the
    names it had in each commit; a rename carries the writers of the old name over)."""
    start = rev if OID.match(rev) else repo.resolve(rev)
    if start is None:
        return Writers({}, {}, {})
    trailers = "".join(f"%(trailers:key={k},valueonly,separator=%x1f)%x00" for k in _TRAILERS)
    fmt = f"--format=%x01{_MARK.decode()}%x00%H%x00%an%x00%ae%x00{trailers}"
    out = repo.runner.run(
        [
            "-c",
            "log.follow=false",
            "-c",
            "core.quotePath=true",
            "log",
            fmt,
            "--name-status",
            "-z",
            "-M",
            "--no-ext-diff",
            "--no-textconv",
            "--no-show-signature",
            "--end-of-options",
            start,
            "--",
        ]
    ).stdout
    commits: dict[str, tuple[str, ...]] = {}
    files: dict[str, set[str]] = {}
    who: dict[str, str] = {}
    renamed: list[tuple[str, str]] = []  # (old, new), newest first
    for rec in out.split(b"\x01" + _MARK + b"\x00")[1:]:
        parts = rec.split(b"\x00")
        if len(parts) < 3 + len(_TRAILERS) or not OID.match(_dec(parts[0])):
            continue
        oid = _dec(parts[0])
        names = [_dec(parts[1]), _dec(parts[2])]
        agents = [v.strip() for v in _dec(parts[3]).split("\x1f") if v.strip()]
        for raw in parts[3 : 3 + len(_TRAILERS)]:
            names += [v.strip() for v in _dec(raw).split("\x1f") if v.strip()]
        commits[oid] = tuple(n for n in dict.fromkeys(names) if n)
        who[oid] = agents[0] if agents else names[0] or names[1]
        fields = [p.strip(b"\n") for p in parts[3 + len(_TRAILERS) :]]
        fields = [f for f in fields if f]
        i = 0
        while i < len(fields):
            status = _dec(fields[i])
            if status[:1] in ("R", "C") and i + 2 < len(fields):
                paths = [_dec(fields[i + 1]), _dec(fields[i + 2])]
                if status[0] == "R":
                    renamed.append((paths[0], paths[1]))
                i += 3
            elif i + 1 < len(fields):
                paths = [_dec(fields[i + 1])]
                i += 2
            else:
                break
            for path in paths:
                files.setdefault(path, set()).update(commits[oid])
    for old, new in reversed(renamed):  # oldest first: a chain of renames carries everything along
        files.setdefault(new, set()).update(files.get(old, ()))
    return Writers(commits, files, who)


def blame_commits(repo: RepoHandle, path: str) -> list[str]:
    """The commit that last wrote each line of the work tree's ``path`` (``ZERO`` for a line not
    committed yet), in order; [] when git cannot blame it (untracked, not there)."""
    res = repo.runner.run(
        ["-c", "blame.ignoreRevsFile=", "blame", "--porcelain", "--no-progress", "--", normalize_rel(path)],
        check=False,
    )
    if res.returncode != 0:
        return []
    lines: dict[int, str] = {}
    for raw in res.stdout.split(b"\n"):
        if not raw or raw.startswith(b"\t"):
            continue
        head = raw.split(b" ")
        if len(head) >= 3 and len(head[0]) == 40 and head[1].isdigit() and head[2].isdigit():
            lines[int(head[2])] = _dec(head[0])
    return [lines.get(n, ZERO) for n in range(1, max(lines, default=0) + 1)]


__all__ = ["ZERO", "Writers", "blame_commits", "writers"]
