"""Building a search index from repos on disk (used by `amr search` and the app's indexer)."""

from __future__ import annotations

from pathlib import Path

from amr_tui.core.format import is_markdown
from amr_tui.core.search import SearchHit, SearchIndex
from amr_tui.services.workspace import Mount, discover, list_files, load_document, paused_gc


def index_mount(index: SearchIndex, mount: Mount) -> int:
    """Add every file and entry of one repo. Returns the number of files indexed."""
    files, escaping = list_files(mount.root)
    batch: list[tuple[str, list[tuple[int, str]]]] = []
    for rel in files:
        if rel in escaping:
            continue
        entries: list[tuple[int, str]] = []
        if is_markdown(rel):
            doc = load_document(mount.root, rel, check=False)  # entries only: no lint
            if doc is not None:
                entries = [(e.line, e.text) for e in doc.entries if e.text]
        batch.append((rel, entries))
    index.set_files(mount.name, batch)
    return len(batch)


def search_paths(paths: list[Path], query: str, limit: int) -> list[SearchHit]:
    index = SearchIndex()
    with paused_gc():
        for mount in discover(paths):
            index_mount(index, mount)
    return index.search(query, limit)
