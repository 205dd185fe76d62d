"""rapidfuzz, loaded on first use: the one place amr imports it.

Importing rapidfuzz costs `amr` start-up time (about 13 ms) that a command which never compares
texts should not pay (`amr --help`, `amr parse`, a warm `amr lint`, a filter-only search). So every
module that scores texts imports this module at its top and names ``fuzzy.fuzz``,
``fuzzy.process``, ``fuzzy.Levenshtein`` or ``fuzzy.OSA`` where it scores: the first such name
read imports rapidfuzz (PEP 562's module ``__getattr__``), and the names are plain module
attributes from then on. Type checkers see the real modules. Pure: no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rapidfuzz import fuzz, process
    from rapidfuzz.distance import OSA, Levenshtein
else:
    _NAMES = frozenset(("fuzz", "process", "Levenshtein", "OSA"))

    def __getattr__(name: str) -> Any:
        if name not in _NAMES:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from rapidfuzz import fuzz, process  # on first use: rapidfuzz costs `amr` start-up time
        from rapidfuzz.distance import OSA, Levenshtein  # with fuzz and process, on first use

        globals().update(fuzz=fuzz, process=process, Levenshtein=Levenshtein, OSA=OSA)
        return globals()[name]


__all__ = ["OSA", "Levenshtein", "fuzz", "process"]
