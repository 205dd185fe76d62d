"""Search operators and ranking as a user types them: the finder's session search, ``amr search``.

Real repos on disk (``make_repo``); the session and the command line answer the filters the
index cannot (metadata, broken links, orphans) from the parsed files.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amr_tui.core.search.index import QueryError, SearchIndex
from amr_tui.core.search.query import parse
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import discover
from tests.examples import examples

MEMORY = """# Memory

- The team ships the web app from the monorepo [source: https://wiki.acme.test/web; added: 2026-09-02]
- Ask in #platform before changing CI [added: 2026-10-02]

## Index

- [[deploy]]: how we deploy
- [[database]]: the database
- [[nowhere]]: a page that was never written
"""
DEPLOY = """# Deploy

- Release freeze starts two days before each release [source: https://wiki.acme.test/release; added: 2026-10-03]
- Priya Patel decides the release date [source: slack #releases; added: 2026-10-12]
- Deploys go through ArgoCD from main [added: 2026-08-20]
- Staging deploys on every merge; see [[runbook]] [added: 2026-10-20]
- The release notes template lives in docs/release.md
"""
DATABASE = """# Database

- Run the database migrations first, then deploy the api [added: 2026-11-01]
- Prod db password rotation happens every 90 days via the vault [source: https://wiki.acme.test/db]
- Postgres 16 on RDS, pool size 20 [added: 2026-07-01]
"""
ORPHAN = "# Scratch\n\n- A note nothing links to about the release train\n"


@pytest.fixture
def session(make_repo):
    root = make_repo(
        "memory", {"MEMORY.md": MEMORY, "deploy.md": DEPLOY, "database.md": DATABASE, "scratch.md": ORPHAN}
    )
    s = Session(discover([root]))
    s.load()
    yield s
    s.close()


def first(session: Session, query: str) -> str:
    hits = [h for h in session.search(query, 10) if h.item.kind == "entry"]
    assert hits, f"nothing for {query!r}"
    return hits[0].item.text


def texts(session: Session, query: str) -> list[str]:
    return [h.item.text for h in session.search(query, 50) if h.item.kind == "entry"]


def test_a_question_finds_the_fact_though_it_holds_words_the_fact_lacks(session):
    assert first(session, "who decides the release date") == "Priya Patel decides the release date"
    hit = next(h for h in session.search("who decides the release date", 10) if h.item.kind == "entry")
    assert hit.missing == ()  # "who" and "the" are stop words: they exclude nothing


def test_partial_recall_ranks_what_holds_most_of_the_words(session):
    top = session.search("migrations first then api gateway", 10)
    assert top and top[0].item.text.startswith("Run the database migrations first")
    assert top[0].missing == ("gateway",)


def test_rare_words_outweigh_common_ones(session):
    # "release" is in many entries, "date" in one: the fact holding the rare word comes first
    assert first(session, "release date") == "Priya Patel decides the release date"


def test_typos_and_abbreviations(session):
    assert first(session, "relase freze") == "Release freeze starts two days before each release"
    assert first(session, "prod db pw rotation").startswith("Prod db password rotation")
    assert first(session, "database password").startswith("Prod db password rotation")
    assert first(session, "postgresql pool") == "Postgres 16 on RDS, pool size 20"


def test_exact_phrase_and_exclusion(session):
    assert texts(session, '"release date"') == ["Priya Patel decides the release date"]
    assert "Release freeze starts two days before each release" not in texts(session, "release -freeze")
    assert any("release" in t.lower() for t in texts(session, "release -freeze"))
    assert texts(session, 'release -"release notes"') and all(
        "notes" not in t for t in texts(session, 'release -"release notes"')
    )


def test_path_and_repo_filters(session):
    got = texts(session, "release path:deploy")
    assert got and all(h.item.path == "deploy.md" for h in session.search("release path:deploy", 50))
    assert all(h.item.path.endswith(".md") for h in session.search("deploy path:*.md", 50))
    assert texts(session, "release repo:memory") and texts(session, "release repo:nosuchrepo") == []


def test_metadata_filters(session):
    assert texts(session, "release source:slack") == ["Priya Patel decides the release date"]
    newer = texts(session, "added:>=2026-10-01")
    assert "Run the database migrations first, then deploy the api" in newer
    assert "Deploys go through ArgoCD from main" not in newer
    assert texts(session, "deploys added:<2026-09-01") == ["Deploys go through ArgoCD from main"]
    assert "Staging deploys on every merge; see [[runbook]]" in texts(session, "added:2026-10")
    no_added = texts(session, "no:added")
    assert "The release notes template lives in docs/release.md" in no_added
    assert all("ArgoCD" not in t for t in no_added)
    assert "Prod db password rotation happens every 90 days via the vault" in texts(session, "has:source rotation")


def test_broken_links_and_orphans(session):
    broken = texts(session, "is:broken")
    assert "Staging deploys on every merge; see [[runbook]]" in broken
    assert "[[nowhere]]: a page that was never written" in broken
    assert "[[deploy]]: how we deploy" not in broken
    assert texts(session, "is:orphan") == ["A note nothing links to about the release train"]
    assert texts(session, "release is:orphan") == ["A note nothing links to about the release train"]


@pytest.mark.parametrize(
    ("query", "says"),
    [("added:soon", "added: takes a date"), ("is:nice", "is: takes broken or orphan"), ("has:", "has: needs a value")],
)
def test_a_malformed_filter_says_what_it_takes(session, query, says):
    with pytest.raises(QueryError, match=says):
        session.search(query, 10)


def test_filters_alone_list_entries_in_file_order(session):
    got = session.search("has:source", 50)
    assert [(h.item.path, h.item.line) for h in got] == sorted((h.item.path, h.item.line) for h in got)
    assert len(got) == 4


@given(st.text(max_size=40))
@settings(max_examples=examples(300), deadline=None)
def test_any_query_runs_or_says_why(query):
    idx = SearchIndex()
    idx.set_file("r", "a.md", [(1, "release freeze starts"), (2, "db password rotation"), (3, 'a "quoted" -thing')])
    try:
        hits = idx.search(query, 10)
    except QueryError as exc:
        assert str(exc)
        assert parse(query).error
    else:
        assert all(0 <= h.score <= 100 for h in hits)


def test_parse_reads_operators_as_typed():
    p = parse('-draft "release date" path:ops/*.md added:>=2026-1-5 who decides "unclosed phrase')
    assert p.excluded == ("draft",)
    assert p.phrases == ("release date", "unclosed phrase")
    assert [(f.key, f.op, f.value) for f in p.filters] == [("path", "glob", "ops/*.md"), ("added", ">=", "2026-01-05")]
    assert p.words == ("release", "date", "who", "decides", "unclosed", "phrase")
    assert parse("http://x.test ratio 3:1 todo: fix").filters == ()  # not operators: words


def test_amr_search_runs_operators_and_explains_a_bad_one(make_repo):
    root = make_repo("memory", {"MEMORY.md": MEMORY, "deploy.md": DEPLOY, "database.md": DATABASE})

    def amr(query: str, *flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "amr_tui", "search", query, str(root), "--no-cache", *flags],
            capture_output=True,
            text=True,
            timeout=60,
        )

    res = amr("release source:slack", "--json")
    assert res.returncode == 0, res.stderr
    assert [h["text"] for h in json.loads(res.stdout)] == ["Priya Patel decides the release date"]
    res = amr("migrations first then api gateway", "--json")
    top = json.loads(res.stdout)[0]
    assert top["text"].startswith("Run the database migrations") and top["missing"] == ["gateway"]
    res = amr("added:soon")
    assert res.returncode == 2 and "added: takes a date" in res.stderr and "Traceback" not in res.stderr
