"""amr's built-in dreaming pass: deterministic clean-up of a repo snapshot (pure).

``dream(files, today=..., renames=..., proposals=...)`` runs its steps over ``path -> bytes``
(``None`` for a file whose content was not loaded: it still counts as existing) and returns, per
step, the new bytes of each file it changed and one line per action:

0. **evidence** and **unread** (when the caller proposes them, ``Proposal``: judged against the
   code the entries cite, or by what agents read, in ``services.dreams.evidence``): drop, or
   rewrite, each proposed entry, found by its line as written; each action and a
   ``Dream-Reason: PATH:LINE: why`` line of the commit message give the reason, for the review;
1. **expire**: drop entries whose ``expires`` date is before ``today`` (with their sub-entries);
2. **merge**: merge exact and near duplicates (``similarity.same_fact``: equal normalised text,
   or token-sort 90+ for texts of 20+ characters) into one entry, keeping the longest text at
   its place (the first one, MEMORY.md then path order, when equally long) and adding every
   other member's ``source`` to it, so no source is lost;
3. **links**: repair ``[[links]]`` that name a file renamed in history (``renames`` maps an old
   path to its new one, chains followed), keeping ``#heading`` and ``|alias``;
4. **index**: rebuild the ``## Index`` of ``MEMORY.md`` so that every topic file (every file
   lint wants reachable) is listed once and no Index link is broken.

Nothing is guessed from the clock or the disk: the same input gives the same output. Entries in
``.amr/forgotten.md`` (tombstones) are never touched. Lines are replaced or removed as whole
lines; every other byte of a file is kept.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from amr_tui.core.diff import similarity as sim
from amr_tui.core.format.edit import entry_span, find_entry, summarise
from amr_tui.core.format.links import LinkState, find_links, link_text_for, normalise, resolve
from amr_tui.core.format.parser import BOM, Document, parse
from amr_tui.core.format.rules import is_real_date, rebuild_line
from amr_tui.core.lint.repo import INDEX_HEADING, is_memory_note
from amr_tui.core.model import Entry, Link
from amr_tui.core.paths import MEMORY_FILE, has_md_suffix, is_markdown, is_tombstone_path

MAX_RENAME_CHAIN = 50


REASON_TRAILER = "Dream-Reason"


@dataclass(frozen=True, slots=True)
class Proposal:
    """A change the caller proposes, with its reason: drop the entry written ``raw`` at ``line``
    of ``path`` (in the files given to ``dream``), or put ``rewrite`` in its place."""

    step: str  # "evidence" or "unread"
    path: str
    line: int
    raw: str
    reason: str
    rewrite: str | None = None


@dataclass(slots=True)
class DreamStep:
    name: str  # "expire", "merge", "links", "index"
    message: str  # the commit message for this step
    changes: dict[str, bytes | None]
    actions: list[str]


@dataclass(slots=True)
class DreamResult:
    steps: list[DreamStep] = field(default_factory=list)

    @property
    def changes(self) -> dict[str, bytes | None]:
        out: dict[str, bytes | None] = {}
        for step in self.steps:
            out.update(step.changes)
        return out

    @property
    def summary(self) -> str:
        return "; ".join(s.message.splitlines()[0].removeprefix("dream: ") for s in self.steps) or "nothing to do"


class _State:
    """The snapshot as the steps edit it: bytes per path, parsed documents on demand."""

    def __init__(self, files: Mapping[str, bytes | None]):
        self.files: dict[str, bytes | None] = dict(files)
        self._docs: dict[str, Document] = {}

    def doc(self, path: str) -> Document | None:
        data = self.files.get(path)
        if data is None or not is_markdown(path):
            return None
        if path not in self._docs:
            self._docs[path] = parse(data, path)
        return self._docs[path]

    def md_paths(self) -> list[str]:
        return sorted(p for p, d in self.files.items() if d is not None and is_markdown(p) and not is_tombstone_path(p))

    def set(self, path: str, data: bytes) -> None:
        self.files[path] = data
        self._docs.pop(path, None)


State = _State  # the snapshot the steps edit, for the trim pass (core.dreams.trim) too


def _apply(doc: Document, replace: Mapping[int, str], delete: set[int]) -> bytes:
    """Replace some lines' text and delete others (1-based); a file that ended without a newline
    keeps ending without one."""
    out: list[tuple[str, str]] = []
    for ln in doc.lines:
        if ln.number in delete:
            continue
        out.append((replace.get(ln.number, ln.text), ln.eol))
    if out and doc.lines and doc.lines[-1].eol == "" and out[-1][1] != "":
        out[-1] = (out[-1][0], "")
    return ((BOM if doc.bom else "") + "".join(t + e for t, e in out)).encode("utf-8", "surrogateescape")


def _step(
    state: _State, name: str, edits: dict[str, tuple[dict[int, str], set[int]]], actions: list[str], message: str
) -> DreamStep | None:
    changes: dict[str, bytes | None] = {}
    for path in sorted(edits):
        doc = state.doc(path)
        replace, delete = edits[path]
        if doc is None or (not replace and not delete):
            continue
        new = _apply(doc, replace, delete)
        if new != state.files[path]:
            state.set(path, new)
            changes[path] = new
    if not changes:
        return None
    return DreamStep(name, message + "\n\n" + "\n".join(f"- {a}" for a in actions) + "\n", changes, actions)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# ---------------------------------------------------------------------------------------------
# The steps


def expire(state: _State, today: _dt.date) -> DreamStep | None:
    edits: dict[str, tuple[dict[int, str], set[int]]] = {}
    actions: list[str] = []
    for path in state.md_paths():
        doc = state.doc(path)
        assert doc is not None
        for entry in doc.entries:
            value = entry.first("expires")
            if value is None or not is_real_date(value) or _dt.date.fromisoformat(value) >= today:
                continue
            first, last = entry_span(doc, entry)
            edits.setdefault(path, ({}, set()))[1].update(range(first, last + 1))
            actions.append(f"dropped {path}:{entry.line} (expired {value}): {summarise(entry.text)}")
    return _step(
        state,
        "expire",
        edits,
        actions,
        f"dream: drop {_plural(len(actions), 'expired entry')}".replace("entrys", "entries"),
    )


def _candidates(state: _State) -> list[tuple[str, int, str, int]]:
    """(path, line, key, order) of every entry that may be merged: one line, not an Index line."""
    out: list[tuple[str, int, str, int]] = []
    paths = state.md_paths()
    paths.sort(key=lambda p: (p != MEMORY_FILE, p))
    for path in paths:
        doc = state.doc(path)
        assert doc is not None
        for entry in doc.entries:
            key = sim.normalise(entry.text)
            if not key or entry.multiline or entry_span(doc, entry) != (entry.line, entry.line):
                continue
            if entry.links and not sim.normalise(_strip_links(entry.text)):
                continue
            out.append((path, entry.line, key, len(out)))
    return out


def _strip_links(text: str) -> str:
    for link in find_links(text, 0):
        text = text.replace(link.raw, "")
    return text.replace("[[]]", "")


def _groups(cands: list[tuple[str, int, str, int]]) -> list[list[int]]:
    parent = list(range(len(cands)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    first: dict[str, int] = {}
    for i, (_p, _l, key, _o) in enumerate(cands):
        if key in first:
            union(first[key], i)
        else:
            first[key] = i
    # Near duplicates: block on each text's two rarest words, then compare inside a block.
    uniq = [i for i in range(len(cands)) if first[cands[i][2]] == i and len(cands[i][2]) >= sim.SAME_FACT_MIN_CHARS]
    freq: dict[str, int] = {}
    for i in uniq:
        for w in set(cands[i][2].split()):
            freq[w] = freq.get(w, 0) + 1
    blocks: dict[str, list[int]] = {}
    for i in uniq:
        for w in sorted(set(cands[i][2].split()), key=lambda w: (freq[w], w))[:2]:
            blocks.setdefault(w, []).append(i)
    for w in sorted(blocks):
        members = blocks[w]
        if len(members) < 2 or len(members) > 300:
            continue
        for x, a in enumerate(members):
            for b in members[:x]:
                if find(a) != find(b) and sim.same_fact(cands[a][2], cands[b][2]) is not None:
                    union(a, b)
    groups: dict[int, list[int]] = {}
    for i in range(len(cands)):
        groups.setdefault(find(i), []).append(i)
    return [g for _, g in sorted(groups.items()) if len(g) > 1]


def merge_duplicates(state: _State) -> DreamStep | None:
    cands = _candidates(state)
    edits: dict[str, tuple[dict[int, str], set[int]]] = {}
    actions: list[str] = []
    merged = 0
    for group in _groups(cands):
        members = [(cands[i][0], cands[i][1]) for i in group]
        entries: list[tuple[str, Entry]] = []
        for p, n in members:
            doc = state.doc(p)
            found = doc.entry_at(n) if doc is not None else None
            assert found is not None  # a candidate is an entry of a parsed file
            entries.append((p, found))
        # Keep the most complete wording (most normalised characters); the first one on a tie.
        keep_at = max(range(len(entries)), key=lambda k: (len(cands[group[k]][2]), -k))
        kpath, keeper = entries[keep_at]
        items = [(m.key, m.value) for m in keeper.metadata]
        have = set(keeper.meta("source"))
        added: list[str] = []
        for k, (path, entry) in enumerate(entries):
            if k == keep_at:
                continue
            for s in entry.meta("source"):
                if s not in have:
                    have.add(s)
                    added.append(s)
                    items.append(("source", s))
            edits.setdefault(path, ({}, set()))[1].add(entry.line)
        if added:
            doc = state.doc(kpath)
            assert doc is not None
            edits.setdefault(kpath, ({}, set()))[0][keeper.line] = rebuild_line(
                doc.lines[keeper.line - 1].text, keeper, items
            )
        others = ", ".join(f"{p}:{e.line}" for k, (p, e) in enumerate(entries) if k != keep_at)
        kept = f"{len(have)} source{'s' if len(have) != 1 else ''} kept"
        actions.append(f"merged {others} into {kpath}:{keeper.line} ({kept}): {summarise(keeper.text)}")
        merged += len(entries) - 1
    return _step(
        state,
        "merge",
        edits,
        actions,
        f"dream: merge {_plural(merged, 'duplicate entry')}".replace("entrys", "entries"),
    )


def follow_renames(path: str, renames: Mapping[str, str]) -> str | None:
    seen = {path}
    cur = path
    for _ in range(MAX_RENAME_CHAIN):
        nxt = renames.get(cur)
        if nxt is None:
            return cur if cur != path else None
        if nxt in seen:
            return None
        seen.add(nxt)
        cur = nxt
    return None


def repair_links(state: _State, renames: Mapping[str, str]) -> DreamStep | None:
    files = {p for p in state.files}
    lower = {f.lower(): f for f in files}
    edits: dict[str, tuple[dict[int, str], set[int]]] = {}
    actions: list[str] = []
    for path in state.md_paths():
        doc = state.doc(path)
        assert doc is not None
        by_line: dict[int, list[tuple[Link, str]]] = {}
        for link in doc.links:
            if resolve(link.target, files, lower).state is not LinkState.BROKEN:
                continue
            base = normalise(link.target)
            target = None
            for cand in [base] if has_md_suffix(base) else [base + ".md", base]:
                found = follow_renames(cand, renames)
                if found is not None and found in files:
                    target = found
                    break
            if target is not None:
                by_line.setdefault(link.line, []).append((link, target))
        for number, fixes in by_line.items():
            text = doc.lines[number - 1].text
            for link, target in sorted(fixes, key=lambda t: -t[0].start):
                tail = link.raw[len(link.raw.split("|")[0].split("#")[0].rstrip()) :]
                text = text[: link.start] + "[[" + link_text_for(target) + tail + "]]" + text[link.end :]
                actions.append(f"{path}:{number}: [[{link.target}]] -> [[{link_text_for(target)}]] (renamed)")
            edits.setdefault(path, ({}, set()))[0][number] = text
    return _step(state, "links", edits, actions, f"dream: repair {_plural(len(actions), 'link')} to renamed files")


def rebuild_index(state: _State) -> DreamStep | None:
    doc = state.doc(MEMORY_FILE)
    if doc is None:
        return None
    files = {p for p in state.files}
    lower = {f.lower(): f for f in files}
    heading = next((ln for ln, lvl, t in doc.headings if lvl == 2 and t == INDEX_HEADING), None)
    lines = [(ln.text, ln.eol) for ln in doc.lines]
    eol = next((ln.eol for ln in doc.lines if ln.eol), "\n")
    actions: list[str] = []
    if heading is None:
        if lines and lines[-1][1] == "":
            lines[-1] = (lines[-1][0], eol)
        if lines and lines[-1][0].strip():
            lines.append(("", eol))
        lines.append(("## " + INDEX_HEADING, eol))
        start, stop = len(lines), len(lines)
        actions.append("added the ## Index heading")
    else:
        start = heading
        stop = next((ln - 1 for ln, lvl, _ in doc.headings if ln > heading and lvl <= 2), len(lines))
    listed: set[str] = set()
    drop: set[int] = set()
    last_entry = start
    for entry in doc.entries:
        if not start < entry.line <= stop:
            continue
        last_entry = entry.line
        if not entry.links or sim.normalise(_strip_links(entry.text)):
            continue
        targets = [resolve(lk.target, files, lower) for lk in entry.links]
        if all(r.state is LinkState.BROKEN for r in targets):
            drop.add(entry.line)
            actions.append(f"removed broken Index line {entry.text}")
            continue
        paths = {r.path for r in targets if r.path}
        if paths and paths <= listed:
            drop.add(entry.line)
            actions.append(f"removed repeated Index line {entry.text}")
            continue
        listed |= paths
    wanted = sorted(
        p for p in files if p != MEMORY_FILE and is_memory_note(p) and not is_tombstone_path(p) and p not in listed
    )
    new_lines = [(f"- [[{link_text_for(p)}]]", eol) for p in wanted]
    actions.extend(f"listed [[{link_text_for(p)}]]" for p in wanted)
    if not actions:
        return None
    at = last_entry if last_entry > start or heading is None else start
    if heading is None:
        at = len(lines)
    kept = [pair for i, pair in enumerate(lines, start=1) if i not in drop]
    shift = sum(1 for i in drop if i <= at)
    at -= shift
    if at == len(kept) and kept and kept[-1][1] == "":
        kept[-1] = (kept[-1][0], eol)
        if new_lines:
            new_lines[-1] = (new_lines[-1][0], "" if doc.lines and doc.lines[-1].eol == "" else eol)
    kept[at:at] = new_lines
    data = ((BOM if doc.bom else "") + "".join(t + e for t, e in kept)).encode("utf-8", "surrogateescape")
    if data == state.files[MEMORY_FILE]:
        return None
    state.set(MEMORY_FILE, data)
    return DreamStep(
        "index",
        "dream: rebuild the MEMORY.md index\n\n" + "\n".join(f"- {a}" for a in actions) + "\n",
        {MEMORY_FILE: data},
        actions,
    )


def proposed(state: _State, name: str, proposals: list[Proposal]) -> DreamStep | None:
    """Drop or rewrite the proposed entries (each found by its line as written, nearest its line),
    each action with its reason, and one ``Dream-Reason`` line per change for the review."""
    edits: dict[str, tuple[dict[int, str], set[int]]] = {}
    actions: list[str] = []
    reasons: list[str] = []
    for p in sorted(proposals, key=lambda p: (p.path, p.line)):
        doc = state.doc(p.path)
        entry = find_entry(doc, p.raw, p.line) if doc is not None else None
        if doc is None or entry is None or is_tombstone_path(p.path):
            continue
        replace, delete = edits.setdefault(p.path, ({}, set()))
        if p.rewrite is not None:
            replace[entry.line] = p.rewrite
            actions.append(f"rewrote {p.path}:{p.line} ({p.reason}): {summarise(entry.text)}")
        else:
            first, last = entry_span(doc, entry)
            delete.update(range(first, last + 1))
            actions.append(f"dropped {p.path}:{p.line} ({p.reason}): {summarise(entry.text)}")
        reasons.append(f"{REASON_TRAILER}: {p.path}:{p.line}: {' '.join(p.reason.split())}")
    dropped = sum(1 for a in actions if a.startswith("dropped"))
    rewrote = len(actions) - dropped
    if name == "evidence":
        what = [f"drop {_plural(dropped, 'entry')} whose evidence is gone"] if dropped else []
        what += [f"rewrite {_plural(rewrote, 'entry')} whose evidence moved"] if rewrote else []
        message = "dream: " + " and ".join(what)
    else:
        message = f"dream: drop {_plural(dropped, 'entry')} no agent read lately"
    step = _step(state, name, edits, actions, message.replace("entrys", "entries"))
    if step is not None:
        step.message = step.message.rstrip("\n") + "\n\n" + "\n".join(reasons) + "\n"
    return step


def dream(
    files: Mapping[str, bytes | None],
    *,
    today: _dt.date,
    renames: Mapping[str, str] | None = None,
    proposals: list[Proposal] | tuple[Proposal, ...] = (),
) -> DreamResult:
    """Run every step in order over ``files``; see the module docstring."""
    state = _State(files)
    result = DreamResult()
    steps: tuple[Callable[[], DreamStep | None], ...] = (
        lambda: proposed(state, "evidence", [p for p in proposals if p.step == "evidence"]),
        lambda: proposed(state, "unread", [p for p in proposals if p.step == "unread"]),
        lambda: expire(state, today),
        lambda: merge_duplicates(state),
        lambda: repair_links(state, renames or {}),
        lambda: rebuild_index(state),
    )
    for run in steps:
        step = run()
        if step is not None:
            result.steps.append(step)
    return result
