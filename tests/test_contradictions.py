"""Possible contradictions (AMR033): entries whose text is close but differs in a value.

The rule is in amr_tui/core/lint/contradictions.py; tests/data/contradictions.json holds the
planted pairs and non-pairs that bench/contradictions.py measures precision and recall on."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from amr_tui.core.lint.contradictions import contradiction, find_contradictions

DATA = json.loads((Path(__file__).parent / "data" / "contradictions.json").read_text("utf-8"))


@pytest.mark.parametrize(
    ("a", "b", "values"),
    [
        ("hero image format is JPEG", "hero image format is AVIF", "JPEG vs AVIF"),
        ("pool size 20", "pool size 50", "20 vs 50"),
        ("We pin Python 3.11 in CI", "We pin Python 3.12 in CI", "3.11 vs 3.12"),
        ("The launch date is 2026-10-06", "The launch date is 2026-11-02", "2026-10-06 vs 2026-11-02"),
        ("Payments are owned by Priya and Tom", "Payments are owned by Priya and Sam", "Tom vs Sam"),
        ("The database pool size is 20", "The database pool size is now 50", "20 vs 50"),  # a stop word added
    ],
)
def test_a_value_that_differs_is_a_possible_contradiction(a: str, b: str, values: str) -> None:
    found = contradiction(a, b)
    assert found is not None and found.describe() == values


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("uses Redis for caching", "uses Redis for sessions"),  # ordinary words: both can be true
        ("hero image format is JPEG", "hero image format is JPEG"),  # a duplicate (AMR014)
        ("hero image format is JPEG", "Hero image format is jpeg."),  # the same words (AMR015 at most)
        ("The frontend uses React and Tailwind", "The frontend uses Tailwind and React"),  # reordered
        ("Deploys happen on Friday", "Deploys never happen on Friday"),  # a negation is not a value
        ("The pool size is 20", "The pool size is 20 in production"),  # a qualifier added
        ("pool 20", "pool 50"),  # too short to say
        ("Run migrations before the API change", "Run migrations after the API change"),
    ],
)
def test_close_texts_without_a_differing_value_are_not(a: str, b: str) -> None:
    assert contradiction(a, b) is None


def test_planted_pairs_precision_and_recall() -> None:
    """The measured figures (bench/contradictions.py prints them): no non-pair flagged, at most
    one planted pair missed ("Marco signs off" vs "Anna signs off": a name that starts the text
    is not told from a capitalised first word)."""
    assert len(DATA["pairs"]) >= 40 and len(DATA["non_pairs"]) >= 40
    hits = [contradiction(a, b) is not None for a, b in DATA["pairs"]]
    false = [(a, b) for a, b in DATA["non_pairs"] if contradiction(a, b) is not None]
    assert false == []
    assert sum(hits) >= len(hits) - 1


def test_blocked_search_finds_the_same_pairs_as_pair_by_pair() -> None:
    pairs, non = DATA["pairs"], DATA["non_pairs"]
    texts = [t for a, b in pairs + non for t in (a, b)]
    found = {(p.a, p.b) for p in find_contradictions(texts)}
    by_pair = {(2 * k, 2 * k + 1) for k, (a, b) in enumerate(pairs + non) if contradiction(a, b) is not None}
    assert by_pair <= found
    # only: pairs with one side in the set given
    some = find_contradictions(texts, only=[0])
    assert [(p.a, p.b) for p in some if p.b == 1] == [(0, 1)] and all(0 in (p.a, p.b) for p in some)


def test_many_entries_stay_fast() -> None:
    """Blocking on rare shared words: 20,000 entries of random words (bench/contradictions.py
    times 100,000) and one planted pair; all pairs would be 200 million comparisons."""
    rnd = random.Random(3)
    vocab = [f"w{k}" for k in range(8000)]
    texts = [" ".join(rnd.choice(vocab) for _ in range(rnd.randint(5, 12))) for _ in range(20_000)]
    texts[5] = "hero image format is JPEG for the landing page"
    texts[-5] = "hero image format is AVIF for the landing page"
    t0 = time.perf_counter()
    found = find_contradictions(texts)
    assert time.perf_counter() - t0 < 20.0  # about 1 s on an idle machine
    assert [(p.a, p.b, p.found.describe()) for p in found] == [(5, len(texts) - 5, "JPEG vs AVIF")]


def test_lint_finds_the_same_from_cached_facts_as_from_parsed_files() -> None:
    """A file the lint cache serves as facts (not parsed again) gives the same AMR033, values as written."""
    from amr_tui.core.format.parser import parse
    from amr_tui.core.lint.facts import facts_of, pack, unpack
    from amr_tui.core.lint.repo import RepoSnapshot, lint_repo

    files = {
        "MEMORY.md": "# Memory\n\n## Index\n- [[a]]\n- [[b]]\n",
        "a.md": "# A\n\n- We pin Python 3.11 in CI\n- The launch copy is owned by Marco\n",
        "b.md": "# B\n\n- We pin Python 3.12 in CI\n- The launch copy is now owned by Anna\n",
    }

    def odd(facts_only: set[str]) -> list[tuple[str, int, str]]:
        docs = {p: parse(t.encode(), p) for p, t in files.items()}
        facts = {p: unpack(pack(facts_of(docs.pop(p)))) for p in facts_only}
        found = lint_repo(RepoSnapshot("r", set(files), docs, facts=facts))
        return [(f.path, f.diagnostic.line, f.diagnostic.message) for f in found if f.diagnostic.code == "AMR033"]

    parsed = odd(set())
    assert parsed == [
        ("b.md", 3, "possible contradiction: contradicts a.md:3 (3.12 vs 3.11)?"),
        ("b.md", 4, "possible contradiction: contradicts a.md:4 (Anna vs Marco)?"),
    ]
    assert odd({"a.md", "b.md"}) == parsed


@pytest.mark.parametrize(
    ("old", "new", "values"),
    [
        ("Session keys expire after 24 h", "Session keys expire after 12 h", ("24", "12")),
        ("Session keys expire after 24 hours", "Session keys expire after 12 hours", ("24", "12")),
        ("The dev server runs on port 3001", "The dev server runs on port 4000", ("3001", "4000")),
    ],
)
def test_lint_and_the_dream_review_give_the_same_answer_on_a_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, values: tuple[str, str]
) -> None:
    """Issue 24 point 9: the run writes ``new`` beside main's ``old``; the review flags the pair,
    and after the accept ``amr lint`` flags the same pair with the same values."""
    from amr_tui.cli.main import main
    from amr_tui.services.dreams.service import DreamService
    from tests.historyhelpers import S, branch_commit, new_repo

    memory = "# Memory\n\n## Index\n- [[notes]]\n"
    root = new_repo(tmp_path / "m", {"MEMORY.md": memory, "notes.md": f"# Notes\n\n- {old} [source: {S}/1]\n"})
    branch_commit(
        root,
        "dreams/r",
        {"notes.md": f"# Notes\n\n- {old} [source: {S}/1]\n- {new} [source: {S}/2]\n"},
        "dream: add",
    )
    svc = DreamService(root)
    review = svc.review("r", history=False)
    flagged = svc.contradictions(review)
    assert list(flagged.values()) == [[f"contradicts notes.md:3 ({values[1]} vs {values[0]})?"]]
    svc.accept("r")
    capsys.readouterr()
    main(["lint", "--severity", "info", "--no-cache", str(root)])
    out = capsys.readouterr().out
    # the same pair (line 4 against line 3 of notes.md), the same values
    assert f"notes.md:4:1: AMR033 possible contradiction: contradicts line 3 ({values[1]} vs {values[0]})?" in out
