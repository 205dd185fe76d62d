"""amr merge-driver install [REPO]: adds amr's merge driver to a repo (its parser:
cli/parsers/merge.py). Its own run module: it loads git, which the driver itself (cli/merge_cmd.py,
run by git for every file of a merge) does without."""

from __future__ import annotations

from pathlib import Path

from amr_tui.cli.output import error, safe
from amr_tui.git.errors import AmrGitError
from amr_tui.services.sync.gitattrs import install_merge_driver


def run_install(repo: Path, *, commit: bool) -> int:
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
