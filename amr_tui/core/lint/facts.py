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
from amr_tui.core.model import Diagnostic, Entry, Fix, Line, LineEdit, LineKind, Link, ParsedFile, Severity
from amr_tui.core.scope import file_scope

# Possible contradictions (AMR033, info) compare texts pairwise within word blocks: seconds on a
# repo of 100,000 entries, and every whole-repo lint would pay them. The app, and `amr lint`
# without --severity info, look for them in repos up to this size (about a tenth of a second);
# `amr lint --severity info` and the dream review check any size. (Here, not in ``repo``: `amr
# lint` answered from its cache says it without loading the rules.)
CONTRADICTIONS_MAX_ENTRIES = 5_000

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
    str,
    tuple[str, ...],
    tuple[int, ...],
    str,
]


def normalise_text(text: str) -> str:
    folded = text.casefold()
    if folded.isascii():
        return " ".join(folded.translate(_ASCII_PUNCT).split())
    return " ".join(_PUNCT.sub(" ", folded).split())


_EMPHASIS = str.maketrans("", "", "*_`")
# "**Status:** In progress", "**Owner**: Lu": a template's field and its short value
_FIELD = re.compile(r"^\*\*([^*]{1,30}?)\*\*\s*[:\uff1a]\s*(.*)$|^\*\*([^*]{1,30}?)[:\uff1a]\*\*\s*(.*)$")
# "Date: 2025-03-01", "Owner - Lu" is not one (a colon): a key of a few words, then its value
_PLAIN_FIELD = re.compile(r"^([^\s:\uff1a*_`#\[(][^:\uff1a\[\]()`]{0,28}?)\s*[:\uff1a]\s+(\S.*)$")
_ONLY_CODE = re.compile(r"^`[^`]+`[.,;]?$|^~?[\w.-]*(?:/[\w.@-]+)+\.\w{1,8}[.,;]?$")  # `cmd`, src/x/app.yml
_SAME_AS = ("same as", "see above", "as above", "ditto")
# A form's line waiting to be filled in: "Headnote: __________", "Sources closed: yes / no",
# "To be populated after vault initialization.", "Fill this in once investigation proves the cause."
_BLANK = re.compile(
    r"^`?<[^<>\n]{1,40}>`?\s*[:\uff1a,]|_{4,}|(?:^|\s)yes ?/ ?no[.?]?$|^(?:to be (?:populated|filled|added|written|completed|determined|documented|"
    r"defined|decided)|fill (?:this|it|these) in|fill in (?:this|the)|tbd\b|to do\b)",
    re.IGNORECASE,
)
# A link and what the linked note is: "[[Content-Sourcing]] - where the facts come from"
_CAPTION = re.compile(
    r"^(?:!?\[\[[^\[\]\n]+\]\]|\[[^\[\]\n]+\]\([^()\n]+\)|`?~?/?[\w.-]+(?:/[\w.-]+)+\.\w{1,8}`?)\s*(?:\u2014|\u2013|-|:)\s"
)  # a link or a file's path, then what it is: "/Users/me/vault/01-org/head.md — the upper rules"
# A command and what it gave: "`git diff --check` passed", "`pytest -q`: 16 passed", "… 通过": a
# log's status line, written again at every session that ran the check.
_STATUS = re.compile(
    r"^`[^`]+`\s*[:\uff1a\u2014-]?\s*(?:\d+\s+)?(?:passed|pass|ok|clean|green|failed|"
    r"\u901a\u8fc7|\u6210\u529f|\u5931\u8d25)[\s.,;\u3002\uff1b)]*(?:\S+\s*){0,3}$",
    re.IGNORECASE,
)
# A task's status after its name: "1a victoria-logs-server — done.", "2 wallos scoped caps — TODO."
_TASK_STATUS = re.compile(
    r"\s[\u2014\u2013-]\s*(?:done|todo|pending|decision pending|in progress|wip|blocked|open|closed|ok)[.!]?$",
    re.IGNORECASE,
)
_POINTS_TO = re.compile(r"(?:\u2192|->|=>|\u21d2|\u279c)\s*(?:!?\[\[[^\[\]\n]+\]\]|\[[^\[\]\n]+\]\([^()\n]+\))\W*$")
_ONLY_URL = re.compile(r"^[^:\uff1a]{1,40}[:\uff1a]\s*(?:<?https?://\S+>?|[\w-]+(?:\.[\w-]+)*\.[a-z]{2,12}(?:/\S*)?)$")
# A question asks, it states nothing: "- Why did you leave your last job?", a Thai or Chinese one
# by its closing particle (ไหม, หรือเปล่า, ยังไง, บ้าง; 吗, 呢), a Japanese one by ですか/ますか.
_QUESTION = re.compile(
    "(?:[?\uff1f]|\u0e44\u0e2b\u0e21|\u0e2b\u0e23\u0e37\u0e2d\u0e40\u0e1b\u0e25\u0e48\u0e32|"
    "\u0e22\u0e31\u0e07\u0e44\u0e07|\u0e1a\u0e49\u0e32\u0e07|\u5417|\u55ce|\u5462|"
    "\u3067\u3059\u304b|\u307e\u3059\u304b)" + r"[\s*_\\)]*$"
)
_NAMED_ITEM = re.compile(r"^(?:`[^`]+`|\*\*[^*]+\*\*)\s*(?:\u2014|\u2013|-|:)\s*(.*)$")
_LINKS = re.compile(r"!?\[\[[^\[\]\n]*\]\]|!?\[[^\[\]\n]*\]\([^()\n]*\)")
_CONTINUED = (LineKind.CONTINUATION, LineKind.BLANK)
_MAYBE_NOT_FACT = frozenset(":\uff1a*_` ")  # the last character of a label (``**特点**:``)
MAX_ITEM_LINES = 40  # the wrapped lines of one item read for its fact (a wrapped bullet has a few)


def item_text(lines: list[Line], entry: Entry) -> str:
    """The whole fact of an entry: its text and the wrapped lines of its list item (or § paragraph)
    that follow it, joined by spaces. Two bullets that start alike but go on differently ("file
    ... created" / "file ... modified", wrapped) are two facts."""
    if not entry.multiline:
        return entry.text
    parts = [entry.text]
    for k in range(entry.line, min(len(lines), entry.line + MAX_ITEM_LINES)):  # 0-based: the next line
        line = lines[k]
        if line.kind not in _CONTINUED:
            break
        if line.kind is LineKind.CONTINUATION:
            parts.append(line.text.strip())
    return " ".join(p for p in parts if p)


def is_fact(entry: Entry, text: str) -> bool:
    """Whether an entry states a fact duplicates are looked for in. Not: a label that heads what
    follows (``**特点**:``, ``Notes:``), a template's field with a short value (``**Status:** Done``,
    ``**Owner:** Lu``), a pointer (``See [[user_role]].``, ``relates_to [[Note Title]]``), a note's
    caption (``[[Writing-Manual]] - the craft rules``), a form's blank (``Headnote: ______``)."""
    first = entry.text
    if (
        first[:4] in ("[ ] ", "[x] ", "[X] ")
        or _ONLY_CODE.match(first)
        or _STATUS.match(text)
        or _TASK_STATUS.search(text)
    ):
        return False  # a task of a checklist, a file or command named in a list: no fact to say twice
    if _BLANK.search(text) or _CAPTION.match(first) or _QUESTION.search(text):
        return False  # a form's blank to fill in; a note's caption in a list of related notes; a question
    if (named := _NAMED_ITEM.match(first)) is not None and len(named.group(1).split()) <= 4:
        return False  # "`md1.py` — Python L1", "**Python** — 32 nodes": a list naming things, with a tag
    if text == first and first.rstrip("*_` ")[-1:] in (":", "\uff1a"):
        bare = first.translate(_EMPHASIS).strip()
        if bare and len(bare) <= 40:
            return False
    m = _FIELD.match(first) if first.startswith("**") else None
    if m is not None:
        value = (m.group(2) if m.group(1) is not None else m.group(4)) or ""
        if len(value) <= 30 and len(value.split()) <= 3 or value.casefold().startswith(_SAME_AS):
            return False  # a template's field: "**Status:** Done", "**Password:** same as Proton (...)"
    elif (p := _PLAIN_FIELD.match(first)) is not None and len(p.group(1).split()) <= 3:
        value = p.group(2)
        if len(value.split()) <= 1 and len(value) <= 30 or not any(c.isalpha() for c in value):
            return False  # a template's field: "Date: 2025-03-01", "Status: done" ("Matches: 10 per season" is a fact)
    else:
        value = None
    if value is not None and entry.indent and text == first and len(value.split()) <= 8:
        return False  # a field of the item above it ("Password: same as the admin one"): its parent's
    if entry.links or "](" in first:
        if _POINTS_TO.search(text):
            return False  # "A/B test → [[K15-AB-Testing]]": where a topic is written, not a fact
        rest = [w for w in normalise_text(_LINKS.sub(" ", text)).split() if not w.isdigit()]
        if len(rest) <= 2:
            return False  # "See [[user_role]].", "1 edge to [[Pricing]]": a pointer
    elif ("http" in first or "." in first) and _ONLY_URL.match(first):
        return False  # "Master dashboard: https://…": a pointer to a page, listed in every note about it
    return True


def fact_rows(doc: ParsedFile, *, whole: bool = True) -> Iterator[tuple[str, int, str]]:
    """(normalised whole fact, line, whole fact as written) of each entry of a file that states a
    fact (``is_fact``), in order: what the duplicate and contradiction checks compare. ``whole``:
    an entry is its whole list item (other formats wrap bullets); in the AMR format (False) an
    entry is the bullet's line, as the spec says, and a line under it is not part of it (AMR004)."""
    lines = doc.lines
    for entry in doc.entries:
        text = entry.text
        if whole and entry.multiline:
            text = item_text(lines, entry)
        # most entries are plain facts: no link, no label's colon, no bold field (checked cheaply first)
        if (
            entry.links
            or text[-1:] in _MAYBE_NOT_FACT
            or text[:2] in ("**", "[ ", "[x", "[X")
            or text[:1] == "`"
            or "](" in text
            or ":" in text[:31]
            or "\uff1a" in text[:31]
            or "____" in text
            or text[:2] in ("To", "to", "Fi", "fi", "TB", "`<")
            or text[:1] in "/~<"
            or "http" in text
            or ": " in text[:42]
            or ("/" in text and " " not in text)
            or _QUESTION.search(text[-12:]) is not None
            or _TASK_STATUS.search(text[-24:]) is not None
            or text.rstrip(".?")[-2:] in ("no", "No", "NO")
        ) and not is_fact(entry, text):
            continue
        norm = normalise_text(text)
        if norm:
            yield norm, entry.line, text


# Placeholders an agent or a person writes to try a tool: "test", "asdf", "hallo test", "prova".
_PLACEHOLDER_CORE = frozenset(
    "test tests testing testen asdf asdfgh asdfasdf qwerty foo bar baz foobar xxx xxxx todo tbd prova probe "
    "placeholder dummy lorem ipsum 测试 テスト".split()
)
_PLACEHOLDER_MORE = frozenset("hello hallo hi hey ciao world this is a an just entry one two 1 2 3 123".split())


# A normalised text made only of placeholder words, as a line of a file's joined texts: what
# ``is_placeholder`` then decides (the scan is one regex over the file, not a test per entry).
PLACEHOLDER_LINE = re.compile(
    "(?m)^(?:(?:" + "|".join(sorted(_PLACEHOLDER_CORE | _PLACEHOLDER_MORE, key=len, reverse=True)) + ")(?: |$))+$"
)


def is_placeholder(norm: str) -> bool:
    """A *normalised* entry text that says nothing but "test": every word a placeholder word
    (``test``, ``asdf``, ``foo``, ``prova``, ``测试``...), at least one of them a core one."""
    if len(norm) > 32:
        return False
    words = norm.split()
    return any(w in _PLACEHOLDER_CORE for w in words) and all(
        w in _PLACEHOLDER_CORE or w in _PLACEHOLDER_MORE for w in words
    )


def front_title(doc: ParsedFile) -> str:
    """The note's title in its front matter (``title``, else ``name``): what basic-memory's
    ``[[Note Title]]`` and Claude Code's cross-references by memory name call it; "" without one."""
    if not doc.front_matter:
        return ""
    first, last = doc.front_matter
    found: dict[str, str] = {}
    for line in doc.lines[first : last - 1]:
        key, sep, value = line.text.partition(":")
        key = key.strip()
        if sep and key in ("title", "name") and key not in found:
            found[key] = value.strip().strip("'\"").strip()
    return found.get("title") or found.get("name") or ""


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
    texts: list[str] = field(default_factory=list)  # each fact as written, as ``entries`` (AMR033)
    meta: FileMeta | None = None  # the entries' [key: value] metadata (the finder's filters); None: none has any
    title: str = ""  # the front matter's title or name (``front_title``)
    tags: tuple[str, ...] = ()  # the tags its front matter gives the file (``core.format.tags.file_tags``)
    # The lines the search index holds that state no fact: headings and front matter (the search
    # filters skip them: ``core.model.is_fact_line``, kept here so no filter parses a file again).
    heads: tuple[int, ...] = ()
    scope: str = ""  # the scope its front matter gives every entry (``core.scope.file_scope``)

    @property
    def count(self) -> int:
        """How many entries with text."""
        return len(self.lines)

    @property
    def entries(self) -> Iterator[tuple[str, int]]:
        """(normalised text, line) of each entry with text, in order."""
        if self.lines:
            yield from zip(self.norms.split("\n"), self.lines, strict=True)


def facts_of(
    doc: ParsedFile, keys: dict[frozenset[str], frozenset[str]] | None = None, *, whole: bool = True
) -> FileFacts:
    """The facts of a parsed file (a ``core.format.parser.Document``). ``keys``: shared across
    files, so files with the same metadata keys share one set; ``whole``: as ``fact_rows``."""
    lines = doc.lines
    link_lines = {ln: lines[ln - 1].text for ln in {link.line for link in doc.links}}
    norms = []
    at: array[int] = array("I")
    texts = []
    for norm, line, text in fact_rows(doc, whole=whole):
        norms.append(norm)
        at.append(line)
        texts.append(text)
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
        front_title(doc),
        file_tags(doc),
        _heads(doc),
        file_scope(doc),
    )


def _heads(doc: ParsedFile) -> tuple[int, ...]:
    """The heading and front-matter lines of ``doc`` (``FileFacts.heads``)."""
    front = tuple(range(1, doc.front_matter[1] + 1)) if doc.front_matter else ()
    return front + tuple(ln for ln, _level, _text in doc.headings)


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
        f.title,
        f.tags,
        f.heads,
        f.scope,
    )


def unpack(t: PackedFacts, keys: dict[frozenset[str], frozenset[str]] | None = None) -> FileFacts:
    diags, links, link_lines, norms, raw_lines, headings, texts, meta, title, tags, heads, scope = t
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
        str(title),
        tuple(map(str, tags)),
        tuple(map(int, heads)),
        str(scope),
    )
