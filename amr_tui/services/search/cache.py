"""The on-disk cache of ``amr search``'s index: a search need not parse the repos again.

One file per set of mounted repos (``diskcache``: the user's cache folder, atomic writes, a
restricted unpickler), holding the built ``SearchIndex`` and the (mtime_ns, size) of every
file it indexed. A search walks the repos (stats only), re-indexes the files whose stat
changed, drops the files that are gone, and writes the cache back only when something
changed. Items are stored as columns (``services.search.columns``) and made only for the slots a search
ranks. ``AMR_NO_CACHE=1`` (or ``amr search --no-cache``) skips it.

This module names the file; ``services.search.load`` reads and writes it, with the index: a search
without its cache forks before it needs them.
"""

from __future__ import annotations

import os
from pathlib import Path

from amr_tui.services.batch import diskcache
from amr_tui.services.workspace import Mount

FORMAT = 4  # 3: the index classes moved to amr_tui.core.search; 4: prose of other formats
ALLOWED = frozenset({("amr_tui.core.search.store", "BitArray")})

Stats = dict[str, diskcache.Stats]  # repo -> path -> (mtime_ns, size)


def cache_file(mounts: list[Mount]) -> Path:
    return diskcache.cache_path("search", [[m.name, os.fspath(m.root.resolve())] for m in mounts])
