"""Syncing a memory repo with its remote: fetch, merge with amr's driver, push (never forced);
the conflicts a merge leaves and their resolution; amr's merge driver in ``.gitattributes``.

Inside, imports go one way: :mod:`.state` (the sync record, conflicts) <- :mod:`.run` (``sync``)
<- :mod:`.resolve`; :mod:`.gitattrs` stands alone. It imports nothing else from
``amr_tui.services`` (only ``amr_tui.git``, ``amr_tui.core``); the session and the CLI import it.
"""
