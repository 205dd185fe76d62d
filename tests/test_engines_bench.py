"""Smoke test of the FTS5 engine of the engine comparison (bench/engines, issue 15 point 5)."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))


def _has_fts5() -> bool:
    try:
        sqlite3.connect(":memory:").execute("create virtual table t using fts5(x)")
    except sqlite3.OperationalError:
        return False
    return True


@pytest.mark.skipif(not _has_fts5(), reason="this sqlite3 has no FTS5")
def test_fts5_engine_builds_500_entries_and_finds_one(tmp_path: Path) -> None:
    from corpus import generate_files

    from bench.engines.fts5 import Fts5Engine

    entries = [(cf.repo, cf.path, line, full) for cf in generate_files(499, seed=3) for line, _t, full in cf.entries]
    fact = (
        "team-infra",
        "runbooks/release.md",
        3,
        "- Zoë decides the release freeze date [source: wiki; added: 2026-10-02]",
    )
    entries.append(fact)
    assert len(entries) == 500
    loc = fact[:3]

    eng = Fts5Engine(tmp_path / "fts.db")
    eng.build(entries)
    assert eng.search("zoe release freeze", 5)[0] == loc  # diacritics folded, prefixes
    assert eng.search("who decides the relase freze", 5)[0] == loc  # stopwords optional, typos
    assert loc in eng.search("release freeze nonexistentword", 5)  # a partial match still ranks
    assert eng.search('"release freeze" added:>=2026-10 source:wiki', 5) == [loc]
    assert loc not in eng.search("release freeze -zoe", 50)
    eng.search('"unclosed -', 5)  # a half-typed query never raises
    eng.close()

    again = Fts5Engine.open(tmp_path / "fts.db")
    assert again.search("decides release", 5)[0] == loc
    again.close()
