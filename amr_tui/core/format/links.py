"""Cross-links: finding them in a line and resolving them inside one repo.

Two ways of writing one are read: ``[[path]]`` (AMR, Obsidian, Letta, basic-memory), relative to
the repo's root, and a Markdown link ``[text](file.md)`` to a local file (Claude Code's index),
relative to the folder of the file it is in; ``find_links(text, line, base)`` gives both with
their target made root-relative. A link that names a note rather than a path (Obsidian's
``[[note]]`` found anywhere in the vault, basic-memory's ``[[Note Title]]``) resolves through a
``NameIndex`` when the repo's format reads links so.

Pure: resolution works on the set of file paths it is handed (posix, relative to the repo
root). Checking symlinks on disk is the caller's job (amr_tui.services).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from urllib.parse import unquote

from amr_tui.core import fuzzy
from amr_tui.core.model import WHITESPACE, Link
from amr_tui.core.paths import has_md_suffix

_LINK_RE = re.compile(r"\[\[([^\[\]\n]*)\]\]")
# [label](target) or [label](<target with spaces>), an optional "title" after the target
_MD_LINK_RE = re.compile(r"!?\[([^\[\]\n]*)\]\((?:<([^<>\n]+)>|([^()\s<>]+))(?:\s+\"[^\"\n]*\")?\)")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_CODE_RUN = re.compile(r"`+")


def code_spans(text: str) -> list[tuple[int, int]]:
    """Inline code spans (CommonMark backtick runs); links inside them are not links."""
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        m = _CODE_RUN.search(text, pos)
        if m is None:
            return spans
        run = m.group(0)
        close = text.find(run, m.end())
        while close != -1 and (text[close + len(run) : close + len(run) + 1] == "`"):
            nxt = close
            while nxt < len(text) and text[nxt] == "`":
                nxt += 1
            close = text.find(run, nxt)
        if close == -1:
            pos = m.end()
            continue
        spans.append((m.start(), close + len(run)))
        pos = close + len(run)


_code_spans = code_spans


def link_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every ``[[...]]`` outside inline code."""
    return [(lk.start, lk.end) for lk in find_links(text, 0)]


def split_target(raw: str) -> str:
    """The path part of a link: ``a/b#heading|alias`` -> ``a/b``. Inside a Markdown table the
    alias is written after ``\\|`` (an escaped pipe, so the table keeps its columns)."""
    raw = raw.replace("\\|", "|")
    for sep in ("|", "#"):
        cut = raw.find(sep)
        if cut != -1:
            raw = raw[:cut]
    return raw.strip(WHITESPACE)


def split_heading(raw: str) -> str | None:
    """The heading part of a link: ``a/b#Some Heading|alias`` -> ``Some Heading``; None without ``#``.

    Obsidian's nested form ``a#Top#Sub`` names its last heading; a block reference (``a#^id``)
    is kept as written (``^id``)."""
    raw = raw.replace("\\|", "|").split("|", 1)[0]
    cut = raw.find("#")
    if cut == -1:
        return None
    parts = [p.strip(WHITESPACE) for p in raw[cut + 1 :].split("#")]
    named = [p for p in parts if p]
    return named[-1] if named else ""


# Characters a link cannot hold in its #heading part (Obsidian writes a space for each: a heading
# "Setup: Linux" is linked as [[Note#Setup Linux]]), so both sides are compared without them.
_NOT_IN_HEADING_LINKS = str.maketrans({c: " " for c in ":#|^[]%\\"})


def _heading_key(text: str) -> str:
    return " ".join(text.translate(_NOT_IN_HEADING_LINKS).split()).casefold()


def heading_line(heading: str, headings: Sequence[tuple[int, int, str]]) -> int | None:
    """The line of the heading a link's ``#heading`` names (Obsidian matches it ignoring case,
    runs of spaces, and the characters a link cannot hold: ``:``, ``#``, ``|``...), or None."""
    key = _heading_key(heading)
    for line, _level, text in headings:
        if _heading_key(text) == key:
            return line
    return None


def heading_known(heading: str, texts: Iterable[str]) -> bool:
    """Whether ``heading`` (a link's ``#heading``) names one of ``texts``; a block reference
    (``^id``) is not checked and counts as known."""
    if heading.startswith("^"):
        return True
    key = _heading_key(heading)
    anchor = heading.casefold()
    loose = _loose(heading)
    return any(
        _heading_key(t) == key or github_anchor(t) == anchor or (lt := _loose(t)) == loose or lt.startswith(loose + " ")
        for t in texts
    )  # the last: a section named by its number or first words ([[note#5.4]] for "5.4 DDD (Evans)")


_ANCHOR_DROP = re.compile(r"[^\w\- ]+")
_NOT_WORD = re.compile(r"[\W_]+")


def github_anchor(text: str) -> str:
    """The anchor GitHub (and most Markdown renderers) give a heading: lower case, every character
    but letters, digits, ``-``, ``_`` and spaces dropped, each space a ``-``
    (``Polarity (required, every pattern)`` -> ``polarity-required-every-pattern``)."""
    return _ANCHOR_DROP.sub("", text.strip().casefold()).replace(" ", "-")


def _loose(text: str) -> str:
    """A heading with its punctuation gone: ``3. 조회 패턴`` and ``3 조회 패턴`` name one heading."""
    return " ".join(_NOT_WORD.sub(" ", text.casefold()).split())


# OpenClaw's reply directives, written at the start of an agent's reply and kept when a session's
# transcript is saved into memory: no note is named.
_DIRECTIVE = re.compile(r"(?:reply_to_current|reply_to: ?[\w.:-]+|audio_as_voice)$")
_DIRECTIVES = frozenset(("reply_", "audio_"))


def find_links(text: str, line: int, base: str | None = None) -> list[Link]:
    """The links of one line outside inline code: every ``[[...]]``, and, when ``base`` is given
    (the folder of the file, "" at the root), every Markdown link to a local file, its target
    made relative to the root (a target that leaves the root keeps its ``..``); a ``[[./x]]`` or
    ``[[../x]]`` is read from the file's folder too, as Obsidian's relative-path links are."""
    wiki = "[[" in text
    md = base is not None and "](" in text
    if not wiki and not md:
        return []
    spans = _code_spans(text) if "`" in text else []
    links: list[Link] = []
    if wiki:
        for m in _LINK_RE.finditer(text):
            if any(a <= m.start() < b for a, b in spans):
                continue
            raw = m.group(1)
            if raw[:6] in _DIRECTIVES and _DIRECTIVE.match(raw):
                continue  # an OpenClaw reply's directive ([[reply_to_current]]), kept in a transcript
            target = split_target(raw)
            if base and target.startswith(("./", "../")):
                # Obsidian's "relative path" links ([[../notes/x]]) name a note from the file's folder
                target = posixpath.normpath(posixpath.join(base, target))
            links.append(Link(target, raw, line, m.start(), m.end()))
    if md and base is not None:
        taken = [(lk.start, lk.end) for lk in links]
        for m in _MD_LINK_RE.finditer(text):
            if any(a <= m.start() < b for a, b in spans) or any(a <= m.start() < b for a, b in taken):
                continue
            raw = m.group(2) if m.group(2) is not None else m.group(3)
            local = _md_target(raw, base)
            if local is not None:
                links.append(Link(local, raw, line, m.start(), m.end(), m.group(1)))
        links.sort(key=lambda lk: lk.start)
    return links


def _md_target(raw: str, base: str) -> str | None:
    """A Markdown link's target as a root-relative path, or None when it names no local file
    (a URL, a mail address, an anchor in the same page, a site path, a folder, a route with no
    file extension)."""
    if not raw or raw.startswith(("#", "/")) or _SCHEME.match(raw):
        return None  # an anchor, a site path (/docs/x) or a URL: no file of the folder
    path = unquote(raw.split("#", 1)[0].split("?", 1)[0])
    if not path or not posixpath.splitext(path.rstrip("/"))[1] or path.endswith("/"):
        return None  # a folder or a web route (no extension): a Markdown link names a file by its name
    joined = posixpath.normpath(posixpath.join(base, path)) if base else posixpath.normpath(path)
    return joined


def md_link_for(source: str, target: str) -> str:
    """How a Markdown link in ``source`` names ``target`` (both root-relative): relative to the
    source's folder, spaces written as ``%20``."""
    rel = posixpath.relpath(target, posixpath.dirname(source) or ".")
    return rel.replace(" ", "%20")


def slug(text: str) -> str:
    """basic-memory's permalink of a title: lower case, runs of other characters as one ``-``."""
    return re.sub(r"[^0-9a-z]+", "-", text.casefold()).strip("-")


#: A Claude Code memory's name or file name begins with its type (``project_design_workflow.md``,
#: ``name: feedback-pr-review-workflow``); its cross-references often leave the type out.
_MEMORY_TYPE = re.compile(r"^(?:user|feedback|project|reference)[-_ ](.+?)(?:\.md)?$")


class NameIndex:
    """The repo's files by name, for links that name a note rather than its path: Obsidian's
    ``[[note]]`` (a file name anywhere in the vault, the shortest path when several have it;
    ``[[folder/note]]`` the shortest path ending so), attachments by name, Claude Code's
    cross-references by memory name (``typed``: also without its type, ``[[design-workflow]]``), and basic-memory's ``[[Note Title]]`` (the file whose name is
    the title or its slug, or whose front matter holds that title: ``titles``, file -> title)."""

    def __init__(self, files: Iterable[str], titles: dict[str, str] | None = None, *, typed: bool = False) -> None:
        self.by_name: dict[str, list[str]] = {}
        for f in sorted(files, key=lambda p: (p.count("/"), len(p), p)):
            name = f.rsplit("/", 1)[-1].casefold()
            keys = {name}
            if has_md_suffix(name):
                stem = name[:-3]
                keys |= {stem, slug(stem)}
            for key in keys:
                self.by_name.setdefault(key, []).append(f)
        for f, title in sorted((titles or {}).items()):
            for key in {title.casefold(), slug(title)}:
                found = self.by_name.setdefault(key, [])
                if f not in found:
                    found.append(f)
        if typed:  # Claude Code's [[design-workflow]] for the memory project_design_workflow.md
            for key, paths in list(self.by_name.items()):
                m = _MEMORY_TYPE.match(key)
                if m is not None:
                    for short in {m.group(1), slug(m.group(1))}:
                        found = self.by_name.setdefault(short, [])
                        found.extend(p for p in paths if p not in found)

    def near(self, target: str) -> str | None:
        """The note a name that names none was most likely meant to name (a typo: one word of it off
        by a letter or two), as a link would write it; None when no note name is that close."""
        fuzz, process = fuzzy.fuzz, fuzzy.process

        wanted = normalise(split_target(target)).rsplit("/", 1)[-1].casefold()
        if not wanted:
            return None
        names = [k for k, paths in self.by_name.items() if paths and "." not in k[-5:]]
        for name, _score, _k in process.extract(wanted, names, scorer=fuzz.ratio, score_cutoff=80.0, limit=5):
            if _one_word_typo(wanted, name):
                return link_text_for(self.by_name[name][0]).rsplit("/", 1)[-1]
        return None

    def find(self, target: str) -> str | None:
        wanted = normalise(target).casefold()
        if not wanted:
            return None
        folder, _, name = wanted.rpartition("/")
        for key in (name, slug(name)):
            for path in self.by_name.get(key, []):
                if not folder or path.casefold().startswith(folder + "/") or f"/{folder}/" in path.casefold():
                    return path
        return None


def _one_word_typo(a: str, b: str) -> bool:
    """Whether two names differ in one word only, by at most two letters, in a word of five or more
    (``Attnetion`` / ``Attention``); ``protocollo DHCP`` / ``Protocollo TCP`` are two notes."""
    Levenshtein = fuzzy.Levenshtein

    wa, wb = a.casefold().split(), b.casefold().split()
    if len(wa) != len(wb):
        return False
    differ = [(x, y) for x, y in zip(wa, wb, strict=True) if x != y]
    if len(differ) != 1:
        return False
    x, y = differ[0]
    return max(len(x), len(y)) >= 5 and Levenshtein.distance(x, y) <= 2


class LinkState(str, Enum):
    OK = "ok"
    BROKEN = "broken"
    ESCAPES = "escapes"  # .., absolute, .git/ or a drive: never opened
    EMPTY = "empty"


@dataclass(frozen=True, slots=True)
class Resolution:
    state: LinkState
    path: str | None  # the resolved file, when OK
    suggestion: str | None = None  # a case-only or .md-only fix, when BROKEN
    has_md_suffix: bool = False


_DRIVE = re.compile(r"[A-Za-z]:")
_C0 = re.compile(r"[\x00-\x1f]")


def off_by_a_folder(link: Link) -> str | None:
    """For a relative ``[[../../identity/SOUL]]`` that resolves to no file from its folder, the rest
    of its path (``identity/SOUL``): Obsidian still finds the note by it, and so lint and the app
    do when the first reading is broken. None for any other link."""
    if link.label is not None:
        return None
    written = split_target(link.raw)
    return written.lstrip("./") if written.startswith(("./", "../")) else None


LEAVES_ROOT = "'..' leaves the memory root"


def unsafe_reason(target: str) -> str | None:
    """Why a link target may not be followed, or None when it is a plain relative path."""
    t = target.replace("\\", "/")
    if t.startswith("/") or t.startswith("~") or _DRIVE.match(t):
        return "absolute path"
    parts = t.split("/")
    if ".." in parts:
        return LEAVES_ROOT
    # ".GIT" and ".git." name the same folder on case-insensitive or Windows file systems
    if any(p.rstrip(" .").casefold() == ".git" for p in parts):
        return "points into .git"
    if _C0.search(t):
        return "control character in path"
    return None


def normalise(target: str) -> str:
    parts = [p for p in target.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def candidates(target: str) -> list[str]:
    """Files a link may name, most likely first: ``a`` -> ``a.md``, ``a``."""
    path = normalise(target)
    if not path:
        return []
    if has_md_suffix(path):
        return [path]
    return [path + ".md", path]


def link_text_for(path: str) -> str:
    """How to write a link to ``path``: ``.md`` omitted, other extensions kept."""
    return path[:-3] if path.endswith(".md") else path


def index_link(path: str) -> str | None:
    """``[[...]]`` naming ``path``, for a line amr writes (an Index entry), or None when no link
    can name it safely: brackets, ``|``, ``#``, backquotes, a backslash, control or invisible
    characters, whitespace around a segment, empty segments, or a path that is not safe to follow.
    """
    text = link_text_for(path)
    if (
        not text
        or not text.isprintable()
        or any(ch in text for ch in "[]|#`\\")
        or unsafe_reason(text) is not None
        or normalise(text) != text
        or any(part != part.strip(WHITESPACE) for part in text.split("/"))
    ):
        return None
    return f"[[{text}]]"


def resolve(
    target: str,
    files: set[str] | frozenset[str],
    lower_map: dict[str, str] | Callable[[], dict[str, str]] | None = None,
    names: NameIndex | Callable[[], NameIndex] | None = None,
) -> Resolution:
    """Resolve a link target against the repo's files. ``lower_map``: each file by its lower-cased
    path, or what makes it (asked for only when no file has the target's exact name: building
    it over 20,000 files cost ~4 ms of every save at 1M entries). ``names``: when the repo's
    format links notes by name (``NameIndex``, or what makes it), a target that is no path is
    looked up by name before it is broken."""
    if not target.strip(WHITESPACE):
        return Resolution(LinkState.EMPTY, None)
    if unsafe_reason(target):
        return Resolution(LinkState.ESCAPES, None)
    md_suffix = has_md_suffix(normalise(target))
    for cand in candidates(target):
        if cand in files:
            return Resolution(LinkState.OK, cand, has_md_suffix=md_suffix)
    if names is not None:
        found = (names() if callable(names) else names).find(target)
        if found is not None:
            return Resolution(LinkState.OK, found, has_md_suffix=md_suffix)
    if lower_map is None:
        lower_map = {f.lower(): f for f in files}
    elif callable(lower_map):
        lower_map = lower_map()
    for cand in candidates(target):
        real = lower_map.get(cand.lower())
        if real is not None:
            return Resolution(LinkState.BROKEN, None, suggestion=link_text_for(real), has_md_suffix=md_suffix)
    return Resolution(LinkState.BROKEN, None, has_md_suffix=md_suffix)


def rewrite_links(
    text: str, old_path: str, new_path: str, files: set[str] | frozenset[str], source: str | None = None
) -> str:
    """Rewrite every link in ``text`` that resolves to ``old_path`` so it names ``new_path``, in
    the form it was written. ``source``: the file the line is in, which makes Markdown links
    (relative to it) count too; when it is ``old_path`` itself (the file being moved), its
    Markdown links to other files are rewritten to stay right from its new folder."""
    out: list[str] = []
    pos = 0
    base = posixpath.dirname(source) if source is not None else None
    after = new_path if source == old_path else source  # where the line's file is afterwards
    for link in find_links(text, 0, base):
        res = resolve(link.target, files | {old_path})
        if res.state is not LinkState.OK or res.path is None:
            continue
        if link.label is None:
            if res.path != old_path:
                continue
            tail = link.raw[len(link.raw.split("|")[0].split("#")[0].rstrip()) :] if link.raw else ""
            replacement = "[[" + link_text_for(new_path) + tail + "]]"
        else:
            assert after is not None  # Markdown links are found only with a source
            target = new_path if res.path == old_path else res.path
            if res.path != old_path and source != old_path:
                continue
            fragment = link.raw[len(link.raw.split("#")[0]) :]
            replacement = f"[{link.label}]({md_link_for(after, target)}{fragment})"
        out.append(text[pos : link.start])
        out.append(replacement)
        pos = link.end
    out.append(text[pos:])
    return "".join(out)
