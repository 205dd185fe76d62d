"""Paths named on the command line of amr parse, lint, search, share, history, forget and undo:
which memory repo each is in, and the refusal of a name that leads out of its repo (or into its
.git) through a symlink, the rule of every read of the session, search and lint."""

from __future__ import annotations

import os
from pathlib import Path

from amr_tui.core.paths import MEMORY_FILE
from amr_tui.services.workspace import memory_children, path_is_safe


def _is_root(folder: Path) -> bool:
    return (folder / MEMORY_FILE).is_file() or (folder / ".git").exists()


class LeavesRepoError(ValueError):
    """A path named inside a memory repo whose real location is outside it or in its .git."""


def locate_in_repo(path: Path) -> tuple[Path, str] | None:
    """``(root, path inside it)`` of a file named on the command line, or None outside any memory
    repo. The root is the nearest folder above the name *as given* (symlinks not followed) with
    MEMORY.md or .git; the returned path is where the file really is in that root (a symlink to
    another file of the repo names that file).

    Raises :class:`LeavesRepoError` when the name is in a repo but the file, or a folder on its
    way, is a symlink that leads out of it or into its .git (``workspace.path_is_safe``, the rule
    of every read of the session, search and lint), including a symlinked folder of a memory repo
    that makes another repo look like a folder of it (a symlink to a repo from a folder that is
    not a memory repo, such as a home folder kept in git, is just the repo's name)."""
    lexical = Path(os.path.abspath(path))
    root = next((c for c in lexical.parents if _is_root(c)), None)
    if root is None:
        return None
    rel = lexical.relative_to(root).as_posix()
    outer = next((c for c in root.parents if (c / MEMORY_FILE).is_file()), None)  # a memory repo around it
    if outer is not None and not path_is_safe(outer, root.relative_to(outer).as_posix()):
        root, rel = outer, lexical.relative_to(outer).as_posix()
    if not path_is_safe(root, rel):
        raise LeavesRepoError(
            f"{path} is, or leads through a symlink, outside the memory repo {root} or into its "
            f".git; amr reads nothing there"
        )
    real = os.path.realpath(os.path.join(root, rel))
    return root, Path(real).relative_to(os.path.realpath(root)).as_posix()


def check_named_paths(paths: list[Path]) -> None:
    """Refuse (:class:`LeavesRepoError`) a file or folder named on the command line of ``amr lint``,
    ``amr search`` or ``amr share`` that is inside a memory repo by its name as given but really
    (through a symlinked file or folder) outside it or in its .git: the rule of ``amr parse``
    (:func:`locate_in_repo`). A file is checked by :func:`locate_in_repo` itself. A folder that is
    a repo root (MEMORY.md or .git), or holds memory repos, stands for itself: it is refused only
    as a symlinked folder of a memory repo around it (another repo made to look like a folder of
    it); any other folder is checked inside the nearest root above it. Missing paths are left to
    the command, which says so."""
    for path in paths:
        path = path.expanduser()
        if not os.path.isdir(path):
            if os.path.lexists(path):
                locate_in_repo(path)
            continue
        lexical = Path(os.path.abspath(path))
        try:
            own = _is_root(lexical) or bool(memory_children(lexical))
        except OSError:  # an unreadable folder: the command says so
            own = False
        root = lexical if own else next((c for c in lexical.parents if _is_root(c)), None)
        if root is None:
            continue
        outer = next((c for c in root.parents if (c / MEMORY_FILE).is_file()), None)
        if outer is not None and not path_is_safe(outer, root.relative_to(outer).as_posix()):
            root = outer
        rel = lexical.relative_to(root).as_posix()
        if rel != "." and not path_is_safe(root, rel):
            raise LeavesRepoError(
                f"{path} is, or leads through a symlink, outside the memory repo {root} or "
                f"into its .git; amr reads nothing there"
            )
