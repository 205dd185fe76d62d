"""Is it still true? Memory checked against the code it cites (``amr verify``, the Stale? queue).

Inside, imports go one way: :mod:`.coderepo` (which code checkout a memory repo is about) and
:mod:`.facts` (the code repo's facts at its HEAD, cached) <- :mod:`.run` (judging every fact of
a repo) <- :mod:`.stamp` (``verified:`` stamps and supersede, through the write gate). It may
import the workspace, the config, ``services.batch``'s cache plumbing, ``amr_tui.git`` and
``amr_tui.core``; the session, the CLI and the dream pass import it.
"""
