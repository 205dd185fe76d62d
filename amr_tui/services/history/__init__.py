"""History and provenance of a memory repo: file history, entry timelines, blame, forgotten facts
(deleted entries and tombstones), forget and restore, and the searchable past.

Inside, imports go one way: :mod:`.forgotten` (the deletion log, forget and restore, on any
``HistorySource``) <- :mod:`.past` (deleted and reworded entries, ``PastIndex``) <-
:mod:`.service` (``HistoryService``). It may import the workspace (and
``amr_tui.git``, ``amr_tui.core``); dreams, the session and the CLI's lint import it.
"""
