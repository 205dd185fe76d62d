"""The app's session: the mounted repos as the app sees them (files, documents, links, lint marks,
the search index, repo badges), the edits it makes, and the user's $EDITOR.

``Session`` (:mod:`.session`, with the poll of :mod:`.watch`) is thread-safe and never touches a
widget; :mod:`.editing` turns an edit into bytes for the write gate; :mod:`.external` runs
$EDITOR. Safe file access is ``amr_tui.git.worktree``.

It is the top of ``amr_tui.services``: it may import the workspace, the write gate, sync,
history, dreams, the one search context (``services.search.context``) and the caches of
``amr search`` and ``amr lint`` (``services.search.cache``, ``services.lint.cache``, over
``services.batch.diskcache``), never their runs; nothing in services imports it but the agent
interface (``services.agent``, which serves a session to agents). The app imports it once its first
frame is up (tests/test_startup_path.py).
"""
