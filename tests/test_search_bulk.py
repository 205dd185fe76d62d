"""SearchIndex.set_files (one batch for a whole load) gives exactly what set_file per file gives."""

from __future__ import annotations

from amr_tui.core.search.index import SearchIndex

FILES = [
    ("notes/a.md", [(3, "Redis listens on port 6379 in staging"), (4, "Alice prefers tabs"), (5, "")]),
    ("notes/b.md", [(3, "Postgres max connections is 200"), (4, "redis cache TTL is 5 minutes")]),
    ("people.md", [(3, "Bob's timezone is Europe/Berlin"), (4, "WorkerPixelClient handles uploads")]),
    ("notes/a.md", [(3, "Redis listens on port 6380 now"), (4, "Alice prefers tabs")]),  # the same file again
    ("infra/k8s.md", [(3, "kubernetes upgrades happen on Friday [source: https://e/1; added: 2026-01-01]")]),
]
QUERIES = ["redis", "redis port", "alice", "postgers", "worker pixel", "k8s", "friday", "tabs", "6380", "zzz"]


def _sequential() -> SearchIndex:
    idx = SearchIndex()
    idx.set_file("other", "x.md", [(1, "redis in another repo")])
    for path, entries in FILES:
        idx.set_file("mem", path, entries)
    return idx


def _bulk() -> SearchIndex:
    idx = SearchIndex()
    idx.set_file("other", "x.md", [(1, "redis in another repo")])
    idx.set_files("mem", FILES)
    return idx


def test_same_items_slots_and_results():
    a, b = _sequential(), _bulk()
    assert a._files == b._files
    assert a._items == b._items
    assert a._vocab == b._vocab
    assert a.generation == b.generation
    assert len(a) == len(b)
    for q in QUERIES:
        assert a.search(q, 20) == b.search(q, 20), q


def test_updates_after_a_bulk_load_agree():
    a, b = _sequential(), _bulk()
    for idx in (a, b):
        idx.set_file("mem", "notes/b.md", [(3, "Postgres max connections is 500")])
        idx.remove_file("mem", "people.md")
    for q in QUERIES:
        assert a.search(q, 20) == b.search(q, 20), q
