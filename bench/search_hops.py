"""How often one finder keystroke switches modules inside ``amr_tui/core/search`` (issue 43, point 8).

    .venv/bin/python bench/search_hops.py [-v]

A keystroke: ``SearchSession.search`` of "deploy on frid" after "deploy on fri" (the box
narrows), over a 3,000-entry index, without and with a metadata filter. Traced with
``sys.setprofile``; three counts of module switches:

* every function's first run, in order (what a reader follows), consecutive repeats merged;
* the same with the shared helpers left out (bitsets, folding, the posting store, the
  abbreviations, the joined texts): the stages alone;
* every stage-level call in order (each call, not only the first), repeats merged.

``-v`` also lists each distinct cross-module call (caller -> callee). Run it on an older checkout
with ``PYTHONPATH=that/checkout`` to compare.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Mapping, Sequence
from types import FrameType
from typing import Any

from amr_tui.core.search.index import SearchIndex, SearchSession

PKG = "amr_tui/core/search/"
LEAVES = (
    "bits_of",
    "ids_of",
    "fold",
    "tokens_of",
    "is_subsequence",
    "subseq_pattern",
    "forms_of",
    "phrase_form_pattern",
    "_numpy",
)


class Context:
    """A search context: every odd line has ``source: wiki``."""

    keys = frozenset({"source"})

    def metadata(self, item: Any) -> Mapping[str, Sequence[str]] | None:
        return {"source": ["wiki"]} if item.line % 2 else {}

    def file_scope(self, repo: str, path: str) -> str:
        return ""

    def fact(self, item: Any) -> bool:
        return True

    def broken(self, item: Any) -> bool:
        return False

    def orphan(self, repo: str, path: str) -> bool:
        return False

    def stale(self, item: Any) -> bool:
        return False

    def reads(self, item: Any) -> tuple[int, str | None] | None:
        return None

    def wrote(self, item: Any, name: str) -> bool:
        return False

    def file_tags(self, repo: str, path: str) -> Sequence[str]:
        return ()


def index() -> SearchIndex:
    rng = random.Random(3)
    words = (
        "deploy friday release pipeline canary rollback redis cache grafana alert oncall network vpn proxy "
        "registry kubernetes database environment"
    ).split()
    idx = SearchIndex()
    for f in range(60):
        idx.set_file("r", f"f{f}.md", [(i + 1, " ".join(rng.choice(words) for _ in range(8))) for i in range(50)])
    idx.set_file("r", "x.md", [(1, "we deploy on friday afternoons")])
    return idx


def leaf(module: str, qualname: str) -> bool:
    """A shared helper under every stage."""
    return (
        module in ("store", "bits", "abbrev", "items")
        or qualname.split(".")[0] in LEAVES
        or qualname.startswith(("Joined", "PostingStore"))
    )


def trace(fn: Callable[[], object]) -> tuple[list[tuple[str, str]], list[str], list[str], list[str]]:
    edges: list[tuple[str, str]] = []
    path: list[str] = []
    stages: list[str] = []
    every: list[str] = []
    seen_edges: set[tuple[str, str]] = set()
    seen_functions: set[tuple[str, str]] = set()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event != "call":
            return
        code = frame.f_code
        if PKG not in code.co_filename:
            return
        callee = code.co_filename.split(PKG)[1][:-3]
        name = code.co_qualname
        if (callee, name) not in seen_functions:
            seen_functions.add((callee, name))
            if not path or path[-1] != callee:
                path.append(callee)
            if not leaf(callee, name) and (not stages or stages[-1] != callee):
                stages.append(callee)
        if not leaf(callee, name) and not name.endswith(("<genexpr>", "<listcomp>", "<lambda>")):
            if not every or every[-1] != callee:
                every.append(callee)
        back = frame.f_back
        if back is None or PKG not in back.f_code.co_filename:
            return
        caller = back.f_code.co_filename.split(PKG)[1][:-3]
        if caller != callee:
            edge = (f"{caller}.{back.f_code.co_qualname}", f"{callee}.{name}")
            if edge not in seen_edges:
                seen_edges.add(edge)
                edges.append(edge)

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return edges, path, stages, every


def main() -> int:
    idx = index()
    for label, before, query in (
        ("words", "deploy on fri", "deploy on frid"),
        ("words and a filter", "source:wiki deploy on fri", "source:wiki deploy on frid"),
    ):
        session = SearchSession(idx)
        session.search(before, 50, context=Context())
        edges, path, stages, every = trace(lambda: session.search(query, 50, context=Context()))  # noqa: B023
        print(f"{label}: {len(edges)} distinct cross-module calls")
        print(f"  first runs ({len(path) - 1} switches): {' > '.join(path)}")
        print(f"  stages, shared helpers left out ({len(stages) - 1} switches): {' > '.join(stages)}")
        print(f"  every stage-level call ({len(every) - 1} switches): {' > '.join(every)}")
        if "-v" in sys.argv:
            for caller, callee in edges:
                print(f"    {caller} -> {callee}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
