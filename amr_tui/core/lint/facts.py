"""What the repo-wide lint needs of one file, without the file: its facts.

``lint_repo`` reads each Markdown file's line-local diagnostics, its ``[[links]]`` (with the
text of their lines, for the fix of a broken link), the normalised text of its entries
(for duplicates) and as written (for possible contradictions), and its headings (for ``[[file#heading]]`` links). ``facts_of`` takes them from a parsed ``Document``; ``pack``/``unpack``
turn them into plain data and back, so a cache can keep them for files that did not change
and the repo can be linted again after one file changed without parsing the others.
MEMORY.md is always parsed: its headings and lines feed the checks of the entry point.
Pure: no I/O.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field

from amr_tui.core.format.entrymeta import FileMeta, PackedMeta, file_meta, pack_meta, unpack_meta
from amr_tui.core.format.tags import file_tags
from amr_tui.core.model import Diagnostic, Fix, LineEdit, Link, ParsedFile, Severity

_PUNCT = re.compile(r"[^\w\s]")
# ASCII characters that are neither word characters nor whitespace: what _PUNCT replaces.
_ASCII_PUNCT = str.maketrans({c: " " for c in map(chr, range(128)) if _PUNCT.match(c)})
_SEVERITY = {s.value: s for s in Severity}

# The plain data a cache keeps (``pack``): tuples of strings and ints only.
PackedFix = tuple[str, tuple[tuple[int, str], ...], str | None]  # description, (line, new text) edits, path
PackedDiagnostic = tuple[
    str, str, str, int, int, int, PackedFix | None
]  # code, severity, message, line, column, end column, fix
PackedLink = tuple[str, str, int, int, int, str | None]  # target, raw, line, start, end, label
PackedFacts = tuple[
    tuple[PackedDiagnostic, ...],
    tuple[PackedLink, ...],
    tuple[tuple[int, str], ...],
    str,
    bytes,
    tuple[str, ...],
    tuple[str, ...],
    PackedMeta | None,
    tuple[str, ...],
]


def normalise_text(text: str) -> str:
    folded = text.casefold()
    if folded.isascii():
        return " ".join(folded.translate(_ASCII_PUNCT).split())
    return " ".join(_PUNCT.sub(" ", folded).split())


def value_words(norm: str) -> tuple[str, ...]:
    """The words of a *normalised* text that hold a digit, sorted: its numbers, ports, versions,
    dates and sizes. Two texts that differ in one of them state different facts ("listens on port
    5432" and "listens on port 6432"): at most a possible contradiction, never a duplicate."""
    if not any(ch.isdigit() for ch in norm):
        return ()
    return tuple(sorted(w for w in norm.split() if any(ch.isdigit() for ch in w)))


def same_values(a: str, b: str) -> bool:
    """Whether two *normalised* texts hold the same numbers, versions and dates (``value_words``)."""
    return value_words(a) == value_words(b)


@dataclass(slots=True)
class FileFacts:
    diagnostics: list[Diagnostic]  # the file's line-local findings (Document.diagnostics)
    links: list[Link]  # every [[link]] that counts (not in code or HTML)
    link_lines: dict[int, str]  # text of each line that holds a link
    # The normalised text of each entry with text, in order, joined by line breaks (a
    # normalised text has none), and each one's line: two objects a file, not two an entry.
    norms: str
    lines: array[int]
    headings: list[str]  # the text of each heading, in order (what a [[file#heading]] link names)
    texts: list[str] = field(default_factory=list)  # each entry's text as written, as ``entries`` (AMR033)
    meta: FileMeta | None = None  # the entries' [key: value] metadata (the finder's filters); None: none has any
    tags: tuple[str, ...] = ()  # the tags its front matter gives the file (``core.format.tags.file_tags``)

    @property
    def count(self) -> int:
        """How many entries with text."""
        return len(self.lines)

    @property
    def entries(self) -> Iterator[tuple[str, int]]:
        """(normalised text, line) of each entry with text, in order."""
        if self.lines:
            yield from zip(self.norms.split("\n"), self.lines, strict=True)


def facts_of(doc: ParsedFile, keys: dict[frozenset[str], frozenset[str]] | None = None) -> FileFacts:
    """The facts of a parsed file (a ``core.format.parser.Document``). ``keys``: shared across
    files, so files with the same metadata keys share one set."""
    lines = doc.lines
    link_lines = {ln: lines[ln - 1].text for ln in {link.line for link in doc.links}}
    norms = []
    at: array[int] = array("I")
    texts = []
    for entry in doc.entries:
        norm = normalise_text(entry.text)
        if norm:
            norms.append(norm)
            at.append(entry.line)
            texts.append(entry.text)
    headings = [t for _ln, _lvl, t in doc.headings]
    return FileFacts(
        doc.diagnostics,
        list(doc.links),
        link_lines,
        "\n".join(norms),
        at,
        headings,
        texts,
        file_meta(doc.entries, keys),
        file_tags(doc),
    )


def pack_diagnostic(d: Diagnostic) -> PackedDiagnostic:
    """A diagnostic as plain data (what a cache may hold)."""
    fix: PackedFix | None = None
    if d.fix is not None:
        fix = (d.fix.description, tuple((e.line, e.new_text) for e in d.fix.edits), d.fix.path)
    return d.code, d.severity.value, d.message, d.line, d.column, d.end_column, fix


def unpack_diagnostic(t: PackedDiagnostic) -> Diagnostic:
    code, severity, message, line, column, end_column, packed_fix = t
    fix = None
    if packed_fix is not None:
        description, edits, path = packed_fix
        fix = Fix(description, tuple(LineEdit(n, text) for n, text in edits), path)
    return Diagnostic(code, _SEVERITY[severity], message, line, column, fix, end_column)


def pack(f: FileFacts) -> PackedFacts:
    """Plain tuples, strings and ints (what a cache may hold)."""
    links = tuple((k.target, k.raw, k.line, k.start, k.end, k.label) for k in f.links)
    return (
        tuple(map(pack_diagnostic, f.diagnostics)),
        links,
        tuple(f.link_lines.items()),
        f.norms,
        f.lines.tobytes(),
        tuple(f.headings),
        tuple(f.texts),
        pack_meta(f.meta) if f.meta is not None else None,
        f.tags,
    )


def unpack(t: PackedFacts, keys: dict[frozenset[str], frozenset[str]] | None = None) -> FileFacts:
    diags, links, link_lines, norms, raw_lines, headings, texts, meta, tags = t
    at: array[int] = array("I")
    at.frombytes(raw_lines)
    if len(at) != len(texts) or (norms.count("\n") + 1 if norms else 0) != len(at):
        raise ValueError("packed facts do not line up")
    return FileFacts(
        [unpack_diagnostic(d) for d in diags],
        [Link(*k) for k in links],
        dict(link_lines),
        str(norms),
        at,
        list(headings),
        list(texts),
        unpack_meta(meta, keys) if meta is not None else None,
        tuple(map(str, tags)),
    )
