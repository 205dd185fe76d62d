"""Stage 2 of a keystroke: which items may answer, by the query's filters (see ``index.py``). Pure.

``passing``: the cheap filters (``path:``, ``repo:``), answered from the index's own files as
bitsets before any word is matched. ``Keep``: the costly ones (phrases, metadata, ``is:``,
``tag:``, ``by:``...), asked of each candidate the words found (``candidates.gather`` calls it
on each tier), once per slot; what the index cannot know it asks a ``SearchContext`` (the app,
MCP and ``amr search`` give the one of ``services.search.context``).
"""

from __future__ import annotations

import datetime as _dt
import fnmatch
from collections.abc import Callable, Container, Mapping, Sequence
from typing import Protocol

from amr_tui.core.format.tags import item_tags, tag_matches
from amr_tui.core.scope import matches as scope_matches
from amr_tui.core.search.bits import bits_of, ids_of
from amr_tui.core.search.items import SearchItem
from amr_tui.core.search.query import AGO, Filter, Parsed
from amr_tui.core.search.store import PostingStore


def passing(
    filters: Sequence[Filter], files: Mapping[tuple[str, str], list[int]], live: Callable[[list[str]], int]
) -> int:
    """The slots that pass the path: and repo: filters (all slots when there are none), from the
    slots of each file (``files``: (repo, path) -> its slots) and of each repo (``live``)."""
    bits = -1
    for f in filters:
        if f.key == "repo":
            mask = 0
            for name in {k[0] for k in files}:
                if f.value in name.lower():
                    mask |= live([name])
            bits &= mask
        elif f.key == "path":
            mask = 0
            for (_repo, path), slots in files.items():
                low = path.lower()
                if (fnmatch.fnmatchcase(low, f.value) if f.op == "glob" else f.value in low) and slots:
                    mask |= bits_of(slots)
            bits &= mask
    return bits


class SearchContext(Protocol):
    """What the index cannot know itself, for the filters that need it (the session or the
    command line answers from the parsed files and the lint findings)."""

    @property
    def keys(self) -> Container[str]:
        """Metadata keys in use, beyond ``source`` and ``added`` (for KEY:VALUE filters)."""
        ...

    def metadata(self, item: SearchItem) -> Mapping[str, Sequence[str]] | None:
        """The entry's metadata: lower-case key -> values; None when unknown."""
        ...

    def file_scope(self, repo: str, path: str) -> str:
        """The ``scope`` the file's front matter gives its entries ("" for none)."""
        ...

    def fact(self, item: SearchItem) -> bool:
        """The line is a fact (an entry, or running text where a format writes prose), not a
        heading or a front-matter field: filters judge facts only."""
        ...

    def broken(self, item: SearchItem) -> bool:
        """The entry holds a [[link]] that resolves to no file."""
        ...

    def orphan(self, repo: str, path: str) -> bool:
        """Nothing links to the file (it is not reachable from MEMORY.md)."""
        ...

    def stale(self, item: SearchItem) -> bool:
        """The entry's evidence no longer holds in the code it cites (``amr verify``)."""
        ...

    def reads(self, item: SearchItem) -> tuple[int, str | None] | None:
        """How often agents read the entry through amr mcp and when last (ISO time); None when
        unknown (amr mcp never served its repo)."""
        ...

    def wrote(self, item: SearchItem, name: str) -> bool:
        """``name`` (folded) is among the writers of the commit that last wrote the entry's line."""
        ...

    def file_tags(self, repo: str, path: str) -> Sequence[str]:
        """The tags the file's front matter gives every entry of it (``core.format.tags``)."""
        ...


def needs_context(filters: Sequence[Filter]) -> bool:
    return any(f.key not in ("path", "repo") for f in filters)


class Keep:
    """The expensive conditions of a query (phrases, metadata, is:), applied to a bitset."""

    def __init__(self, index: PostingStore, parsed: Parsed, context: SearchContext | None) -> None:
        self._index = index
        self._phrases = parsed.phrases
        # ``by:`` last: it may need a blame of the file, so the cheaper filters cut the candidates first
        self._filters = sorted(
            (f for f in parsed.filters if f.key not in ("path", "repo")), key=lambda f: f.key == "by"
        )
        self._context = context
        self._memo: dict[int, bool] = {}

    def bits(self, bits: int) -> int:
        items, lower = self._index.items, self._index.lower
        memo = self._memo
        keep = []
        for slot in ids_of(bits):
            ok = memo.get(slot)
            if ok is None:
                item, low = items[slot], lower[slot]
                assert item is not None and low is not None
                ok = memo[slot] = self._passes(item, low)
            if ok:
                keep.append(slot)
        return bits_of(keep)

    def _passes(self, item: SearchItem, low: str) -> bool:
        if any(p not in low for p in self._phrases):
            return False
        if not self._filters:
            return True
        if item.kind != "entry" or self._context is None:
            return False
        ctx = self._context
        if not ctx.fact(item):  # a heading or a front-matter field: no fact to filter
            return False
        meta: Mapping[str, Sequence[str]] | None = None
        for f in self._filters:
            if f.key == "tag":
                if meta is None:
                    meta = ctx.metadata(item) or {}
                tags = item_tags(item.text, meta, ctx.file_tags(item.repo, item.path))
                if not any(tag_matches(t, f.value) for t in tags):
                    return False
                continue
            if f.key == "is":
                if f.value == "broken" and not ctx.broken(item):
                    return False
                if f.value == "orphan" and not ctx.orphan(item.repo, item.path):
                    return False
                if f.value == "stale" and not ctx.stale(item):
                    return False
                if f.value == "unread":
                    got = ctx.reads(item)
                    if got is None or got[0] > 0:
                        return False
                continue
            if f.key == "read":
                got = ctx.reads(item)
                if got is None or not _when_passes(got[1], f.op, f.value):
                    return False
                continue
            if meta is None:
                meta = ctx.metadata(item) or {}
            if f.key == "has":
                if not meta.get(f.value):
                    return False
            elif f.key == "no":
                if meta.get(f.value):
                    return False
            elif f.key == "added":
                values = meta.get("added") or ()
                if not any(_date_passes(v, f.op, _day(f.value)) for v in values):
                    return False
            elif f.key == "verified":
                if not _when_passes(next(iter(meta.get("verified") or ()), None), f.op, f.value):
                    return False
            elif f.key == "scope":  # its own key, else its file's front matter
                values = meta.get("scope") or [ctx.file_scope(item.repo, item.path)]
                if not any(v and scope_matches(f.value, v) for v in values):
                    return False
            elif f.key == "by":  # its own by: key, else who wrote its line (the context blames)
                said = meta.get("by")
                if said:
                    if not any(f.value in " ".join(v.lower().split()) for v in said):
                        return False
                elif not ctx.wrote(item, f.value):
                    return False
            else:
                values = meta.get(f.key) or ()
                if not any(f.value in " ".join(v.lower().split()) for v in values):
                    return False
        return True


def _day(value: str) -> str:
    """A filter's date: as written, or ``90d`` (``w``, ``m``, ``y``) as that long before today."""
    m = AGO.fullmatch(value)
    if m is None:
        return value
    days = int(m.group(1)) * {"d": 1, "w": 7, "m": 30, "y": 365}[m.group(2)]
    return (_dt.date.today() - _dt.timedelta(days=days)).isoformat()


def _when_passes(value: str | None, op: str, want: str) -> bool:
    """A date filter on a value an entry may lack (``verified``, the last read): none is older
    than any date, so it passes ``<`` and ``<=`` only."""
    if not value:
        return op in ("<", "<=")
    return _date_passes(value, op, _day(want))


def _date_passes(value: str, op: str, want: str) -> bool:
    value = value.strip()[: len(want)] if op == "=" else value.strip()[:10]
    if op == "=":
        return value == want
    cut = want if len(want) == 10 else want  # a month or a year compares as its prefix
    head = value[: len(cut)]
    if op == ">=":
        return head >= cut
    if op == ">":
        return head > cut
    if op == "<=":
        return head <= cut
    return head < cut
