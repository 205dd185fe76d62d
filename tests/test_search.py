"""Behaviour of the search index: ranking, updates, sessions, highlighting, hostile text.

No timing assertions here: speed is measured by bench/bench_search.py.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amr_tui.core.search.index import SearchHit, SearchIndex, SearchItem, SearchSession, highlight_positions
from amr_tui.core.search.query import STOPWORDS
from amr_tui.core.search.text import fold, tokens_of
from tests.examples import examples


def make(files: dict[tuple[str, str], list[str]]) -> SearchIndex:
    idx = SearchIndex()
    for (repo, path), texts in files.items():
        idx.set_file(repo, path, [(i + 1, t) for i, t in enumerate(texts)])
    return idx


def texts(hits: list[SearchHit]) -> list[str]:
    return [h.item.text for h in hits]


def entry_texts(hits: list[SearchHit]) -> list[str]:
    return [h.item.text for h in hits if h.item.kind == "entry"]


def spelled(hit: SearchHit) -> str:
    return "".join(hit.item.text[i] for i in hit.positions)


# ---------------------------------------------------------------------------- basics


def test_empty_and_blank_queries_return_nothing():
    idx = make({("r", "a.md"): ["redis runs on port 6379"]})
    assert idx.search("") == []
    assert idx.search("   \t ") == []
    assert idx.search("---") == []
    assert idx.search("redis", limit=0) == []
    assert SearchIndex().search("redis") == []


def test_items_and_len_count_entries_and_file_names():
    idx = make({("r", "notes/a.md"): ["one", "two"], ("r", "b.md"): []})
    assert len(idx) == 4  # two entries, two file-name items
    hit = idx.search("notes")[0]
    assert hit.item == SearchItem("r", "notes/a.md", 0, "notes/a.md", "file")


def test_line_numbers_and_texts_are_kept():
    idx = SearchIndex()
    idx.set_file("mem", "infra.md", [(7, "Redis listens on 6379"), (12, "Postgres on 5432")])
    (hit,) = [h for h in idx.search("postgres") if h.item.kind == "entry"]
    assert (hit.item.repo, hit.item.path, hit.item.line, hit.item.kind) == ("mem", "infra.md", 12, "entry")
    assert hit.item.text == "Postgres on 5432"


def test_metadata_is_not_part_of_the_text_or_the_index():
    idx = SearchIndex()
    idx.set_file("r", "a.md", [(1, "Deploys on Fridays [source: https://example.com/s/1; added: 2026-01-02]")])
    hits = idx.search("deploys")
    assert entry_texts(hits) == ["Deploys on Fridays"]
    assert entry_texts(idx.search("example")) == []
    assert entry_texts(idx.search("2026")) == []


def test_scores_are_bounded_sorted_and_limit_is_respected():
    idx = make({("r", f"f{i}.md"): [f"redis note number {j} of file {i}" for j in range(10)] for i in range(10)})
    hits = idx.search("redis note", limit=17)
    assert len(hits) == 17
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(0 <= s <= 100 for s in scores)


# ---------------------------------------------------------------------------- ranking


def test_exact_phrase_beats_scattered_words():
    idx = make(
        {
            ("r", "a.md"): [
                "the cache of redis was flushed on port 80",  # words present, apart
                "redis cache is warm",  # the phrase itself
                "rather educated discussion on caching",  # only a scattered subsequence
            ]
        }
    )
    assert entry_texts(idx.search("redis cache"))[0] == "redis cache is warm"


def test_word_start_beats_mid_word():
    idx = make({("r", "a.md"): ["the preport pipeline", "port mapping is fixed"]})
    assert entry_texts(idx.search("port")) == ["port mapping is fixed", "the preport pipeline"]


def test_exact_word_beats_prefix_beats_substring_beats_subsequence():
    idx = make({("r", "a.md"): ["xx oxrxt", "xx port", "xx ortal", "xx ort"]})
    assert entry_texts(idx.search("ort")) == ["xx ort", "xx ortal", "xx port", "xx oxrxt"]


def test_tight_subsequence_beats_a_spread_one():
    idx = make({("r", "a.md"): ["xx cxxxxfxxxxg", "xx config yy zz ww", "xx acxfxg"]})
    # tight and at a word start first; a word start still outweighs a few letters of gap
    assert entry_texts(idx.search("cfg")) == ["xx config yy zz ww", "xx cxxxxfxxxxg", "xx acxfxg"]


def test_substring_beats_scattered_subsequence():
    idx = make({("r", "a.md"): ["deployment notes", "d-e-p-l-o-y"]})
    assert entry_texts(idx.search("deploy"))[0] == "deployment notes"


def test_multi_word_query_matches_in_any_order_every_word_first():
    idx = make({("r", "a.md"): ["alice prefers tabs", "tabs for alice always", "alice uses spaces"]})
    hits = [h for h in idx.search("tabs alice") if h.item.kind == "entry"]
    full = [h.item.text for h in hits if not h.missing]
    assert sorted(full) == ["alice prefers tabs", "tabs for alice always"]
    assert full[0] == "tabs for alice always"  # words in the typed order, and adjacent
    assert entry_texts(idx.search("alice tabs"))[0] == "alice prefers tabs"
    # the entry holding only one of the two words comes last, saying which word it lacks
    assert hits[-1].item.text == "alice uses spaces" and hits[-1].missing == ("tabs",)
    assert all(hits[-1].score < h.score for h in hits[:-1])


def test_shorter_text_is_preferred_for_the_same_match():
    idx = make({("r", "a.md"): ["kafka broker settings and a very long tail of words " * 3, "kafka broker settings"]})
    assert entry_texts(idx.search("kafka"))[0] == "kafka broker settings"


def test_case_insensitive_both_ways():
    idx = make({("r", "a.md"): ["PostgreSQL tuning", "postgresql backups"]})
    assert sorted(entry_texts(idx.search("POSTGRESQL"))) == ["PostgreSQL tuning", "postgresql backups"]
    assert sorted(entry_texts(idx.search("postgresql"))) == ["PostgreSQL tuning", "postgresql backups"]


def test_camel_case_parts_are_word_starts():
    idx = make({("r", "a.md"): ["`WorkerPixelFactory` builds workers", "unpixelated art"]})
    assert entry_texts(idx.search("pixel"))[0] == "`WorkerPixelFactory` builds workers"


def test_file_name_items_rank_with_entries():
    idx = make(
        {
            ("r", "infra/redis.md"): ["the cache", "nothing else"],
            ("r", "b.md"): ["we moved redis to a bigger host today"],
        }
    )
    hits = idx.search("redis")
    assert hits[0].item.kind == "file" and hits[0].item.path == "infra/redis.md"
    assert "we moved redis to a bigger host today" in texts(hits)
    # a match only in the folder name ranks below a match in the base name
    idx2 = make({("r", "redis/notes.md"): [], ("r", "ops/redis.md"): []})
    assert [h.item.path for h in idx2.search("redis")] == ["ops/redis.md", "redis/notes.md"]


def test_ties_break_by_repo_path_line():
    same = ["identical words here"]
    idx = make({("b", "x.md"): same * 2, ("a", "y.md"): same, ("a", "x.md"): same})
    order = [(h.item.repo, h.item.path, h.item.line) for h in idx.search("identical")]
    assert order == [("a", "x.md", 1), ("a", "y.md", 1), ("b", "x.md", 1), ("b", "x.md", 2)]


def test_typos_are_tolerated_when_strict_matches_are_few():
    idx = make({("r", "a.md"): ["kubernetes cluster upgrade", "postgres max connections is 200"]})
    assert entry_texts(idx.search("kubernets")) == ["kubernetes cluster upgrade"]
    assert entry_texts(idx.search("postgress conection")) == ["postgres max connections is 200"]
    assert entry_texts(idx.search("kuberentes clustr")) == ["kubernetes cluster upgrade"]


def test_a_three_letter_word_with_two_letters_swapped_is_found():
    """``amr demo``: "bnu script" found nothing, although facts say how bun is used."""
    idx = make({("r", "a.md"): ["use bun for every task", "a bus timetable", "nub of it"]})
    hits = idx.search("bnu script")
    assert entry_texts(hits) == ["use bun for every task"]
    assert hits[0].missing == ("script",)
    assert entry_texts(idx.search("bnu")) == ["use bun for every task"]


@pytest.mark.parametrize(
    ("query", "fact", "noise"),
    [
        (
            "deploy order",
            "Deploy order: run database migrations first, then the api, then the workers",
            ["Deploy order, deploy order", "deploy order deploy order deploy order"],
        ),
        (
            "release captains",
            "Hotfixes skip the freeze but need two approvals from the release captains",
            ["Release captains approvals approvals"],
        ),
        (
            "canary traffic minutes",
            "Canary gets 5% of traffic for 30 minutes before a full rollout",
            ["Canary traffic minutes, canary traffic", "canary canary traffic minutes minutes"],
        ),
    ],
)
def test_short_noise_repeating_the_words_ranks_below_the_sentence_that_holds_them(
    query: str, fact: str, noise: list[str]
) -> None:
    """Filler an agent left (a line said twice, a heading kept as an entry) holds the typed words
    in a shorter text, together and first; the fact says them in a sentence and goes first."""
    idx = make({("r", "a.md"): [*noise, fact, "an unrelated line about the weather"]})
    hits = entry_texts(idx.search(query))
    assert hits[0] == fact
    assert set(hits[1:]) == set(noise)


def test_a_short_entry_that_only_lists_the_words_is_not_an_answer():
    """An entry that holds the typed words and nothing else (a heading copied as an entry) says
    nothing: a sentence that says something about them ranks above it (issue 44, point 6). An
    entry as short, with one word more, keeps its place above the longer one."""
    sentence = "the frontend deploy order is in the runbook of the web team"
    idx = make({("r", "a.md"): [sentence, "Deploy order"]})
    assert entry_texts(idx.search("deploy order"))[0] == sentence
    idx = make({("r", "a.md"): [sentence, "Deploy order: web"]})
    assert entry_texts(idx.search("deploy order"))[0] == "Deploy order: web"


def test_words_run_together_are_found():
    idx = make({("r", "a.md"): ["redis cache warmup", "unrelated"]})
    assert entry_texts(idx.search("rediscache")) == ["redis cache warmup"]


def test_typo_hits_rank_below_strict_hits():
    idx = make({("r", "a.md"): ["kubernetes upgrade", "kubernets is misspelled here"]})
    hits = idx.search("kubernets")
    assert entry_texts(hits)[0] == "kubernets is misspelled here"
    assert "kubernetes upgrade" in entry_texts(hits)


def test_large_result_sets_are_cut_to_the_best_items():
    # far more matches than are scored precisely: the short ones must still come first
    files = {
        ("r", f"f{i:03}.md"): [f"alpha {'filler ' * (5 + (i * 7 + j) % 40)}{i} {j}" for j in range(20)]
        for i in range(60)
    }
    files[("r", "short.md")] = ["alpha 1", "alpha"]
    idx = make(files)
    hits = idx.search("alpha", limit=5)
    assert entry_texts(hits)[:2] == ["alpha", "alpha 1"]
    assert len(hits) == 5


# ---------------------------------------------------------------------------- repos and updates


def test_repos_filter():
    idx = make({("one", "a.md"): ["shared fact"], ("two", "a.md"): ["shared fact"], ("three", "a.md"): ["shared fact"]})
    assert {h.item.repo for h in idx.search("shared", repos=["two"])} == {"two"}
    assert {h.item.repo for h in idx.search("shared", repos={"one", "three"})} == {"one", "three"}
    assert idx.search("shared", repos=[]) == []
    assert idx.search("shared", repos=["nope"]) == []


def test_set_file_replaces_the_old_items():
    idx = SearchIndex()
    idx.set_file("r", "a.md", [(1, "old fact about zebras"), (2, "kept fact")])
    idx.set_file("r", "a.md", [(1, "kept fact"), (2, "new fact about giraffes")])
    assert idx.search("zebras") == []
    assert entry_texts(idx.search("giraffes")) == ["new fact about giraffes"]
    (kept,) = [h for h in idx.search("kept") if h.item.kind == "entry"]
    assert kept.item.line == 1  # the unchanged text moved up a line
    assert len(idx) == 3


def test_remove_file():
    idx = make({("r", "a.md"): ["apple pie"], ("r", "b.md"): ["banana bread"], ("s", "a.md"): ["apple tart"]})
    idx.remove_file("r", "a.md")
    assert texts(idx.search("apple")) == ["apple tart"]
    idx.remove_file("s", "a.md")  # the same path in another repo
    assert idx.search("apple") == []
    assert entry_texts(idx.search("banana")) == ["banana bread"]
    assert len(idx) == 2
    idx.remove_file("r", "missing.md")  # no error
    idx.remove_file("missing", "a.md")


def test_generation_bumps_on_every_change():
    idx = SearchIndex()
    seen = [idx.generation]

    def step() -> None:
        assert idx.generation > seen[-1]
        seen.append(idx.generation)

    idx.set_file("r", "a.md", [(1, "x")])
    step()
    idx.set_file("r", "a.md", [(1, "y")])
    step()
    idx.set_file("r", "a.md", [(2, "y")])  # same text, new line: a change for the hits
    step()
    idx.set_file("r", "b.md", [])
    step()
    idx.remove_file("r", "b.md")
    step()
    idx.remove_file("r", "a.md")
    step()
    idx.set_file("r", "a.md", [(1, "y")])
    before = idx.generation
    idx.set_file("r", "a.md", [(1, "y")])  # nothing changed
    assert idx.generation == before


def test_slots_are_reused_after_removal():
    idx = SearchIndex()
    for k in range(20):
        idx.set_file("r", "a.md", [(i, f"fact {k} {i}") for i in range(50)])
    assert len(idx._items) <= 2 * 51 + 1  # the store does not grow with every re-index
    assert [h.item.line for h in idx.search("fact 19 3")][:1] == [3]


# ---------------------------------------------------------------------------- unicode and hostile text


def test_unicode_folding_keeps_positions_aligned():
    text = "İstanbul office: Grüße an Ärzte, ΣΊΣΥΦΟΣ"
    assert len(fold(text)) == len(text)
    idx = make({("r", "a.md"): [text]})
    for q in ["istanbul", "grüße", "ärzte", "σίσυφος"]:
        (hit,) = [h for h in idx.search(q) if h.item.kind == "entry"]
        assert fold(spelled(hit)) == q


def test_cjk_text_is_searchable():
    idx = make({("r", "a.md"): ["東京のサーバーは速い", "other"]})
    assert entry_texts(idx.search("サーバー")) == ["東京のサーバーは速い"]


HOSTILE = [
    "\x1b]52;c;aGVsbG8=\x07 clipboard write",
    "\x1b[2J clear screen \x9b31m",
    "nul\x00byte and \u202eevil\u202c bidi",
    "[/bold] x [@click=app.quit]here[/] markup",
    "line\nbreak\rcarriage\ttab",
    "((((((((((((((((((((a*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*",
    "x" * 5000,
    "",
    "   ",
    "\ud800 lone surrogate",
    "[a: b]" * 20000,
    "ab" * 31 + " " + "a" * 63 + " " + "ab" * 200,
    "x [source: https://e.com/1]" * 3000 + " [added: 2026-01-01]",
]


@pytest.mark.parametrize("text", HOSTILE, ids=[f"hostile{i}" for i in range(len(HOSTILE))])
def test_hostile_text_does_not_crash(text):
    idx = SearchIndex()
    idx.set_file("r", "h.md", [(1, text), (2, "ordinary text")])
    queries = [
        "a",
        "clip",
        "x" * 70,
        ".*",
        "[(",
        "\\",
        "\x1b",
        "bidi evil",
        "\u202e",
        "click quit",
        "$^|?",
        "ab" * 16 + "c",
        "a" * 30 + "b",
        "a" * 10 + "b" * 10 + "c",
        " ".join(["word"] * 500),
    ]
    for q in queries:
        for hit in idx.search(q):
            assert all(0 <= i < len(hit.item.text) for i in hit.positions)
    idx.set_file("r", "h.md", [])
    idx.remove_file("r", "h.md")
    assert len(idx) == 0


def test_hostile_paths_and_repo_names():
    idx = SearchIndex()
    idx.set_file("r\x1b[31m", "../../etc/passwd\n.md", [(1, "fact")])
    assert {h.item.kind for h in idx.search("passwd")} == {"file"}


# ---------------------------------------------------------------------------- highlighting


def test_highlight_prefers_word_starts_and_contiguous_runs():
    text = "preport and port mapping"
    assert highlight_positions("port", text) == (12, 13, 14, 15)
    assert (
        highlight_positions("pm", "port mapping") == (0, 5)
        or spelled_at("port mapping", highlight_positions("pm", "port mapping")) == "pm"
    )
    assert highlight_positions("", text) == ()
    assert highlight_positions("x", "") == ()


def spelled_at(text: str, positions: tuple[int, ...]) -> str:
    return "".join(text[i] for i in positions)


def test_highlight_multi_word_and_punctuation():
    text = "See api.example.com for the Redis API"
    pos = highlight_positions("redis api.example", text)
    assert spelled_at(text, pos) == "api.exampleRedis"


def test_highlight_typo_points_at_the_closest_word():
    text = "the kubernetes upgrade"
    pos = highlight_positions("kubrnetes", text)
    assert spelled_at(text, pos) == "kbrnetes" or spelled_at(text, pos).startswith("kub")
    assert all(4 <= i < 14 for i in pos)


_ALNUM = st.sampled_from("abcdeXYZ0é")
_TEXT_CHARS = st.sampled_from("abcdeXYZ0é -_/.İ")


@given(text=st.text(_TEXT_CHARS, min_size=1, max_size=40), picks=st.lists(st.integers(0, 39), min_size=1, max_size=6))
@settings(max_examples=examples(300), deadline=None)
def test_highlight_positions_spell_a_subsequence_query(text, picks):
    low = fold(text)
    idxs = sorted({p for p in picks if p < len(text) and low[p].isalnum()})
    if not idxs:
        return
    query = "".join(text[i] for i in idxs)
    pos = highlight_positions(query, text)
    assert list(pos) == sorted(set(pos))
    if fold(spelled_at(text, pos)) != fold(query):
        # a widely spread subsequence gives way to the closest whole word (a typo reading)
        assert len(query) >= 3 and idxs[-1] - idxs[0] >= 2 * len(query) + 2
        assert pos == tuple(range(pos[0], pos[-1] + 1))
        assert any(m.span() == (pos[0], pos[-1] + 1) for m in re.finditer(r"[^\W_]+", low))


@given(
    word=st.text(_ALNUM, min_size=1, max_size=12),
    before=st.text(_TEXT_CHARS, max_size=15),
    after=st.text(_TEXT_CHARS, max_size=15),
    picks=st.lists(st.integers(0, 11), min_size=1, max_size=5),
)
@settings(max_examples=examples(300), deadline=None)
def test_highlight_positions_spell_a_query_found_inside_one_word(word, before, after, picks):
    text = f"{before} {word} {after}"
    chosen = sorted({p for p in picks if p < len(word)})
    query = "".join(word[i] for i in chosen)
    if not fold(query).isalnum() or len(fold(query)) != len(query):
        return
    pos = highlight_positions(query, text)
    assert fold(spelled_at(text, pos)) == fold(query)


# ---------------------------------------------------------------------------- reference predicate


def strong_match(atoms: list[str], text: str) -> bool:
    """Every atom is a word of ``text`` or a word's start."""
    toks = tokens_of(text, fold(text))
    return all(any(t.startswith(a) for t in toks) for a in atoms)


def held(atoms: list[str], hit: SearchHit) -> list[str]:
    """The atoms a (partial) hit holds: those it is not missing."""
    return [a for a in atoms if a not in hit.missing]


def strict_match(atoms: list[str], text: str) -> bool:
    toks = tokens_of(text, fold(text))

    def one(a: str) -> bool:
        for t in toks:
            if t.startswith(a) or (len(a) >= 2 and a in t):
                return True
            if len(a) >= 3 and re.search(".*?".join(map(re.escape, a)), t):
                return True
        return False

    return all(one(a) for a in atoms)


_WORDS = st.sampled_from(["alpha", "alps", "beta", "bet", "gamma", "delta", "del", "epsilon", "al", "a", "pha", "lta"])
_ENTRY = st.lists(_WORDS, min_size=1, max_size=6).map(" ".join)


@given(
    files=st.lists(st.lists(_ENTRY, max_size=8), min_size=1, max_size=6),
    query=st.lists(
        st.sampled_from(["al", "alp", "alpha", "bet", "a", "elt", "gma", "ps", "lph", "de", "zz"]),
        min_size=1,
        max_size=3,
    ).map(" ".join),
)
@settings(max_examples=examples(200), deadline=None)
def test_hits_are_exactly_the_strict_matches_when_they_fit(files, query):
    idx = SearchIndex()
    everything: list[tuple[str, str]] = []
    for i, entries in enumerate(files):
        path = f"f{i}.md"
        idx.set_file("r", path, list(enumerate(entries, 1)))
        everything.append((path, path))
        everything += [(path, e) for e in entries]
    atoms = [a for a in query.split() if a not in STOPWORDS] or query.split()  # stop words never exclude
    expected = sorted(t for _p, t in everything if strict_match(atoms, t))
    hits = idx.search(query, limit=1000)
    strict_hits = sorted(h.item.text for h in hits if strict_match(atoms, h.item.text))
    assert strict_hits == expected
    strong = [t for _p, t in everything if strong_match(atoms, t)]
    if len(strong) >= 5:  # enough hold every word as a word or a word's start: nothing partial
        limited = idx.search(query, limit=5)
        assert len(limited) == 5 and all(strict_match(atoms, h.item.text) for h in limited)
    elif len(expected) >= 5:  # enough hold every word, some only inside other words: those, and
        # items holding most words as words, rank together; never one holding a word only inside
        limited = idx.search(query, limit=5)
        assert len(limited) == 5
        assert all(strict_match(atoms, h.item.text) or strong_match(held(atoms, h), h.item.text) for h in limited)


# ---------------------------------------------------------------------------- sessions


_VOCAB = ["redis", "port", "postgres", "alice", "timezone", "deploy", "kafka", "cache", "red", "portal", "report"]
_LINE = st.lists(st.sampled_from(_VOCAB + ["6379", "x"]), min_size=1, max_size=5).map(" ".join)
_KEY = st.one_of(st.sampled_from(list("redisportalcyx ")), st.just("\b"))
_EDIT = st.one_of(
    st.none(),
    st.tuples(st.just("set"), st.sampled_from(["a.md", "b.md", "c.md"]), st.lists(_LINE, max_size=5)),
    st.tuples(st.just("remove"), st.sampled_from(["a.md", "b.md", "c.md"]), st.just([])),
)


@given(
    start=st.lists(st.lists(_LINE, max_size=6), min_size=1, max_size=3),
    steps=st.lists(st.tuples(_KEY, _EDIT), min_size=1, max_size=30),
    limit=st.sampled_from([1, 3, 50]),
)
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_session_results_equal_fresh_search(start, steps, limit):
    idx = SearchIndex()
    for i, lines in enumerate(start):
        idx.set_file("r", "abc"[i] + ".md", list(enumerate(lines, 1)))
    session = SearchSession(idx)
    query = ""
    for key, edit in steps:
        if edit is not None:
            op, path, lines = edit
            if op == "set":
                idx.set_file("r", path, list(enumerate(lines, 1)))
            else:
                idx.remove_file("r", path)
        query = query[:-1] if key == "\b" else query + key
        assert session.search(query, limit) == idx.search(query, limit), query


def test_session_narrows_long_lists_and_reuses_earlier_words(monkeypatch):
    from amr_tui.core.search import candidates as candidates

    narrowed: list[str] = []
    real = candidates.classify_from

    def spy(tokens, atom):
        narrowed.append(atom)
        return real(tokens, atom)

    monkeypatch.setattr(candidates, "classify_from", spy)
    lines = [f"{w} {v} {i}" for i, (w, v) in enumerate(zip(_VOCAB * 30, reversed(_VOCAB * 30)))]
    idx = make({("r", f"f{k}.md"): lines[k::7] for k in range(7)})
    session = SearchSession(idx)
    query = ""
    for ch in "postgres port redis":
        query += ch
        assert session.search(query, 10) == idx.search(query, 10)
    assert {"post", "postgres", "redi", "redis"} <= set(narrowed)  # extended atoms were narrowed
    for _ in range(6):  # backspacing returns the earlier results again
        query = query[:-1]
        assert session.search(query, 10) == idx.search(query, 10)
