"""Dreaming runs: pending ``dreams/<id>`` branches, their review, accepting, rejecting and undoing
them, and making new ones (docs/dreams.md).

Inside, imports go one way: :mod:`.model` (records, ref names, the ``RunSource`` protocol) <-
:mod:`.write` <- :mod:`.check`, and :mod:`.make`; :mod:`.runs` (``DreamService``) on top. It may
import the workspace and history (and ``amr_tui.git``, ``amr_tui.core``); the session imports
it, never the other way round.

Names load on first use (``amr_tui.core.lazy``, as core's faces do): importing one module of
the package loads only it and what it imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lazy import face

if TYPE_CHECKING:  # the names as a type checker reads them; at run time the map below is used
    from amr_tui.services.dreams.check import Problem
    from amr_tui.services.dreams.make import AgentDream
    from amr_tui.services.dreams.model import (
        BRANCH_PREFIX,
        DECISION_PREFIX,
        ChangedFile,
        Decision,
        DreamError,
        DreamRun,
        FileReview,
        RunReview,
        RunSource,
        run_id_of,
    )
    from amr_tui.services.dreams.runs import DreamService
    from amr_tui.services.dreams.write import Accepted

__all__ = [
    "Accepted",
    "AgentDream",
    "BRANCH_PREFIX",
    "ChangedFile",
    "DECISION_PREFIX",
    "Decision",
    "DreamError",
    "DreamRun",
    "DreamService",
    "FileReview",
    "Problem",
    "RunReview",
    "RunSource",
    "run_id_of",
]

__getattr__, __dir__ = face(
    __name__,
    {
        "model": (
            "BRANCH_PREFIX",
            "ChangedFile",
            "DECISION_PREFIX",
            "Decision",
            "DreamError",
            "DreamRun",
            "FileReview",
            "RunReview",
            "RunSource",
            "run_id_of",
        ),
        "write": ("Accepted",),
        "check": ("Problem",),
        "make": ("AgentDream",),
        "runs": ("DreamService",),
    },
)
