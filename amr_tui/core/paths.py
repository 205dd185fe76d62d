"""How amr names the files of a memory repo: plain constants and pure functions of a path string.

The one source of each path rule, for every layer. It imports nothing but the standard library's
``re`` and ``functools`` (not the rest of ``amr_tui.core``), so a module on ``amr``'s start-up
path can use it without loading the parser. Paths are posix, relative to the repo root.
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


_FIRST_NAMES = ("home.md", "index.md", "readme.md", "projectbrief.md", "activecontext.md")
# What other agents load first, when the folder has no MEMORY.md at its top: a Hermes home's
# memories, OpenClaw's workspace files, a Letta memory filesystem's system blocks.
_FIRST_PATHS = ("memories/MEMORY.md", "memories/USER.md", "AGENTS.md", "SOUL.md")
_FIRST_FOLDERS = ("system/",)


def entry_file(files: list[str] | set[str]) -> str:
    """The file a folder opens on: MEMORY.md when it has one, else what its agent loads first
    (a Hermes home's ``memories/MEMORY.md``, OpenClaw's ``AGENTS.md``), else its home note at the
    top (``Home.md``, ``index.md``, ``README.md``, a memory bank's ``projectbrief.md``), else a
    Letta block in ``system/``, else a home note deeper down, else its first Markdown file, the
    shallowest first; MEMORY.md when it has no Markdown at all."""
    if MEMORY_FILE in files:
        return MEMORY_FILE
    notes = sorted((f for f in files if is_markdown(f) and not f.startswith(".")), key=lambda f: (f.count("/"), f))
    for path in _FIRST_PATHS:
        if path in files:
            return path

    def named(depth: int | None) -> str | None:
        for name in _FIRST_NAMES:
            found = next(
                (
                    f
                    for f in notes
                    if f.rsplit("/", 1)[-1].casefold() == name
                    and (depth is None or f.count("/") <= depth or f.startswith("memory-bank/"))
                ),
                None,
            )
            if found is not None:
                return found
        return None

    top = named(0)
    if top is not None:
        return top
    for folder in _FIRST_FOLDERS:
        block = next((f for f in notes if f.startswith(folder)), None)
        if block is not None:
            return block
    return named(None) or (notes[0] if notes else MEMORY_FILE)
