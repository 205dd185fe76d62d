"""Sharing memory for a pairing session: choose repos (and, within a repo, files or folders),
preview exactly what an agent would load, then build the session folder.

* :func:`select` turns ``NAME`` / ``NAME:path,folder/`` choices into :class:`Selection` objects.
* :func:`preview` says, per repo, which files the session gets, how much of ``MEMORY.md`` an agent
  loads at start (the first 200 lines or 25 KB, whichever ends first: ``cut_line`` is the first
  line it does not load), which files are reachable from ``MEMORY.md`` through ``[[links]]``, and
  which links would dangle (their target is not shared, or does not exist).
* :func:`share` builds ``DIR``: a whole repo becomes a copy of its current branch (only the
  objects reachable from it; no tag, note, other branch, remote, config or reflog; symlinks
  checked out as plain files); a partial selection becomes a new repository with only the
  selected paths, history included (:mod:`amr_tui.git.rewrite`), holding no object of any other
  path, its commit messages written from the shared changes (``keep_messages``: the original
  message of a commit that touched only shared files is kept). Every shared repo is
  read-only unless the owner granted write; the grant is recorded on the owner's side (see
  :mod:`amr_tui.services.share.route`) and in ``DIR/.amr-share.json`` for the app.

Everything is computed from the committed state (HEAD); uncommitted changes are not shared.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from amr_tui.core.format.links import LinkState, normalise, resolve
from amr_tui.core.format.parser import is_markdown, parse
from amr_tui.core.lint.repo import MEMORY_FILE, load_budget
from amr_tui.git import GitRepo
from amr_tui.git.rewrite import (
    SHARE_BRANCH,
    LeftOut,
    left_out,
    list_tree,
    remove_tree,
    selection_filter,
)
from amr_tui.git.worktree import normalize_rel
from amr_tui.services import writegate
from amr_tui.services.share.route import SharedRepo, record_share
from amr_tui.services.workspace import Mount

MAX_PREVIEW_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Selection:
    repo: str  # the mount name
    root: Path
    paths: tuple[str, ...] | None = None  # None: the whole repo
    write: bool = False

    @property
    def whole(self) -> bool:
        return self.paths is None


def parse_choice(text: str) -> tuple[str, tuple[str, ...] | None]:
    """``"memory-alice"`` -> whole repo; ``"memory-alice:projects/,team.md"`` -> those paths."""
    name, sep, rest = text.partition(":")
    if not name:
        raise ValueError(f"no repo name in {text!r}")
    if not sep:
        return name, None
    paths = tuple(normalize_rel(p.strip().rstrip("/")) for p in rest.split(",") if p.strip())
    if not paths:
        raise ValueError(f"{text!r} names no file or folder")
    return name, paths


def select(mounts: Iterable[Mount], choices: Iterable[str] = (), write: Iterable[str] = ()) -> list[Selection]:
    """Selections for ``choices`` (every mount, whole, when there are none). ``write``: repo names
    whose owner grants the session write access."""
    by_name = {m.name: m for m in mounts}
    grants = set(write)
    wanted = [parse_choice(c) for c in choices] or [(name, None) for name in by_name]
    out: list[Selection] = []
    for name, paths in wanted:
        mount = by_name.get(name)
        if mount is None:
            raise ValueError(f"no mounted repo named {name!r} (mounted: {', '.join(by_name) or 'none'})")
        if paths is not None:
            files = set(list_tree(GitRepo(mount.root), "HEAD"))
            for p in paths:
                if p not in files and not any(f.startswith(p + "/") for f in files):
                    raise ValueError(f"{name}: {p} is not a committed file or folder")
        out.append(Selection(name, mount.root, paths, name in grants))
    unknown = grants - {s.repo for s in out}
    if unknown:
        raise ValueError(f"write granted to repos that are not shared: {', '.join(sorted(unknown))}")
    return out


@dataclass(frozen=True)
class Dangling:
    path: str
    line: int
    target: str
    reason: str  # "not shared", "missing", "unsafe"


@dataclass(frozen=True)
class RepoPreview:
    repo: str
    whole: bool
    write: bool
    commit: str | None
    files: tuple[str, ...]
    memory: bytes | None = field(repr=False)  # MEMORY.md as shared (None: not shared)
    memory_lines: int = 0
    memory_bytes: int = 0
    loaded_lines: int = 0  # lines of MEMORY.md an agent loads at start
    cut_line: int | None = None  # first line it does not load (None: all of it)
    reachable: tuple[str, ...] = ()  # from MEMORY.md through links, MEMORY.md first
    unreachable: tuple[str, ...] = ()
    dangling: tuple[Dangling, ...] = ()
    warnings: tuple[str, ...] = ()
    left_out: tuple[LeftOut, ...] = ()  # symlinks and submodules not shared as they are

    def to_json(self) -> dict[str, object]:
        return {
            "repo": self.repo,
            "whole": self.whole,
            "write": self.write,
            "commit": self.commit,
            "files": list(self.files),
            "memory_lines": self.memory_lines,
            "memory_bytes": self.memory_bytes,
            "loaded_lines": self.loaded_lines,
            "cut_line": self.cut_line,
            "reachable": list(self.reachable),
            "unreachable": list(self.unreachable),
            "warnings": list(self.warnings),
            "left_out": left_out_json(self.left_out),
            "dangling": [
                {"path": d.path, "line": d.line, "target": d.target, "reason": d.reason} for d in self.dangling
            ],
        }


def left_out_json(items: Iterable[LeftOut]) -> list[dict[str, str]]:
    return [{"path": o.path, "kind": o.kind, "target": o.target} for o in items]


def left_out_text(item: LeftOut, whole: bool) -> str:
    """What happens to one symlink or submodule, as the preview's warning says it:
    ``left out: projects/abs.md -> /etc/passwd (symlink, not shared)`` in a partial share; in a
    whole share a symlink is checked out as a plain file holding its target path, and says so."""
    if item.kind == "symlink":
        if whole:
            return (
                f"not a symlink in the share: {item.path} -> {item.target} is a plain file holding "
                f'the text "{item.target}" (what it points at is not shared)'
            )
        return f"left out: {item.path} -> {item.target} (symlink, not shared)"
    return f"left out: {item.path} (submodule {item.target[:12]}, not shared)"


def _left_out(repo: GitRepo, head: str | None, sel: Selection) -> tuple[LeftOut, ...]:
    return tuple(left_out(repo, head, sel.paths or ())) if head else ()


def preview(selections: Iterable[Selection]) -> list[RepoPreview]:
    return [_preview_one(s) for s in selections]


def _preview_one(sel: Selection) -> RepoPreview:
    repo = GitRepo(sel.root)
    head = repo.head()
    all_files = list_tree(repo, "HEAD") if head else {}
    keep = selection_filter(sel.paths) if sel.paths is not None else (lambda _p: True)
    shared = {p for p in all_files if keep(p)}
    everything = set(all_files)
    warnings: list[str] = []
    if not repo.status().is_clean:
        warnings.append("uncommitted changes are not shared (only what HEAD holds)")
    docs = {}
    for path in sorted(shared):
        if is_markdown(path):
            data = repo.read_blob_or_none(head, path) if head else None
            if data is not None and len(data) <= MAX_PREVIEW_BYTES:
                docs[path] = parse(data, path)
    dangling: list[Dangling] = []
    edges: dict[str, list[str]] = {}
    lower = {f.lower(): f for f in shared}
    for path, doc in docs.items():
        for link in doc.links:
            res = resolve(link.target, shared, lower)
            if res.state is LinkState.OK:
                edges.setdefault(path, []).append(res.path)  # type: ignore[arg-type]
            elif res.state is LinkState.ESCAPES:
                dangling.append(Dangling(path, link.line, link.target, "unsafe"))
            elif res.state is LinkState.BROKEN:
                inside = resolve(link.target, everything).state is LinkState.OK
                dangling.append(Dangling(path, link.line, link.target, "not shared" if inside else "missing"))
    memory = repo.read_blob_or_none(head, MEMORY_FILE) if head and MEMORY_FILE in shared else None
    reachable: list[str] = []
    if memory is not None:
        seen, queue = {MEMORY_FILE}, [MEMORY_FILE]
        while queue:
            cur = queue.pop(0)
            reachable.append(cur)
            for nxt in edges.get(cur, []):
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
    else:
        warnings.append("MEMORY.md is not shared: an agent loads nothing from this repo at start")
    loaded, cut = load_budget(memory) if memory is not None else (0, None)
    if cut is not None:
        warnings.append(f"MEMORY.md is over the load budget: an agent reads lines 1-{loaded} only")
    n_lines = memory.count(b"\n") + (0 if memory.endswith(b"\n") else 1) if memory else 0
    unreachable = tuple(sorted(shared - set(reachable)))
    skipped = _left_out(repo, head, sel)
    warnings += [left_out_text(o, sel.whole) for o in skipped]
    return RepoPreview(
        sel.repo,
        sel.whole,
        sel.write,
        head,
        tuple(sorted(shared)),
        memory,
        n_lines,
        len(memory or b""),
        loaded,
        cut,
        tuple(reachable),
        unreachable,
        tuple(sorted(dangling, key=lambda d: (d.path, d.line, d.target))),
        tuple(warnings),
        skipped,
    )


# ---------------------------------------------------------------------------------------------


def _progress_of(progress: Callable[[str, int, int], None] | None, repo: str) -> Callable[[int, int], None] | None:
    """``progress`` for one repo's history rewrite (None when nobody listens)."""
    if progress is None:
        return None
    return lambda n, t: progress(repo, n, t)


def folder_name(repo: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", normalise(repo)).strip(".-")
    return name or "memory"


def share(
    selections: Iterable[Selection],
    into: str | os.PathLike[str],
    *,
    progress: Callable[[str, int, int], None] | None = None,
    keep_messages: bool = False,
) -> list[SharedRepo]:
    """Build the session folder ``into`` (created if needed; each repo's folder must be new).

    Each shared repo has one branch, ``main``. A partial share's commit messages are written from
    the shared changes; ``keep_messages`` keeps the original message of a commit that touched only
    shared files (one that touched anything else still gets a written message)."""
    dest = Path(into).absolute()
    sels = list(selections)
    names = [folder_name(s.repo) for s in sels]
    if len(set(names)) != len(names):
        raise ValueError("two shared repos would get the same folder name")
    for name in names:
        if (dest / name).exists():
            raise FileExistsError(f"{dest / name} already exists")
    dest.mkdir(parents=True, exist_ok=True)
    made: list[SharedRepo] = []
    try:
        for sel, name in zip(sels, names, strict=True):
            src = GitRepo(sel.root)
            head = src.head()
            target = dest / name
            writegate.publish_share(
                src,
                target,
                paths=None if sel.whole else (sel.paths or ()),
                branch=SHARE_BRANCH,
                progress=_progress_of(progress, sel.repo),
                keep_messages=keep_messages,
            )
            kind = "clone" if sel.whole else "partial"
            made.append(
                SharedRepo(
                    name,
                    sel.repo,
                    target,
                    src.root,
                    kind,
                    sel.paths,
                    sel.write,
                    GitRepo(target).head(),
                    head,
                    _left_out(src, head, sel),
                )
            )
    except BaseException:
        for repo in made:
            remove_tree(repo.path)
        for name in names:
            if (dest / name).exists() and not any(r.name == name for r in made):
                remove_tree(dest / name)
        raise
    record_share(dest, made)
    return made


MCP_SERVER_NAME = "amr-share"  # the server's name in the client config snippet


def mcp_argv(made: list[SharedRepo]) -> tuple[list[str], list[str]]:
    """The ``amr mcp`` argv that serves exactly the shared repos (absolute paths; ``--read-only``
    for each one the owner did not grant write, by its mounted name: the folder's name), and the
    shared repos it cannot serve (a partial share without MEMORY.md is no memory repo to mount).
    The argv is empty when it would serve nothing."""
    served = [r for r in made if (r.path / MEMORY_FILE).is_file()]
    not_served = [r.name for r in made if r not in served]
    if not served:
        return [], not_served
    argv = ["amr", "mcp", *(str(r.path) for r in served)]
    for r in served:
        if not r.write:
            argv += ["--read-only", r.path.name]
    return argv, not_served


def mcp_config(argv: list[str]) -> dict[str, object]:
    """The ``mcpServers`` entry of a client's JSON config (Cursor, Claude Desktop...) for ``argv``."""
    return {"mcpServers": {MCP_SERVER_NAME: {"command": argv[0], "args": argv[1:]}}}


def mcp_lines(argv: list[str], not_served: list[str]) -> list[str]:
    """What ``amr share`` prints after a share, and the app shows: the ``amr mcp`` command that
    serves the session's agent exactly the shared repos, and a client config for it."""
    out = [f"not served over MCP: {name} (its share holds no MEMORY.md)" for name in not_served]
    if argv:
        out += [
            "MCP server for the pairing session's agent (serves only what was shared):",
            f"  {shlex.join(argv)}",
            f"  client config: {json.dumps(mcp_config(argv), ensure_ascii=True)}",
            "  (adding it to Claude Code, Cursor or another client: docs/agents.md)",
        ]
    return out
