"""The Pilot helpers under their earlier names, for tests not yet moved to :mod:`tests.driver`
(where each of them lives, once)."""

from __future__ import annotations

from tests.driver import app_for, git, notes, screen_text, settle, shown, wait_for

__all__ = ["app_for", "git", "notes", "screen_text", "settle", "shown", "wait_for"]
