"""The parser of amr merge-driver %O %A %B %L %P and amr merge-driver install [REPO] (run by
cli/merge_cmd.py)."""

from __future__ import annotations

from amr_tui.cli.parsers.common import Run, Sub, command


def add_parsers(sub: Sub) -> None:
    p = command(
        sub,
        "merge-driver",
        Run("merge_cmd"),
        help=_MERGE_DRIVER_HELP,
        description=_DESCRIPTION,
        usage="amr merge-driver BASE OURS THEIRS [MARKER_SIZE [PATH]]\n"
        "       amr merge-driver install [REPO] [--no-commit]",
    )
    p.add_argument("args", nargs="*", help="%%O %%A %%B %%L %%P from git, or: install [REPO]")
    p.add_argument("--no-commit", action="store_true", help="install: write .gitattributes without committing it")


_DESCRIPTION = (
    "Git merge driver for memory files. git runs `amr merge-driver %O %A %B %L %P` for every path "
    "whose .gitattributes says merge=amr: entries appended on both sides are both kept, an entry "
    "deleted on one side stays deleted, one entry edited on both sides merges key by key or "
    "conflicts alone. The result is written to %A; exit 0 when clean, 1 on conflicts. "
    "`amr merge-driver install [REPO]` adds `*.md merge=amr` to .gitattributes (committed) and "
    "merge.amr.* to the repo's own config; run it in every clone (config is not cloned)."
)

_MERGE_DRIVER_HELP = "entry-aware git merge driver (and `install`)"
