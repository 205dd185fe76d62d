"""amr merge-driver %O %A %B %L %P  and  amr merge-driver install [REPO]"""

from __future__ import annotations

import argparse
from pathlib import Path

from amr_tui.cli.output import error, safe

# Lazy imports: each command imports the layers it runs when it runs, so that building the parser
# (`amr --help`, `amr <command>`) loads this module alone (tests/test_startup_path.py).

COMMANDS = ("merge-driver",)

_DESCRIPTION = (
    "Git merge driver for memory files. git runs `amr merge-driver %O %A %B %L %P` for every path "
    "whose .gitattributes says merge=amr: entries appended on both sides are both kept, an entry "
    "deleted on one side stays deleted, one entry edited on both sides merges key by key or "
    "conflicts alone. The result is written to %A; exit 0 when clean, 1 on conflicts. "
    "`amr merge-driver install [REPO]` adds `*.md merge=amr` to .gitattributes (committed) and "
    "merge.amr.* to the repo's own config; run it in every clone (config is not cloned)."
)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "merge-driver",
        help="entry-aware git merge driver (and `install`)",
        description=_DESCRIPTION,
        usage="amr merge-driver BASE OURS THEIRS [MARKER_SIZE [PATH]]\n"
        "       amr merge-driver install [REPO] [--no-commit]",
    )
    p.add_argument("args", nargs="*", help="%%O %%A %%B %%L %%P from git, or: install [REPO]")
    p.add_argument("--no-commit", action="store_true", help="install: write .gitattributes without committing it")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rest = list(args.args)
    if rest and rest[0] == "install" and len(rest) <= 2:
        return run_install(Path(rest[1]) if len(rest) == 2 else Path("."), commit=not args.no_commit)
    if not 3 <= len(rest) <= 5:
        error("usage: amr merge-driver BASE OURS THEIRS [MARKER_SIZE [PATH]]  or  amr merge-driver install [REPO]")
        return 2
    base, ours, theirs = rest[:3]
    try:
        size = int(rest[3]) if len(rest) > 3 else 7
    except ValueError:
        size = 7
    path = rest[4] if len(rest) > 4 else ours
    return run_driver(base, ours, theirs, size, path)


def run_driver(base: str, ours: str, theirs: str, marker_size: int, path: str) -> int:
    """Merge the three files git hands over; write the result over ``ours``."""
    from amr_tui.core.merge.three_way import merge3

    try:
        data = [Path(p).read_bytes() for p in (base, ours, theirs)]
    except OSError as exc:
        error(f"merge-driver: cannot read its input: {exc}")
        return 2
    result = merge3(data[0], data[1], data[2], path, marker_size=marker_size)
    try:
        Path(ours).write_bytes(result.merged)
    except OSError as exc:
        error(f"merge-driver: cannot write the result: {exc}")
        return 2
    return 0 if result.clean else 1


def run_install(repo: Path, *, commit: bool) -> int:
    from amr_tui.git.errors import AmrGitError
    from amr_tui.services.sync.gitattrs import install_merge_driver

    try:
        res = install_merge_driver(repo, commit=commit)
    except (AmrGitError, OSError, ValueError) as exc:
        error(str(exc))
        return 2
    root = safe(str(res.root))
    if not res.changed:
        print(f"{root}: amr's merge driver is already installed")
        return 0
    if res.attributes_changed:
        how = f"committed as {res.commit[:12]}" if res.commit else "not committed"
        print(f"{root}: .gitattributes now has `*.md merge=amr` ({how})")
    if res.config_changed:
        print(f"{root}: merge.amr.driver set in this clone's config")
    return 0
