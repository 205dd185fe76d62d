"""The search index's items as columns: how ``amr search``'s cache stores them.

A cached search needs the postings (which slots hold which token) in full, but the items
themselves only for the few hundred slots it ranks. So the cache keeps items as columns (the
texts and folded texts as one string each with offsets, repos, paths, lines and kinds as
arrays), and ``LazyItems``/``LazyLower`` hand out the item of a slot when the index asks
for it. Loading is then a handful of big objects instead of 300,000 small ones.

The index changes them as it changes lists (a slot set, a slot appended) when files are
added, changed or removed after the load; what it puts there is kept beside the columns.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import accumulate
from operator import attrgetter
from typing import Any, cast

from amr_tui.core.search.index import SearchIndex, SearchItem

KINDS = ("entry", "file")


_DEAD = SearchItem("", "", 0, "", "entry")  # what a freed slot is written as (with its ``dead`` flag)


def to_columns(items: Sequence[SearchItem | None], lower: Sequence[str | None]) -> dict[str, Any]:
    """Columns of the index's ``_items`` and ``_lower`` (slot order; freed slots kept as such).
    Built with ``map`` over the whole sequence: a second at a million items, not five."""
    if isinstance(items, LazyItems) and isinstance(lower, LazyLower) and not items._set and not lower._set:
        return items._c.columns()  # loaded and not changed since: the columns it was loaded from
    every = [_DEAD if it is None else it for it in items]
    dead = bytes(it is None for it in items)
    lows = ["" if low is None else low for low in lower]
    texts = list(map(attrgetter("text"), every))
    repos, repo_ix = _numbered(list(map(attrgetter("repo"), every)))
    paths, path_ix = _numbered(list(map(attrgetter("path"), every)))
    kind_ix = {k: i for i, k in enumerate(KINDS)}
    return {
        "n": len(every),
        "repos": repos,
        "paths": paths,
        "repo_ix": repo_ix.tobytes(),
        "path_ix": path_ix.tobytes(),
        "lines": array("I", map(attrgetter("line"), every)).tobytes(),
        "kinds": bytes(map(kind_ix.__getitem__, map(attrgetter("kind"), every))),
        "dead": dead,
        "text": "".join(texts),
        "text_off": _offsets(texts),
        "low": "".join(lows),
        "low_off": _offsets(lows),
    }


def _numbered(values: list[str]) -> tuple[list[str], array[int]]:
    """The distinct values in first-seen order, and each value's number in that list."""
    distinct = list(dict.fromkeys(values))
    number = {v: i for i, v in enumerate(distinct)}
    return distinct, array("I", map(number.__getitem__, values))


def _offsets(strings: list[str]) -> bytes:
    return array("I", accumulate(map(len, strings), initial=0)).tobytes()


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

    def columns(self) -> dict[str, Any]:
        """What ``to_columns`` made these from."""
        return {
            "n": self.n,
            "repos": self.repos,
            "paths": self.paths,
            "repo_ix": self.repo_ix.tobytes(),
            "path_ix": self.path_ix.tobytes(),
            "lines": self.lines.tobytes(),
            "kinds": self.kinds,
            "dead": self.dead,
            "text": self.text,
            "text_off": self.text_off.tobytes(),
            "low": self.low,
            "low_off": self.low_off.tobytes(),
        }


class _Lazy:
    """A slot sequence read from columns, changed the way ``PostingStore`` changes its lists
    (a slot set, a slot appended): what is set or appended is kept beside the columns.
    ``__getitem__`` is on every keystroke's path (thousands of slots): it is written out in
    each subclass rather than shared."""

    __slots__ = ("_c", "_n", "_set")

    def __init__(self, columns: _Columns) -> None:
        self._c = columns
        self._n = columns.n
        self._set: dict[int, Any] = {}  # slot -> what was put there since the load

    def __len__(self) -> int:
        return self._n

    def _slot(self, slot: int) -> int:
        if slot < 0:
            slot += self._n
        if not 0 <= slot < self._n:
            raise IndexError(slot)
        return slot

    def __setitem__(self, slot: int, value: Any) -> None:
        self._set[self._slot(slot)] = value

    def append(self, value: Any) -> None:
        self._set[self._n] = value
        self._n += 1


class LazyItems(_Lazy):
    """``index._items`` read from columns: the SearchItem of a slot, made when asked for."""

    __slots__ = ()

    def __getitem__(self, slot: int) -> SearchItem | None:
        c = self._c
        if self._set or not 0 <= slot < c.n:
            slot = self._slot(slot)
            if slot in self._set:
                return cast(SearchItem | None, self._set[slot])
        if c.dead[slot]:
            return None
        return SearchItem(
            c.repos[c.repo_ix[slot]],
            c.paths[c.path_ix[slot]],
            c.lines[slot],
            c.text[c.text_off[slot] : c.text_off[slot + 1]],
            KINDS[c.kinds[slot]],
        )


class LazyLower(_Lazy):
    """``index._lower`` read from columns."""

    __slots__ = ()

    def __getitem__(self, slot: int) -> str | None:
        c = self._c
        if self._set or not 0 <= slot < c.n:
            slot = self._slot(slot)
            if slot in self._set:
                return cast(str | None, self._set[slot])
        if c.dead[slot]:
            return None
        off = c.low_off
        return c.low[off[slot] : off[slot + 1]]

    def take(self, ids: list[int]) -> list[str]:
        """The folded texts of the live slots ``ids`` (``PostingStore.lower_of``): sliced in C."""
        if self._set or (ids and not 0 <= max(ids) < self._c.n):
            return [cast(str, self[i]) for i in ids]
        off = self._c.low_off
        ends = map(off.__getitem__, map((1).__add__, ids))
        return list(map(self._c.low.__getitem__, map(slice, map(off.__getitem__, ids), ends)))


def attach(index: SearchIndex, columns: dict[str, Any]) -> None:
    """Give a loaded index its items from ``columns`` (ValueError when they do not fit)."""
    c = _Columns(columns)
    index._items, index._lower = LazyItems(c), LazyLower(c)  # type: ignore[assignment]
