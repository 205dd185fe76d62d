"""After sharing: the manifest the app reads, write grants, and routing new entries back home.

Records, written by :func:`record_share`:

* ``DIR/.amr-share.json``: what the session folder holds (for the app: mount each repo, read-only
  unless ``write`` is true). The session can edit this file, so it is never trusted for writes.
* ``<source>/.git/amr/shares.json``: the owner's own record, keyed by the session folder, with the
  grant. :func:`route_back` and :func:`write_back` trust only this one.

:func:`route_back` says where an entry written in the session belongs: the shared repo whose
folder holds the file (same path in the owner's repo), ``"read-only"`` when the owner did not grant
write, or ``"ask"`` when it is unclear (a file outside every shared repo, or a new file in a
partial share at a path the owner's repo uses for a file that was not shared). The app asks the
person and calls :func:`route_back` again with ``repo=`` their answer.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from platformdirs import user_data_path  # the shares record lives in the user data folder

from amr_tui.core.format.edit import insert_lines
from amr_tui.core.format.parser import is_markdown, parse
from amr_tui.git import GitRepo
from amr_tui.git.errors import AmrGitError
from amr_tui.git.gate import Change
from amr_tui.git.rewrite import list_tree, selection_filter
from amr_tui.git.worktree import normalize_rel

MANIFEST = ".amr-share.json"
OWNER_RECORD = "shares.json"
ROUTE, ASK, READ_ONLY = "route", "ask", "read-only"
MAX_SESSION_FILE = 8 * 1024 * 1024


@dataclass(frozen=True)
class ManifestRepo:
    name: str
    repo: str
    source: Path
    kind: str
    paths: tuple[str, ...] | None
    write: bool
    commit: str | None
    source_commit: str | None


class SharedRecord(Protocol):
    """What the records keep of one shared repo (``share.build.SharedRepo`` is one)."""

    @property
    def name(self) -> str: ...
    @property
    def repo(self) -> str: ...
    @property
    def source(self) -> Path: ...
    @property
    def kind(self) -> str: ...
    @property
    def paths(self) -> tuple[str, ...] | None: ...
    @property
    def write(self) -> bool: ...
    @property
    def commit(self) -> str | None: ...
    @property
    def source_commit(self) -> str | None: ...


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", "utf-8")
    os.replace(tmp, path)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _owner_path(source: Path) -> Path:
    return GitRepo(source).git_dir / "amr" / OWNER_RECORD


def record_share(share_dir: Path, repos: Sequence[SharedRecord]) -> None:
    r"""Write the manifest and each owner's record (``repos``: the ``SharedRepo``\ s a share made)."""
    when = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    manifest = {
        "version": 1,
        "created": when,
        "repos": [
            {
                "name": r.name,
                "repo": r.repo,
                "kind": r.kind,
                "paths": list(r.paths) if r.paths is not None else None,
                "write": r.write,
                "commit": r.commit,
                "source_commit": r.source_commit,
            }
            for r in repos
        ],
    }
    _write_json(share_dir / MANIFEST, manifest)
    local = _read_json(_sources_path())
    local[str(share_dir.resolve())] = {r.name: str(r.source) for r in repos}
    _write_json(_sources_path(), local)
    for r in repos:
        path = _owner_path(r.source)
        data = _read_json(path)
        found = data.get("shares")
        shares: dict[str, Any] = found if isinstance(found, dict) else {}
        shares[str(share_dir.resolve())] = {
            "name": r.name,
            "paths": list(r.paths) if r.paths is not None else None,
            "write": r.write,
            "created": when,
        }
        _write_json(path, {"version": 1, "shares": shares})


def _sources_path() -> Path:
    """This machine's record of where each shared repo came from (session folder -> repo name ->
    the owner's repo): kept out of the session folder, which goes to whoever pairs."""
    return user_data_path("amr", appauthor=False) / "share-sources.json"


def load_manifest(share_dir: str | os.PathLike[str]) -> list[ManifestRepo]:
    """The shared repos of ``share_dir`` whose owner's repo this machine knows (see
    :func:`_sources_path`); a manifest from before kept the path in ``source``."""
    data = _read_json(Path(share_dir) / MANIFEST)
    found = _read_json(_sources_path()).get(str(Path(share_dir).resolve()))
    sources: dict[str, Any] = found if isinstance(found, dict) else {}
    out: list[ManifestRepo] = []
    for r in data.get("repos", []) if isinstance(data.get("repos"), list) else []:
        try:
            source = sources.get(str(r["name"])) or r.get("source")
            if not isinstance(source, str) or not source:
                continue  # shared from another machine: nothing here to route back to
            paths = tuple(r["paths"]) if r.get("paths") is not None else None
            out.append(
                ManifestRepo(
                    str(r["name"]),
                    str(r["repo"]),
                    Path(source),
                    str(r["kind"]),
                    paths,
                    bool(r.get("write")),
                    r.get("commit"),
                    r.get("source_commit"),
                )
            )
        except (KeyError, TypeError):
            continue
    return out


def owner_grant(source: Path, share_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The owner's record of this share (None: the owner never shared into that folder)."""
    try:
        data = _read_json(_owner_path(source))
    except AmrGitError:
        return None
    shares = data.get("shares")
    rec = shares.get(str(Path(share_dir).resolve())) if isinstance(shares, dict) else None
    return rec if isinstance(rec, dict) else None


def grant_write(share_dir: str | os.PathLike[str], repo: str, write: bool = True) -> None:
    """The owner grants (or takes back) write access for one shared repo."""
    share_dir = Path(share_dir)
    data = _read_json(share_dir / MANIFEST)
    sources = {m.name: m.source for m in load_manifest(share_dir)}
    found = False
    for r in data.get("repos", []):
        if r.get("repo") == repo or r.get("name") == repo:
            source = sources.get(str(r.get("name")))
            if source is None:
                raise ValueError(f"{repo!r} was not shared from this machine: only its owner can grant write")
            r["write"] = write
            found = True
            path = _owner_path(source)
            own = _read_json(path)
            rec = own.get("shares", {}).get(str(share_dir.resolve()))
            if rec is None:
                raise ValueError(f"{source} has no record of sharing into {share_dir}")
            rec["write"] = write
            _write_json(path, own)
    if not found:
        raise ValueError(f"{repo!r} is not shared in {share_dir}")
    _write_json(share_dir / MANIFEST, data)


@dataclass(frozen=True)
class Route:
    status: str  # ROUTE, ASK or READ_ONLY
    reason: str
    repo: str | None = None  # mount name of the destination
    source: Path | None = None  # the owner's repo
    path: str | None = None  # path inside it
    candidates: tuple[str, ...] = ()  # repos that can take it, when asking


def route_back(share_dir: str | os.PathLike[str], file: str | os.PathLike[str], *, repo: str | None = None) -> Route:
    """Where an entry written to ``file`` (inside the session folder) belongs."""
    share_dir = Path(share_dir).absolute()
    repos = load_manifest(share_dir)
    writable = tuple(r.repo for r in repos if (owner_grant(r.source, share_dir) or {}).get("write"))
    full = Path(file) if Path(file).is_absolute() else share_dir / file
    try:
        rel = full.absolute().relative_to(share_dir).as_posix()
    except ValueError:
        return Route(ASK, f"{file} is outside the session folder", candidates=writable)
    home = next((r for r in repos if rel.startswith(r.name + "/")), None)
    if home is None:
        chosen = next((r for r in repos if repo in (r.repo, r.name)), None) if repo else None
        if chosen is None:
            return Route(
                ASK, "this file is not inside any shared repo: which memory does it belong to?", candidates=writable
            )
        home, inner = chosen, normalize_rel(rel.split("/", 1)[-1] if "/" in rel else rel)
    else:
        inner = normalize_rel(rel[len(home.name) + 1 :])
    grant = owner_grant(home.source, share_dir)
    if not grant or not grant.get("write"):
        return Route(
            READ_ONLY,
            f"{home.repo} was shared read-only: the owner has not granted write",
            home.repo,
            home.source,
            inner,
        )
    if home.paths is not None and not selection_filter(home.paths)(inner) and repo is None:
        source_files = set(list_tree(GitRepo(home.source), "HEAD"))
        if inner in source_files:
            return Route(
                ASK,
                f"{inner} exists in {home.repo} but was not shared: write there anyway?",
                home.repo,
                home.source,
                inner,
                writable,
            )
    return Route(ROUTE, f"goes back to {home.repo}/{inner}", home.repo, home.source, inner)


@dataclass(frozen=True)
class SessionEntry:
    repo: str
    path: str  # inside the shared repo
    line: int
    text: str  # the whole entry line


def session_entries(share_dir: str | os.PathLike[str]) -> list[SessionEntry]:
    """Entry lines in the session's copies that were not there when the share was made."""
    share_dir = Path(share_dir)
    out: list[SessionEntry] = []
    for r in load_manifest(share_dir):
        root = share_dir / r.name
        try:
            git = GitRepo(root)
        except AmrGitError:
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != ".git")
            for fname in sorted(filenames):
                full = Path(dirpath) / fname
                rel = full.relative_to(root).as_posix()
                if not is_markdown(rel) or full.is_symlink() or full.stat().st_size > MAX_SESSION_FILE:
                    continue
                before = (
                    {e.text for e in parse(git.read_blob_or_none(r.commit, rel) or b"", rel).entries}
                    if r.commit
                    else set()
                )
                doc = parse(full.read_bytes(), rel)
                for e in doc.entries:
                    if e.text and e.text not in before:
                        out.append(SessionEntry(r.repo, rel, e.line, doc.lines[e.line - 1].text.strip()))
    return out


def write_back(
    share_dir: str | os.PathLike[str], route: Route, lines: list[str], message: str | None = None
) -> str | None:
    """Append entry ``lines`` to the routed file in the owner's repo as one commit (CAS, retried).
    Lines already there are skipped; returns the new commit (None when nothing was new)."""
    if route.status != ROUTE or route.source is None or route.path is None:
        raise ValueError(f"cannot write back: {route.reason}")
    for line in lines:
        if any((ord(c) < 32 and c != "\t") or c == "\x7f" for c in line):
            raise ValueError("an entry holds a line break or a control character")
    grant = owner_grant(route.source, share_dir)
    if not grant or not grant.get("write"):
        raise PermissionError(f"{route.repo} was shared read-only")
    repo = GitRepo(route.source)
    head = repo.head()
    data = repo.read_blob_or_none(head, route.path) if head else None
    doc = parse(data or b"", route.path)
    have = {ln.text.strip() for ln in doc.lines}
    new = [ln for ln in lines if ln.strip() and ln.strip() not in have]
    if not new:
        return None
    updated = insert_lines(doc, len(doc.lines), new)
    what = message or f"Add {len(new)} entr{'y' if len(new) == 1 else 'ies'} from a pairing session to {route.path}"
    # Through the write gate: merged onto anything committed since, nobody's uncommitted edit swept in.
    return repo.write_files([Change(route.path, data, updated, head)], what).head
