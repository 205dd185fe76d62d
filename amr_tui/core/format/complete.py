"""``[[`` completion, the text half: what is being typed after ``[[``, how each memory format
writes a link to a file, and the line once a completion is taken.

A link is completed while the cursor is after an ``[[`` that is not closed before it (on the
same line, outside inline code): ``link_query``. What goes between the brackets depends on the
format (``docs/format.md`` section 10): a path from the root without ``.md`` (AMR, Hermes, memory
banks, plain folders), with it (Letta), the note's name where the vault links by name (Obsidian:
the shortest ending of its path no other file shares), its title (basic-memory), and, in a format
that writes Markdown links (Claude Code), a ``[Title](path.md)`` link relative to the file's
folder instead of the ``[[`` typed. A ``#`` after the target completes one of its headings.
Pure: the files and titles are handed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from amr_tui.core.format.links import NameIndex, code_spans, link_text_for, md_link_for
from amr_tui.core.paths import has_md_suffix

__all__ = [
    "MARKDOWN_LINKS",
    "Completion",
    "LinkQuery",
    "LinkTarget",
    "apply_completion",
    "completion_for",
    "heading_completion",
    "link_query",
    "link_targets",
    "query_words",
]

#: Formats whose links are Markdown links ``[text](file.md)``: completion writes one.
MARKDOWN_LINKS = frozenset({"claude-code"})
#: Formats that name a note by its title (basic-memory) or by its name (Obsidian).
_BY_TITLE = frozenset({"basic-memory"})
_BY_NAME = frozenset({"obsidian"})
_WITH_SUFFIX = frozenset({"letta"})


@dataclass(frozen=True, slots=True)
class LinkQuery:
    """An ``[[`` being typed: the cursor is after it, the link not closed yet."""

    start: int  # offset of the "[[" in the text
    end: int  # the cursor's offset: the typed part is text[start + 2 : end]
    target: str  # what is typed before any "#": the file named
    heading: str | None  # what is typed after "#" (None: no "#" yet)
    closed: bool  # "]]" follows the cursor directly (a completion does not add another)

    @property
    def typed(self) -> str:
        return self.target if self.heading is None else f"{self.target}#{self.heading}"


def link_query(text: str, cursor: int) -> LinkQuery | None:
    """The ``[[`` link being typed at ``cursor`` in one line of ``text``, or None."""
    before = text[:cursor]
    line_start = before.rfind("\n") + 1
    opened = before.rfind("[[", line_start)
    if opened == -1:
        return None
    typed = before[opened + 2 :]
    if any(ch in typed for ch in "[]|\n`"):
        return None
    line_end = text.find("\n", cursor)
    line = text[line_start : len(text) if line_end == -1 else line_end]
    if any(a <= opened - line_start < b for a, b in code_spans(line)) or before[line_start:opened].count("`") % 2:
        return None  # in inline code (or a code span being typed)
    target, sep, heading = typed.partition("#")
    return LinkQuery(opened, cursor, target, heading if sep else None, text[cursor : cursor + 2] == "]]")


@dataclass(frozen=True, slots=True)
class LinkTarget:
    """A file a link can name, and how this repo's format writes the link to it."""

    path: str  # the file, from the repo's root
    text: str  # what goes between [[ and ]]
    label: str  # what the list shows and ranks (the text, or the title and the path)
    title: str = ""  # the note's title, when it has one (a Markdown link's text)


@dataclass(frozen=True, slots=True)
class Completion:
    """One row of the completion list: what it shows, and what taking it writes."""

    label: str  # shown in the list
    insert: str  # what replaces the "[[" typed up to the cursor
    detail: str = ""  # shown muted after the label (the path, a heading's file, the repo)


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if has_md_suffix(name) else name


def _by_name(paths: list[str], names: NameIndex) -> dict[str, str]:
    """Obsidian: each file's shortest path ending that finds it (``[[note]]``, ``[[folder/note]]``)."""
    out: dict[str, str] = {}
    for path in paths:
        text = link_text_for(path) if has_md_suffix(path) else path
        parts = text.split("/")
        for k in range(1, len(parts) + 1):
            cand = "/".join(parts[-k:])
            if names.find(cand) == path:
                text = cand
                break
        out[path] = text
    return out


def link_targets(files: Iterable[str], style: str, titles: Mapping[str, str] | None = None) -> list[LinkTarget]:
    """Every file of a repo as a link target, written as ``style`` (the repo's format) links it.
    ``titles``: a note's title by path (front matter ``title`` or ``name``), where the format has them."""
    titles = titles or {}
    paths = sorted(files)
    names = NameIndex(paths) if style in _BY_NAME or style in _BY_TITLE else None
    named = _by_name(paths, names) if style in _BY_NAME and names is not None else {}
    out: list[LinkTarget] = []
    for path in paths:
        title = titles.get(path, "")
        if style in _WITH_SUFFIX:
            text = path
        elif style in _BY_NAME:
            text = named[path]
        elif style in _BY_TITLE and names is not None and has_md_suffix(path):
            candidate = title or _stem(path)
            text = candidate if names.find(candidate) == path else link_text_for(path)
        else:
            text = link_text_for(path)
        label = text if not title or title == text else f"{title}  {link_text_for(path)}"
        out.append(LinkTarget(path, text, label, title))
    return out


def completion_for(target: LinkTarget, style: str, source: str) -> Completion:
    """The completion that links ``target`` from the file ``source`` in ``style``."""
    if style in MARKDOWN_LINKS:
        title = target.title or _stem(target.path).replace("_", " ").replace("-", " ")
        text = title.replace("[", "(").replace("]", ")")
        return Completion(target.label, f"[{text}]({md_link_for(source, target.path)})", target.path)
    detail = target.path if target.text != link_text_for(target.path) else ""
    return Completion(target.label, f"[[{target.text}]]", detail)


def heading_completion(target_text: str, heading: str, path: str) -> Completion:
    """The completion ``[[target#Heading]]`` (``target_text`` as typed: empty for this file)."""
    return Completion(heading, f"[[{target_text}#{heading}]]", path)


def apply_completion(text: str, query: LinkQuery, completion: Completion) -> tuple[str, int]:
    """``text`` with the ``[[`` typed up to the cursor replaced by ``completion`` (a ``]]`` that
    already followed the cursor is taken in), and the cursor's new offset: after the link."""
    end = query.end + (2 if query.closed else 0)
    new = text[: query.start] + completion.insert + text[end:]
    return new, query.start + len(completion.insert)


def query_words(typed: str) -> str:
    """The typed part of a link as words for the finder's ranking: path separators and
    punctuation split words, and nothing reads as an operator (``-x``, ``"``, ``key:``)."""
    return " ".join(w.lstrip("-") for w in typed.replace(":", " ").replace('"', " ").replace("/", " ").split())
