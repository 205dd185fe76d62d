"""Alternative search engines for amr's relevance and speed benchmarks (issue 15, point 5).

Each engine implements the interface of ``bench/relevance.py``::

    class Engine(Protocol):
        name: str
        def build(self, entries: list[tuple[str, str, int, str]]) -> None: ...
            # (repo, path, line, full line text with metadata)
        def search(self, query: str, limit: int) -> list[tuple[str, str, int]]: ...

* ``bench.engines.fts5:Fts5Engine``: SQLite FTS5 (standard library ``sqlite3``), in memory or
  on disk (``Fts5Engine(path)``, ``Fts5Engine.open(path)``);
* ``bench.engines.tantivy_engine:TantivyEngine``: tantivy (``pip install tantivy``; a
  benchmark-only dependency, not in pyproject.toml);
* ``bench.engines:AmrEngine``: amr's own ``SearchIndex`` behind the same interface.

This module holds what the engines share so that they differ only in the index: splitting a
line into text and metadata, the tokenizer rule, and the *query plan* built from what a person
types (amr's own operator grammar, ``amr_tui.core.search.query.parse``; every word a prefix
term; stopwords optional; amr's abbreviation table; typo candidates from the vocabulary within
OSA distance 1 for 4-7 characters and 2 for 8+; a word that is two vocabulary words run
together). The plan is rendered by each engine into its own query language.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from amr_tui.core.search.abbrev import forms_of
from amr_tui.core.search.query import STOPWORDS, Filter, parse

Entry = tuple[str, str, int, str]  # (repo, path, line, full line with metadata)
Hit = tuple[str, str, int]

_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_META = re.compile(r"\s\[([A-Za-z][A-Za-z0-9_.-]*:[^\[\]]*)\]\s*$")
_PAIR = re.compile(r"\s*([A-Za-z][A-Za-z0-9_.-]*)\s*:\s*(.*?)\s*$")
_WORD = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """Lower case without diacritics (what unicode61 remove_diacritics does, near enough)."""
    text = text.lower()
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def tokens(text: str) -> list[str]:
    """The tokens of ``text``: runs of letters and digits (unicode61's default rule), folded."""
    return _WORD.findall(fold(text))


def split_line(full: str) -> tuple[str, dict[str, str]]:
    """(text without bullet and metadata, {key: value}) of one entry line."""
    body = _BULLET.sub("", full, count=1).rstrip()
    meta: dict[str, str] = {}
    m = _META.search(body)
    if m:
        pairs = [_PAIR.fullmatch(p) for p in m.group(1).split(";")]
        if all(pairs):
            for p in pairs:
                assert p is not None
                meta[p.group(1).lower()] = p.group(2)
            body = body[: m.start()].rstrip()
    return body, meta


def path_words(path: str) -> str:
    return " ".join(tokens(path.removesuffix(".md")))


def meta_text(meta: dict[str, str]) -> str:
    return " ".join(f"{k} {v}" for k, v in meta.items())


@dataclass(slots=True)
class Term:
    """One typed word: its tokens (several for ``eng-42``) and what else it may match."""

    word: str
    toks: tuple[str, ...]
    stop: bool
    prefix: bool = True  # the last token is matched as a prefix
    alts: list[tuple[str, ...]] = field(default_factory=list)  # other forms, each a token sequence
    fuzzy: list[str] = field(default_factory=list)  # exact vocabulary tokens near a typo


@dataclass(slots=True)
class Plan:
    terms: list[Term]
    phrases: list[tuple[str, ...]]
    excluded: list[tuple[str, ...]]
    filters: tuple[Filter, ...]
    error: str | None

    @property
    def required(self) -> list[Term]:
        req = [t for t in self.terms if not t.stop]
        return req or list(self.terms)


def max_typos(tok: str) -> int:
    n = len(tok)
    return 0 if n < 4 else 1 if n < 8 else 2


def plan(
    query: str,
    metadata_keys: frozenset[str],
    known: Callable[[str], bool],
    near: Callable[[str, int], list[str]],
    split_two: Callable[[str], tuple[str, str] | None],
) -> Plan:
    """The query plan for ``query``.

    ``known(tok)``: some vocabulary token starts with ``tok``; ``near(tok, k)``: vocabulary
    tokens within OSA distance ``k``; ``split_two(tok)``: two vocabulary tokens ``tok`` is
    made of, or None. Typo candidates are looked up only for tokens the vocabulary does not
    know (as a prefix), so a correctly typed word costs nothing extra."""
    parsed = parse(query, metadata_keys)
    terms: list[Term] = []
    for word in parsed.words:
        toks = tuple(tokens(word))
        if not toks:
            continue
        # stopwords, and a lone letter in a query of several words (a word being started), only rank
        stop = len(toks) == 1 and (toks[0] in STOPWORDS or (len(toks[0]) == 1 and len(parsed.words) > 1))
        t = Term(word, toks, stop)
        if len(toks) == 1:
            for form in forms_of(toks[0]):
                t.alts.append(tuple(tokens(form)))
        if not stop:
            for tok in toks if len(toks) > 1 else toks[:1]:
                if known(tok):
                    continue
                k = max_typos(tok)
                if k:
                    t.fuzzy.extend(c for c in near(tok, k) if c not in t.fuzzy)
                if len(toks) == 1:
                    two = split_two(tok)
                    if two:
                        t.alts.append(two)
        terms.append(t)
    phrases = [tuple(tokens(p)) for p in parsed.phrases]
    excluded = [tuple(tokens(x)) for x in parsed.excluded]
    return Plan(terms, [p for p in phrases if p], [x for x in excluded if x], parsed.filters, parsed.error)


class Vocabulary:
    """A sorted token list with the look-ups ``plan`` needs (prefix, typo, run-together)."""

    def __init__(self, toks: Sequence[str]) -> None:
        import bisect

        self._bisect = bisect
        self.toks = sorted(set(toks))
        self._set = set(self.toks)

    def known(self, tok: str) -> bool:
        i = self._bisect.bisect_left(self.toks, tok)
        return i < len(self.toks) and self.toks[i].startswith(tok)

    def with_prefix(self, tok: str, limit: int) -> list[str]:
        i = self._bisect.bisect_left(self.toks, tok)
        out: list[str] = []
        while i < len(self.toks) and self.toks[i].startswith(tok) and len(out) < limit:
            out.append(self.toks[i])
            i += 1
        return out

    def near(self, tok: str, k: int) -> list[str]:
        from rapidfuzz import process
        from rapidfuzz.distance import OSA

        # whole tokens within k, and tokens whose start is within k (a word still being typed)
        full = process.extract(tok, self.toks, scorer=OSA.distance, score_cutoff=k, limit=12)
        out = [c for c, _d, _i in sorted(full, key=lambda x: (x[1], x[0]))]
        if len(out) < 12:
            heads = [t[: len(tok)] for t in self.toks]
            part = process.extract(tok, heads, scorer=OSA.distance, score_cutoff=min(k, 1), limit=12)
            for _h, _d, i in sorted(part, key=lambda x: x[1]):
                if self.toks[i] not in out:
                    out.append(self.toks[i])
        return out[:12]

    def split_two(self, tok: str) -> tuple[str, str] | None:
        for i in range(2, len(tok) - 1):
            a, b = tok[:i], tok[i:]
            if a in self._set and (b in self._set or (len(b) >= 3 and self.known(b))):
                return a, b
        return None


class AmrEngine:
    """amr's ``SearchIndex`` behind the engine interface (entries only, as the others)."""

    name = "amr"

    def build(self, entries: list[Entry]) -> None:
        from amr_tui.core.search.index import SearchIndex

        by_file: dict[tuple[str, str], list[tuple[int, str]]] = {}
        for repo, path, line, full in entries:
            by_file.setdefault((repo, path), []).append((line, split_line(full)[0]))
        by_repo: dict[str, list[tuple[str, list[tuple[int, str]]]]] = {}
        for (repo, path), ents in by_file.items():
            by_repo.setdefault(repo, []).append((path, ents))
        self.index = SearchIndex()
        for repo, files in by_repo.items():  # one batch per repo, as amr's loader does
            self.index.set_files(repo, files)

    def search(self, query: str, limit: int) -> list[Hit]:
        hits = self.index.search(query, limit + 8)
        return [(h.item.repo, h.item.path, h.item.line) for h in hits if h.item.line > 0][:limit]


__all__ = ["AmrEngine", "Entry", "Hit", "Plan", "Term", "Vocabulary", "fold", "plan", "split_line", "tokens"]
