"""tantivy (``pip install tantivy``, benchmark only) behind the engine interface of
``bench/relevance.py`` (issue 15, point 5).

The same query plan as the FTS5 engine (``bench.engines.plan``), rendered as tantivy queries:

* fields ``text``, ``pathw``, ``meta`` (folded by ``bench.engines.fold`` before indexing, the
  ``default`` tokenizer), searched together with boosts 1.0 / 0.4 / 0.05, BM25;
* a prefix term is expanded to the 50 most frequent vocabulary tokens it begins (the
  "top terms" rewrite Lucene uses): tantivy's own prefix, regex and fuzzy queries score every
  match the same, which would lose BM25; the exact word gets a 1.5 boost; a word of several
  tokens (``eng-42``) is a ``phrase_prefix_query``; typo candidates (OSA 1 / 2 from the
  vocabulary, for words it does not know) are exact term queries;
* an AND query (every non-stop word ``Must``, phrases ``Must``, ``-word`` ``MustNot``), then
  an OR query to fill, re-ranked by how many words a row holds, then score;
* filters: ``path:``/``repo:``/``source:``/``KEY:VALUE`` as regex queries on raw lowercased
  fields, ``added:`` as a range over an integer yyyymmdd field, ``has:``/``no:`` as terms.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from heapq import nlargest
from pathlib import Path

import tantivy

from bench.engines import (
    Entry,
    Hit,
    Plan,
    Term,
    Vocabulary,
    fold,
    meta_text,
    path_words,
    plan,
    split_line,
    tokens,
)
from bench.engines.fts5 import OR_POOL, coverage

FIELDS = (("text", 1.0), ("pathw", 0.4), ("meta", 0.05))
EXPANSIONS = 50
_DATE_DIGITS = re.compile(r"\D")


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("text", stored=True)
    sb.add_text_field("pathw")
    sb.add_text_field("meta")
    sb.add_text_field("repo", stored=True, tokenizer_name="raw")
    sb.add_text_field("path", stored=True, tokenizer_name="raw")
    sb.add_text_field("lrepo", tokenizer_name="raw")
    sb.add_text_field("lpath", tokenizer_name="raw")
    sb.add_text_field("kv", tokenizer_name="raw")  # "key=value" lowercased, one per key
    sb.add_text_field("keys", tokenizer_name="raw")
    sb.add_integer_field("line", stored=True)
    sb.add_integer_field("added", indexed=True, fast=True)
    return sb.build()


def _date_num(value: str, fill: str) -> int | None:
    digits = _DATE_DIGITS.sub("", value)
    if len(digits) not in (4, 6, 8):
        return None
    return int((digits + fill[len(digits) :])[:8])


class TantivyEngine:
    name = "tantivy"

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.schema = _schema()
        self._keys: frozenset[str] = frozenset()

    def build(self, entries: list[Entry]) -> None:
        if self.path is not None:
            self.path.mkdir(parents=True, exist_ok=True)
        self.index = tantivy.Index(self.schema, path=str(self.path) if self.path else None, reuse=False)
        writer = self.index.writer(heap_size=200_000_000, num_threads=1)
        freq: Counter[str] = Counter()
        keys: set[str] = set()
        for repo, path, line, full in entries:
            text, meta = split_line(full)
            keys.update(meta)
            ftext = fold(text)
            freq.update(set(tokens(ftext)))
            doc = tantivy.Document(
                text=ftext,
                pathw=path_words(path),
                meta=fold(meta_text(meta)),
                repo=repo,
                path=path,
                lrepo=repo.lower(),
                lpath=path.lower(),
                line=line,
            )
            for k, v in meta.items():
                doc.add_text("kv", f"{k}={v.lower()}")
                doc.add_text("keys", k)
            added = _date_num(meta.get("added", ""), "0101")
            if added is not None:
                doc.add_integer("added", added)
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()
        self._freq = freq
        for tok in tokens(" ".join(path_words(p) for p in {e[1] for e in entries})):
            freq.setdefault(tok, 1)
        self.vocab = Vocabulary(list(freq))
        self._keys = frozenset(keys)
        if self.path is not None:  # the vocabulary (for prefix expansion and typos) beside the index
            (self.path / "amr-vocab.json").write_text(json.dumps({"freq": freq, "keys": sorted(keys)}))

    @classmethod
    def open(cls, path: str | Path) -> TantivyEngine:
        """An engine over an index ``build`` wrote into the folder ``path`` before."""
        eng = cls(path)
        eng.index = tantivy.Index.open(str(path))
        eng.searcher = eng.index.searcher()
        data = json.loads((Path(path) / "amr-vocab.json").read_text())
        eng._freq = Counter(data["freq"])
        eng.vocab = Vocabulary(list(eng._freq))
        eng._keys = frozenset(data["keys"])
        return eng

    def build_history(self, removed: list[Entry]) -> None:
        """Entries deleted from the files: a second index of the same kind."""
        self.history = TantivyEngine()
        self.history.build(removed)

    def search_history(self, query: str, limit: int) -> list[Hit]:
        return self.history.search(query, limit)

    # ------------------------------------------------------------------ queries

    def _term(self, tok: str, boost: float = 1.0) -> tantivy.Query:
        subs = [
            (tantivy.Occur.Should, tantivy.Query.boost_query(tantivy.Query.term_query(self.schema, f, tok), w * boost))
            for f, w in FIELDS
        ]
        return tantivy.Query.boolean_query(subs)

    def _form(self, toks: tuple[str, ...], prefix: bool) -> list[tantivy.Query]:
        if len(toks) > 1:
            make = tantivy.Query.phrase_prefix_query if prefix else tantivy.Query.phrase_query
            return [tantivy.Query.boost_query(make(self.schema, f, list(toks)), w) for f, w in FIELDS if f != "meta"]
        tok = toks[0]
        out = [self._term(tok, 1.5)] if tok in self._freq or not prefix else []
        if prefix:
            cands = self.vocab.with_prefix(tok, 100_000)
            best = nlargest(EXPANSIONS, (c for c in cands if c != tok), key=lambda c: self._freq.get(c, 0))
            out += [self._term(c) for c in best]
        return out or [self._term(tok)]

    def _term_query(self, t: Term) -> tantivy.Query:
        subs = self._form(t.toks, t.prefix)
        for a in t.alts:
            subs += self._form(a, True)
        subs += [self._term(c) for c in t.fuzzy]
        return tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in subs])

    def _filters(self, p: Plan) -> list[tantivy.Query]:
        out: list[tantivy.Query] = []
        rx = re.escape
        for flt in p.filters:
            key, op, val = flt.key, flt.op, flt.value
            if key == "path":
                pat = rx(val).replace(r"\*", ".*").replace(r"\?", ".") if op == "glob" else f".*{rx(val)}.*"
                out.append(tantivy.Query.regex_query(self.schema, "lpath", pat))
            elif key == "repo":
                out.append(tantivy.Query.regex_query(self.schema, "lrepo", f".*{rx(val)}.*"))
            elif key == "added":
                lo = _date_num(val, "0101")
                hi = _date_num(val, "1231")
                if lo is None or hi is None:
                    out.append(tantivy.Query.empty_query())
                    continue
                ft = tantivy.FieldType.Integer
                if op == "=":
                    q = tantivy.Query.range_query(self.schema, "added", ft, lo, hi)
                elif op in (">=", ">"):
                    q = tantivy.Query.range_query(self.schema, "added", ft, lo if op == ">=" else hi + 1, None)
                else:
                    q = tantivy.Query.range_query(self.schema, "added", ft, None, hi if op == "<=" else lo - 1)
                out.append(q)
            elif key in ("has", "no"):
                out.append(tantivy.Query.term_query(self.schema, "keys", val))
            elif key == "is":
                out.append(tantivy.Query.empty_query())
            else:
                out.append(tantivy.Query.regex_query(self.schema, "kv", f"{rx(key)}=.*{rx(val)}.*"))
        return out

    def _run(self, q: tantivy.Query, n: int) -> list[tuple[float, Hit, str]]:
        res = self.searcher.search(q, n)
        out = []
        for score, addr in res.hits:
            d = self.searcher.doc(addr)
            out.append((score, (d["repo"][0], d["path"][0], int(d["line"][0])), d["text"][0]))
        return out

    def search(self, query: str, limit: int) -> list[Hit]:
        p = plan(query, self._keys, self.vocab.known, self.vocab.near, self.vocab.split_two)
        if limit <= 0 or (not p.terms and not p.phrases and not p.filters):
            return []
        Occ = tantivy.Occur
        must: list[tuple[tantivy.Occur, tantivy.Query]] = []
        flts = self._filters(p)
        for flt, q in zip(p.filters, flts):
            must.append((Occ.MustNot if flt.key == "no" else Occ.Must, q))
        for ph in p.phrases:
            must.append((Occ.Must, tantivy.Query.phrase_query(self.schema, "text", list(ph))))
        for ex in p.excluded:
            q = (
                tantivy.Query.phrase_query(self.schema, "text", list(ex))
                if len(ex) > 1
                else tantivy.Query.term_query(self.schema, "text", ex[0])
            )
            must.append((Occ.MustNot, q))
        if not p.terms:
            if not any(o == Occ.Must for o, _q in must):
                must.append((Occ.Must, tantivy.Query.all_query()))
            res = self.searcher.search(tantivy.Query.boolean_query(must), 100_000)
            docs = [self.searcher.doc(a) for _s, a in res.hits]
            hits = sorted((d["repo"][0], d["path"][0], int(d["line"][0])) for d in docs)
            return hits[:limit]
        tq = {id(t): self._term_query(t) for t in p.terms}
        and_q = tantivy.Query.boolean_query(must + [(Occ.Must, tq[id(t)]) for t in p.required])
        rows = self._run(and_q, limit * 3)
        ranked = sorted(rows, key=lambda r: -r[0] * (1 + 0.3 * coverage(r[2], p)[1]))
        out = [r[1] for r in ranked[:limit]]
        if len(out) < limit and len(p.terms) > 1:
            seen = set(out)
            anyq = tantivy.Query.boolean_query([(Occ.Should, tq[id(t)]) for t in p.terms])
            more = self._run(tantivy.Query.boolean_query([*must, (Occ.Must, anyq)]), OR_POOL + len(seen))
            scored = []
            for score, hit, text in more:
                if hit in seen:
                    continue
                n, exact = coverage(text, p)
                scored.append((-n, -score * (1 + 0.3 * exact), hit))
            scored.sort(key=lambda x: (x[0], x[1]))
            out += [h for _n, _s, h in scored[: limit - len(out)]]
        return out
