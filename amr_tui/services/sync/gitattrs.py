"""Merge attributes of a memory repo: installing amr's merge driver and finding drivers a clone
lacks (lint code AMR027).

git reads ``merge=NAME`` from ``.gitattributes`` (which is committed and travels with clones) but
``merge.NAME.driver`` from config (which is never cloned). A clone without the config silently
falls back to git's plain text merge without a word, so ``amr merge-driver install`` does both, and
:func:`undefined_merge_drivers` reports every ``merge=NAME`` this clone cannot honour.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_data_path

from amr_tui.git import GitRepo
from amr_tui.git.errors import AmrGitError
from amr_tui.git.gate import Change
from amr_tui.git.mergedriver import BUILTIN_DRIVERS, configured_merge_drivers, install_driver_config
from amr_tui.git.overrides import AMR_MERGE_DRIVER
from amr_tui.git.worktree import read_file_or_none
from amr_tui.services import writegate

ATTRIBUTES = ".gitattributes"
ATTRIBUTE_LINE = f"*.md merge={AMR_MERGE_DRIVER}"
_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"}
_MAX_ATTR_BYTES = 1_000_000
_MAX_ATTR_FILES = 200


def _merge_names(data: bytes) -> list[tuple[int, str]]:
    """``(line, driver)`` for every ``merge=NAME`` attribute in a gitattributes file."""
    out: list[tuple[int, str]] = []
    text = data[:_MAX_ATTR_BYTES].decode("utf-8", "replace")
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        for token in line.split()[1:]:
            if token.startswith("merge="):
                name = token[len("merge=") :]
                if name:
                    out.append((number, name))
    return out


def _attribute_files(root: Path, git_dir: Path | None) -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        if ATTRIBUTES in filenames:
            full = Path(dirpath) / ATTRIBUTES
            if not full.is_symlink():
                found.append((full.relative_to(root).as_posix(), full))
        if len(found) >= _MAX_ATTR_FILES:
            break
    if git_dir is not None:
        info = git_dir / "info" / "attributes"
        if info.is_file() and not info.is_symlink():
            found.append((".git/info/attributes", info))
    return found


def undefined_merge_drivers(root: str | os.PathLike[str]) -> list[tuple[str, int, str]]:
    """``(path, line, driver)`` for each ``merge=NAME`` whose driver this clone does not configure.

    Built-in drivers (``text``, ``binary``, ``union``) need no config. A folder that is not a git
    repository gives ``[]`` (no merge happens there).
    """
    root = Path(root)
    try:
        repo = GitRepo(root)
    except AmrGitError:
        return []
    files = _attribute_files(repo.root, repo.git_dir)
    if not files:
        return []
    try:
        configured = set(configured_merge_drivers(repo.runner))
    except AmrGitError:
        return []
    out: list[tuple[str, int, str]] = []
    for rel, full in files:
        try:
            data = full.read_bytes()
        except OSError:
            continue
        for line, name in _merge_names(data):
            if name not in BUILTIN_DRIVERS and name not in configured:
                out.append((rel, line, name))
    return sorted(out)


def lint_merge_drivers(root: str | os.PathLike[str]) -> list[tuple[str, int, str]]:
    """``undefined_merge_drivers`` as lint asks for it (AMR027): ``[]`` when anything fails (a
    repo git refuses is reported elsewhere; its files are linted anyway)."""
    try:
        return undefined_merge_drivers(root)
    except Exception:
        return []


def attributes_with_driver(data: bytes | None) -> bytes | None:
    """``.gitattributes`` content with ``*.md merge=amr`` added, or None if it is already there.

    Existing lines are kept exactly (a later line wins in gitattributes, so the new line goes
    last); the file's CRLF style and a BOM are kept.
    """
    data = data or b""
    for raw in data.decode("utf-8", "replace").splitlines():
        parts = raw.strip().lstrip("\ufeff").split()
        if parts and parts[0] == "*.md" and f"merge={AMR_MERGE_DRIVER}" in parts[1:]:
            return None
    eol = b"\r\n" if b"\r\n" in data else b"\n"
    if data and not data.endswith(b"\n"):
        data += eol
    return data + ATTRIBUTE_LINE.encode() + eol


@dataclass(frozen=True)
class InstallResult:
    root: Path
    attributes_changed: bool
    config_changed: bool
    commit: str | None  # the commit that added the attribute, when one was made

    @property
    def changed(self) -> bool:
        return self.attributes_changed or self.config_changed


def install_merge_driver(
    root: str | os.PathLike[str], *, commit: bool = True, command: str | None = None
) -> InstallResult:
    """Write ``*.md merge=amr`` into ``.gitattributes`` and ``merge.amr.*`` into the repo's config.

    Idempotent. With ``commit`` (the default) a changed ``.gitattributes`` is committed on its own
    (compare-and-swap, like every amr save) so other clones get the attribute; their config still
    needs ``amr merge-driver install`` (lint reports AMR027 until then).
    """
    repo = GitRepo(root)
    config_changed = install_driver_config(repo.runner, command)
    made: str | None = None
    changed = False
    head = repo.head()
    committed = repo.read_blob_or_none(head, ATTRIBUTES) if head else None
    current = read_file_or_none(repo.root, ATTRIBUTES)
    new = attributes_with_driver(current)
    if (
        new is None
        and commit
        and current != committed
        and current is not None
        and head is not None
        and attributes_with_driver(committed) is not None
    ):
        new = current  # present in the work tree only: commit it
    if new is not None and not commit:
        # The work tree only, merged onto the file as it is then (a line written meanwhile stays).
        changed = bool(writegate.write_worktree(repo.root, [Change(ATTRIBUTES, current, new)], repo))
    elif new is not None:
        # Through the write gate, based on the file as it is now (the user's own .gitattributes).
        made = writegate.commit(
            repo, [Change(ATTRIBUTES, current, new, head)], "Use amr's entry-aware merge driver for memory files"
        ).head
        changed = True
    return InstallResult(repo.root, changed, config_changed, made)


TOLD_FOLDER = "merge-driver-told"  # in the user data folder: one file per clone told it lacks the driver


def _told_path(root: Path) -> Path:
    """Where amr keeps that the clone at ``root`` was told (its path's digest, in the user data
    folder): opening a repo writes nothing in it, not even in its git dir."""
    key = hashlib.sha256(os.fsencode(root.resolve())).hexdigest()[:32]
    return user_data_path("amr", appauthor=False) / TOLD_FOLDER / key


def tell_missing_driver_once(root: str | os.PathLike[str]) -> bool:
    """True, once per clone, when this clone has no ``merge.amr.driver`` in its config (a clone
    does not copy config, so every clone needs ``amr merge-driver install`` or a sync by amr).
    The answer is kept in the user data folder, keyed by the repo's path (a clone moved is told
    again); False for a repo git refuses or cannot say, or when the note cannot be kept."""
    try:
        repo = GitRepo(root)
        if AMR_MERGE_DRIVER in configured_merge_drivers(repo.runner):
            return False
        told = _told_path(repo.root)
        if told.exists():
            return False
        told.parent.mkdir(parents=True, exist_ok=True)
        told.write_text(f"{repo.root.resolve()}\n", "utf-8")
    except (AmrGitError, OSError):
        return False
    return True
