"""Link targets ranked as the finder ranks file names: what ``[[`` completion lists.

``TargetIndex`` holds one repo's files (``core.format.complete.link_targets``) in a
``SearchIndex`` of their paths (and titles, where the format has them), so ``[[back`` ranks
``backend/redis`` as ``/back`` ranks it in the finder: prefixes, typos, word starts, the file's
own name above its folder. A path typed with a ``/`` lists the targets it starts first. A heading after ``#`` is ranked the same way among the file's headings.
Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from amr_tui.core.format.complete import LinkTarget, query_words
from amr_tui.core.order import natural_key
from amr_tui.core.search.index import SearchIndex

__all__ = ["TargetIndex", "rank_headings"]


class TargetIndex:
    """One repo's link targets, ranked for what is typed after ``[[``."""

    def __init__(self, repo: str, targets: Sequence[LinkTarget]) -> None:
        self.repo = repo
        self.by_path = {t.path: t for t in targets}
        self._natural = sorted(targets, key=lambda t: (natural_key(t.label), t.label))
        self._index = SearchIndex()
        self._index.set_files(repo, [(t.path, [(1, t.title)] if t.title else []) for t in targets])

    def __len__(self) -> int:
        return len(self.by_path)

    def search(self, typed: str, limit: int = 40) -> list[LinkTarget]:
        """The best targets for ``typed``, best first; nothing typed: every target in natural order."""
        words = query_words(typed)
        if not words:
            return self._natural[:limit]
        # What starts with the path as typed comes first ("infra/a" lists infra/api-gateway,
        # not infra.md, whose words hold "infra" and "a" too), in natural order; then the ranked rest.
        start = typed.strip().casefold()
        out = [t for t in self._natural if t.text.casefold().startswith(start)][:limit] if "/" in start else []
        seen = {t.path for t in out}
        for hit in self._index.search(words, limit * 2):
            path = hit.item.path
            if path in seen or hit.missing:  # a target must hold every word typed
                continue
            seen.add(path)
            out.append(self.by_path[path])
            if len(out) >= limit:
                break
        return out


def rank_headings(headings: Sequence[str], typed: str, limit: int = 40) -> list[str]:
    """A file's headings for what is typed after ``#``, ranked as the finder ranks entries
    (nothing typed: in file order)."""
    unique = list(dict.fromkeys(h for h in headings if h.strip()))
    words = query_words(typed)
    if not words:
        return unique[:limit]
    index = SearchIndex()
    index.set_files("", [("", list(enumerate(unique, 1)))])
    return [unique[h.item.line - 1] for h in index.search(words, limit) if h.item.kind == "entry" and not h.missing]
