"""Ranked fuzzy search over the entries and file names of several repos, in memory. Pure.

Modules, bottom up: ``text`` (folding, tokens, queries, bitsets, highlights), ``items`` (what is
indexed and what a search returns), ``store`` (slots and postings), ``rank`` (atoms, typos,
scores), ``index`` (``SearchIndex`` and ``SearchSession``; its docstring has the design).

Names load on first use (``core.lazy``): importing one module of the package loads only it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amr_tui.core.lazy import face

if TYPE_CHECKING:  # the names as a type checker reads them; at run time the map below is used
    from amr_tui.core.search.index import SearchIndex, SearchSession
    from amr_tui.core.search.items import SearchHit, SearchItem
    from amr_tui.core.search.text import fold, highlight_positions, tokens_of

__all__ = [
    "SearchHit",
    "SearchIndex",
    "SearchItem",
    "SearchSession",
    "fold",
    "highlight_positions",
    "tokens_of",
]

__getattr__, __dir__ = face(
    __name__,
    {
        "index": ("SearchIndex", "SearchSession"),
        "items": ("SearchHit", "SearchItem"),
        "text": ("fold", "highlight_positions", "tokens_of"),
    },
)
