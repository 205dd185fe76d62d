"""Entry-aware three-way merge of one memory file: bytes in, bytes and conflicts out.

Pure: no git, no I/O. ``amr merge-driver`` (git's ``%O %A %B``) and amr's sync use it.

How it works. Every line gets a *token*: an entry line is ``("E", indent, text)`` (its text
without metadata), any other line is ``("L", line)``. Two Myers diffs of tokens (base to ours,
base to theirs, :mod:`amr_tui.core.merge.linediff`) say, for every base line, what each side did with
it (kept, edited, deleted) and, for every gap between base lines (a *slot*), which lines each side
inserted there. Inside a replaced block, a deleted and an added entry that look alike (enough words
in common), or the only two lines of the block, are paired as an edit; two edits of one entry
merge key by key only while both still look like the original fact. Then, per base line and per slot:

* entries appended or inserted at the same place on both sides are both kept, ours first, then
  theirs; a line added identically on both sides appears once (also when the two copies were
  added in different places);
* a line deleted on one side and untouched on the other stays deleted;
* different lines edited on each side are both taken, also when they are neighbours;
* one entry edited on both sides merges part by part (text, then each metadata key,
  :func:`amr_tui.core.merge.parts.merge_entry_line`); when the same part changed both ways, or
  one side deleted the entry the other edited, that entry alone is a conflict between markers;
* lines that are not entries follow an ordinary diff3 line merge: where both sides changed
  overlapping or touching text, the whole overlapping block is one conflict.

Nothing either side added is dropped: it is in the result, inside conflict markers, or (for an
entry merged key by key) its text and each changed metadata value are. Line endings are kept
line by line (CRLF, LF, a missing final newline, a BOM); new lines (markers, merged entries)
use ours' dominant end of line. The result depends only on the input bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

from amr_tui.core.format.parser import parse
from amr_tui.core.lint.facts import normalise_text
from amr_tui.core.merge.linediff import Hunk, diff_hunks, matches
from amr_tui.core.merge.parts import (
    ADDED_BOTH,
    DELETED_OURS,
    DELETED_THEIRS,
    EDITED_BOTH,
    TEXT,
    Conflict,
    ConflictPiece,
    Layout,
    MergeResult,
    Pair,
    merge_entry_line,
    render,
)
from amr_tui.core.model import Entry
from amr_tui.core.paths import MEMORY_FILE

__all__ = ["Conflict", "MergeResult", "merge3", "entry_facts"]

KEEP, DEL, REPL = 0, 1, 2
PAIR_LIMIT = 4096  # larger replaced blocks are not searched for edited entries
SIMILAR_WORDS = 0.4  # "Dev server was on port 3001" -> "Dev server moved to port 3002" is an edit
SIMILAR_CHARS = 0.75
_SIM_CHARS = 300


@dataclass(slots=True)
class _Version:
    pairs: list[Pair]
    tokens: list[tuple[str, ...]]
    entries: dict[int, Entry]  # 0-based line -> entry
    bom: bool
    final_newline: bool | None  # None for an empty file


def _load(data: bytes, path: str) -> _Version:
    doc = parse(data, path)
    entries = {e.line - 1: e for e in doc.entries}
    tokens: list[tuple[str, ...]] = []
    for i, line in enumerate(doc.lines):
        e = entries.get(i)
        tokens.append(("E", e.indent, e.text) if e is not None else ("L", line.text))
    final = doc.lines[-1].eol != "" if doc.lines else None
    return _Version([(ln.text, ln.eol) for ln in doc.lines], tokens, entries, doc.bom, final)


def _similar(a: str, b: str) -> bool:
    """Two versions of one fact: enough words in common (in order), or nearly the same characters."""
    wa, wb = a[:_SIM_CHARS].casefold().split(), b[:_SIM_CHARS].casefold().split()
    if wa and wb and SequenceMatcher(None, wa, wb, autojunk=False).ratio() >= SIMILAR_WORDS:
        return True
    sm = SequenceMatcher(None, a[:_SIM_CHARS], b[:_SIM_CHARS], autojunk=False)
    return sm.real_quick_ratio() >= SIMILAR_CHARS and sm.quick_ratio() >= SIMILAR_CHARS and sm.ratio() >= SIMILAR_CHARS


def _related(a: Entry, b: Entry) -> bool:
    """Still the same fact: only then may two edits of it merge key by key."""
    return a.text == b.text or _similar(a.text, b.text)


def _pairable(ti: tuple[str, ...], tj: tuple[str, ...]) -> bool:
    if ti[0] != tj[0]:
        return False
    return ti[0] == "E" or (ti[-1].strip() != "" and tj[-1].strip() != "")


def _pair(base: _Version, side: _Version, h: Hunk) -> list[tuple[int, int]]:
    """Base lines of a replaced block that the side edited (rather than deleted), in order."""
    nb, ns = h.a_end - h.a_start, h.b_end - h.b_start
    if not nb or not ns:
        return []
    if nb == 1 and ns == 1:  # one line replaced by one line: an edit, as in any line merge
        ok = _pairable(base.tokens[h.a_start], side.tokens[h.b_start])
        return [(h.a_start, h.b_start)] if ok else []
    if nb * ns > PAIR_LIMIT:
        return []
    out: list[tuple[int, int]] = []
    nxt = h.b_start
    for i in range(h.a_start, h.a_end):
        ti = base.tokens[i]
        for j in range(nxt, h.b_end):
            tj = side.tokens[j]
            if _pairable(ti, tj) and _similar(ti[-1], tj[-1]):
                out.append((i, j))
                nxt = j + 1
                break
    return out


@dataclass(slots=True)
class _Side:
    v: _Version
    fate: list[tuple[int, int]]  # per base line: (KEEP|DEL|REPL, side line or -1)
    slots: dict[int, list[int]]  # slot (before base line s; len(base) = the end) -> side lines
    hunks: list[Hunk]


def _analyse(base: _Version, side: _Version) -> _Side:
    hunks = diff_hunks(base.tokens, side.tokens)
    fate: list[tuple[int, int]] = [(KEEP, -1)] * len(base.tokens)
    slots: dict[int, list[int]] = {}

    def same(i: int, j: int) -> None:
        fate[i] = (KEEP if base.pairs[i][0] == side.pairs[j][0] else REPL, j)

    i = j = 0
    for h in hunks:
        while i < h.a_start:
            same(i, j)
            i += 1
            j += 1
        paired = _pair(base, side, h)
        by_side = {sj: bi for bi, sj in paired}
        pending: list[int] = []
        for sj in range(h.b_start, h.b_end):
            if sj in by_side:
                slots.setdefault(by_side[sj], []).extend(pending)
                pending = []
            else:
                pending.append(sj)
        if pending:
            slots.setdefault(h.a_end, []).extend(pending)
        for bi in range(h.a_start, h.a_end):
            fate[bi] = (DEL, -1)
        for bi, sj in paired:
            same(bi, sj)
        i, j = h.a_end, h.b_end
    while i < len(base.tokens):
        same(i, j)
        i += 1
        j += 1
    return _Side(side, fate, slots, hunks)


def _dominant_eol(*versions: _Version) -> str:
    for v in versions:
        crlf = sum(1 for _, e in v.pairs if e == "\r\n")
        lf = sum(1 for _, e in v.pairs if e == "\n")
        if crlf or lf:
            return "\r\n" if crlf > lf else "\n"
    return "\n"


class _Merger:
    def __init__(self, base: _Version, ours: _Version, theirs: _Version):
        self.b = base
        self.o = _analyse(base, ours)
        self.t = _analyse(base, theirs)
        self.pieces: list[list[Pair] | ConflictPiece] = []
        self.text_conflict = False
        self.ours_added = {ours.pairs[j][0] for js in self.o.slots.values() for j in js if j in ours.entries}

    # -- output --------------------------------------------------------------------------------
    def lines(self, pairs: list[Pair]) -> None:
        if not pairs:
            return
        if self.pieces and not isinstance(self.pieces[-1], ConflictPiece):
            self.pieces[-1].extend(pairs)
        else:
            self.pieces.append(list(pairs))

    def conflict(self, piece: ConflictPiece) -> None:
        if piece.kind == "text":
            self.text_conflict = True
            last = self.pieces[-1] if self.pieces else None
            if isinstance(last, ConflictPiece) and last.kind == "text":
                last.ours += piece.ours
                last.base += piece.base
                last.theirs += piece.theirs
                return
        self.pieces.append(piece)

    # -- one base line -------------------------------------------------------------------------
    def line(self, i: int) -> None:
        (fo, jo), (ft, jt) = self.o.fate[i], self.t.fate[i]
        ours, theirs = self.o.v, self.t.v
        if fo == KEEP and ft == KEEP:
            o_eol, t_eol = ours.pairs[jo][1], theirs.pairs[jt][1]
            eol = t_eol if o_eol == self.b.pairs[i][1] else o_eol  # a changed end of line wins
            return self.lines([(ours.pairs[jo][0], eol)])
        if fo == KEEP:
            return self.lines([] if ft == DEL else [theirs.pairs[jt]])
        if ft == KEEP:
            return self.lines([] if fo == DEL else [ours.pairs[jo]])
        if fo == DEL and ft == DEL:
            return None
        entry = self.b.entries.get(i)
        kind = "entry" if entry is not None else "text"
        base_pair = [self.b.pairs[i]]
        if fo == REPL and ft == REPL:
            o_text, t_text = ours.pairs[jo][0], theirs.pairs[jt][0]
            if o_text == t_text:
                return self.lines([ours.pairs[jo]])
            eo, et = ours.entries.get(jo), theirs.entries.get(jt)
            if entry is not None and eo is not None and et is not None and _related(entry, eo) and _related(entry, et):
                merged = merge_entry_line(self.b.pairs[i][0], o_text, t_text, entry, eo, et)
                if merged is not None:
                    return self.lines([(merged, ours.pairs[jo][1])])
            return self.conflict(
                ConflictPiece(
                    kind, EDITED_BOTH, [ours.pairs[jo]], base_pair, [theirs.pairs[jt]], entry.text if entry else ""
                )
            )
        if fo == DEL:
            return self.conflict(
                ConflictPiece(kind, DELETED_OURS, [], base_pair, [theirs.pairs[jt]], entry.text if entry else "")
            )
        return self.conflict(
            ConflictPiece(kind, DELETED_THEIRS, [ours.pairs[jo]], base_pair, [], entry.text if entry else "")
        )

    # -- one slot (lines inserted between two base lines) ------------------------------------------
    def slot(self, s: int) -> None:
        ours, theirs = self.o.v, self.t.v
        io = self.o.slots.get(s, [])
        it = [j for j in self.t.slots.get(s, []) if not (j in theirs.entries and theirs.pairs[j][0] in self.ours_added)]
        po = [ours.pairs[j] for j in io]
        pt = [theirs.pairs[j] for j in it]
        if not pt or not po:
            return self.lines(po or pt)
        if [p[0] for p in po] == [p[0] for p in pt]:
            return self.lines(po)
        eo = [j in ours.entries or not ours.pairs[j][0].strip() for j in io]
        et = [j in theirs.entries or not theirs.pairs[j][0].strip() for j in it]
        a = b = 0
        for ma, mb in [*matches([p[0] for p in po], [p[0] for p in pt]), (len(po), len(pt))]:
            go, gt = po[a:ma], pt[b:mb]
            if go and gt and not (all(eo[a:ma]) and all(et[b:mb])):
                self.conflict(ConflictPiece("text", ADDED_BOTH, go, [], gt))
            else:
                self.lines(go + gt)
            if ma < len(po):
                self.lines([po[ma]])
            a, b = ma + 1, mb + 1
        return None

    # -- the whole file ------------------------------------------------------------------------
    def run(self) -> None:
        n = len(self.b.tokens)
        pos = 0
        for c1, c2, ho, ht in self._chunks():
            for i in range(pos, c1):
                self.line(i)
            start = len(self.pieces)
            if start and not isinstance(self.pieces[-1], ConflictPiece):
                start -= 1  # the chunk may extend the last run of lines
                keep = len(self.pieces[-1])
            else:
                keep = 0
            self.text_conflict = False
            for s in range(c1, c2 + 1):
                self.slot(s)
                if s < c2:
                    self.line(s)
            if ho and ht and self.text_conflict:
                self._fallback(start, keep, c1, c2, ho, ht)
            pos = c2
        for i in range(pos, n):
            self.line(i)
        if not any(c2 == n for c2 in (c[1] for c in self._chunks())):
            self.slot(n)

    def _chunks(self) -> list[tuple[int, int, list[Hunk], list[Hunk]]]:
        tagged = sorted(
            [(h.a_start, h.a_end, 0, h) for h in self.o.hunks] + [(h.a_start, h.a_end, 1, h) for h in self.t.hunks]
        )
        chunks: list[tuple[int, int, list[Hunk], list[Hunk]]] = []
        for a1, a2, side, h in tagged:
            if chunks and a1 <= chunks[-1][1]:
                c1, c2, ho, ht = chunks[-1]
                chunks[-1] = (c1, max(c2, a2), ho, ht)
            else:
                chunks.append((a1, a2, [], []))
            (chunks[-1][2] if side == 0 else chunks[-1][3]).append(h)
        return chunks

    def _fallback(self, start: int, keep: int, c1: int, c2: int, ho: list[Hunk], ht: list[Hunk]) -> None:
        """Both sides changed overlapping text: the block becomes one ordinary conflict."""
        if keep:
            first = self.pieces[start]
            assert isinstance(first, list)
            del first[keep:]
            del self.pieces[start + 1 :]
        else:
            del self.pieces[start:]
        o = self._side_range(self.o, ho, c1, c2)
        t = self._side_range(self.t, ht, c1, c2)
        base = self.b.pairs[c1:c2]
        head = 0
        while head < min(len(o), len(t)) and o[head][0] == t[head][0]:
            head += 1
        tail = 0
        while tail < min(len(o), len(t)) - head and o[-1 - tail][0] == t[-1 - tail][0]:
            tail += 1
        self.lines(o[:head])
        mid_o, mid_t = o[head : len(o) - tail], t[head : len(t) - tail]
        if mid_o or mid_t:
            self.pieces.append(ConflictPiece("text", TEXT if base else ADDED_BOTH, mid_o, base, mid_t))
        self.lines(o[len(o) - tail :])

    @staticmethod
    def _side_range(side: _Side, hunks: list[Hunk], c1: int, c2: int) -> list[Pair]:
        first, last = hunks[0], hunks[-1]
        lo = first.b_start - (first.a_start - c1)
        hi = last.b_end + (c2 - last.a_end)
        return side.v.pairs[lo:hi]


def _final_newline(b: bool | None, o: bool | None, t: bool | None) -> bool:
    """Whether the result ends with a newline: a side that changed it wins (empty files abstain)."""
    if o is None:
        return t if t is not None else True
    if t is None or b is None:
        return o
    return t if o == b else o


def merge3(
    base: bytes | None,
    ours: bytes,
    theirs: bytes,
    path: str = MEMORY_FILE,
    *,
    labels: tuple[str, str, str] = ("ours", "base", "theirs"),
    marker_size: int = 7,
) -> MergeResult:
    """Merge ``ours`` and ``theirs``, both descended from ``base`` (None or b"" when the file was
    added on both sides). ``path`` decides whether lines can be entries (Markdown files only)."""
    b = _load(base or b"", path)
    o = _load(ours, path)
    t = _load(theirs, path)
    merger = _Merger(b, o, t)
    merger.run()
    layout = Layout(
        bom=o.bom if o.bom != b.bom else t.bom,
        eol=_dominant_eol(o, t, b),
        final_newline=_final_newline(b.final_newline, o.final_newline, t.final_newline),
        marker_size=max(1, min(int(marker_size), 100)),
        labels=labels,
    )
    pieces = tuple(merger.pieces)
    data, conflicts = render(pieces, layout)
    return MergeResult(data, tuple(conflicts), pieces, layout)


def entry_facts(data: bytes, path: str) -> list[str]:
    """The facts of a file's entries, normalised for comparison (case, punctuation, spaces)."""
    return [normalise_text(e.text) for e in parse(data, path).entries if e.text]
