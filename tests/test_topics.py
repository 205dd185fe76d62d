"""Where memory_remember files a fact: BM25 over the Index's topics (core/search/topics.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from amr_tui.core.search.topics import STOPWORDS, Topic, rank_topics, stem, terms

TOPICS = [
    Topic("frontend/stack.md", ["[[frontend/stack]]: frontend", "We use React 19 with Vite", "Tailwind for styling"]),
    Topic("deploy.md", ["[[deploy]]: how we ship", "Deploys go through ArgoCD", "Staging deploys on every merge"]),
    Topic("people.md", ["[[people]]: who owns what", "Alice owns the release calendar", "Bob runs on-call"]),
    Topic("database.md", ["Postgres 16 on RDS", "Migrations run before the API deploy"], ["Database"]),
]


def best(fact: str) -> str | None:
    ranked = rank_topics(fact, TOPICS)
    return ranked[0].path if ranked else None


def test_a_fact_goes_to_the_topic_that_shares_its_rare_words():
    assert best("Production deploys need two approvals") == "deploy.md"
    assert best("We switched styling to CSS modules") == "frontend/stack.md"
    assert best("Carol owns the release notes") == "people.md"
    assert best("Postgres connection pool is 20") == "database.md"


def test_heading_and_path_words_count_more_than_an_entry_word():
    # "database" is only a heading and path word of database.md; "migrations" an entry word there,
    # "deploy" an entry word in two topics
    assert best("The database needs a vacuum every week") == "database.md"


def test_no_shared_word_means_no_topic():
    assert rank_topics("The coffee machine is on floor 3", TOPICS) == []
    assert rank_topics("who does what and when", TOPICS) == []  # only stop words
    assert rank_topics("", TOPICS) == []
    assert rank_topics("deploy", []) == []


def test_a_word_in_every_text_places_nothing():
    same = [Topic(f"t{i}.md", ["the service", "a service"]) for i in range(3)]
    assert rank_topics("the service restarts", same) == []


def test_stems_meet():
    assert stem("deploys") == stem("deployed") == stem("deploying") == "deploy"
    assert stem("decides") == stem("decided") == stem("decide")
    assert stem("releases") == stem("release") == stem("released")
    assert stem("dates") == stem("date") and stem("fixes") == stem("fix") and stem("policies") == "policy"
    assert stem("ops") == "ops" and stem("class") == "class" and stem("status") == "status"
    assert "the" in STOPWORDS and terms("Who decides the release date?") == [stem("decide"), stem("release"), "date"]


@given(st.text(max_size=80))
def test_ranking_any_text_is_total_and_sorted(text):
    ranked = rank_topics(text, TOPICS)
    assert [r.score for r in ranked] == sorted((r.score for r in ranked), reverse=True)
    assert all(r.matched for r in ranked)
    assert {r.path for r in ranked} <= {t.path for t in TOPICS}


def test_a_small_repo_still_files_a_fact_under_its_topic_name():
    one = [Topic("deploy.md", ["[[deploy]]: how we deploy", "Deploys go through ArgoCD"], ["Deploy"])]
    assert [r.path for r in rank_topics("Production deploys need two approvals", one)] == ["deploy.md"]
    assert rank_topics("Staging is reset every Sunday", one) == []


def test_a_topic_named_by_the_fact_beats_one_sharing_a_detail_word():
    topics = [
        Topic("deploy.md", ["Production deploys run at noon", "Deploys go through ArgoCD"], ["Deploy"]),
        Topic("topics/python.md", ["We use uv for environments"], ["Python"]),
    ]
    assert rank_topics("pytest runs the python test suite with xdist", topics)[0].path == "topics/python.md"
