"""After sharing: the records of a share (the manifest the app reads, and the owner's own).

Records, written by :func:`record_share`:

* ``DIR/.amr-share.json``: what the session folder holds (for the app: mount each repo, read-only
  unless ``write`` is true). The session can edit this file, so it is never trusted for writes.
* ``<source>/.git/amr/shares.json``: the owner's own record, keyed by the session folder, with the
  grant.

(Routing entries written in a session back to the owner's repo, and writing them there, had no
caller outside its tests and was removed: issue 38, point 1, issue 43.)
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

from amr_tui.git import GitRepo

MANIFEST = ".amr-share.json"
OWNER_RECORD = "shares.json"


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
