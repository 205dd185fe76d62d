"""Activity review: what others (agents, other people) committed to a repo since the user last
reviewed it, entry by entry, with a per-repo "reviewed up to" mark kept inside the git dir
(``.git/amr/reviewed.json``, never in the work tree), and reverting one entry change or a whole
commit as a new commit through the write gate (docs/activity.md).

Inside, imports go one way: :mod:`.model` (records, the mark file) <- :mod:`.revert` (the
reverse of one entry change, on bytes) <- :mod:`.service` (``ActivityService``). It may import
the workspace and the write gate (and ``amr_tui.git``, ``amr_tui.core``); the session imports
it, never the other way round.
"""
