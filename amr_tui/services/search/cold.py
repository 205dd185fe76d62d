"""``amr search`` without its cache: index only the lines that can match, then answer.

A fresh clone, a CI job or an agent on a new machine has no index cache, and building the
whole index (parse every file, tokenize every entry) costs a second at 100,000 entries. One
query does not need it. This module reads every file's bytes once, joins their lower-cased
text into one string, and lets a few scans in C find the lines that can match:

1. **Every word.** A line holding each query word's letters in order inside one word (every
   exact, prefix, substring and subsequence match of the index is one) can match in full.
   The longest word's pattern is scanned for; the other words are checked on the lines it
   finds. When at least ``limit`` lines hold every word, the index would never reach for typos
   or partial matches, so those lines are all it needs.
2. **Otherwise, any word.** Lines holding any word that way, or, for a word of 4+ letters, its
   first or last three letters (a word one or two typos away keeps one of them unless the
   typos hit both ends): the typo and partial stages see what they would see in the full index.

Either way the ``SearchIndex`` built over the candidates is told how many entries every file
holds (``population``) and how many hold each query word at a word start (``counted``), so a
word's rarity weighs as in the full index, and the query runs on it with the same ranking,
operators and partial matches. Lines are read as entries the way the parser reads a plain
memory file (a bullet line, its marker and trailing metadata off); a file with fenced code,
HTML blocks, indented lines or carriage returns is parsed in full instead.

On a big repo with a second core the files are split in two shares, and a forked child reads
and scans one while this process does the other (``_Share``: each share's counts and
candidates are plain data, so the two add up to what one process would find). ``amr search``
then builds the cache in another child, after it printed the answer.
"""

from __future__ import annotations

import os
import pickle
import re
import select
import signal
import threading
from bisect import bisect_right
from collections.abc import Container, Iterable
from typing import TYPE_CHECKING, Any

from amr_tui.core.paths import is_markdown
from amr_tui.core.search.abbrev import forms_of, phrase_form_pattern
from amr_tui.core.search.query import STOPWORDS, parse, parse_query
from amr_tui.core.search.text import strip_metadata
from amr_tui.services.batch.parallel import processes
from amr_tui.services.workspace import Mount, read_bytes, scan_files, style_of

if TYPE_CHECKING:  # imported once the child is reading (``cold_index``)
    from amr_tui.core.search.index import SearchIndex

FORK_FILES = 400  # below this many files a second process costs more than it saves
CHILD_WAIT_S = 60.0  # a child silent this long is stopped (its share is read here)
CHILD_SHARE = 0.56  # of the files (dealt in turn): this process also imports the index, merges and answers
_UNREAPED: list[int] = []  # children stopped and not yet waited for

_BULLET = re.compile(r"[-*+][ \t]+(.*?)[ \t]*\Z")
_IS_BULLET = re.compile(r"[ \t]*[-*+][ \t]")
# An ATX heading (searched like an entry: its text), and one with text at a newline
_HEADING = re.compile(r"#{1,6}[ \t]+(.*?)[ \t]*\Z")
_IS_HEADING = re.compile(r"#{1,6}[ \t]")
_HEADINGS = re.compile(r"\n#{1,6}[ \t]+[^\s]")
# A line the parser reads differently from a plain bullet, at a newline of the joined text:
# fences, HTML, indented lines, thematic breaks, a setext underline, an ordered list's line.
_COMPLEX = re.compile(r"\n(?:```|~~~|<|[ \t]+\S|[-*+_](?:[ \t]*[-*+_]){2,}[ \t]*(?=\n|\Z)|=+[ \t]*(?=\n|\Z)|\d+[.)])")
# each bullet's start: "" (text follows), "\n" (an empty bullet) or the rest of a line opening with "["
_BULLETS = re.compile(r"\n[-*+][ \t]+(?=(\[[^\n]*|\n|))")  # a look-ahead: a newline may start the next
_SIMPLE_META = re.compile(r"[ \t]*\[[A-Za-z][A-Za-z0-9_.-]*[ \t]*:[^\[\]\\`]*\][ \t]*\Z")

Key = tuple[int, str]  # (mount's position, file)
Found = dict[Key, list[tuple[int, str]]]  # a file's candidate entries: (1-based line, text)


# ------------------------------------------------------------------------------------ the query


def _words(query: str, keys: Container[str] = frozenset()) -> list[list[str]]:
    """Each required query word with its other forms (stop words only count when alone);
    ``keys``: the metadata keys a ``KEY:VALUE`` filter may name (``query.parse``)."""
    atoms = list(parse_query(parse(query, keys).text).atoms)
    atoms = [a for a in atoms if a not in STOPWORDS] or atoms
    return [[a, *forms_of(a)] for a in atoms]


def _subseq(form: str) -> str:
    """A pattern for ``form``'s letters in order inside one word (a long form: as typed).

    A superset of the index's subsequence match, cheaper to scan for: a gap may hold any
    letter or digit but the next one, and any character past ASCII (``re`` tests an ASCII set
    much faster than the Unicode class of word characters); the index then decides. A form of
    several words ("end to end") is its words with anything but letters between them."""
    if " " in form:
        return r"[\W_]+".join(re.escape(w) for w in form.split())
    if len(form) > 24:
        return re.escape(form)
    parts = [re.escape(form[0])]
    for c in form[1:]:
        e = re.escape(c)
        parts.append(f"[^\\x00-/:-@\\[-`{{-\\x7f{e}]*+{e}")
    return "".join(parts)


def _strict_probe(forms: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(_subseq(f) for f in forms))


def _loose_parts(words: list[list[str]]) -> list[re.Pattern[str]]:
    """What "any word" is scanned for, one pattern a scan (an alternation defeats ``re``'s
    literal-prefix search: one scan of ``a|b`` costs many of ``a`` and of ``b``)."""
    parts: list[str] = []
    for forms in words:
        for f in forms:
            parts.append(_subseq(f))
            if " " in f:
                continue  # a phrase form is matched as written, never with a typo
            if len(f) >= 4:
                parts += [re.escape(f[:3]), re.escape(f[-3:])]
            elif len(f) == 3:  # two letters swapped: the typo a three-letter word is searched with
                parts += [re.escape(f[1] + f[0] + f[2]), re.escape(f[0] + f[2] + f[1])]
    return [re.compile(p) for p in dict.fromkeys(parts)]


def _minimal(forms: list[str]) -> list[str]:
    """``forms`` less those another one starts (its word starts are a subset)."""
    return [f for f in forms if not any(g != f and f.startswith(g) for g in forms)]


def _entry_text(line: str) -> str | None:
    """The searched text of a plain file's line: a bullet's text without its trailing metadata, a
    heading's text; None for any other line."""
    m = _BULLET.match(line)
    if m is None:
        h = _HEADING.match(line) if line.startswith("#") else None
        return (h.group(1).strip() or None) if h is not None else None
    body = m.group(1)
    if body.endswith("]"):
        simple = _SIMPLE_META.search(body)
        body = body[: simple.start()] if simple and not body[: simple.start()].rstrip().endswith("]") else body
        body = strip_metadata(body) if body.endswith("]") else body
    return body.strip() or None


def _starts_word(text: str, forms: list[str]) -> bool:
    """``text`` holds a word starting with one of ``forms`` (a form of several words: those
    words in order, ``abbrev.phrase_form_pattern``)."""
    for form in forms:
        if " " in form:
            if phrase_form_pattern(form).search(text) is not None:
                return True
            continue
        at = text.find(form)
        while at >= 0:
            if at == 0 or not text[at - 1].isalnum():
                return True
            at = text.find(form, at + 1)
    return False


def _decode(data: bytes) -> str:
    """The text the parser reads (``core.format.parser.decode``, without importing the parser)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "surrogateescape")
    return text[1:] if text.startswith("\ufeff") else text


# ----------------------------------------------------------------------------- one share of files


class _Share:
    """Some of the files, read: the plain ones joined into one text (each between newlines), the
    others parsed.

    A *plain* file (top-level bullets, headings, paragraphs: what agents write) is read line by
    line from the joined text; any other is parsed once, in full.
    """

    def __init__(self, mounts: list[Mount], files: list[Key]) -> None:
        keys: list[Key] = []
        texts: list[str] = []
        self.parsed: dict[Key, list[tuple[int, str]]] = {}
        folders: dict[int, dict[str, bool]] = {}  # each folder is checked once; files open with O_NOFOLLOW
        # Another agent's format writes paragraphs and front matter: its files are parsed, prose kept.
        prose = [style_of(m) != "amr" for m in mounts]
        for key in files:
            at, rel = key
            data = read_bytes(mounts[at].root, rel, checked_dirs=folders.setdefault(at, {}))
            if data is None:
                continue
            text = _decode(data)
            if prose[at]:
                self.parsed[key] = _parse(data, rel, prose=True)
            elif "\r" in text or (not text.isascii() and len(text.lower()) != len(text)):  # offsets must line up
                self.parsed[key] = _parse(data, rel)
            else:
                keys.append(key)
                texts.append(text)
        joined = "\n" + "\n".join(texts) + "\n"
        starts = _starts(texts)
        odd: list[int] = []  # the files the parser reads differently: one match each is enough
        pos = 0
        while (m := _COMPLEX.search(joined, pos)) is not None:
            k = bisect_right(starts, m.start() + 1) - 1
            odd.append(k)
            pos = starts[k + 1] - 1 if k + 1 < len(starts) else len(joined)  # the next file's first line
        if odd:
            for k in odd:
                self.parsed[keys[k]] = _parse(texts[k].encode("utf-8", "surrogateescape"), keys[k][1])
            skip = set(odd)
            keys = [key for k, key in enumerate(keys) if k not in skip]
            texts = [text for k, text in enumerate(texts) if k not in skip]
            joined = "\n" + "\n".join(texts) + "\n"
            starts = _starts(texts)
        self.keys, self.starts, self.text = keys, starts, joined
        self.low = joined.lower()

    def population(self) -> int:
        """How many entries with text (and headings) the share's Markdown files hold (items of the
        full index)."""
        count = sum(len(entries) for entries in self.parsed.values()) + len(_HEADINGS.findall(self.low))
        bullets = _BULLETS.findall(self.low)  # per bullet: "", "\n" (empty) or the rest from a "["
        odd = list(filter(None, bullets))  # in C: most bullets are ""
        count += len(bullets) - odd.count("\n")
        # a bullet opening with "[": a link (text) or metadata only (no text)
        return count - sum(1 for rest in odd if rest[0] == "[" and _entry_text("- " + rest) is None)

    def counted(self, forms: list[str]) -> int:
        """How many entries hold a word starting with one of ``forms`` (the index's count of the
        word's holders: an exact or prefix match)."""
        low = self.low
        lines: set[int] = set()
        for form in _minimal(forms):
            if " " in form:  # a form of several words: where its pattern matches (at a word start)
                starts = [m.start() for m in phrase_form_pattern(form).finditer(low)]
            else:
                starts = []
                at = low.find(form)
                while at >= 0:
                    if not low[at - 1].isalnum():  # a word starts here (the text opens with a newline)
                        starts.append(at)
                    at = low.find(form, at + 1)
            for at in starts:
                line = low.rfind("\n", 0, at) + 1
                if line not in lines and (_IS_BULLET.match(low, line) or _IS_HEADING.match(low, line)):
                    if "[" not in low[line:at] or self._in_text(line, at, forms):
                        lines.add(line)
        parsed = (text.lower() for entries in self.parsed.values() for _line, text in entries)
        return len(lines) + sum(1 for text in parsed if _starts_word(text, forms))

    def _in_text(self, line: int, at: int, forms: list[str]) -> bool:
        """Whether the entry on the line starting at ``line`` holds the word outside its trailing
        metadata (which the index leaves out)."""
        end = self.low.find("\n", at)
        text = _entry_text(self.low[line : end if end >= 0 else len(self.low)])
        return text is not None and _starts_word(text, forms)

    def every(self, probes: list[re.Pattern[str]]) -> Found:
        """The entries holding a match of every probe: the longest probe is scanned for, the
        others are tried on the lines it finds."""
        first, *rest = sorted(probes, key=lambda p: len(p.pattern), reverse=True)
        low = self.low
        lines: list[tuple[int, int]] = []
        for m in re.finditer(f"(?:{first.pattern})[^\n]*", low):  # one match a line, to its end
            start = low.rfind("\n", 0, m.start()) + 1
            if all(p.search(low, start, m.end()) for p in rest):
                lines.append((start, m.end()))
        found = self._entries(lines)
        for key, entries in self.parsed.items():
            kept = [(line, text) for line, text in entries if all(p.search(text.lower()) for p in probes)]
            if kept:
                found[key] = kept
        return found

    def any(self, parts: list[re.Pattern[str]]) -> Found:
        """The entries holding a match of one of ``parts``."""
        low = self.low
        ends: dict[int, int] = {}
        for part in parts:
            for m in re.finditer(f"(?:{part.pattern})[^\n]*", low):
                ends[low.rfind("\n", 0, m.start()) + 1] = m.end()
        found = self._entries(sorted(ends.items()))
        for key, entries in self.parsed.items():
            kept = [(line, text) for line, text in entries if any(p.search(text.lower()) for p in parts)]
            if kept:
                found[key] = kept
        return found

    def _entries(self, lines: Iterable[tuple[int, int]]) -> Found:
        """The entries on ``lines`` ((start, end) offsets in the joined text, in order)."""
        found: Found = {}
        starts, text, low = self.starts, self.text, self.low
        k, line, seen = -1, 0, 0
        for start, end in lines:
            entry = _entry_text(text[start:end])
            if entry is None:
                continue
            at = bisect_right(starts, start) - 1
            if at != k:  # another file: count its lines from its start
                k, line, seen = at, 0, starts[at]
            line += low.count("\n", seen, start)
            seen = start
            found.setdefault(self.keys[k], []).append((line + 1, entry))
        return found


def _starts(texts: list[str]) -> list[int]:
    """Where each of ``texts`` starts in ``"\\n" + "\\n".join(texts)``."""
    starts, at = [], 1
    for text in texts:
        starts.append(at)
        at += len(text) + 1
    return starts


def _parse(data: bytes, rel: str, *, prose: bool = False) -> list[tuple[int, str]]:
    """(line, text) of every entry with text, from the parser (``prose``: and the running text
    and front matter, ``core.format.edit.searchable_lines``)."""
    from amr_tui.core.format.edit import searchable_lines  # parser: only for files not read as plain lines
    from amr_tui.core.format.parser import parse as parse_document  # parser: only for files not read as plain lines

    return searchable_lines(parse_document(data, rel, check=False), prose=prose)


First = tuple[int, dict[str, int], Found]  # a share's entry count, word counts, first candidates


class _Local:
    """A share read and scanned in this process."""

    def __init__(self, mounts: list[Mount], files: list[Key], words: list[list[str]], strict: bool) -> None:
        self.share, self.words, self.strict = _Share(mounts, files), words, strict

    def first(self) -> First:
        """The share's counts, and its candidates for "every word" (``strict``) or "any word"."""
        share, words = self.share, self.words
        found = share.every([_strict_probe(f) for f in words]) if self.strict else share.any(_loose_parts(words))
        return share.population(), {forms[0]: share.counted(forms) for forms in words}, found

    def loose(self) -> Found:
        """The candidates for "any word" (after a strict ``first``)."""
        return self.share.any(_loose_parts(self.words))

    def close(self) -> None:
        """Nothing to stop."""


class _Child:
    """A share read and scanned by a forked process, which sends what ``_Local`` would return
    down a pipe: ``first``, then (after a strict first) ``loose`` without being asked, so it is
    ready when the strict stage falls short; ``close`` stops it when it is not wanted. A child
    that dies, or sends nothing for ``CHILD_WAIT_S``, is stopped and its share read here."""

    def __init__(self, mounts: list[Mount], files: list[Key], words: list[list[str]], strict: bool) -> None:
        self._args = (mounts, files, words, strict)
        self._here: _Local | None = None  # the share read here, once the child failed
        read, write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child
            try:
                os.close(read)
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):  # a pipe reading our output sees its end when we do
                    os.dup2(null, fd)
                with os.fdopen(write, "wb") as out:
                    local = _Local(mounts, files, words, strict)
                    pickle.dump(local.first(), out, protocol=pickle.HIGHEST_PROTOCOL)
                    out.flush()
                    if strict:
                        pickle.dump(local.loose(), out, protocol=pickle.HIGHEST_PROTOCOL)
            finally:
                os._exit(0)
        os.close(write)
        self.stream = os.fdopen(read, "rb")

    def first(self) -> First:
        """The child's first message (or the share read here)."""
        try:
            got: First = self._receive()
        except Exception:  # it died or hangs (EOFError, TimeoutError, a broken pickle)
            return self._fallback().first()
        return got

    def loose(self) -> Found:
        """The child's second message (or the share read here)."""
        if self._here is not None:
            return self._here.loose()
        try:
            got: Found = self._receive()
        except Exception:
            return self._fallback().loose()
        return got

    def _receive(self) -> Any:
        if not select.select([self.stream], [], [], CHILD_WAIT_S)[0]:
            raise TimeoutError(f"no answer from the child in {CHILD_WAIT_S:g} s")
        return pickle.load(self.stream)

    def _fallback(self) -> _Local:
        self.close()
        self._here = _Local(*self._args)
        return self._here

    def close(self) -> None:
        """Stop the child (its work may no longer be wanted). It is reaped later, without
        waiting (the kernel takes milliseconds to free its memory): by the next search in this
        process, or by init when this process ends."""

        if self.stream.closed:  # stopped already (its pid may be reaped and reused since)
            return
        self.stream.close()
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        _UNREAPED.append(self.pid)
        _reap()


def _reap() -> None:
    for pid in list(_UNREAPED):
        try:
            done, _status = os.waitpid(pid, os.WNOHANG)
        except OSError:  # not ours any more
            done = pid
        if done:
            _UNREAPED.remove(pid)


# ----------------------------------------------------------------------------------- the answer


def cold_index(
    mounts: list[Mount], query: str, limit: int, *, jobs: int | None = None, keys: Container[str] = frozenset()
) -> SearchIndex | None:
    """An index of the lines of ``mounts`` that can answer ``query`` with ``limit`` hits (file
    names included), or None when every entry is a candidate (the caller builds the full index).
    ``keys``: the metadata keys of the repos a ``KEY:VALUE`` filter may name (what the search's
    context reads them as: ``tags:infra`` is a filter, not two words, where an entry has ``tags``).

    ``jobs`` is how many processes read (1 or 2); by default two on a big repo when this process
    may fork (no other thread) and has a second core."""
    words = _words(query, keys)
    if not words:
        return None
    listed: list[list[str]] = []
    files: list[Key] = []
    for at, mount in enumerate(mounts):
        names, escaping, _none = scan_files(mount.root, stats=False)  # names only: no lstat a file
        names = [rel for rel in names if rel not in escaping]
        listed.append(names)
        files += [(at, rel) for rel in names if is_markdown(rel)]
    strict = not parse(query, keys).has_operators  # with operators (filters, exclusions): any word at once
    shares: list[_Local | _Child] = []
    try:
        ours, theirs = _split(files, CHILD_SHARE)
        child = _fork(mounts, theirs, words, strict) if _wants_fork(jobs, len(files)) else None
        if child is None:
            shares = [_Local(mounts, files, words, strict)]
            firsts = [shares[0].first()]
        else:
            shares = [_Local(mounts, ours, words, strict), child]
            firsts = [shares[0].first()]
            import amr_tui.core.search.index  # noqa: F401  # imported while the child reads on

            firsts.append(child.first())
        # what the full index holds: an item per entry and one per file name
        population = sum(f[0] for f in firsts) + sum(len(names) for names in listed)
        counted = {
            forms[0]: sum(f[1][forms[0]] for f in firsts)
            + sum(1 for names in listed for rel in names if _starts_word(rel.lower(), forms))
            for forms in words
        }
        found: Found = {key: entries for f in firsts for key, entries in f[2].items()}
        if strict:  # 1. the lines holding every word
            index = _index(mounts, listed, found, [_strict_probe(forms) for forms in words], every=True)
            if index.strict_count(query, keys=keys) >= limit:
                index.population, index.counted = population, counted
                return index
            found = {key: entries for share in shares for key, entries in share.loose().items()}
        # 2. any word, typos included
        index = _index(mounts, listed, found, _loose_parts(words), every=False)
        index.population, index.counted = population, counted
        return index
    finally:
        for share in shares:
            share.close()


def _split(files: list[Key], share: float) -> tuple[list[Key], list[Key]]:
    """(ours, the child's): the files dealt in turn (neighbours tend to be alike in size), the
    child's about ``share`` of them."""
    ours: list[Key] = []
    theirs: list[Key] = []
    for k, key in enumerate(files):
        (ours if len(ours) + 1 <= (1 - share) * (k + 1) else theirs).append(key)
    return ours, theirs


def _wants_fork(jobs: int | None, files: int) -> bool:
    if jobs is not None:
        return jobs > 1 and hasattr(os, "fork")
    if not hasattr(os, "fork") or files < FORK_FILES:
        return False
    return threading.active_count() == 1 and processes() > 1  # a fork copies locks other threads hold


def _fork(mounts: list[Mount], files: list[Key], words: list[list[str]], strict: bool) -> _Child | None:
    try:
        return _Child(mounts, files, words, strict)
    except OSError:  # no fork this time (a limit on processes): one process reads it all
        return None


def _index(
    mounts: list[Mount], listed: list[list[str]], found: Found, probes: list[re.Pattern[str]], *, every: bool
) -> SearchIndex:
    """The index of the candidate entries, and of the files whose name holds every probe
    (``every``) or one of them."""
    from amr_tui.core.search.index import SearchIndex  # search index: loaded after the scan, off `amr search` start-up

    index = SearchIndex()
    pick = all if every else any
    for at, (mount, names) in enumerate(zip(mounts, listed, strict=True)):
        batch: list[tuple[str, list[tuple[int, str]]]] = []
        for rel in names:
            entries = found.get((at, rel), [])
            if entries or pick(p.search(rel.lower()) for p in probes):  # a file name can match too
                batch.append((rel, entries))
        index.set_files(mount.name, batch)
    return index


__all__ = ["FORK_FILES", "cold_index"]
