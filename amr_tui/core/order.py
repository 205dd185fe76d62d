"""The order people count in: names sorted naturally (``n2`` before ``n10``), for the file tree,
the link graph and ``[[`` completion. Pure."""

from __future__ import annotations

import functools
import re


@functools.lru_cache(maxsize=1 << 16)
def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort ``name`` the way people count: runs of digits by their value, the rest without case
    (``n2`` before ``n10``, ``n10`` before ``n1028``; ``Alpha`` beside ``alpha``). Kept per name:
    a tree rebuilt sorts the same names again."""
    parts = _DIGITS.split(name)
    return tuple((0, int(p)) if i % 2 else (1, p.casefold()) for i, p in enumerate(parts) if p)


_DIGITS = re.compile(r"([0-9]+)")


NaturalKey = tuple[tuple[int, int | str], ...]
"""``natural_key``'s: runs of digits as numbers, the rest folded."""
TreeKey = tuple[NaturalKey, NaturalKey, str]
"""``tree_key``'s: the name before its extension, the extension, the name."""


def tree_key(name: str) -> TreeKey:
    """How the file tree orders the names in one folder (a folder's name ends in ``/``): naturally
    (``natural_key``), the name before its extension first (``redis.md`` before ``redis-2.md``),
    then by the name itself, so every order is total. The first frame's rows
    (``screens.main.peek``) are picked in the same order."""
    stem, dot, suffix = name.rstrip("/").rpartition(".")
    if not dot or not stem:
        stem, suffix = name.rstrip("/"), ""
    return natural_key(stem), natural_key(suffix), name
