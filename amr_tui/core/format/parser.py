"""Lossless parser and serializer for memory files.

``serialize(parse(data)) == data`` holds for every byte string: the document keeps every
line's text and end of line, the BOM, and undecodable bytes (as surrogate escapes). Block
structure comes from markdown-it-py (CommonMark), so bullets inside fenced code, HTML
blocks or blockquotes are not entries. See docs/format.md for every decision.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from amr_tui.core.format import fastscan
from amr_tui.core.format.links import find_links
from amr_tui.core.format.metadata import MetaParse, parse_metadata
from amr_tui.core.model import WHITESPACE, Diagnostic, Entry, Line, LineKind, Link
from amr_tui.core.paths import MARKDOWN_SUFFIXES as MARKDOWN_SUFFIXES  # the parser's API, defined in core.paths
from amr_tui.core.paths import MEMORY_FILE
from amr_tui.core.paths import is_markdown as is_markdown
from amr_tui.core.shared import EMPTY

BOM = "\ufeff"
SEPARATOR = "\u00a7"  # Hermes' memory files: paragraphs with a line holding only "§" between them
_MD: Any = None  # markdown-it, built on first use: most files take the fast path (``fastscan``)


def _markdown_it() -> Any:  # markdown-it-py has no type hints
    """Block rules only: inline parsing adds nothing amr reads (a heading's text is raw)."""
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt  # on first use: most files never need it (start-up of `amr`)

        _MD = MarkdownIt("commonmark").disable(["inline", "text_join"])
    return _MD


@dataclass(slots=True)
class Document:
    path: str
    lines: list[Line]
    bom: bool = False
    utf8: bool = True
    entries: list[Entry] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)  # every link in the file, entries or not
    headings: list[tuple[int, int, str]] = field(default_factory=list)  # (line, level, text)
    front_matter: tuple[int, int] | None = None  # 1-based first and last line
    paragraphs: bool = False  # Hermes-shaped: its entries are paragraphs between § lines, no bullets
    # The line-local lint, computed on first use of ``diagnostics`` (a search index or a
    # link graph never needs it); ``_meta_problems`` keeps the parser's metadata reads that
    # the lint needs (the unusual ones: a clean "[k: v; k: v]" is rebuilt from the entry).
    _diagnostics: list[Diagnostic] | None = field(default=None, repr=False, compare=False)
    _meta_problems: dict[int, MetaParse] | None = field(default=None, repr=False, compare=False)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        found = self._diagnostics
        if found is None:
            # On first use: a search index or a link graph never needs the rules (~20 ms to import).
            from amr_tui.core.format.rules import check_document

            found = check_document(self, self._meta_problems or {}, problems_only=True)
            self._diagnostics, self._meta_problems = found, None
        return found

    @diagnostics.setter
    def diagnostics(self, value: list[Diagnostic]) -> None:
        self._diagnostics, self._meta_problems = value, None

    def to_bytes(self) -> bytes:
        return serialize(self)

    def entry_at(self, line: int) -> Entry | None:
        for entry in self.entries:
            if entry.line == line:
                return entry
        return None

    @property
    def text(self) -> str:
        return "".join(line.text + line.eol for line in self.lines)


def split_lines(text: str) -> list[Line]:
    """Split on ``\\n`` only; ``\\r\\n`` is an end of line, a lone ``\\r`` stays in the text."""
    lines: list[Line] = []
    parts = text.split("\n")
    last = len(parts) - 1
    for i, part in enumerate(parts):
        if i == last:
            if part:
                lines.append(Line(i + 1, part, ""))
            break
        if part.endswith("\r"):
            lines.append(Line(i + 1, part[:-1], "\r\n"))
        else:
            lines.append(Line(i + 1, part, "\n"))
    return lines


def decode(data: bytes) -> tuple[str, bool, bool]:
    """(text without BOM, had BOM, valid UTF-8)."""
    try:
        text = data.decode("utf-8")
        utf8 = True
    except UnicodeDecodeError:
        text = data.decode("utf-8", "surrogateescape")
        utf8 = False
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    return text, bom, utf8


def serialize(doc: Document) -> bytes:
    text = (BOM if doc.bom else "") + doc.text
    return text.encode("utf-8", "surrogateescape")


def _front_matter(lines: list[Line]) -> tuple[int, int] | None:
    if not lines or lines[0].text.rstrip(" \t") != "---":
        return None
    for line in lines[1:]:
        if line.text.rstrip(" \t") in ("---", "..."):
            return (1, line.number)
    return None


def _markdown_source(lines: list[Line], skip: tuple[int, int] | None, *, hermes: bool = False) -> str:
    """The text markdown-it reads: front matter blanked; in a Hermes file (``hermes``) each line
    holding only ``§`` written as a thematic break, so that it ends a list above it as Hermes
    means it to (a lazy continuation line of the list item's paragraph otherwise)."""
    out = []
    for line in lines:
        if skip and skip[0] <= line.number <= skip[1]:
            out.append("")
        elif hermes and line.text.strip(WHITESPACE) == SEPARATOR:
            out.append("***")
        else:
            out.append(line.text.replace("\r", " "))
    return "\n".join(out) + "\n"


def parse(data: bytes, path: str = MEMORY_FILE, *, check: bool = True) -> Document:
    """Parse a file. Non-Markdown files get lines but no entries and no links.

    The line-local lint (``Document.diagnostics``) runs on first use. ``check=False`` skips it
    (``diagnostics`` stay empty): for callers that only read entries, such as ``amr search``.
    """
    text, bom, utf8 = decode(data)
    lines = split_lines(text)
    doc = Document(path=path, lines=lines, bom=bom, utf8=utf8)
    if not is_markdown(path):
        for line in lines:
            line.kind = LineKind.CODE if line.text.strip(WHITESPACE) else LineKind.BLANK
        return doc
    metas = _parse_markdown(doc, text)
    if not check:
        doc._diagnostics = []
        return doc
    doc._meta_problems = {line: m for line, m in metas.items() if not _clean_meta(m)}
    return doc


def _clean_meta(meta: MetaParse) -> bool:
    """Nothing for the line-local lint to report from this metadata read but its group count."""
    return (
        len(meta.groups) <= 1
        and not meta.joined_items
        and not meta.empty_items
        and meta.trailing_non_meta is None
        and not meta.unparsable
    )


def _mark(lines: list[Line], start: int, end: int, kind: LineKind) -> None:
    for idx in range(start, min(end, len(lines))):
        if lines[idx].text.strip(WHITESPACE):
            lines[idx].kind = kind


def _parse_markdown(doc: Document, text: str) -> dict[int, MetaParse]:
    """Block structure, links and entries; returns each entry's metadata parse by line."""
    hermes = SEPARATOR in text
    scanned = fastscan.scan(doc.lines) if not hermes and fastscan.eligible_text(text) else None
    opaque: set[int] = set()  # 0-based lines whose links do not count (code, html)
    if scanned is None:
        pending = _parse_blocks(doc, opaque, hermes=hermes)
    else:
        pending, doc.headings = scanned
    paragraphs = _paragraph_entries(doc.lines) if hermes else []
    if paragraphs:
        doc.paragraphs = True
        pending = sorted(pending + paragraphs)
    if "[[" in text or "](" in text:
        base = doc.path.rpartition("/")[0]  # a Markdown link is relative to its file's folder
        for idx, line in enumerate(doc.lines):
            t = line.text
            if ("[[" in t or "](" in t) and idx not in opaque and line.kind is not LineKind.FRONT_MATTER:
                doc.links.extend(find_links(t, line.number, base))
    return _build_entries(doc, pending, nested=scanned is None, paragraphs={p[0] for p in paragraphs})


def _parse_blocks(doc: Document, opaque: set[int], *, hermes: bool = False) -> list[tuple[int, int, int, int]]:
    """markdown-it's block tokens: kinds of lines, headings and list items (any Markdown)."""
    lines = doc.lines
    n = len(lines)
    for line in lines:
        line.kind = LineKind.BLANK if not line.text.strip(WHITESPACE) else LineKind.TEXT
    doc.front_matter = _front_matter(lines)
    if doc.front_matter:
        _mark(lines, 0, doc.front_matter[1], LineKind.FRONT_MATTER)
    tokens = _markdown_it().parse(_markdown_source(lines, doc.front_matter, hermes=hermes))

    quote_depth = 0
    list_stack: list[str] = []  # "bullet" / "ordered" for each open list
    item_stack: list[int] = []  # 0-based first line of each open list item (-1 when not an entry)
    item_lines: set[int] = set()  # 0-based lines on which a list item starts
    pending: list[tuple[int, int, int, int]] = []  # (line0, end0, depth, parent_line0)
    heading_open: tuple[int, int] | None = None
    for tok in tokens:
        t = tok.type
        if t == "blockquote_open":
            quote_depth += 1
            if tok.map:
                _mark(lines, tok.map[0], tok.map[1], LineKind.QUOTE)
        elif t == "blockquote_close":
            quote_depth -= 1
        elif t in ("fence", "code_block"):
            if tok.map and quote_depth == 0:
                _mark(lines, tok.map[0], tok.map[1], LineKind.CODE)
            if tok.map:
                opaque.update(range(tok.map[0], tok.map[1]))
        elif t == "html_block":
            if tok.map and quote_depth == 0:
                _mark(lines, tok.map[0], tok.map[1], LineKind.HTML)
            if tok.map:
                opaque.update(range(tok.map[0], tok.map[1]))
        elif t == "hr" and tok.map and quote_depth == 0 and not item_stack:
            _mark(lines, tok.map[0], tok.map[1], LineKind.RULE)
        elif t == "table_open" and tok.map:
            _mark(lines, tok.map[0], tok.map[1], LineKind.TABLE)
        elif t == "heading_open" and tok.map:
            heading_open = (tok.map[0], int(tok.tag[1:]))
            if quote_depth == 0 and not item_stack:
                _mark(lines, tok.map[0], tok.map[1], LineKind.HEADING)
        elif t == "inline" and heading_open is not None:
            if quote_depth == 0 and not item_stack:
                doc.headings.append((heading_open[0] + 1, heading_open[1], tok.content.strip()))
            heading_open = None
        elif t == "bullet_list_open":
            list_stack.append("bullet")
        elif t == "ordered_list_open":
            list_stack.append("ordered")
        elif t in ("bullet_list_close", "ordered_list_close"):
            list_stack.pop()
        elif t == "list_item_open" and tok.map:
            start, end = tok.map
            if start in item_lines:
                # "- - x", "1. - x": a list item opened on the line of another one is part of
                # that line's text. One line holds at most one entry: the outermost item.
                item_stack.append(-1)
                continue
            item_lines.add(start)
            is_entry = quote_depth == 0 and list_stack and list_stack[-1] == "bullet"
            if is_entry:
                parents = [p for p in item_stack if p >= 0]
                pending.append((start, end, len(parents), parents[-1] if parents else -1))
                if start < n:
                    lines[start].kind = LineKind.ENTRY
                _mark_continuation(lines, start + 1, end)
            elif quote_depth == 0 and start < n:
                lines[start].kind = LineKind.LIST
                _mark_continuation(lines, start + 1, end)
            item_stack.append(start if is_entry else -1)
        elif t == "list_item_close":
            item_stack.pop()

    for start, _end, _depth, _parent in pending:
        if start < n:  # "- ```", "- > x", "- <div>": the bullet line stays the entry
            lines[start].kind = LineKind.ENTRY
    return pending


def _paragraph_entries(lines: list[Line]) -> list[tuple[int, int, int, int]]:
    """Hermes' entries: each stretch of running text between lines holding only § is one
    entry, its first line the entry's line and the rest its continuation. A stretch holding
    anything but text (a list, a heading, code) is left as Markdown reads it."""
    seps = [
        i
        for i, ln in enumerate(lines)
        if ln.kind in (LineKind.TEXT, LineKind.RULE) and ln.text.strip(WHITESPACE) == SEPARATOR
    ]
    if not seps:
        return []
    out: list[tuple[int, int, int, int]] = []
    bounds = [-1, *seps, len(lines)]
    for lo, hi in zip(bounds, bounds[1:], strict=False):
        chunk = range(lo + 1, hi)
        kinds = {lines[i].kind for i in chunk}
        if LineKind.TEXT not in kinds or not kinds <= {LineKind.TEXT, LineKind.BLANK}:
            continue
        first = next(i for i in chunk if lines[i].kind is LineKind.TEXT)
        last = max(i for i in chunk if lines[i].kind is LineKind.TEXT)
        lines[first].kind = LineKind.ENTRY
        for i in range(first + 1, last + 1):
            if lines[i].kind is LineKind.TEXT:
                lines[i].kind = LineKind.CONTINUATION
        out.append((first, last + 1, 0, -1))
    for i in seps:
        lines[i].kind = LineKind.RULE
    return out


def _mark_continuation(lines: list[Line], start: int, end: int) -> None:
    for idx in range(start, min(end, len(lines))):
        if lines[idx].text.strip(WHITESPACE) and lines[idx].kind in (LineKind.TEXT, LineKind.BLANK):
            lines[idx].kind = LineKind.CONTINUATION


def _build_entries(
    doc: Document, pending: list[tuple[int, int, int, int]], *, nested: bool, paragraphs: set[int]
) -> dict[int, MetaParse]:
    """Entries from the list items in ``pending`` (and the § paragraphs starting on the
    0-based lines ``paragraphs``); ``nested`` False when no item holds another."""
    lines = doc.lines
    n = len(lines)
    links_by_line: dict[int, list[Link]] = {}
    for link in doc.links:
        links_by_line.setdefault(link.line, []).append(link)
    entry_spans = sorted((start, end) for start, end, _d, _p in pending) if nested else []
    heading_lines = [h[0] for h in doc.headings]
    headings = doc.headings
    metas: dict[int, MetaParse] = {}
    entries = doc.entries
    for start, end, depth, parent in pending:
        if start >= n:
            continue
        raw = lines[start].text
        if raw[:2] in ("- ", "* ", "+ ") and raw[2:3] not in (" ", "\t"):
            indent, marker, content_start = "", raw[0], 2
        elif start in paragraphs:  # a § paragraph: no marker
            indent, marker, content_start = "", "", len(raw) - len(raw.lstrip(" \t"))
        else:
            stripped = raw.lstrip(" \t")
            indent = raw[: len(raw) - len(stripped)]
            marker = stripped[:1]
            after = stripped[1:]
            content_start = len(indent) + 1 + (len(after) - len(after.lstrip(" \t")))
        content = raw[content_start:]
        meta = parse_metadata(content, base=content_start)
        metas[start + 1] = meta
        text = content[: meta.meta_start].strip(WHITESPACE)
        # Lines of the list item that are not blank and not inside a nested entry's item:
        # continuation text, code, quotes, ordered sub-lists... (AMR004).
        if end <= start + 1:
            multiline = False
        elif nested:
            inner: set[int] = set()
            k = bisect_right(entry_spans, (start, n + 1))
            while k < len(entry_spans) and entry_spans[k][0] < end:
                inner.update(range(entry_spans[k][0], entry_spans[k][1]))
                k += 1
            multiline = any(
                idx not in inner and lines[idx].text.strip(WHITESPACE) for idx in range(start + 1, min(end, n))
            )
        else:
            multiline = True  # the fast path's items end at their last (non-blank) lazy line
        h = bisect_right(heading_lines, start)  # headings on lines 1..start, i.e. above the entry
        section, level = (headings[h - 1][2], headings[h - 1][1]) if h else (None, 0)
        line_links = links_by_line.get(start + 1)
        meta_start = content_start + meta.meta_start
        # Positional, in Entry's field order (a keyword call costs twice as much, 100,000 times):
        # line, indent, marker, content_start, text, metadata (a list of its own: line positions),
        # links, section, section_level, depth, parent_line, meta_start, meta_groups, multiline,
        # diagnostics.
        entries.append(
            Entry(
                start + 1,
                indent,
                marker,
                content_start,
                text,
                meta.items,
                [lk for lk in line_links if lk.start < meta_start] if line_links else EMPTY,
                section,
                level,
                depth,
                parent + 1 if parent >= 0 else 0,
                meta_start,
                len(meta.groups),
                multiline,
                EMPTY,
            )
        )
    return metas
