"""How amr names the files of a memory repo: plain constants and pure functions of a path string.

The one source of each path rule, for every layer. It imports nothing (not even the rest of
``amr_tui.core``), so a module on ``amr``'s start-up path can use it without loading the parser.
Paths are posix, relative to the repo root.
"""

MEMORY_FILE = "MEMORY.md"
MAX_PARSE_BYTES = 8 * 1024 * 1024  # larger files are listed but not parsed, loaded or linted
"""The entry point of a memory repo: agents load it at session start."""

MARKDOWN_SUFFIXES = (".md", ".markdown")
"""What makes a file Markdown, in any case (``A.MD`` is Markdown)."""

AMR_FOLDER = ".amr/"
"""amr's own records inside a repo (the tombstones); not memory notes."""

TOMBSTONE_PATH = AMR_FOLDER + "forgotten.md"
"""The one tombstone file: facts removed on purpose (``core.tombstones``)."""


def is_markdown(path: str) -> bool:
    """A Markdown file: ``.md`` or ``.markdown``, in any case (dot-files included)."""
    return path.lower().endswith(MARKDOWN_SUFFIXES)


def has_md_suffix(path: str) -> bool:
    """Ends in ``.md`` in any case; ``.markdown`` does not count.

    How a link target names a Markdown file (``[[notes.md]]``), and the files whose
    uncommitted edits the write gate merges line by line.
    """
    return path.lower().endswith(".md")


def is_tombstone_path(path: str) -> bool:
    """The tombstone file itself (exact: ``.AMR/forgotten.md`` is not it)."""
    return path == TOMBSTONE_PATH


def in_amr_folder(path: str) -> bool:
    """Under amr's own folder (exact case), where records repeat facts on purpose."""
    return path.startswith(AMR_FOLDER)


def with_md_suffix(name: str) -> str:
    """``name`` with ``.md`` added when its last part has no extension.

    ``notes`` -> ``notes.md``; ``notes.txt``, ``notes.MD`` and ``v1.2`` stay as they are.
    What a new file's name, or a link target without an extension, names.
    """
    return name if "." in name.rsplit("/", 1)[-1] else name + ".md"
