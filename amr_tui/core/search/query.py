"""What a person types into the finder or ``amr search``: words, phrases, exclusions, filters.

``parse`` splits a query into

* **words**: everything else; their tokens are the atoms the index matches. Words like "who",
  "the" or "does" (``STOPWORDS``) never exclude a result: they only help rank;
* **phrases**: ``"exact phrase"``: the entry must hold the words together, in that order (an
  unclosed quote runs to the end of the query, as while it is being typed);
* **exclusions**: ``-word`` or ``-"a phrase"``: entries holding it are left out;
* **filters**: ``path:deploy`` (a path containing it, or a glob such as ``path:ops/*.md``),
  ``repo:NAME``, ``source:wiki`` (a source holding it), ``added:>=2026-10-01`` (also ``>``,
  ``<``, ``<=``, ``=``, and a month or a year: ``added:2026-10``), ``has:KEY`` / ``no:KEY`` (the
  entry has / lacks that metadata key), ``KEY:VALUE`` for any other metadata key the index has
  seen, ``is:broken`` (an entry with a broken ``[[link]]``) and ``is:orphan`` (an entry in a file
  nothing links to); ``is:stale`` (its evidence no longer holds in the code it cites),
  ``verified:<2026-10`` (by its ``verified:`` date; never verified counts as older than any date),
  ``is:unread`` and ``read:<90d`` (by when agents last read it through ``amr mcp``; ``90d`` is 90
  days before today, and a repo whose reads are unknown matches neither); ``scope:global`` /
  ``scope:project:NAME`` / ``scope:project`` (where the fact holds: ``core.scope``) and ``by:NAME``
  (who wrote it: its ``by`` key, else the author of the commit that last wrote its line, or that
  commit's ``Agent`` trailer), and ``tag:NAME`` (an entry with that tag, or one nested in it: ``#tag`` in its
  text, ``[tags: ...]`` or its file's front matter; ``core.format.tags``).

A malformed filter (``added:soon``, ``is:nice``) is reported in ``Parsed.error`` with what it
takes; the rest of the query still runs. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass, field

from amr_tui.core.format.tags import normal_tag
from amr_tui.core.scope import filter_error as scope_filter_error
from amr_tui.core.search.text import MAX_TOKEN, WORD, fold

STOPWORDS = frozenset(
    """a an the and or of in on at to for from by with as is are was were be been do does did has have
    had it its this that these those there here we you they he she i me my our your their them us not
    no so than too very can could should would will shall may might must about into over after before
    when where who whom whose which what why how all any each every some such only also just""".split()
)
OPERATORS = ("path", "repo", "source", "added", "has", "no", "is", "verified", "read", "scope", "by", "tag")
IS_VALUES = ("broken", "orphan", "stale", "unread")
DATE_KEYS = ("added", "verified", "read")
_DATE = re.compile(r"\d{4}(?:-\d{1,2}(?:-\d{1,2})?)?")
AGO = re.compile(r"(\d{1,5})([dwmy])")  # 90d, 12w, 6m, 1y: that long before today
_TOKEN = re.compile(r'-?"[^"]*(?:"|$)|\S+')
_KEY = re.compile(r"([A-Za-z][A-Za-z0-9_.-]*):(.*)", re.S)
_COMPARE = re.compile(r"(>=|<=|>|<|=)?(.*)", re.S)


class QueryError(ValueError):
    """A query amr cannot run as typed; the message says what the operator takes."""


@dataclass(frozen=True, slots=True)
class Filter:
    key: str  # path, repo, source, added, has, no, is, tag, or a metadata key
    op: str  # "~" (holds), "glob", ">=", "<=", ">", "<", "=" (equal or a date prefix)
    value: str  # folded


@dataclass(frozen=True, slots=True)
class Parsed:
    words: tuple[str, ...]  # the free words as typed (phrases' words included)
    phrases: tuple[str, ...]  # folded, single-spaced
    excluded: tuple[str, ...]  # folded words or phrases to leave out
    filters: tuple[Filter, ...]
    error: str | None = None
    notes: tuple[str, ...] = field(default=())  # what was understood, for a status line

    @property
    def text(self) -> str:
        """The free words as one query string (what the ranking sees)."""
        return " ".join(self.words)

    @property
    def has_operators(self) -> bool:
        return bool(self.phrases or self.excluded or self.filters)


def _fold(text: str) -> str:
    return " ".join(text.lower().split())


def _pad_date(value: str) -> str:
    """2026-1-5 -> 2026-01-05 (ISO dates compare as strings)."""
    parts = value.split("-")
    return "-".join([parts[0], *(p.zfill(2) for p in parts[1:])])


def parse(query: str, metadata_keys: Container[str] = frozenset()) -> Parsed:
    """Split ``query`` into words, phrases, exclusions and filters (see the module docstring).

    ``metadata_keys``: keys the index has seen, usable as ``KEY:VALUE`` filters."""
    words: list[str] = []
    phrases: list[str] = []
    excluded: list[str] = []
    filters: list[Filter] = []
    errors: list[str] = []
    for m in _TOKEN.finditer(query):
        tok = m.group(0)
        negate = tok.startswith("-") and len(tok) > 1
        body = tok[1:] if negate else tok
        if body.startswith('"'):
            inner = body[1:-1] if len(body) > 1 and body.endswith('"') else body[1:]
            inner = _fold(inner)
            if not inner:
                continue
            if negate:
                excluded.append(inner)
            else:
                phrases.append(inner)
                words.extend(inner.split())
            continue
        km = _KEY.fullmatch(body)
        if km and not negate:
            key, value = km.group(1).lower(), km.group(2)
            if key in OPERATORS or key in metadata_keys:
                if not value:
                    if key in OPERATORS:
                        errors.append(f"{key}: needs a value, e.g. {_example(key)}")
                    continue
                made = _filter(key, value)
                if isinstance(made, str):
                    errors.append(made)
                else:
                    filters.append(made)
                continue
        if negate:
            if body.strip("-"):
                excluded.append(_fold(body))
            continue
        words.append(tok)
    return Parsed(tuple(words), tuple(phrases), tuple(excluded), tuple(filters), "; ".join(errors) or None)


def _example(key: str) -> str:
    return {
        "path": "path:deploy or path:ops/*.md",
        "repo": "repo:memory-team",
        "source": "source:wiki",
        "added": "added:>=2026-10-01",
        "has": "has:source",
        "no": "no:added",
        "is": "is:broken, is:orphan, is:stale or is:unread",
        "verified": "verified:<2026-10 or verified:<90d",
        "read": "read:<90d or read:>=2026-10-01",
        "scope": "scope:global or scope:project:payments",
        "by": "by:claude-code",
        "tag": "tag:infra",
    }.get(key, f"{key}:value")


def _filter(key: str, value: str) -> Filter | str:
    if key in DATE_KEYS:
        cm = _COMPARE.fullmatch(value)
        assert cm is not None
        op, date = cm.group(1) or "=", cm.group(2)
        if AGO.fullmatch(date.lower()):
            return Filter(key, op, date.lower())
        if not _DATE.fullmatch(date):
            return f"{key}: takes a date such as {key}:>=2026-10-01, {key}:2026-10 or {key}:<90d, not {value!r}"
        return Filter(key, op, _pad_date(date))
    if key == "is":
        v = value.lower()
        if v not in IS_VALUES:
            return f"is: takes {' or '.join(IS_VALUES)}, not {value!r}"
        return Filter("is", "=", v)
    if key == "tag":
        name = normal_tag(value)
        if name is None:
            return f"tag: takes a tag name with a letter, such as tag:infra, not {value!r}"
        return Filter("tag", "=", name)
    if key in ("has", "no"):
        return Filter(key, "=", value.lower())
    if key == "path":
        v = value.lower()
        return Filter("path", "glob" if any(c in v for c in "*?[") else "~", v)
    if key == "repo":
        return Filter("repo", "~", value.lower())
    if key == "scope":
        wrong = scope_filter_error(value)
        return Filter("scope", "=", _fold(value)) if wrong is None else wrong
    if key == "by":
        return Filter("by", "~", _fold(value))
    return Filter(key, "~", _fold(value))


# What to type, for the ? help and the command's --help (the README has the same table).
SYNTAX: tuple[tuple[str, str], ...] = (
    ("words", "in any order; prefixes, typos and abbreviations (db, env, k8s...) count; who/the/does never exclude"),
    ('"exact phrase"', "the words together, in this order"),
    ('-word, -"a phrase"', "leave out entries holding it"),
    ("path:deploy, path:ops/*.md", "files whose path holds it, or matches the glob"),
    ("repo:NAME", "one mounted repo"),
    ("source:wiki, KEY:VALUE", "a metadata value holding it"),
    ("added:>=2026-10-01, added:2026-10", "by date: >= > <= < or a day, month or year"),
    ("has:source, no:added", "entries with, or without, a metadata key"),
    ("is:broken, is:orphan", "entries with a broken [[link]]; entries of files nothing links to"),
    ("is:stale, verified:<90d", "evidence gone or moved in the code; not verified for 90 days (or never)"),
    ("is:unread, read:<90d", "never read by agents through amr mcp; not read for 90 days (where reads are known)"),
    ("scope:global, scope:project:NAME", "where the fact holds (its scope key); scope:project: any project's"),
    ("by:NAME", "who wrote it: its by key, else the author (or Agent trailer) of the commit of its line"),
    ("tag:infra", "entries tagged #infra (in the text, [tags: ...] or the file's front matter); nested tags too"),
)


def is_stopword(atom: str) -> bool:
    return atom in STOPWORDS


# ---------------------------------------------------------------------------- the words' atoms

MAX_ATOMS = 24  # atoms of a query used for matching (a pasted paragraph stays cheap)


@dataclass(frozen=True, slots=True)
class Query:
    raw: str
    words: tuple[str, ...]  # folded, whitespace-separated words
    atoms: tuple[str, ...]  # distinct tokens of the words, in order of appearance
    phrase: str  # the folded words joined by one space
    cased_words: tuple[str, ...]  # words as typed, when they hold an upper-case letter


def parse_query(query: str) -> Query:
    raw_words = query.split()
    words = tuple(fold(w) for w in raw_words)
    atoms: list[str] = []
    for w in words:
        for a in WORD.findall(w):
            a = a[:MAX_TOKEN]
            if a not in atoms and len(atoms) < MAX_ATOMS:
                atoms.append(a)
    cased = tuple(w for w in raw_words if w != w.lower())
    return Query(query, words, tuple(atoms), " ".join(words), cased)


def exclusions(parsed: Parsed) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each excluded word or phrase (``-word``, ``-"a phrase"``) with its atoms."""
    return tuple((phrase, parse_query(phrase).atoms) for phrase in parsed.excluded)


def required(full: Query) -> Query:
    """``full`` with the atoms every hit must hold: stop words only when the query has nothing else."""
    atoms = tuple(a for a in full.atoms if a not in STOPWORDS) or full.atoms
    return Query(full.raw, full.words, atoms, full.phrase, full.cased_words)


def near_phrase(q: Query) -> re.Pattern[str] | None:
    """The typed words from the first word that counts to the last (stop words between them
    kept: "deploy on friday" of "can we deploy on friday"), each matching a word's start, in
    order and next to each other; None for one word."""
    words = [w for w in q.words if any(c.isalnum() for c in w)]
    keep = [i for i, w in enumerate(words) if any(a in w for a in q.atoms)]
    if len(keep) < 2:
        return None
    core = words[keep[0] : keep[-1] + 1]
    parts = [re.escape("".join(c for c in w if c.isalnum())) for w in core]
    if not all(parts):
        return None
    # At a word start: the first word's letters, then a look back past them at the character
    # before (not a letter or digit). Written so rather than with the look-behind first, the
    # pattern starts with a literal, which the regex engine finds by a fast scan of the text.
    first = parts[0]
    return re.compile(first + rf"(?<![^\W_]{first})" + "".join(r"\w*[\W_]+" + p for p in parts[1:]))


__all__ = [
    "AGO",
    "DATE_KEYS",
    "IS_VALUES",
    "OPERATORS",
    "STOPWORDS",
    "SYNTAX",
    "Filter",
    "Parsed",
    "Query",
    "QueryError",
    "exclusions",
    "is_stopword",
    "near_phrase",
    "parse",
    "parse_query",
    "required",
]
