"""The CLI's batch plumbing: ``amr lint`` and ``amr search`` over repos on disk, their caches and
the pool of processes that parses a big repo.

:mod:`.lintrun` (lint, ``lint --fix``) and :mod:`.searchrun` (the search index) are on top;
under them :mod:`.lintcache`, :mod:`.searchcache` and :mod:`.searchcolumns` over
:mod:`.diskcache`, and :mod:`.parallel`. It may import the workspace, sync (merge-driver facts)
and history (``lint --history``). The app's session imports only the caches (``diskcache``,
``lintcache``, ``searchcache``): it starts from what they keep and writes them back.
"""
