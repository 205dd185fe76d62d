"""What the search index holds (``SearchItem``) and what a search returns (``SearchHit``).

The bottom of the search package: the posting store, the ranker and the index all use these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


class SearchItem(NamedTuple):
    """One searchable thing. A named tuple: 100,000 of them are cheap to build and to load
    from ``amr search``'s cache (a pickled dataclass was 150 ms of its start-up)."""

    repo: str  # display name of the mounted repo
    path: str  # path inside the repo, posix
    line: int  # 1-based line of the entry; 0 for a file-name item
    text: str  # entry text without metadata (what is matched); the path for a file item
    kind: str  # "entry" or "file"


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One result of a search."""

    item: SearchItem
    score: float  # 0..100, higher is better
    positions: tuple[int, ...]  # indices into item.text of matched characters
    missing: tuple[str, ...] = ()  # a partial match: the query words it does not hold
