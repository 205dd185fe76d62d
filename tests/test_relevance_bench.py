"""Smoke test of the relevance benchmark (bench/relevance.py, issue 15 point 6).

It checks that the bench runs on a 2,000-entry corpus and prints its table, that the planted
data is sound and that the figures are fractions; it asserts no quality target.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import relevance  # noqa: E402
import relevance_facts  # noqa: E402


@pytest.fixture(autouse=True)
def _bench_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMR_BENCH_CACHE", str(tmp_path / "cache"))


class SubstringEngine:
    """A plug-in: every query word as a substring of the line; it also searches the past."""

    name = "substring"

    def __init__(self) -> None:
        self.lines: list[relevance.Entry] = []
        self.old: list[relevance.Entry] = []

    def build(self, entries: list[relevance.Entry]) -> None:
        self.lines = entries

    def build_history(self, removed: list[relevance.Entry]) -> None:
        self.old = removed

    @staticmethod
    def _find(lines: list[relevance.Entry], query: str, limit: int) -> list[relevance.Loc]:
        words = query.lower().split()
        return [(r, p, n) for r, p, n, t in lines if all(w in t.lower() for w in words)][:limit]

    def search(self, query: str, limit: int) -> list[relevance.Loc]:
        return self._find(self.lines, query, limit)

    def search_history(self, query: str, limit: int) -> list[relevance.Loc]:
        return self._find(self.old, query, limit)


def test_facts_and_queries_are_sound() -> None:
    assert relevance_facts.check() == []
    live = [f for f in relevance_facts.FACTS if not f.deleted]
    assert len(live) >= 60
    assert len(relevance_facts.QUERIES) >= 150
    assert len(relevance_facts.DECOYS) >= 10
    assert {q.cls for q in relevance_facts.QUERIES} == set(relevance_facts.CLASSES)


def test_planted_corpus_holds_the_facts_where_it_says() -> None:
    corpus, cached = relevance.load_corpus(2000, 7)
    assert not cached
    assert relevance.load_corpus(2000, 7)[1]  # the second load comes from the cache
    assert len(corpus.entries) == 2000
    now = {(r, p, n): t for r, p, n, t in corpus.entries}
    assert len(now) == len(corpus.entries)  # one entry per location
    for fact in relevance_facts.FACTS:
        loc = corpus.where[fact.id]
        if fact.file:
            assert f"{loc[0]}/{loc[1]}" == fact.file
        if fact.deleted:
            assert loc not in now  # past the file's end now
            assert all(fact.text not in t for t in now.values())
        else:
            assert now[loc].startswith(f"- {fact.text}")
    past = {e[3] for e in corpus.removed}
    assert {relevance._full(f.text, f.meta) for f in relevance_facts.FACTS if f.deleted} <= past
    assert len(past) > sum(f.deleted for f in relevance_facts.FACTS)  # deleted filler too
    assert len({e[:3] for e in corpus.removed} | set(now)) == len(corpus.removed) + len(now)  # no shared location


@pytest.mark.slow
def test_bench_runs_quick_and_prints_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    engines = "amr,fzf" if shutil.which("fzf") else "amr"
    spec = f"{Path(__file__).resolve()}:SubstringEngine"
    out_json = tmp_path / "figures.json"
    argv = ["--quick", "--engines", engines, "--engine", spec, "--show-misses", "--json", str(out_json)]
    assert relevance.main(argv) == 0
    out = capsys.readouterr().out
    assert "corpus: 2,000 entries" in out
    assert "| class | queries | amr R@1 | amr R@5 | amr MRR |" in out
    assert "substring R@1" in out
    if "fzf" in engines:
        assert "fzf R@5" in out
    for cls in relevance_facts.CLASSES:
        assert f"| {cls} |" in out
    assert "| **overall** |" in out
    deleted_row = next(line for line in out.splitlines() if line.startswith("| deleted |"))
    cells = [c.strip() for c in deleted_row.strip("|").split("|")]
    assert cells[2:5] == ["n/a"] * 3  # amr has no history search here
    assert "n/a" not in cells[-3:]  # the plug-in searches the past
    assert "| overall without deleted |" in out
    assert "build" in out and "ms per query" in out
    figures = json.loads(out_json.read_text())
    assert set(figures["engines"]) == {*engines.split(","), "substring"}
    assert figures["engines"]["amr"]["classes"]["deleted"] is None
    for engine in figures["engines"].values():
        for fig in [*engine["classes"].values(), engine["overall"]]:
            if fig is not None:
                assert all(0.0 <= fig[k] <= 1.0 for k in ("recall@1", "recall@5", "mrr"))


def test_figures_are_fractions() -> None:
    corpus, _ = relevance.load_corpus(2000, 7)
    engines: list[relevance.Engine] = [relevance.AmrEngine(), SubstringEngine()]
    for engine in engines:
        res = relevance.run_engine(engine, corpus, relevance_facts.CLASSES)
        assert res.queries > 0
        scores = [*res.classes.values(), res.overall]
        for score in scores:
            figures = score.figures()
            assert figures is not None
            assert all(0.0 <= v <= 1.0 for v in figures), (engine.name, figures)
        assert res.overall.n == res.queries


def test_classes_filter_and_unknown_class() -> None:
    with pytest.raises(SystemExit):
        relevance.main(["--quick", "--engines", "amr", "--classes", "nonsense"])
    with pytest.raises(SystemExit):
        relevance.load_engine("no-colon")


@pytest.mark.parametrize("name", ["heldout", "sealed"])
def test_the_sets_not_tuned_on_are_sound(name: str) -> None:
    """Every answer names a fact of its set, every class is asked, no fact id repeats."""
    import importlib

    facts = importlib.import_module(relevance.SETS[name])
    ids = [f.id for f in facts.FACTS]
    assert len(ids) == len(set(ids)) >= 40
    assert {a for q in facts.QUERIES for a in q.answers} <= set(ids)
    assert {q.cls for q in facts.QUERIES} == set(facts.CLASSES)
    assert len(facts.QUERIES) >= 50 and len(facts.DECOYS) >= 10
