"""After sharing: the records of a share (the manifest the app reads, and the owner's own).

Records, written by :func:`record_share`:

* ``DIR/.amr-share.json``: what the session folder holds (for the app: mount each repo, read-only
  unless ``write`` is true). The session can edit this file, so it is never trusted for writes.
* ``<source>/.git/amr/shares.json``: the owner's own record, keyed by the session folder, with the
  grant.

(Routing entries written in a session back to the owner's repo, and writing them there, had no
caller outside its tests and was removed: issue 38, point 1. Issue 43 removed what was left of
it: ``load_manifest``, which only tests called, and the record of each shared repo's source on
this machine, ``share-sources.json`` in the user data folder, which only it read.)
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from amr_tui.git import GitRepo
from amr_tui.git.rewrite import LeftOut

MANIFEST = ".amr-share.json"
OWNER_RECORD = "shares.json"


@dataclass(frozen=True)
class SharedRepo:
    """One repo a share made (``share.build.share``), as its records keep it."""

    name: str  # folder name inside DIR
    repo: str  # mount name
    path: Path
    source: Path
    kind: str  # "clone" or "partial"
    paths: tuple[str, ...] | None
    write: bool
    commit: str | None  # the shared branch tip in DIR when it was made
    source_commit: str | None  # the source's HEAD it was made from
    left_out: tuple[LeftOut, ...] = ()  # symlinks (and submodules) not copied as they are


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


def record_share(share_dir: Path, repos: Sequence[SharedRepo]) -> None:
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
