"""Relevance benchmark for search (issue 15, point 6): does the search find the fact you mean?

    .venv/bin/python bench/relevance.py [--entries N | --quick] [--classes a,b] [--cli]
        [--engines amr,fzf] [--engine module:Class ...] [--weights NAME=VALUE,...]
        [--show-misses] [--seed S]

The realistic facts and typed queries of ``bench/relevance_facts.py`` are planted among the
synthetic filler of ``bench/corpus.py`` (at positions fixed by the seed; some in files named for
their topic, such as ``runbooks/release.md``) together with decoy lines that repeat a query's
common words. Each engine indexes the same lines and answers every query; the bench prints, per
query class and overall, recall@1, recall@5 and MRR (of the first right answer in the top 5) as a
Markdown table, with each engine's build time.

* recall@k of one query: right answers in the top k / min(k, number of right answers).
* A class an engine cannot run (``deleted`` needs history search) is reported as ``n/a``.

Engines: ``amr`` (the in-process ``SearchIndex``, with a metadata context like ``amr search``),
``fzf`` (``fzf --filter QUERY`` over ``repo/path:line: full line``, one process per query),
``amr-cli`` (``--cli``: ``amr search QUERY ROOT --json --limit 5`` over the corpus written as
files, one process per query; slow) and any plug-in given as ``--engine module:Class`` (or
``path/to/file.py:Class``) implementing ``Engine`` below. The generated corpus is cached under
``~/.cache/amr-bench/relevance/`` keyed by its parameters.

Nothing here asserts a quality target; it measures.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import json
import os
import pickle
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Protocol, runtime_checkable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _p in (str(HERE), str(ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

# ---------------------------------------------------------------------- the plug-in interface

Entry = tuple[str, str, int, str]  # (repo, path, line, full line text with metadata, e.g. "- Fact [source: x]")
Loc = tuple[str, str, int]  # (repo, path, line)


@runtime_checkable
class Engine(Protocol):
    """A search engine under test. ``build`` gets every entry line of the corpus once; ``search``
    returns the best ``limit`` locations, best first (a location not in the corpus is a miss).

    An engine may also search the past, as ``amr search --history`` would: give it
    ``build_history(past)`` and ``search_history(query, limit)``. ``past`` is every entry the
    history holds: the entries now in the files followed by those deleted or reworded since (each
    with the location it had: a line after the file's last one now, so no two share one). A right
    answer to a ``deleted`` query is a deleted entry, found among the current ones. Without these
    two methods the ``deleted`` class is reported as n/a for the engine."""

    name: str

    def build(self, entries: list[Entry]) -> None: ...

    def search(self, query: str, limit: int) -> list[Loc]: ...


def has_history(engine: Engine) -> bool:
    """The engine searches the past (``supports_history = False`` turns the methods off)."""
    methods = callable(getattr(engine, "build_history", None)) and callable(getattr(engine, "search_history", None))
    return methods and getattr(engine, "supports_history", True) is not False


def load_engine(spec: str) -> Engine:
    """``module:Class`` or ``path/to/file.py:Class``; the class is called with no arguments."""
    mod_name, _, cls_name = spec.rpartition(":")
    if not mod_name or not cls_name:
        raise SystemExit(f"--engine takes module:Class, got {spec!r}")
    if mod_name.endswith(".py") or "/" in mod_name:
        path = Path(mod_name).resolve()
        loaded = importlib.util.spec_from_file_location(path.stem, path)
        if loaded is None or loaded.loader is None:
            raise SystemExit(f"cannot load {mod_name}")
        module = importlib.util.module_from_spec(loaded)
        sys.modules[path.stem] = module
        loaded.loader.exec_module(module)
    else:
        module = importlib.import_module(mod_name)
    engine = getattr(module, cls_name)()
    if not isinstance(engine, Engine):
        raise SystemExit(f"{spec} is not an Engine (name, build, search)")
    return engine


# ---------------------------------------------------------------------- file reconstruction


def file_lines(path: str, entries: Sequence[tuple[int, str]]) -> list[str]:
    """The lines of a Markdown file holding ``(line, full line)`` entries at their line numbers,
    the way ``corpus.render_file`` lays them out (a title, section headings between)."""
    lines = [f"# {path.rsplit('/', 1)[-1].removesuffix('.md')}", "", "## Notes"]
    for line, full in sorted(entries):
        while len(lines) < line - 1:
            lines.append("" if len(lines) % 2 else "## More")
        lines.append(full)
    return lines


def group_files(entries: Sequence[Entry]) -> dict[tuple[str, str], list[tuple[int, str]]]:
    files: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
    for repo, path, line, full in entries:
        files[(repo, path)].append((line, full))
    return files


# ---------------------------------------------------------------------- built-in engines


class AmrEngine:
    """``amr_tui.core.search.index.SearchIndex`` in process. Each file is parsed by amr's own
    parser (so the index holds what the app holds: entry text without metadata); filters on
    metadata are answered by a context over the parsed entries, as ``amr search`` does."""

    name = "amr"

    def __init__(self) -> None:
        from amr_tui.core.search.index import SearchIndex

        self.index = SearchIndex()
        self.meta: dict[Loc, dict[str, list[str]]] = {}
        self.keys: frozenset[str] = frozenset()

    def build(self, entries: list[Entry]) -> None:
        from amr_tui.core.format.parser import parse

        keys: set[str] = set()
        for (repo, path), ents in group_files(entries).items():
            data = ("\n".join(file_lines(path, ents)) + "\n").encode()
            doc = parse(data, path)
            items: list[tuple[int, str]] = []
            for e in doc.entries:
                if not e.text:
                    continue
                items.append((e.line, e.text))
                if e.metadata:
                    md: dict[str, list[str]] = {}
                    for m in e.metadata:
                        md.setdefault(m.key.lower(), []).append(m.value)
                    keys.update(md)
                    self.meta[(repo, path, e.line)] = md
            self.index.set_file(repo, path, items)
        self.keys = frozenset(keys)

    # SearchContext
    def metadata(self, item: object) -> Mapping[str, Sequence[str]] | None:
        repo, path, line = item.repo, item.path, item.line  # type: ignore[attr-defined]
        return self.meta.get((repo, path, line), {})

    def broken(self, item: object) -> bool:
        return False

    def orphan(self, repo: str, path: str) -> bool:
        return False

    def fact(self, item: object) -> bool:
        return True

    def file_scope(self, repo: str, path: str) -> str:
        return ""

    def wrote(self, item: object, name: str) -> bool:  # by: (no history here)
        return False

    def file_tags(self, repo: str, path: str) -> Sequence[str]:
        return ()

    def search(self, query: str, limit: int) -> list[Loc]:
        from amr_tui.core.search.index import QueryError

        try:
            hits = self.index.search(query, limit, context=self)  # type: ignore[arg-type]
        except QueryError:
            return []
        return [(h.item.repo, h.item.path, h.item.line) for h in hits]


class WeightedAmrEngine(AmrEngine):
    """``amr`` with other ranking weights (``--weights length=0,saturation=1.2``): the fields of
    ``amr_tui.core.search.score.Weights`` given are changed for this engine's searches only."""

    def __init__(self, spec: str) -> None:
        from dataclasses import fields, replace

        from amr_tui.core.search import score

        super().__init__()
        known = {f.name: f.type for f in fields(score.Weights)}
        changes: dict[str, float | int] = {}
        for part in filter(None, spec.split(",")):
            key, _, value = part.partition("=")
            if key not in known:
                raise SystemExit(f"--weights: no weight {key!r}; known: {', '.join(known)}")
            changes[key] = int(value) if known[key] in (int, "int") else float(value)
        self.weights = replace(score.WEIGHTS, **changes)  # type: ignore[arg-type]
        self.name = f"amr {spec}" if spec else "amr"

    def search(self, query: str, limit: int) -> list[Loc]:
        from amr_tui.core.search import score

        kept, score.WEIGHTS = score.WEIGHTS, self.weights
        try:
            return super().search(query, limit)
        finally:
            score.WEIGHTS = kept


class FzfEngine:
    """``fzf --filter QUERY`` over one line per entry (``repo/path:line: full line``), a process
    per query; the first ``limit`` output lines, in fzf's order (its score)."""

    name = "fzf"

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="amr-bench-fzf-"))
        self.file = self.dir / "lines.txt"
        self.exe = shutil.which("fzf") or "fzf"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("FZF_")}  # no user options

    def build(self, entries: list[Entry]) -> None:
        with self.file.open("w", encoding="utf-8") as f:
            for repo, path, line, full in entries:
                f.write(f"{repo}/{path}:{line}: {full}\n")

    def search(self, query: str, limit: int) -> list[Loc]:
        with self.file.open("rb") as f:
            out = subprocess.run(
                [self.exe, f"--filter={query}"], stdin=f, capture_output=True, env=self.env, check=False
            ).stdout
        locs: list[Loc] = []
        for raw in out.decode("utf-8", "replace").splitlines()[:limit]:
            head, _, rest = raw.partition(": ")
            where, _, line = head.rpartition(":")
            repo, _, path = where.partition("/")
            if line.isdigit():
                locs.append((repo, path, int(line)))
        return locs

    def __del__(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


class AmrCliEngine:
    """``amr search QUERY ROOT --json --limit N`` per query over the corpus written as files:
    one memory repo (MEMORY.md and a folder per corpus repo). Its index cache goes to a temporary
    cache folder; the build includes the first (cold) search, so queries run warm.

    When this amr has ``amr search --history``, the folder is made a git repo of two commits (the
    past files with the deleted facts, then the files now) and history queries run with
    ``--history`` (a hit is located by its path and old line text)."""

    name = "amr-cli"

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="amr-bench-cli-"))
        self.root = self.dir / "memory"
        self.env = dict(os.environ, XDG_CACHE_HOME=str(self.dir / "cache"))
        self.exe = str(ROOT / ".venv" / "bin" / "amr")
        self.files: dict[tuple[str, str], list[tuple[int, str]]] = {}
        self.past: dict[tuple[str, str], Loc] = {}  # ("repo/path", full line) -> location
        helped = subprocess.run([self.exe, "search", "--help"], capture_output=True, env=self.env, check=False)
        self.supports_history = b"--history" in helped.stdout

    def _write(self, files: Mapping[tuple[str, str], Sequence[tuple[int, str]]]) -> None:
        for (repo, path), ents in files.items():
            target = self.root / repo / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("\n".join(file_lines(path, ents)) + "\n", encoding="utf-8")

    def build_history(self, past: list[Entry]) -> None:
        removed = [e for e in past if (e[0], e[1]) not in self.files or e[2] not in dict(self.files[(e[0], e[1])])]
        self.past = {(f"{r}/{p}", full): (r, p, ln) for r, p, ln, full in removed}
        then = {key: list(self.files.get(key, [])) for key in group_files(removed)}
        for key, ents in group_files(removed).items():
            then[key] += ents
        ident = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.test"}
        env = dict(self.env, **ident, GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.test")

        def git(*args: str) -> None:
            subprocess.run(["git", *args], cwd=self.root, env=env, check=True, capture_output=True)

        git("init", "-q")
        self._write(then)
        git("add", ".")  # (a fresh repo in a temporary folder of its own)
        git("commit", "-q", "-m", "the past: facts deleted since")
        self._write({key: self.files.get(key, []) for key in then})
        git("commit", "-q", "-a", "-m", "delete facts")
        self.search("warm up the cache", 1)
        self.search_history("warm up the history", 1)

    def search_history(self, query: str, limit: int) -> list[Loc]:
        locs: list[Loc] = []
        for h in self._run(query, limit, "--history"):
            path, line = str(h.get("path", "")), str(h.get("line", ""))
            repo, _, rel = path.partition("/")
            locs.append(self.past.get((path, line), (repo, rel, 0)))
        return locs

    def build(self, entries: list[Entry]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        files = self.files = group_files(entries)
        # no entries of its own, so the CLI holds the same lines as the other engines
        (self.root / "MEMORY.md").write_text("# Memory\n\nThe relevance benchmark's corpus.\n", encoding="utf-8")
        self._write(files)
        self.search("warm up the cache", 1)

    def _run(self, query: str, limit: int, *flags: str) -> list[dict[str, object]]:
        proc = subprocess.run(
            [self.exe, "search", *flags, "--json", "--limit", str(limit), "--", query, str(self.root)],
            capture_output=True,
            env=self.env,
            check=False,
        )
        try:
            hits = json.loads(proc.stdout or b"[]")
        except json.JSONDecodeError:
            return []
        return [h for h in hits if isinstance(h, dict)] if isinstance(hits, list) else []

    def search(self, query: str, limit: int) -> list[Loc]:
        locs: list[Loc] = []
        for h in self._run(query, limit):
            repo, _, path = str(h.get("path", "")).partition("/")
            line = h.get("line")
            locs.append((repo, path, line if isinstance(line, int) else 0))
        return locs

    def __del__(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


BUILTIN: dict[str, type] = {"amr": AmrEngine, "fzf": FzfEngine, "amr-cli": AmrCliEngine}


# ---------------------------------------------------------------------- the planted corpus


@dataclass
class Corpus:
    entries: list[Entry]  # every entry line now in the files (filler, facts, decoys)
    where: dict[str, Loc]  # fact id -> location (a deleted fact: where it was)
    removed: list[Entry]  # deleted facts and filler, as they were, at a line past the file's end now
    texts: dict[Loc, str] = field(default_factory=dict)  # location -> full line (current or removed)


CACHE_VERSION = 3

# The fact set planted and asked (``--set``): "tuned", the set the ranking was chosen on;
# "heldout", written before any result of it was seen (its misses have been read since); "sealed",
# written 2026-12-08 before the ranking changes of that day and never tuned to (issue 44, point 6).
SETS = {"tuned": "relevance_facts", "heldout": "relevance_heldout", "sealed": "relevance_sealed"}
_set = "tuned"


def facts_module() -> ModuleType:
    """The module of the fact set in use (``--set``)."""
    return importlib.import_module(SETS[_set])


def _cache_key(n: int, seed: int) -> str:
    h = hashlib.sha256(f"{CACHE_VERSION}/{n}/{seed}/{_set}".encode())
    for name in ("corpus.py", "relevance_facts.py", f"{SETS[_set]}.py"):
        h.update((HERE / name).read_bytes())
    h.update(Path(__file__).read_bytes())
    return h.hexdigest()[:20]


def _full(text: str, meta: str) -> str:
    return f"- {text} [{meta}]" if meta else f"- {text}"


def plant(n: int, seed: int) -> Corpus:
    """The filler corpus of ``n`` entries with the facts and decoys put in place of filler lines
    at positions fixed by ``seed``; a fact with a topic file goes into a filler file renamed so."""
    from corpus import generate_files

    facts = facts_module()
    DECOYS, FACTS, NOISE = facts.DECOYS, facts.FACTS, facts.NOISE

    files = generate_files(n, seed=seed)
    r = random.Random(f"relevance/{seed}")
    taken: set[tuple[int, int]] = set()  # (file index, entry index) holding a planted line
    topic_files: dict[str, int] = {}  # "repo/path" -> file index
    used_paths = {(cf.repo, cf.path) for cf in files}
    renamed: set[int] = set()

    def topic_file(name: str) -> int:
        if name in topic_files:
            return topic_files[name]
        repo, _, path = name.partition("/")
        choices = [i for i, cf in enumerate(files) if cf.repo == repo and i not in renamed and len(cf.entries) >= 8]
        if not choices:  # a tiny corpus: any file, moved to the repo
            choices = [i for i in range(len(files)) if i not in renamed] or [0]
        i = r.choice(choices)
        renamed.add(i)
        cf = files[i]
        used_paths.discard((cf.repo, cf.path))
        if (repo, path) in used_paths:
            raise SystemExit(f"topic file {name} collides with a generated file")
        cf.repo, cf.path = repo, path
        used_paths.add((repo, path))
        topic_files[name] = i
        return i

    def slot(file_index: int | None) -> tuple[int, int]:
        for _ in range(10_000):
            fi = file_index if file_index is not None else r.randrange(len(files))
            if file_index is None and fi in renamed:
                continue
            ei = r.randrange(len(files[fi].entries))
            if (fi, ei) not in taken:
                taken.add((fi, ei))
                return fi, ei
        raise SystemExit("corpus too small for the planted facts")

    # topic files first, so a later random slot never lands in one
    for fact in FACTS:
        if fact.file:
            topic_file(fact.file)
    where: dict[str, Loc] = {}
    removed: list[Entry] = []
    gone: dict[int, int] = defaultdict(int)  # file index -> deleted facts placed past its end
    for fact in FACTS:
        fi, ei = slot(topic_files[fact.file] if fact.file else None)
        cf = files[fi]
        line, _text, _old = cf.entries[ei]
        full = _full(fact.text, fact.meta)
        if fact.deleted:  # its slot keeps the filler; it was the file's tail, cut since
            gone[fi] += 1
            line = cf.entries[-1][0] + gone[fi]
            removed.append((cf.repo, cf.path, line, full))
        else:
            cf.entries[ei] = (line, fact.text, full)
        where[fact.id] = (cf.repo, cf.path, line)
    for text, meta in DECOYS + NOISE:
        fi, ei = slot(None)
        cf = files[fi]
        line = cf.entries[ei][0]
        cf.entries[ei] = (line, text, _full(text, meta))
    # the past holds deleted filler too (1%), so a history search has lines to tell apart
    for old in generate_files(max(20, n // 100), seed=seed + 1000):
        for _line, _text, full in old.entries:
            fi = r.randrange(len(files))
            gone[fi] += 1
            cf = files[fi]
            removed.append((cf.repo, cf.path, cf.entries[-1][0] + gone[fi], full))
    entries = [(cf.repo, cf.path, line, full) for cf in files for line, _t, full in cf.entries]
    return Corpus(entries, where, removed)


def load_corpus(n: int, seed: int) -> tuple[Corpus, bool]:
    """The planted corpus, from ``~/.cache/amr-bench/relevance/`` (or $AMR_BENCH_CACHE) when built before."""
    folder = os.environ.get("AMR_BENCH_CACHE") or os.path.expanduser("~/.cache/amr-bench/relevance")
    cache = Path(folder) / f"{_cache_key(n, seed)}.pickle"
    corpus: Corpus | None = None
    if cache.exists():
        try:
            with cache.open("rb") as f:
                entries, where, removed = pickle.load(f)
            corpus = Corpus(entries, where, removed)
        except Exception:
            corpus = None
    hit = corpus is not None
    if corpus is None:
        corpus = plant(n, seed)
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(".tmp")
            with tmp.open("wb") as f:
                pickle.dump((corpus.entries, corpus.where, corpus.removed), f, protocol=pickle.HIGHEST_PROTOCOL)
            tmp.replace(cache)
        except OSError:
            pass
    corpus.texts = {(r, p, ln): full for r, p, ln, full in [*corpus.entries, *corpus.removed]}
    return corpus, hit


# ---------------------------------------------------------------------- scoring

LIMIT = 5


@dataclass
class Score:
    n: int = 0
    r1: float = 0.0
    r5: float = 0.0
    rr: float = 0.0

    def add(self, got: Sequence[Loc], right: set[Loc]) -> bool:
        """Count one query; True when a right answer is in the top 5."""
        self.n += 1
        want = len(right)
        self.r1 += len(right & set(got[:1])) / min(1, want)
        self.r5 += len(right & set(got[:LIMIT])) / min(LIMIT, want)
        rank = next((i for i, loc in enumerate(got[:LIMIT], 1) if loc in right), 0)
        self.rr += 1 / rank if rank else 0.0
        return rank > 0

    def figures(self) -> tuple[float, float, float] | None:
        if not self.n:
            return None
        return self.r1 / self.n, self.r5 / self.n, self.rr / self.n


@dataclass
class Result:
    name: str
    build_s: float
    query_s: float = 0.0
    queries: int = 0
    classes: dict[str, Score] = field(default_factory=dict)
    overall: Score = field(default_factory=Score)
    current: Score = field(default_factory=Score)  # overall without the history queries
    history_s: float | None = None  # build_history time; None without history search
    misses: list[tuple[str, str, list[Loc]]] = field(default_factory=list)  # (class, query, top 3)
    skipped: set[str] = field(default_factory=set)


def run_engine(engine: Engine, corpus: Corpus, classes: Sequence[str]) -> Result:
    FACTS, QUERIES = facts_module().FACTS, facts_module().QUERIES

    t = time.perf_counter()
    engine.build(list(corpus.entries))
    res = Result(engine.name, time.perf_counter() - t)
    history = has_history(engine)
    if history:
        t = time.perf_counter()
        engine.build_history([*corpus.entries, *corpus.removed])  # type: ignore[attr-defined]
        res.history_s = time.perf_counter() - t
    deleted_ids = {f.id for f in FACTS if f.deleted}
    for q in QUERIES:
        if q.cls not in classes:
            continue
        is_history = q.cls == "deleted" or any(a in deleted_ids for a in q.answers)
        if is_history and not history:
            res.skipped.add(q.cls)
            continue
        right = {corpus.where[a] for a in q.answers}
        t = time.perf_counter()
        got = engine.search_history(q.text, LIMIT) if is_history else engine.search(q.text, LIMIT)  # type: ignore[attr-defined]
        res.query_s += time.perf_counter() - t
        res.queries += 1
        found = res.classes.setdefault(q.cls, Score()).add(got, right)
        res.overall.add(got, right)
        if not is_history:
            res.current.add(got, right)
        if not found:
            res.misses.append((q.cls, q.text, list(got[:3])))
    return res


# ---------------------------------------------------------------------- the table


def _cell(fig: tuple[float, float, float] | None) -> list[str]:
    if fig is None:
        return ["n/a", "n/a", "n/a"]
    return [f"{v:.2f}" for v in fig]


def table(results: Sequence[Result], classes: Sequence[str]) -> str:
    QUERIES = facts_module().QUERIES

    counts = {c: sum(1 for q in QUERIES if q.cls == c) for c in classes}
    head = ["class", "queries"]
    for r in results:
        head += [f"{r.name} R@1", f"{r.name} R@5", f"{r.name} MRR"]
    rows = [head, ["---"] * 2 + ["---:"] * (len(head) - 2)]
    for c in classes:
        row = [c, str(counts[c])]
        for r in results:
            score = r.classes.get(c)
            row += _cell(score.figures() if score else None)
        rows.append(row)
    total = ["**overall**", str(sum(counts.values()))]
    for r in results:
        total += [f"**{v}**" for v in _cell(r.overall.figures())]
    rows.append(total)
    if "deleted" in classes:
        cur = ["overall without deleted", str(sum(n for c, n in counts.items() if c != "deleted"))]
        for r in results:
            cur += _cell(r.current.figures())
        rows.append(cur)
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def weights_table(results: Sequence[Result], classes: Sequence[str]) -> str:
    """One row per ranking choice (``--weights``): recall@1 of each class and overall, with
    recall@5 and MRR overall (deleted facts aside)."""
    shown = [c for c in classes if c != "deleted"]
    head = ["weights", *(f"{c} R@1" for c in shown), "R@1", "R@5", "MRR"]
    lines = ["| " + " | ".join(head) + " |", "| --- |" + " ---: |" * (len(head) - 1)]
    for r in results:
        cells = [r.name.removeprefix("amr ") if r.name != "amr" else "amr's own"]
        for c in shown:
            score = r.classes.get(c)
            fig = score.figures() if score is not None else None
            cells.append(f"{fig[0]:.2f}" if fig is not None else "n/a")
        overall = r.current.figures()
        cells += [f"{x:.2f}" for x in overall] if overall is not None else ["n/a"] * 3
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def as_json(results: Sequence[Result], n: int, classes: Sequence[str]) -> dict[str, object]:
    def figs(score: Score | None) -> dict[str, float] | None:
        fig = score.figures() if score else None
        return None if fig is None else {"recall@1": fig[0], "recall@5": fig[1], "mrr": fig[2], "queries": score.n}  # type: ignore[union-attr]

    return {
        "entries": n,
        "engines": {
            r.name: {
                "build_s": round(r.build_s, 3),
                "history_s": None if r.history_s is None else round(r.history_s, 3),
                "query_ms": round(r.query_s / r.queries * 1000, 2) if r.queries else None,
                "classes": {c: figs(r.classes.get(c)) for c in classes},
                "overall": figs(r.overall),
                "overall_without_deleted": figs(r.current),
                "misses": [{"class": c, "query": q, "top3": [list(x) for x in top]} for c, q, top in r.misses],
            }
            for r in results
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    global _set
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--entries", type=int, default=100_000, help="filler corpus size (default 100000)")
    ap.add_argument("--quick", action="store_true", help="a 2,000-entry corpus")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--set",
        choices=sorted(SETS),
        default="tuned",
        help="the facts and queries: tuned (the ranking was chosen on them), heldout or sealed (never tuned to)",
    )
    ap.add_argument("--classes", default="", help="comma-separated query classes (default: all)")
    ap.add_argument("--engines", default="amr,fzf", help="built-in engines: amr, fzf, amr-cli (default amr,fzf)")
    ap.add_argument("--engine", action="append", default=[], metavar="MODULE:CLASS", help="a plug-in engine")
    ap.add_argument("--cli", action="store_true", help="also run amr-cli (amr search per query; slow)")
    ap.add_argument(
        "--weights",
        action="append",
        default=[],
        metavar="NAME=VALUE,...",
        help="also run amr with these ranking weights (score.Weights), e.g. length=0 or saturation=1.2",
    )
    ap.add_argument("--show-misses", action="store_true", help="print each missed query with the top 3")
    ap.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    _set = args.set
    facts = facts_module()
    CLASSES, FACTS, QUERIES = facts.CLASSES, facts.FACTS, facts.QUERIES

    n = 2000 if args.quick else args.entries
    classes = [c for c in CLASSES if not args.classes or c in args.classes.split(",")]
    unknown = set(filter(None, args.classes.split(","))) - set(CLASSES)
    if unknown:
        raise SystemExit(f"unknown classes {sorted(unknown)}; known: {', '.join(CLASSES)}")
    names = [e for e in args.engines.split(",") if e]
    if args.cli and "amr-cli" not in names:
        names.append("amr-cli")
    engines: list[Engine] = []
    for name in names:
        if name not in BUILTIN:
            raise SystemExit(f"unknown engine {name!r}; built in: {', '.join(BUILTIN)}")
        engines.append(BUILTIN[name]())
    engines += [WeightedAmrEngine(spec) for spec in args.weights]
    engines += [load_engine(spec) for spec in args.engine]

    t = time.perf_counter()
    corpus, cached = load_corpus(n, args.seed)
    print(
        f"corpus: {len(corpus.entries):,} entries in {len({(r, p) for r, p, _l, _t in corpus.entries}):,} files "
        f"({len(FACTS)} facts, {sum(f.deleted for f in FACTS)} of them deleted, {len(QUERIES)} queries; "
        f"{len(corpus.removed):,} deleted entries in the history), "
        f"{'from the cache' if cached else 'generated'} in {time.perf_counter() - t:.1f} s"
    )
    results: list[Result] = []
    for engine in engines:
        res = run_engine(engine, corpus, classes)
        results.append(res)
        per_q = res.query_s / res.queries * 1000 if res.queries else 0.0
        past = f" (history {res.history_s:.2f} s)" if res.history_s is not None else ", no history search"
        print(f"{res.name}: build {res.build_s:.2f} s{past}, {res.queries} queries, {per_q:.1f} ms per query")
    print()
    weighted = [
        r for r, e in zip(results, engines, strict=True) if isinstance(e, WeightedAmrEngine) and e.name != "amr"
    ]
    print(table([r for r in results if r not in weighted], classes))
    if weighted:
        print()
        print(weights_table([r for r in results if r.name == "amr"] + weighted, classes))
    if args.json:
        Path(args.json).write_text(json.dumps(as_json(results, n, classes), indent=2) + "\n", encoding="utf-8")
    if args.show_misses:
        for res in results:
            print(f"\n### {res.name}: {len(res.misses)} queries without a right answer in the top {LIMIT}")
            for cls, query, top in res.misses:
                print(f"- [{cls}] {query!r}")
                for loc in top:
                    print(f"    {loc[0]}/{loc[1]}:{loc[2]}  {corpus.texts.get(loc, '?')[:110]}")
                if not top:
                    print("    (no results)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
