"""Dreaming runs: pending ``dreams/<id>`` branches, their review, accepting, rejecting and undoing
them, and making new ones (docs/dreams.md).

Inside, imports go one way: :mod:`.model` (records, ref names, the ``RunSource`` protocol) <-
:mod:`.write` <- :mod:`.check`, and :mod:`.make`; :mod:`.service` (``DreamService``) on top. It may
import the workspace and history (and ``amr_tui.git``, ``amr_tui.core``); the session imports
it, never the other way round.
"""
