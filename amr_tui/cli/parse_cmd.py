"""amr parse FILE --json"""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

from amr_tui.cli.output import emit_json, error, safe
from amr_tui.core.paths import MEMORY_FILE

# Lazy imports: each command imports the layers it runs when it runs, so that building the parser
# (`amr --help`, `amr <command>`) loads this module alone (tests/test_startup_path.py).


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from amr_tui.services.workspace import MAX_PARSE_BYTES

    p = sub.add_parser(
        "parse",
        help="print the entries of one memory file",
        description=(
            "Parse one memory file the way amr reads it (see docs/format.md) and print its entries: "
            "line, text, metadata, links and the diagnostics of each entry's line. A file over "
            f"{MAX_PARSE_BYTES // (1024 * 1024)} MiB is refused (exit 2), as is a file inside a memory repo "
            "whose real location (through symlinks) is outside that repo or in its .git."
        ),
    )
    p.add_argument("file", type=Path, help="a Markdown memory file")
    p.add_argument("--json", action="store_true", help="print a JSON array, one object per entry")
    p.set_defaults(func=run)


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
    from amr_tui.services.workspace import path_is_safe

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
    from amr_tui.services.workspace import (
        memory_children,
        path_is_safe,
    )

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


def _too_large(path: Path, size: int, limit: int) -> str:
    from amr_tui.git.catfile import describe_size

    return f"{path} is {describe_size(size)}, more than the {describe_size(limit)} amr parses; nothing was parsed"


def read_input(path: Path, limit: int) -> bytes:
    """The file's bytes, at most ``limit`` of them; OSError or ValueError (with the sentence to
    print) when it is missing, too large, or a way out of the memory repo it is in."""
    from amr_tui.services.workspace import read_bytes

    found = locate_in_repo(path)
    if found is not None:
        root, inside = found
        st = os.stat(os.path.join(root, inside))
        if stat.S_ISREG(st.st_mode) and st.st_size > limit:
            raise ValueError(_too_large(path, st.st_size, limit))
        data = read_bytes(root, inside, limit)  # O_NOFOLLOW, regular files only
        if data is None:
            raise ValueError(f"cannot read {path}: not a regular file, or it changed while being read")
        return data
    with open(path, "rb") as f:  # outside any memory repo: a plain file (or a pipe), bounded
        st = os.fstat(f.fileno())
        if stat.S_ISREG(st.st_mode) and st.st_size > limit:
            raise ValueError(_too_large(path, st.st_size, limit))
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path} holds more than the {limit // (1024 * 1024)} MiB amr parses; nothing was parsed")
    return data


def run(args: argparse.Namespace) -> int:
    from amr_tui.core.format.jsonout import entries_json
    from amr_tui.core.format.parser import parse
    from amr_tui.services.workspace import MAX_PARSE_BYTES

    try:
        data = read_input(args.file, MAX_PARSE_BYTES)
    except OSError as exc:
        error(f"cannot read {args.file}: {exc.strerror}" if exc.strerror else str(exc))
        return 2
    except ValueError as exc:
        error(str(exc))
        return 2
    doc = parse(data, args.file.name)
    rows = entries_json(doc)
    if args.json:
        emit_json(rows, rows=True)  # one entry a line
        return 0
    for row in rows:
        meta = "; ".join(f"{k}: {v}" for k, v in row["metadata"].items())
        print(f"{row['line']:>5}  {safe(row['text'])}" + (f"  [{safe(meta)}]" if meta else ""))
        for d in row["diagnostics"]:
            print(f"       {d['code']} {d['severity']}: {safe(d['message'])}")
    return 0
