"""Entry-level differences between two versions of a memory repo (pure, deterministic).

``diff_entries(old, new)`` takes two versions (``path -> Document`` or ``path -> bytes``) and
classifies every entry change:

* ``merged``: two or more entries became one (A + B -> C). ``sources_kept`` says whether C's
  sources include every source of A and B; ``lost_sources`` lists the ones that went missing.
* ``reworded``: the same entry with new text (``similarity.REWORD_THRESHOLD``).
* ``moved``: the same (or reworded) entry in another file: ``old[0].path`` -> ``new.path``.
* ``metadata``: only the metadata changed.
* ``dropped`` / ``new``: an entry with no counterpart; a new entry may be ``inferred_from``
  entries that share its sources (the dreaming "lesson no single session stated").
* ``resurrected``: a new entry that matches a forgotten fact (a tombstone or an entry deleted
  earlier in history), handed in as ``forgotten`` or added later by ``mark_forgotten``; it has
  the id it would have as ``new``.

Passes, in order (each only sees what the previous left unpaired): identical lines in the same
file; equal normalised text anywhere (moves, metadata edits); merges, recognised by sources (a
new entry whose sources include those of two or more old entries that it contains by
``MERGE_THRESHOLD``); fuzzy rewording (best pairs first, same file preferred); leftover old
entries that duplicate a surviving entry (merged into it); then dropped / new / resurrected.
Index lines (entries that are nothing but ``[[links]]``) are only paired exactly.

``core.diff.align`` lines two versions of a file up side by side and counts changes per file;
``core.diff.text`` prints the summary.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Protocol

from amr_tui.core.diff import similarity as sim
from amr_tui.core.format.links import find_links
from amr_tui.core.format.metadata import parse_metadata
from amr_tui.core.format.parser import Document, parse
from amr_tui.core.model import WHITESPACE
from amr_tui.core.paths import is_markdown, is_tombstone_path

INFERRED_THRESHOLD = 50.0  # token_set_ratio between a new entry and one that shares its source


class ChangeKind(str, Enum):
    UNCHANGED = "unchanged"
    METADATA = "metadata"
    REWORDED = "reworded"
    MOVED = "moved"
    MERGED = "merged"
    DROPPED = "dropped"
    NEW = "new"
    RESURRECTED = "resurrected"


class ForgottenMatcher(Protocol):
    def match(self, text: str) -> str | None:
        """A description of the forgotten fact ``text`` matches, or None."""


@dataclass(frozen=True, slots=True)
class EntryRef:
    path: str
    line: int
    raw: str  # the whole line as written
    text: str  # the entry text (no marker, no metadata)
    key: str  # normalised text
    sources: tuple[str, ...]
    links_only: bool  # nothing but [[links]]: an Index line
    meta: str = ""  # the metadata brackets as written

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class EntryChange:
    id: str
    kind: ChangeKind
    old: tuple[EntryRef, ...]
    new: EntryRef | None
    score: float = 100.0
    reworded: bool = False  # the text changed (merged, moved, reworded)
    metadata: bool = False  # the metadata changed
    lost_sources: tuple[str, ...] = ()
    inferred_from: tuple[EntryRef, ...] = ()
    resurrects: str | None = None

    @property
    def sources_kept(self) -> bool:
        return not self.lost_sources

    @property
    def paths(self) -> tuple[str, ...]:
        seen: list[str] = []
        for ref in (*self.old, *((self.new,) if self.new else ())):
            if ref.path not in seen:
                seen.append(ref.path)
        return tuple(seen)

    @property
    def primary_path(self) -> str:
        return self.new.path if self.new else self.old[0].path

    @property
    def links_only(self) -> bool:
        refs = (*self.old, *((self.new,) if self.new else ()))
        return bool(refs) and all(r.links_only for r in refs)


@dataclass(slots=True)
class EntryDiff:
    changes: list[EntryChange]
    old_docs: dict[str, Document]
    new_docs: dict[str, Document]
    old_paths: set[str]
    new_paths: set[str]
    changed_paths: list[str]
    unchanged: list[EntryChange] = field(default_factory=list)

    def by_id(self, change_id: str) -> EntryChange | None:
        for change in self.changes:
            if change.id == change_id:
                return change
        return None


def _as_doc(path: str, value: Document | bytes) -> Document:
    return value if isinstance(value, Document) else parse(bytes(value), path)


def _as_bytes(value: Document | bytes | None) -> bytes | None:
    if value is None or isinstance(value, (bytes, bytearray)):
        return value
    return value.to_bytes()


def refs_of(doc: Document) -> list[EntryRef]:
    """The entries of a document as EntryRefs (tombstone files and empty entries left out)."""
    if is_tombstone_path(doc.path) or not is_markdown(doc.path):
        return []
    out: list[EntryRef] = []
    for entry in doc.entries:
        key = sim.normalise(entry.text)
        if not key:
            continue
        raw = doc.lines[entry.line - 1].text
        rest = entry.text
        for link in find_links(entry.text, 0):
            rest = rest.replace(link.raw, "")
        links_only = bool(entry.links) and not rest.replace("[[]]", "").strip(" \t,;.-")
        out.append(
            EntryRef(
                doc.path,
                entry.line,
                raw,
                entry.text,
                key,
                tuple(entry.meta("source")),
                links_only,
                raw[entry.meta_start :].strip(),
            )
        )
    return out


def _change_id(kind: ChangeKind, old: tuple[EntryRef, ...], new: EntryRef | None) -> str:
    # A resurrected entry is a new entry that matches a forgotten fact: it keeps the id it has
    # as "new", so ids do not depend on whether the history was consulted (mark_forgotten).
    if kind is ChangeKind.RESURRECTED:
        kind = ChangeKind.NEW
    h = hashlib.sha1(kind.value.encode())
    for ref in old:
        h.update(
            b"\0o" + ref.path.encode("utf-8", "surrogateescape") + b"\0" + ref.raw.encode("utf-8", "surrogateescape")
        )
    if new is not None:
        h.update(
            b"\0n" + new.path.encode("utf-8", "surrogateescape") + b"\0" + new.raw.encode("utf-8", "surrogateescape")
        )
    return "e" + h.hexdigest()[:8]


def _lost(old: tuple[EntryRef, ...], new: EntryRef) -> tuple[str, ...]:
    have = set(new.sources)
    lost: list[str] = []
    for ref in old:
        for s in ref.sources:
            if s not in have and s not in lost:
                lost.append(s)
    return tuple(lost)


def _pair_change(old: EntryRef, new: EntryRef, score: float = 100.0) -> EntryChange:
    reworded = old.text != new.text
    metadata = old.meta != new.meta
    if old.path != new.path:
        kind = ChangeKind.MOVED
    elif old.raw == new.raw:
        kind = ChangeKind.UNCHANGED
    elif reworded:
        kind = ChangeKind.REWORDED
    else:
        kind = ChangeKind.METADATA
    return EntryChange("", kind, (old,), new, score, reworded, metadata, _lost((old,), new))


def _merged(olds: tuple[EntryRef, ...], new: EntryRef, score: float) -> EntryChange:
    reworded = any(o.text != new.text for o in olds)
    metadata = any(o.meta != new.meta for o in olds)
    return EntryChange("", ChangeKind.MERGED, olds, new, score, reworded, metadata, _lost(olds, new))


def diff_entries(
    old: Mapping[str, Document | bytes],
    new: Mapping[str, Document | bytes],
    *,
    forgotten: ForgottenMatcher | None = None,
) -> EntryDiff:
    """Classify the entry changes from ``old`` to ``new`` (see the module docstring).

    Paths present in both with the same bytes are context: their entries are unchanged but can
    absorb a dropped duplicate (``merged``) or explain a new entry (``inferred_from``).
    """
    old_docs: dict[str, Document] = {}
    new_docs: dict[str, Document] = {}
    changed: list[str] = []
    context: list[EntryRef] = []
    for path in sorted(set(old) | set(new)):
        a, b = old.get(path), new.get(path)
        same = a is not None and b is not None and (a is b or _as_bytes(a) == _as_bytes(b))
        if a is not None:
            old_docs[path] = _as_doc(path, a)
        if b is not None:
            new_docs[path] = old_docs[path] if same else _as_doc(path, b)
        if same:
            context.extend(refs_of(new_docs[path]))
        else:
            changed.append(path)
    olds = [r for p in changed if p in old_docs for r in refs_of(old_docs[p])]
    news = [r for p in changed if p in new_docs for r in refs_of(new_docs[p])]
    pairs = _Pairing(olds, news)
    pairs.identical()
    pairs.exact()
    pairs.merges()
    pairs.fuzzy()
    pairs.duplicates(context)
    changes = pairs.finish(context)
    unchanged = [c for c in changes if c.kind is ChangeKind.UNCHANGED]
    real = [c for c in changes if c.kind is not ChangeKind.UNCHANGED]
    diff = EntryDiff(real, old_docs, new_docs, set(old), set(new), changed, unchanged)
    return mark_forgotten(diff, forgotten) if forgotten is not None else diff


def mark_forgotten(diff: EntryDiff, forgotten: ForgottenMatcher) -> EntryDiff:
    """``diff`` with every new entry that matches a forgotten fact marked ``resurrected`` (and
    the others ``new``). Ids do not change; ``diff`` itself is left as it was.

    ``diff_entries(old, new, forgotten=m)`` is ``mark_forgotten(diff_entries(old, new), m)``: the
    review shows the entry changes first and adds these marks when the history walk is done.
    """
    changes: list[EntryChange] = []
    for c in diff.changes:
        if c.kind in (ChangeKind.NEW, ChangeKind.RESURRECTED) and c.new is not None and not c.new.links_only:
            hit = forgotten.match(c.new.text)
            c = replace(c, kind=ChangeKind.RESURRECTED if hit else ChangeKind.NEW, resurrects=hit)
        changes.append(c)
    return replace(diff, changes=changes)


class _Pairing:
    """The mutable state of one diff: which old and new entries are still unpaired."""

    def __init__(self, olds: list[EntryRef], news: list[EntryRef]):
        self.olds = olds
        self.news = news
        self.free_old = set(range(len(olds)))
        self.free_new = set(range(len(news)))
        self.by_new: dict[int, EntryChange] = {}  # new index -> its change
        self.extra: list[EntryChange] = []  # merged into context entries

    def _take(self, i: int | None, j: int | None) -> None:
        if i is not None:
            self.free_old.discard(i)
        if j is not None:
            self.free_new.discard(j)

    def identical(self) -> None:
        by_line: dict[tuple[str, str], list[int]] = defaultdict(list)
        for j in sorted(self.free_new):
            by_line[(self.news[j].path, self.news[j].raw)].append(j)
        for i in sorted(self.free_old):
            o = self.olds[i]
            bucket = by_line.get((o.path, o.raw))
            if bucket:
                j = bucket.pop(0)
                self.by_new[j] = _pair_change(o, self.news[j])
                self._take(i, j)

    def exact(self) -> None:
        by_key: dict[str, list[int]] = defaultdict(list)
        for j in sorted(self.free_new):
            by_key[self.news[j].key].append(j)
        for same_path in (True, False):
            for i in sorted(self.free_old):
                o = self.olds[i]
                bucket = by_key.get(o.key, [])
                for j in bucket:
                    if j in self.free_new and (self.news[j].path == o.path) == same_path:
                        self.by_new[j] = _pair_change(o, self.news[j])
                        self._take(i, j)
                        bucket.remove(j)
                        break

    def merges(self) -> None:
        """A new entry whose sources cover two or more old entries that it contains."""
        for j, new in enumerate(self.news):
            if len(set(new.sources)) < 2 or new.links_only:
                continue
            have = set(new.sources)
            already = self.by_new.get(j)
            members = list(already.old) if already else []
            covered = {s for m in members for s in m.sources}
            picked: list[tuple[int, float]] = []
            for i in sorted(self.free_old):
                o = self.olds[i]
                if o.links_only or not o.sources or not set(o.sources) <= have:
                    continue
                if already and set(o.sources) <= covered:
                    continue  # the paired entry already explains these sources
                score = sim.contained_score(o.key, new.key)
                if score >= sim.MERGE_THRESHOLD:
                    picked.append((i, score))
            if len(members) + len(picked) < 2 or not picked:
                continue
            olds = tuple(members) + tuple(self.olds[i] for i, _ in picked)
            score = min(s for _, s in picked)
            self.by_new[j] = _merged(olds, new, score)
            for i, _ in picked:
                self._take(i, None)
            self._take(None, j)

    def fuzzy(self) -> None:
        oi = [i for i in sorted(self.free_old) if not self.olds[i].links_only]
        nj = [j for j in sorted(self.free_new) if not self.news[j].links_only]
        found = sim.best_pairs([self.olds[i].key for i in oi], [self.news[j].key for j in nj], sim.REWORD_THRESHOLD)
        # Same file first at equal score, then position: deterministic.
        found.sort(key=lambda t: (-t[2], self.olds[oi[t[0]]].path != self.news[nj[t[1]]].path, t[0], t[1]))
        for a, b, score in found:
            i, j = oi[a], nj[b]
            if i in self.free_old and j in self.free_new:
                self.by_new[j] = _pair_change(self.olds[i], self.news[j], score)
                self._take(i, j)

    def duplicates(self, context: list[EntryRef]) -> None:
        """Leftover old entries that say what a surviving entry says: merged into it."""
        targets: list[tuple[EntryRef, int | None]] = [(self.news[j], j) for j in range(len(self.news))]
        targets += [(ref, None) for ref in context]
        by_key: dict[str, tuple[EntryRef, int | None]] = {}
        for ref, j in targets:
            by_key.setdefault(ref.key, (ref, j))
        # The first target (not an Index line) that states the same fact, in target order.
        plain = [t for t in targets if not t[0].links_only]
        index: sim.SameFactIndex | None = None
        for i in sorted(self.free_old):
            o = self.olds[i]
            if o.links_only:
                continue
            hit = by_key.get(o.key)
            score = 100.0
            if hit is None and len(o.key) >= sim.SAME_FACT_MIN_CHARS:
                if index is None:
                    index = sim.SameFactIndex([ref.key for ref, _ in plain])
                found = index.first(o.key)
                if found is not None:
                    hit, score = plain[found[0]], found[1]
            if hit is None or hit[0].links_only:
                continue
            ref, j = hit
            if j is not None:
                prev = self.by_new.get(j)
                olds = (prev.old if prev else ()) + (o,)
                self.by_new[j] = _merged(olds, ref, min(score, prev.score if prev else 100.0))
                self._take(i, j)
            else:
                self.extra.append(_merged((o,), ref, score))
                self._take(i, None)

    def finish(self, context: list[EntryRef]) -> list[EntryChange]:
        changes: list[EntryChange] = list(self.by_new.values()) + self.extra
        for i in sorted(self.free_old):
            changes.append(EntryChange("", ChangeKind.DROPPED, (self.olds[i],), None))
        # Where each old entry is now (a new entry paired with it), for "inferred from".
        now: dict[EntryRef, EntryRef] = {}
        for c in self.by_new.values():
            for o in c.old:
                if c.new is not None:
                    now[o] = c.new
        by_source: dict[str, list[EntryRef]] = defaultdict(list)
        for ref in [*self.olds, *context]:
            for s in ref.sources:
                by_source[s].append(ref)
        for j in sorted(self.free_new):
            new = self.news[j]
            changes.append(EntryChange("", ChangeKind.NEW, (), new, inferred_from=self._inferred(new, by_source, now)))
        changes.sort(key=_order)
        out: list[EntryChange] = []
        seen: set[str] = set()
        for c in changes:
            cid = _change_id(c.kind, c.old, c.new)
            while cid in seen:
                cid = "e" + hashlib.sha1(cid.encode()).hexdigest()[:8]
            seen.add(cid)
            out.append(replace(c, id=cid))
        return out

    @staticmethod
    def _inferred(
        new: EntryRef, by_source: dict[str, list[EntryRef]], now: dict[EntryRef, EntryRef]
    ) -> tuple[EntryRef, ...]:
        """Up to three entries that share a source with ``new`` and some of its words."""
        if new.links_only:
            return ()
        scored: list[tuple[float, EntryRef]] = []
        for s in dict.fromkeys(new.sources):
            for ref in by_source.get(s, []):
                here = now.get(ref, ref)
                if ref.key == new.key or any(r is here for _, r in scored):
                    continue
                score = sim.contained_score(ref.key, new.key)
                if score >= INFERRED_THRESHOLD:
                    scored.append((score, here))
        scored.sort(key=lambda t: (-t[0], t[1].path, t[1].line))
        return tuple(r for _, r in scored[:3])


def _order(c: EntryChange) -> tuple[str, int, int, str, int]:
    ref = c.new or c.old[0]
    return (ref.path, ref.line, 0 if c.new else 1, c.old[0].path if c.old else "", c.old[0].line if c.old else 0)


@dataclass(frozen=True, slots=True)
class LineEntry:
    text: str
    key: str
    sources: tuple[str, ...]
    links_only: bool


def entry_of_line(line: str) -> LineEntry | None:
    """Read one line taken out of its file (a diff line) as an entry, or None.

    A quick reading for history walks: a bullet marker (``-``, ``*``, ``+``) then a space or tab,
    text and metadata as in docs/format.md. It cannot see the block structure around the line
    (a bullet inside a code fence reads as an entry here).
    """
    stripped = line.lstrip(" \t")
    if len(line) - len(stripped) > 12 or not stripped or stripped[0] not in "-*+":
        return None
    rest = stripped[1:]
    if rest and rest[0] not in " \t":
        return None
    content = rest.lstrip(" \t")
    meta = parse_metadata(content)
    text = content[: meta.meta_start].strip(WHITESPACE)
    key = sim.normalise(text)
    if not key:
        return None
    sources = tuple(m.value for m in meta.items if m.key.lower() == "source")
    plain = text
    for link in find_links(text, 0):
        plain = plain.replace(link.raw, "")
    links_only = "[[" in text and not sim.normalise(plain.replace("[[]]", ""))
    return LineEntry(text, key, sources, links_only)
