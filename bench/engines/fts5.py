"""SQLite FTS5 behind the engine interface of ``bench/relevance.py`` (issue 15, point 5).

A good-faith design, not a strawman:

* table ``e`` holds each entry (repo, path, line, text without metadata, path words, metadata
  text, ``added``, ``source``, the metadata keys, the metadata as JSON); ``f`` is an
  external-content FTS5 index over its columns ``text``, ``pathw``, ``meta`` with
  ``tokenize='unicode61 remove_diacritics 2'`` and ``prefix='2 3 4'``; ``v`` is its
  ``fts5vocab`` table (typo candidates);
* a query is planned from what a person types (``bench.engines.plan``: amr's operator
  grammar and abbreviation table, each word a prefix term ``"word"*``, stopwords optional,
  typo candidates within OSA 1 / 2 from the vocabulary for words it does not know, a word of
  two vocabulary words run together); it runs as an AND query (every non-stop word, quoted
  phrases, ``NOT`` for ``-word``) ranked by ``bm25(f, 1.0, 0.4, 0.05)``, then, when that
  gives fewer than ``limit``, as an OR query to fill, its rows ranked by how many words they
  hold and then bm25 (partial matches rank below full ones, a list is never empty because
  one word is missing);
* filters (``path:``, ``repo:``, ``source:``, ``added:``, ``has:``, ``no:``, ``KEY:VALUE``)
  are SQL conditions on ``e``; ``is:broken``/``is:orphan`` need the repo and match nothing,
  as in amr without a context;
* ``Fts5Engine(path)`` builds on disk; ``Fts5Engine.open(path)`` reopens an existing
  database (the persistent variant timed against amr's pickled cache).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from bench.engines import Entry, Hit, Plan, Term, Vocabulary, meta_text, path_words, plan, split_line, tokens

SCHEMA = """
create table e(
  id integer primary key, repo text, path text, line integer,
  text text, pathw text, meta text, added text, source text, keys text, mjson text
);
create virtual table f using fts5(
  text, pathw, meta, content='e', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2', prefix='2 3 4'
);
create virtual table v using fts5vocab(f, 'row');
create table k(key text primary key);
"""
WEIGHTS = "1.0, 0.4, 0.05"  # bm25 column weights: text, path words, metadata
OR_POOL = 200
UNRANKED = 20_000  # an AND query matching more rows than this is not ranked (see ``search``)  # rows of the OR query re-ranked by how many words they hold


def _q(toks: tuple[str, ...], prefix: bool) -> str:
    s = '"' + " ".join(toks) + '"'
    return s + "*" if prefix else s


def term_expr(t: Term) -> str:
    parts = [_q(t.toks, t.prefix)]
    parts += [_q(a, True) for a in t.alts]
    parts += [_q((c,), False) for c in t.fuzzy]
    return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"


def match_exprs(p: Plan) -> tuple[str | None, str | None]:
    """(AND query, OR query or None when it would equal the AND one) in FTS5 syntax."""
    phrases = [_q(x, False) for x in p.phrases]
    req = [term_expr(t) for t in p.required]
    alls = [term_expr(t) for t in p.terms]
    excl = " OR ".join(_q(x, False) for x in p.excluded)
    if not req and not phrases:
        return None, None

    def wrap(core: str) -> str:
        return f"({core}) NOT ({excl})" if excl else core

    and_q = wrap(" AND ".join(req + phrases))
    or_q = None
    if len(alls) > 1:
        ors = "(" + " OR ".join(alls) + ")"
        or_q = wrap(" AND ".join([ors, *phrases]))
    return and_q, or_q


def filter_sql(p: Plan) -> tuple[str, list[object]]:
    """SQL conditions on ``e`` for the plan's filters (empty string: none)."""
    conds: list[str] = []
    args: list[object] = []
    for flt in p.filters:
        key, op, val = flt.key, flt.op, flt.value
        if key == "path":
            if op == "glob":
                conds.append("lower(e.path) glob ?")
                args.append(val)
            else:
                conds.append("instr(lower(e.path), ?) > 0")
                args.append(val)
        elif key == "repo":
            conds.append("instr(lower(e.repo), ?) > 0")
            args.append(val)
        elif key == "added":
            if op == "=":
                conds.append("e.added like ? || '%'")
            else:
                conds.append(f"e.added {op} ?")
            args.append(val)
        elif key == "has":
            conds.append("instr(e.keys, ?) > 0")
            args.append(f" {val} ")
        elif key == "no":
            conds.append("instr(e.keys, ?) = 0")
            args.append(f" {val} ")
        elif key == "is":
            conds.append("0")
        else:  # source and any other metadata key: the value holds the text
            conds.append("instr(lower(coalesce(json_extract(e.mjson, ?), '')), ?) > 0")
            args += [f'$."{key}"', val]
    return " and ".join(conds), args


def coverage(t_text: str, p: Plan) -> tuple[int, int]:
    """(words of the plan the text holds, of which exactly): the OR query's re-ranking."""
    toks = tokens(t_text)
    have = set(toks)
    n = exact = 0
    for t in p.terms:
        if t.stop:
            continue
        forms = [t.toks, *t.alts] + [(c,) for c in t.fuzzy]
        hit = False
        for form in forms:
            last = form[-1]
            if all(x in have for x in form[:-1]) and any(x.startswith(last) for x in toks):
                hit = True
                exact += form[-1] in have
                break
        n += hit
    return n, exact


class Fts5Engine:
    name = "fts5"

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.db: sqlite3.Connection | None = None
        self._vocab: Vocabulary | None = None
        self._keys: frozenset[str] = frozenset()

    # ------------------------------------------------------------------ building

    def build(self, entries: list[Entry]) -> None:
        if self.path is not None and self.path.exists():
            self.path.unlink()
        db = sqlite3.connect(self.path if self.path is not None else ":memory:")
        db.execute("pragma journal_mode=off" if self.path is None else "pragma journal_mode=wal")
        db.execute("pragma synchronous=off")
        db.executescript(SCHEMA)
        keys: set[str] = set()

        def rows():
            for i, (repo, path, line, full) in enumerate(entries, 1):
                text, meta = split_line(full)
                keys.update(meta)
                yield (
                    i,
                    repo,
                    path,
                    line,
                    text,
                    path_words(path),
                    meta_text(meta),
                    meta.get("added", ""),
                    meta.get("source", ""),
                    " " + " ".join(meta) + " ",
                    json.dumps(meta) if meta else "{}",
                )

        with db:
            db.executemany("insert into e values (?,?,?,?,?,?,?,?,?,?,?)", rows())
            db.execute("insert into f(f) values ('rebuild')")
            db.execute("insert into f(f) values ('optimize')")
            db.executemany("insert into k values (?)", [(k,) for k in sorted(keys)])
        db.execute("create index e_added on e(added)")
        db.commit()
        self.db = db
        self._keys = frozenset(keys)
        self._vocab = None

    @classmethod
    def open(cls, path: str | Path) -> Fts5Engine:
        """An engine over a database ``build`` wrote before (nothing is read until a query)."""
        eng = cls(path)
        eng.db = sqlite3.connect(path)
        eng._keys = frozenset(r[0] for r in eng.db.execute("select key from k"))
        return eng

    def build_history(self, removed: list[Entry]) -> None:
        """Entries deleted from the files: a second database of the same shape."""
        self.history = Fts5Engine()
        self.history.build(removed)

    def search_history(self, query: str, limit: int) -> list[Hit]:
        return self.history.search(query, limit)

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    # ------------------------------------------------------------------ vocabulary

    @property
    def vocab(self) -> Vocabulary:
        """The index's tokens, read from ``fts5vocab`` on first need (a typo)."""
        if self._vocab is None:
            assert self.db is not None
            self._vocab = Vocabulary([r[0] for r in self.db.execute("select term from v")])
        return self._vocab

    def _known(self, tok: str) -> bool:
        assert self.db is not None
        row = self.db.execute(
            "select 1 from v where term >= ? and term < ? limit 1", (tok, tok + "\U0010ffff")
        ).fetchone()
        return row is not None

    # ------------------------------------------------------------------ searching

    def plan(self, query: str) -> Plan:
        return plan(
            query,
            self._keys,
            self._known,
            lambda tok, k: self.vocab.near(tok, k),
            lambda tok: self.vocab.split_two(tok),
        )

    def search(self, query: str, limit: int) -> list[Hit]:
        assert self.db is not None
        p = self.plan(query)
        if limit <= 0 or (not p.terms and not p.phrases and not p.filters):
            return []
        where, args = filter_sql(p)
        and_q, or_q = match_exprs(p)
        if and_q is None:  # filters only: every entry that passes, in file order
            if not where:
                return []
            sql = f"select repo, path, line from e where {where} order by repo, path, line limit ?"
            return [tuple(r) for r in self.db.execute(sql, [*args, limit])]  # type: ignore[misc]
        extra = f" and {where}" if where else ""
        try:
            many = self.db.execute("select count(*) from f where f match ?", [and_q]).fetchone()[0]
        except sqlite3.OperationalError:  # a query FTS5 cannot parse: no results, never an exception
            return []
        if many > UNRANKED:
            # a letter or two typed: bm25 over most of the corpus costs 50-200 ms and ranks nothing
            # useful, so the first matches in file order (the count costs ~2 ms at 100k)
            sql = f"select e.repo, e.path, e.line from f join e on e.id = f.rowid where f match ?{extra} limit ?"
            return [tuple(r) for r in self.db.execute(sql, [and_q, *args, limit])]  # type: ignore[misc]
        sql = (
            "select e.id, e.repo, e.path, e.line, e.text, e.pathw, bm25(f, " + WEIGHTS + ") as s "
            f"from f join e on e.id = f.rowid where f match ?{extra} order by s limit ?"
        )
        try:
            rows = self.db.execute(sql, [and_q, *args, limit * 3]).fetchall()
        except sqlite3.OperationalError:  # a query FTS5 cannot parse: no results, never an exception
            return []
        ranked = sorted(rows, key=lambda r: r[6] * (1 + 0.3 * coverage(r[4], p)[1]))
        out: list[Hit] = [(r[1], r[2], r[3]) for r in ranked[:limit]]
        if len(out) < limit and or_q is not None:
            seen = {r[0] for r in rows}
            try:
                more = self.db.execute(sql, [or_q, *args, OR_POOL + len(seen)]).fetchall()
            except sqlite3.OperationalError:
                more = []
            scored = []
            for r in more:
                if r[0] in seen:
                    continue
                n, exact = coverage(r[4] + " " + r[5], p)
                scored.append((-n, r[6] * (1 + 0.3 * exact), r))
            scored.sort(key=lambda x: (x[0], x[1]))
            out += [(r[1], r[2], r[3]) for _n, _s, r in scored[: limit - len(out)]]
        return out

    def size_bytes(self) -> int:
        if self.path is None:
            return 0
        return sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*"))
