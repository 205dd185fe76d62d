"""Data types of the Agent Memory Repo format as amr reads it.

Everything here is plain data: no I/O, no git, no UI. See docs/format.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

WHITESPACE = " \t\v\f\r"
"""What amr trims around entry text, keys, values and link targets: ASCII whitespace only
(space, tab, VT, FF, CR), so every implementation trims the same characters."""


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


@dataclass(frozen=True, slots=True)
class LineEdit:
    """Replace the text of one line (1-based, end of line kept)."""

    line: int
    new_text: str


@dataclass(frozen=True, slots=True)
class Fix:
    description: str
    edits: tuple[LineEdit, ...]
    path: str | None = None  # the file the edits apply to, when not the finding's own file


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    line: int  # 1-based; 0 for a whole-file or whole-repo finding
    column: int  # 1-based; 0 when it applies to the whole line or file
    fix: Fix | None = None
    end_column: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "line": self.line,
            "column": self.column,
        }


@dataclass(frozen=True, slots=True)
class Finding:
    """A diagnostic and the file (path relative to the repo root) it is about."""

    path: str
    diagnostic: Diagnostic


@dataclass(frozen=True, slots=True)
class MetaItem:
    key: str
    value: str
    start: int  # 0-based offset of the key in the line
    end: int  # 0-based offset just past the value


@dataclass(frozen=True, slots=True)
class Link:
    target: str  # the target as written, without brackets, alias or fragment
    raw: str  # everything between [[ and ]] (a Markdown link: its target as written, fragment kept)
    line: int  # 1-based
    start: int  # 0-based offset of the first "[" in the line
    end: int  # 0-based offset just past the last "]" (or ")")
    label: str | None = None  # a Markdown link ``[label](target)``: its text; None for ``[[...]]``

    @property
    def column(self) -> int:
        return self.start + 1

    @property
    def written(self) -> str:
        """The link as written: ``[[raw]]`` or ``[label](raw)``."""
        return f"[[{self.raw}]]" if self.label is None else f"[{self.label}]({self.raw})"


class LineKind(str, Enum):
    BLANK = "blank"
    HEADING = "heading"
    ENTRY = "entry"
    CONTINUATION = "continuation"  # a later line of a list item (not part of the entry)
    LIST = "list"  # an ordered list item or a quoted list item: not an entry
    TEXT = "text"
    CODE = "code"
    HTML = "html"
    QUOTE = "quote"
    FRONT_MATTER = "front_matter"
    RULE = "rule"
    TABLE = "table"


@dataclass(slots=True)
class Line:
    number: int  # 1-based
    text: str  # without end of line (and without the BOM on line 1)
    eol: str  # "\n", "\r\n" or "" (last line without newline)
    kind: LineKind = LineKind.TEXT


@dataclass(slots=True)
class Entry:
    line: int  # 1-based
    indent: str  # whitespace before the marker
    marker: str  # "-", "*" or "+"
    content_start: int  # 0-based offset where the content starts (after marker and spaces)
    text: str  # the fact, without marker and metadata, trimmed
    metadata: list[MetaItem]
    links: list[Link]
    section: str | None  # nearest heading above, as text
    section_level: int  # 0 when there is no heading above
    depth: int  # 0 for a top-level bullet, 1 for a sub-bullet, ...
    parent_line: int  # 1-based line of the enclosing entry, 0 at top level
    meta_start: int  # 0-based offset where the metadata brackets start; len(line) if none
    meta_groups: int  # how many bracket groups held the metadata
    multiline: bool = False  # the list item has more lines than the bullet line
    diagnostics: list[Diagnostic] = field(default_factory=list)  # set when its Document's diagnostics are computed

    def meta(self, key: str) -> list[str]:
        """Values of a key, in order (keys compare case-insensitively)."""
        wanted = key.lower()
        return [m.value for m in self.metadata if m.key.lower() == wanted]

    def first(self, key: str) -> str | None:
        values = self.meta(key)
        return values[0] if values else None

    def meta_json(self) -> dict[str, str | list[str]]:
        """Keys in lower case (keys compare case-insensitively); a repeated key maps to a list."""
        out: dict[str, str | list[str]] = {}
        for item in self.metadata:
            key = item.key.lower()
            if key in out:
                prev = out[key]
                if isinstance(prev, list):
                    prev.append(item.value)
                else:
                    out[key] = [prev, item.value]
            else:
                out[key] = item.value
        return out


class ParsedFile(Protocol):
    """What the checks read of a parsed memory file; ``core.format.parser.Document`` is one.

    The line-local rules (``core.format.rules``) and lint's file facts (``core.lint.facts``)
    take this rather than ``Document``: the parser itself runs the rules on first use of
    ``diagnostics``, so the rules cannot import it.
    """

    @property
    def utf8(self) -> bool: ...
    @property
    def front_matter(self) -> tuple[int, int] | None: ...
    @property
    def lines(self) -> list[Line]: ...
    @property
    def entries(self) -> list[Entry]: ...
    @property
    def links(self) -> list[Link]: ...
    @property
    def headings(self) -> list[tuple[int, int, str]]: ...  # (line, level, text)
    @property
    def diagnostics(self) -> list[Diagnostic]: ...
    @property
    def text(self) -> str: ...


def is_fact_line(doc: ParsedFile, line: int) -> bool:
    """Whether line ``line`` of ``doc``, as the search index holds it, is a fact (an entry, or
    running text where a format writes prose), not a heading or a front-matter field: the search
    filters judge facts only."""
    if not 1 <= line <= len(doc.lines):
        return False
    return doc.lines[line - 1].kind not in (LineKind.HEADING, LineKind.FRONT_MATTER)
