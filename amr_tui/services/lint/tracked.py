"""Which files git tracks, for lint's AMR013 fix (``amr lint --fix`` links only tracked files).

Imported by run.py only when a finding has such a fix, and by fix.py: git stays off the
start-up of a plain `amr lint`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lint.repo import without_untracked_links
from amr_tui.git import AmrGitError, GitRepo, NotARepoError

if TYPE_CHECKING:
    from pathlib import Path

    from amr_tui.core.model import Finding


def git_tracked(root: Path) -> set[str] | None:
    """The paths (relative to ``root``) git tracks; None when ``root`` is in no git work tree.

    ``root`` may be a folder inside a larger work tree (its files are then the ones under it).
    Raises UnsafeRepoError when git refuses the repo (another user's, or a work tree elsewhere).
    """
    try:
        repo = GitRepo(root)
    except NotARepoError:
        return None
    here, top = root.resolve(), repo.root.resolve()
    prefix = "" if here == top else here.relative_to(top).as_posix() + "/"
    return {p[len(prefix) :] for p in repo.ls_files() if p.startswith(prefix)}


def tracked_links_only(findings: list[Finding], root: Path) -> list[Finding]:
    """No AMR013 fix for a file git does not track (nothing is linked when git cannot say)."""
    try:
        tracked = git_tracked(root)
    except AmrGitError:  # e.g. another user's repo: git will not say, so --fix links nothing
        return without_untracked_links(
            findings, set(), "git will not say whether it tracks it, so --fix does not link it"
        )
    return findings if tracked is None else without_untracked_links(findings, tracked)
