"""Evidence in an entry (``core.verify.evidence``): what is found, what never is, and that the
same fact gives the same evidence in every memory format amr reads."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amr_tui.core.format.parser import parse
from amr_tui.core.verify.evidence import KINDS, extract
from amr_tui.core.verify.units import units
from tests.examples import examples


def found(text: str) -> set[tuple[str, str]]:
    return {(e.kind, e.value) for e in extract(text)}


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("The client is in `lib/redis.ts`", {("path", "lib/redis.ts")}),
        ("see src/payments/ledger.py:40 for it", {("path", "src/payments/ledger.py")}),
        ("Images in public/hero/ as AVIF", {("path", "public/hero/")}),
        ("The `Makefile` and the Dockerfile", {("path", "Makefile"), ("path", "Dockerfile")}),
        (
            "Use `getRedisClient` and `LedgerService.post_entry`",
            {("symbol", "getRedisClient"), ("symbol", "LedgerService.post_entry")},
        ),
        ("Call reconcile_day() nightly", {("symbol", "reconcile_day")}),
        ("Set DATABASE_URL first", {("config", "DATABASE_URL")}),
        ("Run `bun run migrate`", {("script", "migrate")}),
        ("Run npm run lint before pushing", {("script", "lint")}),
        ("`npm test` runs vitest", {("script", "test")}),
        ("`yarn build` bundles it", {("script", "build")}),
        ("The `dev` script starts it", {("script", "dev")}),
        ("`make docker-build` builds", {("target", "docker-build")}),
        ("`python -m payments.cli`", {("module", "payments.cli")}),
        ("fixed in commit 3f2a9c1e", {("commit", "3f2a9c1e")}),
        ("the docs are the `gh-pages` branch", {("branch", "gh-pages")}),
        ("`./scripts/deploy.sh production`", {("path", "scripts/deploy.sh")}),
    ],
)
def test_what_an_entry_cites_is_found(text: str, want: set[tuple[str, str]]) -> None:
    assert found(text) == want


@pytest.mark.parametrize(
    "text",
    [
        "Use bun, not npm, for everything in this repo",
        "Our frontend is Next.js 14 on Node.js 20",
        "squash merges and/or rebases; CI/CD; the TCP/IP stack; 24/7 on call",
        "Alex works in the Europe/London time zone",
        "Staging is at https://staging.example.com/payments/app.ts and resets",
        "See [[backend/redis]] and [notes](notes/redis.md)",
        "Release v2.3.1 shipped on 2026-10-02 at 10:30; Python 3.11",
        "Ask in #payments; issue #123; mail joe@example.com",
        "The config is in ~/.config/gateway/limits.toml and /var/log/app.log",
        "Use `pnpm install`, never `yarn`; the `jobs` table; `release-blocker` label",
        "`poetry run pytest -q` and `go test ./...`",
        "The dashboard lives at grafana.example.com/d/payments",
        "MEMORY.md is the entry point; make sure it stays short",
        "pairs_with [[Coffee Brewing Methods]]",
        "The error 'ECONNRESET' means the TTL expired",
    ],
)
def test_plain_words_urls_links_and_versions_are_never_evidence(text: str) -> None:
    assert found(text) == set()


def test_spans_point_at_what_was_written() -> None:
    text = "Moved `lib/redis.ts` and FEATURE_FLAG_X, see ledger.py:10"
    for ev in extract(text):
        assert 0 <= ev.start < ev.end <= len(text)
        assert ev.written in text[ev.start : ev.end] or text[ev.start : ev.end] in ev.written
    line = next(e for e in extract(text) if e.value == "ledger.py")
    assert line.line == 10


# ---------------------------------------------------------------------- Hypothesis

PIECES = [
    "`lib/redis.ts`",
    "src/payments/ledger.py:40",
    "`getRedisClient`",
    "reconcile_day()",
    "FEATURE_NEW_CHECKOUT",
    "`bun run migrate`",
    "`make deploy`",
    "the `gh-pages` branch",
    "commit 3f2a9c1",
    "`python -m payments.cli`",
    "Node.js",
    "and/or",
    "https://example.com/a/b.ts",
    "v2.3.1",
    "Priya",
    "uses",
    "the",
    "cents",
    "(see notes)",
    "#payments",
]
facts = st.lists(st.sampled_from(PIECES), min_size=1, max_size=8).map(" ".join)


def _formats(text: str) -> dict[str, tuple[str, bytes, bool]]:
    """The fact written as each memory format writes one: (path, file bytes, prose?)."""
    return {
        "amr": (
            "topic.md",
            f"# Topic\n\n- {text} [source: https://example.com/s/1; added: 2026-06-01]\n".encode(),
            False,
        ),
        "claude-code": (
            "project_fact.md",
            f"---\nname: Fact\ndescription: a fact\ntype: project\n---\n\n{text}\n".encode(),
            True,
        ),
        "memory-bank": ("memory-bank/activeContext.md", f"# Active Context\n\n## Focus\n- {text}\n".encode(), True),
        "hermes": ("MEMORY.md", f"Earlier fact.\n\u00a7\n{text}\n".encode(), True),
        "devin": (
            "findings.md",
            f"# Findings\n\n- A question\n  - {text} [source: https://app.example.com/s/2]\n".encode(),
            False,
        ),
        "basic-memory": (
            "note.md",
            f"---\ntitle: Note\npermalink: note\n---\n\n## Observations\n- [fact] {text}\n".encode(),
            True,
        ),
        "openclaw": ("memory/2026-03-05.md", f"# 2026-03-05\n\n- {text}\n".encode(), True),
        "letta": ("system/project.md", f"---\ndescription: the project\nlimit: 4000\n---\n\n{text}\n".encode(), True),
        "obsidian": ("Projects/Atlas.md", f"---\ntags: [atlas]\n---\n\n# Atlas\n\n- {text}\n".encode(), True),
        "folder": ("notes.md", f"# Notes\n\nSome context first.\n\n{text}\n".encode(), True),
    }


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(facts)
def test_a_fact_gives_the_same_evidence_in_every_format(text: str) -> None:
    want = found(text)
    for fmt, (path, data, prose) in _formats(text).items():
        doc = parse(data, path)
        got: set[tuple[str, str]] = set()
        for u in units(doc, prose=prose):
            if text in u.text or u.text.endswith(text):
                got |= found(u.text)
        if fmt == "basic-memory":  # the observation's "[fact]" category is text before it
            got = {g for g in got if g[1] != "fact"}
        assert got == want, (fmt, text)


@settings(max_examples=examples(300), deadline=None)
@given(st.text(max_size=200))
def test_any_text_is_read_without_error_and_spans_fit(text: str) -> None:
    for ev in extract(text):
        assert ev.kind in KINDS
        assert ev.value
        assert 0 <= ev.start <= ev.end <= len(text)
    assert extract(text) == extract(text)


@settings(max_examples=examples(150), deadline=None)
@given(facts, st.sampled_from(["https://example.com/", "[[", "`"]))
def test_nothing_inside_a_url_or_a_link_is_evidence(text: str, wrap: str) -> None:
    inner = text.replace(" ", "-").replace("`", "")
    wrapped = {"https://example.com/": f"see https://example.com/{inner} now", "[[": f"see [[{inner}]] now"}.get(wrap)
    if wrapped is None:
        return
    assert found(wrapped) == set()
