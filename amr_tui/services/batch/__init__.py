"""The CLI's batch plumbing: ``amr lint`` and ``amr search`` over repos on disk, their caches and
the pool of processes that parses a big repo.

:mod:`.lintrun` (lint, ``lint --fix``) and :mod:`.searchrun` (the search index) are on top;
under them :mod:`.lintcache`, :mod:`.searchcache` and :mod:`.searchcolumns` over
:mod:`.diskcache`, and :mod:`.parallel`. It may import the workspace, sync (merge-driver facts)
and history (``lint --history``); the app's session never imports it.

Names load on first use (``amr_tui.core.lazy``, as core's faces do): importing one module of
the package loads only it and what it imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lazy import face

if TYPE_CHECKING:  # the names as a type checker reads them; at run time the map below is used
    from amr_tui.services.batch.lintrun import (
        FixRefusedError,
        LintResult,
        LintTarget,
        fix_repo,
        git_tracked,
        lint_targets,
        notes_root,
        resolve_targets,
    )
    from amr_tui.services.batch.searchrun import build_index, index_mount, search_paths

__all__ = [
    "FixRefusedError",
    "LintResult",
    "LintTarget",
    "build_index",
    "fix_repo",
    "git_tracked",
    "index_mount",
    "lint_targets",
    "notes_root",
    "resolve_targets",
    "search_paths",
]

__getattr__, __dir__ = face(
    __name__,
    {
        "lintrun": (
            "FixRefusedError",
            "LintResult",
            "LintTarget",
            "fix_repo",
            "git_tracked",
            "lint_targets",
            "notes_root",
            "resolve_targets",
        ),
        "searchrun": ("build_index", "index_mount", "search_paths"),
    },
)
