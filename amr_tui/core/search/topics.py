"""Which topic file a new fact belongs in: BM25 over the files MEMORY.md's Index links to.

An agent that remembers a fact without naming a file gets it filed where a person would look
for it: the Index's topic whose words (its path, headings, entries and the Index line that links
it) best match the fact's words. Rare words weigh more than common ones (BM25's idf), a word
counts once per topic however often the topic repeats it beyond saturation (k1), and long topics
do not win by length alone (b). A word of the topic's name (its path, headings, Index line)
weighs at least ``TITLE_IDF``: in a small repo the name is in most of the topic's texts, which
would make it common. Words like "the", "who" or "uses" carry nothing. Pure: the
caller gives the topics' text.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# Words that say nothing about a topic: articles, pronouns, auxiliaries, question words and the
# verbs every fact uses. Kept short on purpose: a domain word here would never place a fact.
STOPWORDS = frozenset(
    """a an the and or but if then else of in on at to for from by with without as is are was were be
    been being am do does did done has have had having it its this that these those there here we you
    they he she i me my our your their them us not no yes so than too very can could should would will
    shall may might must about into over under after before when where who whom whose which what why how
    all any each every some such only also just use uses used using via per vs etc new""".split()
)
K1 = 1.2
B = 0.75
MIN_SCORE = 0.5  # below this no topic matches: the fact goes to the inbox
TITLE_IDF = 1.0  # a word of a topic's name weighs at least this, however many texts hold it
_WORD = re.compile(r"[^\W_]+")
_SUFFIXES = ("ings", "ing", "ies", "ied", "sses", "shes", "ches", "xes", "ed", "s")


def stem(word: str) -> str:
    """A light stem so "deploys", "deployed" and "deploying" meet "deploy", and "decides" meets
    "decide": a plural or verb ending goes, then a final "e" of a long word. Short words stay."""
    for suffix in _SUFFIXES:
        cut = 2 if suffix in ("sses", "shes", "ches", "xes") else len(suffix)
        if word.endswith(suffix) and len(word) - cut >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                break
            word = word[:-cut] + ("y" if suffix in ("ies", "ied") else "")
            break
    if len(word) >= 5 and word.endswith("e"):
        word = word[:-1]
    return word


def terms(text: str) -> list[str]:
    """The words of ``text`` that can place it: lower case, stemmed, stop words dropped."""
    out = []
    for w in _WORD.findall(text.lower()):
        if w in STOPWORDS or (len(w) < 2 and not w.isdigit()):
            continue
        out.append(stem(w))
    return out


@dataclass(frozen=True, slots=True)
class Topic:
    """One candidate file: its path and every text that says what it is about."""

    path: str
    texts: Sequence[str]  # its entries
    title_texts: Sequence[str] = ()  # its name: the Index line linking it, its headings (with its path, x3)


@dataclass(frozen=True, slots=True)
class TopicScore:
    path: str
    score: float
    matched: tuple[str, ...]  # the fact's terms the topic holds


def rank_topics(fact: str, topics: Iterable[Topic]) -> list[TopicScore]:
    """Topics that share words with ``fact``, best first (only those at or above MIN_SCORE)."""
    query = list(dict.fromkeys(terms(fact)))
    if not query:
        return []
    # Rarity is counted over texts (entries, headings, Index lines), not topics: a word in 3 of
    # 500 entries is rare even when a repo has two topic files.
    docs: list[tuple[str, Counter[str], int, set[str]]] = []
    df: Counter[str] = Counter()
    n_texts = 0
    wanted = set(query)
    for topic in topics:
        counts: Counter[str] = Counter()
        stem_of_path = topic.path[:-3] if topic.path.endswith(".md") else topic.path
        titles = (stem_of_path.replace("/", " ").replace("-", " "), *topic.title_texts)
        for text in (*topic.texts, *titles):
            found = terms(text)
            n_texts += 1
            df.update(wanted.intersection(found))
            counts.update(found)
        named: set[str] = set()
        for text in titles:
            for t in terms(text):
                counts[t] += 2  # with the count above: a title word counts three times
                named.add(t)
        docs.append((topic.path, counts, sum(counts.values()), named))
    if not docs:
        return []
    avg = sum(length for _p, _c, length, _t in docs) / len(docs) or 1.0
    # A word every topic holds cannot choose between them.
    everywhere = {t for t in query if len(docs) > 1 and all(t in counts for _p, counts, _n, _t in docs)}
    out: list[TopicScore] = []
    for path, counts, length, named in docs:
        score = 0.0
        matched = []
        for t in query:
            tf = counts.get(t, 0)
            if not tf or t in everywhere:
                continue
            idf = math.log(1 + (n_texts - df[t] + 0.5) / (df[t] + 0.5))
            if t in named:  # in a small repo the topic's own name is in most of its texts
                idf = max(idf, TITLE_IDF)
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avg))
            if t in named:  # the fact names what the topic is about: that outweighs a shared detail
                score += idf
            matched.append(t)
        if score >= MIN_SCORE:
            out.append(TopicScore(path, score, tuple(matched)))
    out.sort(key=lambda s: (-s.score, s.path))
    return out


__all__ = ["MIN_SCORE", "STOPWORDS", "Topic", "TopicScore", "rank_topics", "stem", "terms"]
