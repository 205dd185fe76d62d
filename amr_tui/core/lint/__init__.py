"""Repo-wide lint: what needs the whole repo (links, reachability from MEMORY.md, duplicates,
the entry point's budget), over a ``RepoSnapshot``; the line-local checks are ``core.format``'s.

``facts`` holds what lint needs of one file without the file (a cache keeps it); ``repo`` the
checks and their fixes. A finding is ``core.model.Finding``. Pure.

Names load on first use (``core.lazy``): importing one module of the package loads only it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lazy import face

if TYPE_CHECKING:  # the names as a type checker reads them; at run time the map below is used
    from amr_tui.core.lint.facts import (
        FileFacts,
        facts_of,
        normalise_text,
        pack,
        pack_diagnostic,
        unpack,
        unpack_diagnostic,
    )
    from amr_tui.core.lint.repo import (
        INDEX_HEADING,
        LOAD_BUDGET_BYTES,
        LOAD_BUDGET_LINES,
        NEAR_DUPLICATE_MIN_CHARS,
        NEAR_DUPLICATE_THRESHOLD,
        RepoSnapshot,
        apply_edits,
        fix_edits,
        is_memory_note,
        lint_file,
        lint_repo,
        without_untracked_links,
    )

__all__ = [
    "FileFacts",
    "INDEX_HEADING",
    "LOAD_BUDGET_BYTES",
    "LOAD_BUDGET_LINES",
    "NEAR_DUPLICATE_MIN_CHARS",
    "NEAR_DUPLICATE_THRESHOLD",
    "RepoSnapshot",
    "apply_edits",
    "facts_of",
    "fix_edits",
    "is_memory_note",
    "lint_file",
    "lint_repo",
    "normalise_text",
    "pack",
    "pack_diagnostic",
    "unpack",
    "unpack_diagnostic",
    "without_untracked_links",
]

__getattr__, __dir__ = face(
    __name__,
    {
        "facts": ("FileFacts", "facts_of", "normalise_text", "pack", "pack_diagnostic", "unpack", "unpack_diagnostic"),
        "repo": (
            "INDEX_HEADING",
            "LOAD_BUDGET_BYTES",
            "LOAD_BUDGET_LINES",
            "NEAR_DUPLICATE_MIN_CHARS",
            "NEAR_DUPLICATE_THRESHOLD",
            "RepoSnapshot",
            "apply_edits",
            "fix_edits",
            "is_memory_note",
            "lint_file",
            "lint_repo",
            "without_untracked_links",
        ),
    },
)
