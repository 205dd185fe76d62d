"""Issue 38 points 9 and 11: texts that differ in a number, version or date state two facts.

"listens on port 5432" and "listens on port 6432" score above the near-duplicate bar, yet are
two facts (at most a possible contradiction): lint's AMR015, the tombstone matcher, the
"same fact" of forgotten facts and resurrections all say so."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from amr_tui.core.diff.similarity import same_fact
from amr_tui.core.format.parser import parse
from amr_tui.core.lint.facts import normalise_text, same_values, value_words
from amr_tui.core.lint.repo import RepoSnapshot, lint_repo
from amr_tui.core.tombstones import FactMatcher
from tests.historyhelpers import S


def _norm(text: str) -> str:
    return normalise_text(text)


def test_value_words_are_the_words_with_a_digit() -> None:
    assert value_words(_norm("Postgres 15 listens on port 5432 since 2026-10-01")) == tuple(
        sorted(["15", "5432", "2026", "10", "01"])
    )
    assert value_words(_norm("no numbers here")) == ()


def test_a_different_port_is_not_the_same_fact() -> None:
    a, b = _norm("The billing database listens on port 5432"), _norm("The billing database listens on port 6432")
    assert same_fact(a, b) is None
    assert same_fact(a, _norm("the billing database listens on port 5432.")) == 100.0
    # the same values in another order of words still match
    assert same_fact(a, _norm("The billing database on port 5432 listens")) is not None


@given(st.integers(0, 10**6), st.integers(0, 10**6))
def test_numbers_decide(x: int, y: int) -> None:
    a, b = (
        _norm(f"The staging cluster keeps {x} replicas of the cache"),
        _norm(f"The staging cluster keeps {y} replicas of the cache"),
    )
    assert (same_fact(a, b) is not None) == (x == y) == same_values(a, b)


def test_the_tombstone_matcher_tells_values_apart() -> None:
    m = FactMatcher()
    m.add("The billing database listens on port 5432", "forgotten")
    assert m.match("The billing database listens on port 6432") is None
    assert m.match("the billing database listens on port 5432!") == "forgotten"
    assert m.match("The billing database now listens on port 5432") == "forgotten"


def test_lint_calls_lines_that_differ_in_a_number_no_duplicates() -> None:
    body = "".join(f"- Fact number {k} about the team [source: {S}/{k}]\n" for k in range(60))
    body += f"- The build cache lives in the runner volume [source: {S}/1]\n"
    body += f"- The build cache lives in the runners volume [source: {S}/2]\n"
    files = {"MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n", "notes.md": "# Notes\n\n" + body}
    snap = RepoSnapshot("r", set(files), {p: parse(t.encode(), p) for p, t in files.items()})
    codes = [(f.diagnostic.code, f.diagnostic.line) for f in lint_repo(snap)]
    assert [c for c in codes if c[0] in ("AMR014", "AMR015")] == [("AMR015", 64)]
