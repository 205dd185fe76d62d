"""The search index's items as columns: how ``amr search``'s cache stores them.

A cached search needs the postings (which slots hold which token) in full, but the items
themselves only for the few hundred slots it ranks. So the cache keeps items as columns (the
texts and folded texts as one string each with offsets, repos, paths, lines and kinds as
arrays), and ``LazyItems``/``LazyLower`` hand out the item of a slot when the index asks
for it. Loading is then a handful of big objects instead of 300,000 small ones.

The lazy sequences are read-only: before the index is changed (files added, changed or
removed since the cache was written) ``materialize`` turns them back into lists.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any, cast

from amr_tui.core.search.index import SearchIndex, SearchItem

KINDS = ("entry", "file")


def to_columns(items: Sequence[SearchItem | None], lower: Sequence[str | None]) -> dict[str, Any]:
    """Columns of the index's ``_items`` and ``_lower`` (slot order; freed slots kept as such)."""
    repos: dict[str, int] = {}
    paths: dict[str, int] = {}
    repo_ix, path_ix, lines, kinds = array("I"), array("I"), array("I"), array("B")
    dead = bytearray(len(items))
    texts: list[str] = []
    lows: list[str] = []
    for slot, item in enumerate(items):
        if item is None:
            dead[slot] = 1
            repo_ix.append(0)
            path_ix.append(0)
            lines.append(0)
            kinds.append(0)
            texts.append("")
            lows.append("")
            continue
        repo_ix.append(repos.setdefault(item.repo, len(repos)))
        path_ix.append(paths.setdefault(item.path, len(paths)))
        lines.append(item.line)
        kinds.append(KINDS.index(item.kind))
        texts.append(item.text)
        lows.append(cast(str, lower[slot]))  # a live slot's folded text
    return {
        "n": len(items),
        "repos": list(repos),
        "paths": list(paths),
        "repo_ix": repo_ix.tobytes(),
        "path_ix": path_ix.tobytes(),
        "lines": lines.tobytes(),
        "kinds": bytes(kinds),
        "dead": bytes(dead),
        "text": "".join(texts),
        "text_off": _offsets(texts),
        "low": "".join(lows),
        "low_off": _offsets(lows),
    }


def _offsets(strings: list[str]) -> bytes:
    out = array("I", [0])
    at = 0
    for s in strings:
        at += len(s)
        out.append(at)
    return out.tobytes()


def _array(code: str, data: bytes) -> array[int]:
    out = array(code)
    out.frombytes(data)
    return out


class _Columns:
    __slots__ = (
        "n",
        "repos",
        "paths",
        "repo_ix",
        "path_ix",
        "lines",
        "kinds",
        "dead",
        "text",
        "text_off",
        "low",
        "low_off",
    )

    def __init__(self, c: dict[str, Any]) -> None:
        self.n = int(c["n"])
        self.repos, self.paths = list(c["repos"]), list(c["paths"])
        self.repo_ix, self.path_ix = _array("I", c["repo_ix"]), _array("I", c["path_ix"])
        self.lines, self.kinds, self.dead = _array("I", c["lines"]), bytes(c["kinds"]), bytes(c["dead"])
        self.text, self.text_off = str(c["text"]), _array("I", c["text_off"])
        self.low, self.low_off = str(c["low"]), _array("I", c["low_off"])
        sizes = {len(self.repo_ix), len(self.path_ix), len(self.lines), len(self.kinds), len(self.dead)}
        if sizes != {self.n} or len(self.text_off) != self.n + 1 or len(self.low_off) != self.n + 1:
            raise ValueError("search cache columns do not line up")
        if self.text_off[-1] != len(self.text) or self.low_off[-1] != len(self.low):
            raise ValueError("search cache texts do not line up")


class LazyItems:
    """``index._items`` read from columns: the SearchItem of a slot, made when asked for."""

    __slots__ = ("_c",)

    def __init__(self, columns: _Columns) -> None:
        self._c = columns

    def __len__(self) -> int:
        return self._c.n

    def __getitem__(self, slot: int) -> SearchItem | None:
        c = self._c
        if c.dead[slot]:
            return None
        return SearchItem(
            c.repos[c.repo_ix[slot]],
            c.paths[c.path_ix[slot]],
            c.lines[slot],
            c.text[c.text_off[slot] : c.text_off[slot + 1]],
            KINDS[c.kinds[slot]],
        )


class LazyLower:
    """``index._lower`` read from columns."""

    __slots__ = ("_c",)

    def __init__(self, columns: _Columns) -> None:
        self._c = columns

    def __len__(self) -> int:
        return self._c.n

    def __getitem__(self, slot: int) -> str | None:
        c = self._c
        if c.dead[slot]:
            return None
        return c.low[c.low_off[slot] : c.low_off[slot + 1]]


def attach(index: SearchIndex, columns: dict[str, Any]) -> None:
    """Give a loaded index its items from ``columns`` (ValueError when they do not fit)."""
    c = _Columns(columns)
    index._items, index._lower = LazyItems(c), LazyLower(c)  # type: ignore[assignment]


def materialize(index: SearchIndex) -> None:
    """Lists again (before the index is changed); a no-op when they are lists already."""
    items, lower = index._items, index._lower
    if isinstance(items, LazyItems) and isinstance(lower, LazyLower):
        index._items = [items[i] for i in range(len(items))]
        index._lower = [
            None if it is None else (it.text if lower[i] == it.text else lower[i]) for i, it in enumerate(index._items)
        ]
