"""How many examples a Hypothesis property of the fast tier runs.

A count written in a test (``max_examples=examples(600)``) is the full one. The fast tier runs a
quarter of it (never fewer than ``FLOOR``, nor more than written) so that it stays within its
time; the examples Hypothesis saved as failing (``.hypothesis/``) are replayed either way.
``HYPOTHESIS_PROFILE=full`` runs every count as written (``long`` too, the soak profile some
modules define on top)::

    HYPOTHESIS_PROFILE=full .venv/bin/python -m pytest -q -n 2 -m "not slow" -k "propert or hypothes"
"""

from __future__ import annotations

import os

#: ``HYPOTHESIS_PROFILE`` names under which the counts run as written.
FULL_PROFILES = ("full", "long")
#: The share of a count the fast tier runs.
SHARE = 4
#: The fewest examples the fast tier gives a property (a count written lower is kept).
FLOOR = 25


def full() -> bool:
    """The counts run as written (``HYPOTHESIS_PROFILE=full`` or ``long``)."""
    return os.environ.get("HYPOTHESIS_PROFILE", "default") in FULL_PROFILES


def examples(count: int) -> int:
    """The examples a property written with ``count`` runs now."""
    return count if full() else max(min(count, FLOOR), count // SHARE)
