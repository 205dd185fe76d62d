"""``amr search`` without its cache: index only the lines that can match, then answer.

A fresh clone, a CI job or an agent on a new machine has no index cache, and building the
whole index (parse every file, tokenize every entry) costs a second at 100,000 entries. One
query does not need it. This module reads every file's bytes once, lower-cases them, and lets
regular expressions (in C) find the lines that can match:

1. **Every word.** A line holding each query word's letters in order inside one word (every
   exact, prefix, substring and subsequence match of the index is one) can match in full.
   When at least ``limit`` lines hold every word, the index would never reach for typos or
   partial matches, so those lines are all it needs.
2. **Otherwise, any word.** Lines holding any word that way, or, for a word of 4+ letters, its
   first or last three letters (a word one or two typos away keeps one of them unless the
   typos hit both ends): the typo and partial stages see what they would see in the full index.

Either way the ``SearchIndex`` built over the candidates is told how many entries every file
holds (``population``) and how many hold each query word at a word start (``counted``), so a
word's rarity weighs as in the full index, and the query runs on it with the same ranking,
operators and partial matches. Lines are read as entries the way the parser reads a plain
memory file (a bullet line, its marker and trailing metadata off); a file with fenced code,
HTML blocks or indented lines is parsed in full instead. ``amr search`` then builds the cache
in a child process, after it printed the answer.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from amr_tui.core.paths import is_markdown
from amr_tui.core.search.abbrev import forms_of
from amr_tui.core.search.index import SearchIndex
from amr_tui.core.search.query import STOPWORDS, parse
from amr_tui.core.search.text import parse_query, strip_metadata, subseq_pattern
from amr_tui.services.workspace import Mount, read_bytes, scan_files

_BULLET = re.compile(r"[-*+][ \t]+(.*?)[ \t]*\Z")
_IS_BULLET = re.compile(r"[ \t]*[-*+][ \t]")
# fences, HTML, indented lines, thematic breaks, text before a list's first line: the parser reads it
_COMPLEX = re.compile(r"^(?:```|~~~|<|[ \t]+\S|[-*+_](?:[ \t]*[-*+_]){2,}[ \t]*$|\d+[.)])", re.M)
_HEADS = (b"\n- ", b"\n* ", b"\n+ ", b"\n-\t", b"\n*\t", b"\n+\t")  # a top-level bullet's start
_BRACKETED = re.compile(r"^[-*+][ \t]+\[[^\n]*", re.M)  # a bullet starting with "[": metadata only, or not
_SIMPLE_META = re.compile(r"[ \t]*\[[A-Za-z][A-Za-z0-9_.-]*[ \t]*:[^\[\]\\`]*\][ \t]*\Z")


class _File:
    """One file's bytes, text and lower-cased text. A *plain* file (top-level bullets, headings,
    paragraphs: what agents write) is read line by line; any other is parsed once, in full."""

    __slots__ = ("rel", "data", "text", "low", "plain", "_starts", "_entries")

    def __init__(self, rel: str, data: bytes, text: str) -> None:
        self.rel, self.data, self.text = rel, data, text
        low = text.lower()
        self.low = low if len(low) == len(text) else None  # offsets must line up
        self.plain = self.low is not None and "\r" not in text and _COMPLEX.search(text) is None
        self._starts: list[int] | None = None
        self._entries: list[tuple[int, str]] | None = None

    def parsed(self) -> list[tuple[int, str]]:
        """(line, text) of every entry with text, from the parser."""
        if self._entries is None:
            from amr_tui.core.format.parser import parse

            doc = parse(self.data, self.rel, check=False)
            self._entries = [(e.line, e.text) for e in doc.entries if e.text]
        return self._entries

    def population(self) -> int:
        """How many entries with text the file holds (items of the full index)."""
        if not self.plain:
            return len(self.parsed())
        data = self.data
        if b"\n*" in data or b"\n+" in data or b"\t" in data or data[:1] in (b"*", b"+"):
            heads: tuple[bytes, ...] = _HEADS  # other markers or tabs: every kind of bullet start
        else:
            heads = (b"\n- ",)  # what agents write: one scan per count
        count = 0
        for head in heads:
            if head in data:  # every bullet (C-speed counts), less the empty ones and those opening with "["
                count += data.count(head) - data.count(head + b"\n") - data.count(head + b"[")
            if data.startswith(head[1:]):
                count += 1 if not data.startswith(head[1:] + b"[") and not data.startswith(head[1:] + b"\n") else 0
        if any(head + b"[" in data or data.startswith(head[1:] + b"[") for head in heads):
            # a bullet opening with "[": a link (text) or metadata only (no text)
            count += sum(1 for m in _BRACKETED.finditer(self.text) if _entry_text(m.group(0)) is not None)
        return count

    def line_of(self, pos: int) -> int:
        """0-based line holding offset ``pos``."""
        if self._starts is None:
            self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        return bisect_right(self._starts, pos) - 1

    def lines_matching(self, rx: re.Pattern[str]) -> set[int]:
        """The lines holding a match of ``rx`` (one match per line: the rest of it is skipped)."""
        assert self.low is not None
        return {self.line_of(m.start()) for m in re.finditer(f"(?:{rx.pattern})[^\n]*", self.low)}

    def line(self, k: int) -> str:
        assert self._starts is not None
        start = self._starts[k]
        end = self._starts[k + 1] - 1 if k + 1 < len(self._starts) else len(self.text)
        return self.text[start:end]


def _lines_starting(f: _File, forms: list[str]) -> int:
    """How many lines of ``f`` hold a word starting with one of ``forms`` (what the index counts
    as the word's holders: an exact or prefix match)."""
    low = f.low
    if low is None or not f.plain:
        return sum(1 for _line, text in f.parsed() if _starts_word(text.lower(), forms))
    rx = re.compile("|".join(map(re.escape, sorted(forms, key=len, reverse=True))))
    starts = set()
    for m in rx.finditer(low):
        at = m.start()
        if at == 0 or not low[at - 1].isalnum():
            line = low.rfind("\n", 0, at) + 1
            if line in starts or not _IS_BULLET.match(low, line):  # entries only, as the index counts
                continue
            if "[" in low[line:at]:  # maybe in the trailing metadata, which the index leaves out
                end = low.find("\n", at)
                text = _entry_text(low[line : end if end >= 0 else len(low)])
                if text is None or not _starts_word(text, forms):
                    continue
            starts.add(line)
    return len(starts)


def _starts_word(text: str, forms: list[str]) -> bool:
    """``text`` holds a word starting with one of ``forms``."""
    for form in forms:
        at = text.find(form)
        while at >= 0:
            if at == 0 or not text[at - 1].isalnum():
                return True
            at = text.find(form, at + 1)
    return False


def _words(query: str) -> list[list[str]]:
    """Each required query word with its other forms (stop words only count when alone)."""
    atoms = list(parse_query(parse(query).text).atoms)
    atoms = [a for a in atoms if a not in STOPWORDS] or atoms
    return [[a, *forms_of(a)] for a in atoms]


def _strict_probe(forms: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(subseq_pattern(f, r"\W_").pattern if len(f) <= 24 else re.escape(f) for f in forms))


def _loose_probe(words: list[list[str]]) -> re.Pattern[str]:
    parts: list[str] = []
    for forms in words:
        parts.append(_strict_probe(forms).pattern)
        for f in forms:
            if len(f) >= 4:
                parts += [re.escape(f[:3]), re.escape(f[-3:])]
    return re.compile("|".join(dict.fromkeys(parts)))


def _entry_text(line: str) -> str | None:
    m = _BULLET.match(line)
    if m is None:
        return None
    body = m.group(1)
    if body.endswith("]"):
        simple = _SIMPLE_META.search(body)
        body = body[: simple.start()] if simple and not body[: simple.start()].rstrip().endswith("]") else body
        body = strip_metadata(body) if body.endswith("]") else body
    return body.strip() or None


def _decode(data: bytes) -> str:
    """The text the parser reads (``core.format.parser.decode``, without importing the parser)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "surrogateescape")
    return text[1:] if text.startswith("\ufeff") else text


def _read(mounts: list[Mount]) -> list[tuple[Mount, list[str], list[_File]]]:
    out = []
    for mount in mounts:
        files, escaping, _stats = scan_files(mount.root)
        names = [rel for rel in files if rel not in escaping]
        read: list[_File] = []
        checked: dict[str, bool] = {}  # each folder is checked once; files open with O_NOFOLLOW
        for rel in names:
            if not is_markdown(rel):
                continue
            data = read_bytes(mount.root, rel, checked_dirs=checked)
            if data is not None:
                read.append(_File(rel, data, _decode(data)))
        out.append((mount, names, read))
    return out


def _entries(f: _File, lines: set[int]) -> list[tuple[int, str]]:
    """(line, text) of the entries on ``lines`` of a plain file."""
    out = []
    for k in sorted(lines):
        text = _entry_text(f.line(k))
        if text is not None:
            out.append((k + 1, text))
    return out


def cold_index(mounts: list[Mount], query: str, limit: int) -> SearchIndex | None:
    """An index of the lines of ``mounts`` that can answer ``query`` with ``limit`` hits (file
    names included), or None when every entry is a candidate (the caller builds the full index)."""
    words = _words(query)
    if not words:
        return None
    read = _read(mounts)
    # what the full index holds: an item per entry and one per file name
    population = sum(f.population() for _m, _n, files in read for f in files)
    population += sum(len(names) for _m, names, _f in read)
    counted = {
        forms[0]: sum(_lines_starting(f, forms) for _m, _n, files in read for f in files)
        + sum(1 for _m, names, _f in read for rel in names if _starts_word(rel.lower(), forms))
        for forms in words
    }
    parsed = parse(query)
    plain = not parsed.has_operators
    if plain:  # 1. the lines holding every word
        probes = [_strict_probe(forms) for forms in words]
        index = _index(read, probes, every=True)
        if index.strict_count(query) >= limit:
            index.population, index.counted = population, counted
            return index
    index = _index(read, [_loose_probe(words)], every=False)  # 2. any word, typos included
    index.population, index.counted = population, counted
    return index


def _index(
    read: list[tuple[Mount, list[str], list[_File]]], probes: list[re.Pattern[str]], *, every: bool
) -> SearchIndex:
    """The index of the candidate entries: those holding every probe (``every``) or the one."""

    def keep(text: str) -> bool:
        return all(p.search(text) for p in probes)

    index = SearchIndex()
    for mount, names, files in read:
        by_name = {f.rel: f for f in files}
        batch: list[tuple[str, list[tuple[int, str]]]] = []
        for rel in names:
            f = by_name.get(rel)
            entries: list[tuple[int, str]] = []
            if f is not None and not f.plain:
                entries = [(line, text) for line, text in f.parsed() if keep(text.lower())]
            elif f is not None and f.low is not None and all(p.search(f.low) for p in probes):
                lines = f.lines_matching(probes[0])
                for p in probes[1:]:
                    lines &= f.lines_matching(p)
                entries = _entries(f, lines) if lines else []
            if entries or any(p.search(rel.lower()) for p in probes):  # a file name can match too
                batch.append((rel, entries))
        index.set_files(mount.name, batch)
    return index


__all__ = ["cold_index"]
