"""Sharing memory with a pairing session: choosing what to share, previewing what an agent would
load, building the shared repos (:mod:`.build`), and the records that route an agent's writes
in the share back to the owner's repo (:mod:`.route`).

Inside, :mod:`.build` imports :mod:`.route`, never the other way round. It may import the
workspace (and ``amr_tui.git``, ``amr_tui.core``).
"""
