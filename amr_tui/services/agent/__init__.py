"""The agent interface: what an agent may read and write in the mounted memory repos, and how.

``amr mcp`` (``cli/mcp_cmd.py``) serves it over the Model Context Protocol. Inside, imports go
one way: :mod:`.model` (the plain results) <- :mod:`.lines` (pure helpers: the entry lines a
write is made of, finding an entry again by its hash) <- :mod:`.memory` (``AgentMemory``). It may import
the session, the write gate, history and dreams (and ``amr_tui.git``, ``amr_tui.core``).
"""
