"""Safe, bytes-only file access inside a memory root.

The implementation lives in :mod:`amr_tui.git.worktree` (the lowest I/O layer, so that
``GitRepo`` can use it without importing services); this module is the public face for the rest
of amr. In short:

* :func:`safe_path` rejects absolute paths, ``..``, anything inside ``.git``, control characters
  and any path whose real location (symlinks resolved) is outside the root;
* :func:`read_file` opens with ``O_NOFOLLOW`` after resolving, with a size cap;
* :func:`atomic_write` writes ``.amr-tmp-*`` in the same folder, fsyncs, ``os.replace``-s it over
  the target and fsyncs the folder, keeping the file's mode; it never writes through a symlink;
* :func:`sweep_temp_files` removes ``.amr-tmp-*`` leftovers of interrupted saves.

Content is always ``bytes``: nothing is decoded or re-encoded, so CRLF and odd encodings survive.
"""

from amr_tui.git.worktree import (
    DEFAULT_MAX_BYTES,
    TEMP_PREFIX,
    FileTooLargeError,
    UnsafePathError,
    atomic_write,
    normalize_rel,
    read_file,
    read_file_or_none,
    remove_file,
    safe_path,
    sweep_temp_files,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "TEMP_PREFIX",
    "FileTooLargeError",
    "UnsafePathError",
    "atomic_write",
    "normalize_rel",
    "read_file",
    "read_file_or_none",
    "remove_file",
    "safe_path",
    "sweep_temp_files",
]
