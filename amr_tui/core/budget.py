"""What each agent loads at session start, and where it stops: the load budgets (pure data).

One definition for every layer: ``amr lint`` (AMR003), ``amr loads``, the viewer's cut line and
its gauge, the dream check's ``budget`` problem, the trim pass and ``memory_load`` all read the
budget of an agent from :data:`PROFILES` (or a profile the config made with :func:`custom`).

* A :class:`Profile` names the files an agent reads when a session starts (:class:`Read`: a
  path, a folder's Markdown files, or today's journal) and the :class:`Limits` of each, plus an
  optional limit over all of them (``total``). Where each number comes from is in ``source``
  (docs/loads.md cites them all).
* :func:`measure` walks one file's bytes and says how much of it loads (:class:`Cut`): a line
  counts as loaded only when the whole of it fits, so the cut is the first line that does not
  (the line where a byte or character cap falls mid-way is cut too).
* :func:`plan` makes a :class:`LoadPlan` of a repo: for every file the agent reads, its size,
  the cut, and **every entry and link past the cut, by name** (:class:`Past`).
* :func:`estimate_tokens` is a labelled estimate, not a tokenizer: an ASCII character is a
  quarter of a token, a wide (CJK) character one token, any other character half a token,
  rounded up. English prose runs at about four characters a token in the common BPE
  vocabularies; CJK text at about one per character.

Pure: bytes in, numbers out. No I/O, no clock (the caller passes ``today`` for journals).
"""

from __future__ import annotations

import datetime as _dt
import fnmatch
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING
from unicodedata import east_asian_width

from amr_tui.core.paths import MEMORY_FILE, is_markdown

if TYPE_CHECKING:  # parsed documents come from the caller: measuring and the profiles need no parser
    from amr_tui.core.format.parser import Document
    from amr_tui.core.model import Link

KB = 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """How much of a file (or of all files together) an agent reads; None: no such limit."""

    lines: int | None = None
    bytes: int | None = None
    chars: int | None = None
    tokens: int | None = None  # an estimate (``estimate_tokens``): a budget given in tokens

    @property
    def bounded(self) -> bool:
        return any(v is not None for v in (self.lines, self.bytes, self.chars, self.tokens))

    def describe(self) -> str:
        """``200 lines or 25 KB``; ``no limit`` when unbounded."""
        parts = []
        if self.lines is not None:
            parts.append(f"{self.lines:,} lines")
        if self.bytes is not None:
            parts.append(size_text(self.bytes))
        if self.chars is not None:
            parts.append(f"{self.chars:,} characters")
        if self.tokens is not None:
            parts.append(f"~{self.tokens:,} tokens")
        return " or ".join(parts) if parts else "no limit"


@dataclass(frozen=True, slots=True)
class Read:
    """One thing an agent reads at start.

    ``patterns``: a path from the memory root (``MEMORY.md``), a glob (``system/**`` every
    Markdown file below ``system/``; ``memory-bank/*.md``), or a journal day
    (``memory/{today}.md``, ``memory/{yesterday}.md``); the first pattern that names any file is
    used. ``limit_key``: a front matter key whose number, when a file has it, replaces
    ``limits.chars`` for that file (Letta's blocks: ``limit``)."""

    patterns: tuple[str, ...]
    limits: Limits = Limits()
    limit_key: str | None = None


@dataclass(frozen=True, slots=True)
class Profile:
    name: str  # what --agent takes
    title: str
    reads: tuple[Read, ...]
    total: Limits = Limits()  # over every file read, in order (Codex: 32 KiB together)
    source: str = ""  # where the numbers come from (a URL, or amr's own rule)
    says: str = ""  # what that source says, in amr's words
    custom: bool = False  # made or changed by the config's [budgets]

    @property
    def who(self) -> str:
        """Who loads it, to start a sentence: ``Agents`` for amr's own budget, else the agent."""
        return "Agents" if self.name == "amr" else self.title

    def verb(self, verb: str, *, start: bool = True) -> str:
        """``Agents stop`` / ``Claude Code stops`` (``start=False``: ``agents stop`` mid-sentence)."""
        if self.name == "amr":
            return f"{'Agents' if start else 'agents'} {verb}"
        return f"{self.title} {verb}s"

    @property
    def entry(self) -> Read | None:
        """The read of the entry point (MEMORY.md) when the agent reads it."""
        return next((r for r in self.reads if MEMORY_FILE in r.patterns), None)


CLAUDE_CODE = Profile(
    "claude-code",
    "Claude Code",
    (Read((MEMORY_FILE,), Limits(lines=200, bytes=25 * KB)),),
    source="https://code.claude.com/docs/en/memory",
    says="auto memory loads the first 200 lines of MEMORY.md, or its first 25 KB, whichever comes first, "
    "at the start of every conversation; topic files are read when needed",
)
AMR = Profile(
    "amr",
    "Agent Memory Repo",
    (Read((MEMORY_FILE,), Limits(lines=200, bytes=25 * KB)),),
    source="https://github.com/AgentMemoryRepo/agentmemoryrepo (SPEC.md) and amr's AMR003",
    says="agents load MEMORY.md at the start of every session, so keep it short; the spec gives no number, "
    "so amr holds it to Claude Code's, whose MEMORY.md has the same shape",
)
DEVIN = Profile(
    "devin",
    "Devin",
    (Read((MEMORY_FILE,)),),
    source="https://docs.devin.ai/product-guides/memory",
    says="each session checks the memory drive out and loads MEMORY.md as context; other notes are "
    "searched and read when a task needs them; no limit is published",
)
LETTA = Profile(
    "letta",
    "Letta Code (memfs)",
    (Read(("system/**",), Limits(chars=20_000), limit_key="limit"),),
    source="https://www.letta.com/blog/context-repositories (system/ is pinned); "
    "letta/constants.py CORE_MEMORY_BLOCK_CHAR_LIMIT (20,000)",
    says="every block under system/ is pinned into the prompt, each up to the character limit in its "
    "front matter (limit:), 20,000 characters when it gives none",
)
CODEX = Profile(
    "codex",
    "Codex (AGENTS.md)",
    (Read(("AGENTS.override.md", "AGENTS.md")),),
    total=Limits(bytes=32 * KB),
    source="https://developers.openai.com/codex/guides/agents-md (project_doc_max_bytes)",
    says="AGENTS.md files from the project root down to the working folder, joined, until they reach "
    "32 KiB together (project_doc_max_bytes); an AGENTS.override.md is read instead of AGENTS.md",
)
MEMORY_BANK = Profile(
    "memory-bank",
    "Cline / Cursor memory bank",
    (Read(("memory-bank/*.md", "*.md")),),
    source="https://docs.cline.bot/features/memory-bank",
    says="the agent reads every file of the memory bank at the start of every task; no limit is set",
)
OPENCLAW = Profile(
    "openclaw",
    "OpenClaw",
    (
        Read((MEMORY_FILE,), Limits(chars=12_000)),
        Read(("memory/{today}.md",), Limits(chars=12_000)),
        Read(("memory/{yesterday}.md",), Limits(chars=12_000)),
    ),
    total=Limits(chars=60_000),
    source="https://docs.openclaw.ai/concepts/memory and https://docs.openclaw.ai/gateway/config-agents",
    says="MEMORY.md (in the main, private session) and the daily notes of today and yesterday; each "
    "bootstrap file up to 12,000 characters (bootstrapMaxChars), 60,000 together (bootstrapTotalMaxChars)",
)
HERMES = Profile(
    "hermes",
    "Hermes Agent",
    (Read((MEMORY_FILE,), Limits(chars=2_200)), Read(("USER.md",), Limits(chars=1_375))),
    source="https://hermes-agent.nousresearch.com/docs/user-guide/features/memory",
    says="MEMORY.md (2,200 characters) and USER.md (1,375 characters), injected into the system prompt "
    "as a snapshot when a session starts; a write past the limit is refused",
)

#: Every built-in profile, by the name ``--agent`` takes.
PROFILES: dict[str, Profile] = {
    p.name: p for p in (CLAUDE_CODE, AMR, DEVIN, LETTA, CODEX, MEMORY_BANK, OPENCLAW, HERMES)
}
#: Other names people call them by.
ALIASES = {"claude": "claude-code", "cline": "memory-bank", "cursor": "memory-bank", "agents-md": "codex"}
#: The agent that reads a repo of each memory format (``services.workspace.repo_style``), by default.
FOR_FORMAT = {
    "amr": "amr",
    "claude-code": "claude-code",
    "letta": "letta",
    "memory-bank": "memory-bank",
    "hermes": "hermes",
    "openclaw": "openclaw",  # MEMORY.md whole up to bootstrapMaxChars: not Claude Code's 200 lines
}


def profile_named(name: str, custom: Mapping[str, Profile] | None = None) -> Profile | None:
    """The profile ``--agent NAME`` means (the config's first, then the built-in ones)."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if custom and key in custom:
        return custom[key]
    return PROFILES.get(key)


def profile_for(style: str, custom: Mapping[str, Profile] | None = None) -> Profile:
    """The profile of the agent that reads a repo in memory format ``style`` (amr's own for a
    format no agent loads at start: an Obsidian vault, a plain folder)."""
    return profile_named(FOR_FORMAT.get(style, "amr"), custom) or AMR


_LIMIT_KEYS = ("lines", "bytes", "chars", "tokens")


def custom(name: str, table: Mapping[str, object], base: Profile | None = None) -> Profile | str:
    """A profile from the config's ``[budgets.NAME]`` table (or an error saying what it takes).

    ``lines``, ``bytes``, ``chars``, ``tokens``: the limits of each file read (a built-in
    profile keeps its files and has these replaced); ``files``: the paths or globs read (a new
    agent needs them; default ``["MEMORY.md"]``); ``total_bytes``, ``total_chars``,
    ``total_tokens``: a limit over them all."""
    values: dict[str, int] = {}
    for key in (*_LIMIT_KEYS, "total_bytes", "total_chars", "total_tokens"):
        if key in table:
            v = table[key]
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                return f"[budgets.{name}] {key} takes a positive whole number, not {v!r}"
            values[key] = v
    unknown = sorted(set(table) - {*_LIMIT_KEYS, "total_bytes", "total_chars", "total_tokens", "files", "title"})
    if unknown:
        return f"[budgets.{name}] does not know {', '.join(unknown)} (it takes files, lines, bytes, chars, tokens)"
    files = table.get("files")
    if files is not None and (not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files)):
        return f'[budgets.{name}] files takes a list of paths, e.g. ["MEMORY.md"]'
    limits = Limits(values.get("lines"), values.get("bytes"), values.get("chars"), values.get("tokens"))
    total = Limits(None, values.get("total_bytes"), values.get("total_chars"), values.get("total_tokens"))
    title = table.get("title")
    if base is not None and files is None:
        reads = tuple(replace(r, limits=_overlay(r.limits, limits)) for r in base.reads)
        return replace(
            base,
            reads=reads,
            total=_overlay(base.total, total),
            custom=True,
            title=title if isinstance(title, str) else base.title,
            source="your config ([budgets." + name + "])",
        )
    paths = [str(f) for f in files] if isinstance(files, list) else [MEMORY_FILE]
    return Profile(
        name,
        title if isinstance(title, str) else name,
        tuple(Read((p,), limits) for p in paths),
        total=total,
        source="your config ([budgets." + name + "])",
        says="a budget you set",
        custom=True,
    )


def _overlay(old: Limits, new: Limits) -> Limits:
    if not new.bounded:
        return old
    return Limits(new.lines, new.bytes, new.chars, new.tokens)


# ---------------------------------------------------------------------------------------------
# Measuring


def estimate_tokens(text: str) -> int:
    """An estimate of the tokens ``text`` costs (see the module docstring): labelled as one."""
    if text.isascii():
        return (len(text) + 3) // 4
    quarters = 0
    for ch in text:
        if ch.isascii():
            quarters += 1
        elif east_asian_width(ch) in "WF":
            quarters += 4
        else:
            quarters += 2
    return (quarters + 3) // 4


def _quarter_tokens(text: str) -> int:
    if text.isascii():
        return len(text)
    return sum(1 if ch.isascii() else 4 if east_asian_width(ch) in "WF" else 2 for ch in text)


@dataclass(slots=True)
class Used:
    """What the files read so far took (a profile's ``total`` counts across files)."""

    bytes: int = 0
    chars: int = 0
    quarters: int = 0  # a quarter of an estimated token: sums without rounding each line


@dataclass(frozen=True, slots=True)
class Cut:
    """How much of one file loads under its limits."""

    lines: int  # the file's lines
    bytes: int
    chars: int
    tokens: int  # an estimate
    loaded_lines: int  # lines loaded whole
    loaded_bytes: int
    loaded_chars: int
    loaded_tokens: int
    cut_line: int | None  # the first line not loaded whole; None: the whole file loads
    cut_by: str | None  # "lines", "bytes", "characters", "tokens", or "total ..." (the profile's total)


def split_lines(data: bytes) -> list[bytes]:
    """The lines of ``data`` with their end of line (LF only splits, as the parser reads them)."""
    parts = data.split(b"\n")
    out = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


NO_LIMIT = Limits()


def measure(data: bytes, limits: Limits, *, total: Limits = NO_LIMIT, used: Used | None = None, skip: int = 0) -> Cut:
    """How much of ``data`` loads under ``limits`` (and the profile's ``total``, of which the files
    read before took ``used``; ``used`` is brought forward by what this file adds). The first
    ``skip`` lines (a Letta block's front matter: metadata, not the block's text) count against
    no limit."""
    used = used if used is not None else Used()
    lines = split_lines(data)
    whole = data.decode("utf-8", "surrogateescape")
    n_chars = len(whole) - whole.count("\r\n") - (1 if whole.startswith("\ufeff") else 0)
    n_q = _quarter_tokens(whole)
    b = c = q = 0
    cut_line: int | None = None
    cut_by: str | None = None
    if limits.bounded or total.bounded:
        for number, raw in enumerate(lines, 1):
            if number <= skip:
                continue
            text = raw.decode("utf-8", "surrogateescape")
            nc = len(text) - (1 if text.endswith("\r\n") else 0) - (1 if number == 1 and text[:1] == "\ufeff" else 0)
            nb, nc, nq = b + len(raw), c + nc, q + _quarter_tokens(text)
            why = _over(number, nb, nc, nq, limits)
            if why is None and total.bounded:
                why = _over(0, used.bytes + nb, used.chars + nc, used.quarters + nq, total)
                why = f"total {why}" if why else None
            if why is not None:
                cut_line, cut_by = number, why
                break
            b, c, q = nb, nc, nq
    else:
        head = b"".join(lines[:skip])
        b, c, q = len(data) - len(head), n_chars, n_q  # no limit: all of it loads
    loaded = (cut_line - 1) if cut_line is not None else len(lines)
    used.bytes += b
    used.chars += c
    used.quarters += q
    return Cut(len(lines), len(data), n_chars, (n_q + 3) // 4, loaded, b, c, (q + 3) // 4, cut_line, cut_by)


def _over(number: int, b: int, c: int, q: int, limits: Limits) -> str | None:
    if limits.lines is not None and number > limits.lines:
        return "lines"
    if limits.bytes is not None and b > limits.bytes:
        return "bytes"
    if limits.chars is not None and c > limits.chars:
        return "characters"
    if limits.tokens is not None and (q + 3) // 4 > limits.tokens:
        return "tokens"
    return None


def first_unloaded(data: bytes, limits: Limits) -> int | None:
    """The first line an agent does not load whole under ``limits`` (None: all of it loads)."""
    return measure(data, limits).cut_line


# ---------------------------------------------------------------------------------------------
# What a repo's agent reads, and what falls past the cut


@dataclass(frozen=True, slots=True)
class Past:
    """An entry (or a link on a line that is no entry) past the cut, by name."""

    line: int
    name: str  # the link's title (``[Title](file.md)``), else its target, else the entry's text
    text: str  # the entry's text (or the line's)
    links: tuple[str, ...]  # link targets on the line, as written
    index: bool  # an Index link: in MEMORY.md's ``## Index``, or a line of Claude Code's index
    partial: bool = False  # the line where a byte or character cap falls: read in part


@dataclass(frozen=True, slots=True)
class FileLoad:
    path: str
    limits: Limits
    cut: Cut | None  # None: the file is not there (or could not be read)
    past: tuple[Past, ...] = ()
    note: str = ""  # why a file is missing or unread


@dataclass(frozen=True, slots=True)
class LoadPlan:
    profile: Profile
    files: tuple[FileLoad, ...]

    @property
    def loaded_tokens(self) -> int:
        return sum(f.cut.loaded_tokens for f in self.files if f.cut is not None)

    @property
    def past(self) -> list[tuple[str, Past]]:
        return [(f.path, p) for f in self.files for p in f.past]


def _journal(pattern: str, today: _dt.date) -> str:
    return pattern.replace("{today}", today.isoformat()).replace(
        "{yesterday}", (today - _dt.timedelta(days=1)).isoformat()
    )


def _matches(pattern: str, path: str) -> bool:
    """``dir/**``: every Markdown file below ``dir``; a glob: ``*`` and ``?`` stay in one folder."""
    if pattern.endswith("/**"):
        return path.startswith(pattern[:-2]) and is_markdown(path)
    return path.count("/") == pattern.count("/") and fnmatch.fnmatchcase(path, pattern)


def targets(profile: Profile, files: Sequence[str], today: _dt.date) -> list[tuple[str, Read, bool]]:
    """``(path, read, present)`` for every file the profile reads, in the order it reads them: a
    named file that is not in ``files`` is listed as not present (an agent finds no memory)."""
    have = set(files)
    out: list[tuple[str, Read, bool]] = []
    seen: set[str] = set()
    for read in profile.reads:
        for pattern in read.patterns:
            pattern = _journal(pattern, today)
            if any(ch in pattern for ch in "*?[") or pattern.endswith("/**"):
                found = sorted(f for f in files if _matches(pattern, f) and not f.startswith("."))
            else:
                found = [pattern] if pattern in have else []
            if found:
                for path in found:
                    if path not in seen:
                        seen.add(path)
                        out.append((path, read, True))
                break
        else:
            first = _journal(read.patterns[-1], today)
            if not any(ch in first for ch in "*?[") and not first.endswith("/**") and first not in seen:
                seen.add(first)
                out.append((first, read, False))
    return out


def read_for(profile: Profile, path: str, today: _dt.date) -> Read | None:
    """The read of ``profile`` that loads ``path`` at start, None when the agent does not read it."""
    for read in profile.reads:
        for pattern in read.patterns:
            pattern = _journal(pattern, today)
            if (
                pattern == path
                or (any(ch in pattern for ch in "*?[") or pattern.endswith("/**"))
                and _matches(pattern, path)
            ):
                return read
    return None


@dataclass(frozen=True, slots=True)
class FileCut:
    """One file an agent reads at start, as the viewer draws it: where it cuts and its gauge."""

    profile: Profile
    limits: Limits
    cut: Cut
    gauge: str

    @property
    def line(self) -> int | None:
        """The first line not loaded (the viewer's cut line goes above it); None: all of it loads."""
        return self.cut.cut_line

    def says(self) -> str:
        """``Claude Code stops loading MEMORY.md before line 201 (200 lines or 25 KB)``."""
        name = self.gauge.split(" ", 1)[0].rsplit("/", 1)[-1]
        if self.cut.cut_line is None:
            return f"{self.profile.verb('load')} all of {name} at start ({self.limits.describe()})"
        return f"{self.profile.verb('stop')} loading {name} before line {self.cut.cut_line} ({self.limits.describe()})"


def file_cut(profile: Profile, path: str, data: bytes, doc: Document | None, today: _dt.date) -> FileCut | None:
    """Where ``profile``'s agent stops loading ``path`` (None when it does not read that file at start)."""
    read = read_for(profile, path, today)
    if read is None:
        return None
    limits = limits_of(read, doc)
    skip = doc.front_matter[1] if read.limit_key is not None and doc is not None and doc.front_matter else 0
    cut = measure(data, limits, skip=skip)
    return FileCut(profile, limits, cut, gauge(path, cut, limits))


def limits_of(read: Read, doc: Document | None) -> Limits:
    """The read's limits for one file: its front matter's ``limit_key`` (Letta) replaces the chars."""
    if read.limit_key is None or doc is None or not doc.front_matter:
        return read.limits
    first, last = doc.front_matter
    for line in doc.lines[first : last - 1]:
        key, sep, value = line.text.partition(":")
        if sep and key.strip() == read.limit_key:
            try:
                n = int(value.strip().strip("'\""))
            except ValueError:
                return read.limits
            if n > 0:
                return replace(read.limits, chars=n)
    return read.limits


def index_section(doc: Document) -> range:
    """The lines under a ``## Index`` heading, up to the next heading of its level or above."""
    start = next((ln for ln, lvl, t in doc.headings if lvl == 2 and t == "Index"), None)
    if start is None:
        return range(0)
    stop = next((ln for ln, lvl, _ in doc.headings if ln > start and lvl <= 2), len(doc.lines) + 1)
    return range(start + 1, stop)


def past_the_cut(doc: Document, cut_line: int, *, in_part: bool = False) -> list[Past]:
    """Every entry, and every link on a line that holds no entry, from ``cut_line`` on, by name
    (``in_part``: a byte or character cap falls inside ``cut_line``, which is read in part)."""
    index = index_section(doc) if doc.path == MEMORY_FILE else range(0)
    by_line: dict[int, list[Link]] = {}
    for link in doc.links:
        if link.line >= cut_line:
            by_line.setdefault(link.line, []).append(link)
    out: list[Past] = []
    entry_lines = set()
    for entry in doc.entries:
        if entry.line < cut_line:
            continue
        entry_lines.add(entry.line)
        links = by_line.get(entry.line, [])
        out.append(
            Past(
                entry.line,
                _name(entry.text, links),
                entry.text,
                tuple(lk.target for lk in links),
                bool(links) and (entry.line in index or doc.path == MEMORY_FILE and not index),
                in_part and entry.line == cut_line,
            )
        )
    for number, links in sorted(by_line.items()):
        if number in entry_lines:
            continue
        text = doc.lines[number - 1].text.strip()
        out.append(
            Past(
                number,
                _name(text, links),
                text,
                tuple(lk.target for lk in links),
                number in index,
                in_part and number == cut_line,
            )
        )
    out.sort(key=lambda p: p.line)
    return out


def _name(text: str, links: list[Link]) -> str:
    for link in links:
        if link.label:
            return link.label.strip()
    if links:
        return links[0].target
    return text


def plan(
    profile: Profile,
    files: Sequence[str],
    contents: Mapping[str, bytes | None],
    *,
    today: _dt.date,
    parsed: Callable[[str, bytes], Document],
) -> LoadPlan:
    """What ``profile``'s agent loads of a repo holding ``files`` (``contents``: the bytes of each
    file it reads, None when it could not be read). ``parsed``: how to parse one Markdown file."""
    parse_one = parsed
    used = Used()
    out: list[FileLoad] = []
    for path, read, present in targets(profile, files, today):
        data = contents.get(path) if present else None
        if data is None:
            out.append(FileLoad(path, read.limits, None, note="not there" if not present else "not read"))
            continue
        doc = parse_one(path, data) if is_markdown(path) else None
        limits = limits_of(read, doc)
        skip = doc.front_matter[1] if read.limit_key is not None and doc is not None and doc.front_matter else 0
        cut = measure(data, limits, total=profile.total, used=used, skip=skip)
        past: tuple[Past, ...] = ()
        if doc is not None and cut.cut_line is not None:
            past = tuple(past_the_cut(doc, cut.cut_line, in_part=cut.cut_by != "lines"))
        out.append(FileLoad(path, limits, cut, past))
    return LoadPlan(profile, tuple(out))


def crossed(
    old: Document | None, old_cut: int | None, new: Document, new_cut: int | None
) -> tuple[list[str], list[str]]:
    """What a change to a file an agent loads did to its cut: ``(pushed, landed)``, the entries
    (by their text) that loaded before and are past the cut now, and the new ones written past
    it (an agent loading the file never sees either)."""
    if new_cut is None:
        return [], []
    before_loaded = {e.text for e in old.entries if old_cut is None or e.line < old_cut} if old else set()
    before = {e.text for e in old.entries} if old else set()
    past = [e.text for e in new.entries if e.line >= new_cut and e.text]
    return [t for t in past if t in before_loaded], [t for t in past if t not in before]


# ---------------------------------------------------------------------------------------------
# Saying it


def size_text(n: int) -> str:
    """``25 KB``, ``21.4 KB``, ``900 bytes`` (1 KB = 1,024 bytes)."""
    if n < KB:
        return f"{n:,} bytes"
    kb = n / KB
    return f"{kb:.0f} KB" if kb == int(kb) else f"{kb:.1f} KB"


def gauge(path: str, cut: Cut, limits: Limits) -> str:
    """``MEMORY.md 187/200 lines · 21.4/25 KB``: what loads against each limit (every number of
    the file when it is over)."""
    name = path
    parts = []
    if limits.lines is not None:
        parts.append(f"{cut.lines}/{limits.lines} lines")
    if limits.bytes is not None:
        parts.append(f"{_kb(cut.bytes)}/{_kb(limits.bytes)} KB")
    if limits.chars is not None:
        parts.append(f"{cut.chars:,}/{limits.chars:,} chars")
    if limits.tokens is not None:
        parts.append(f"~{cut.tokens:,}/{limits.tokens:,} tokens")
    if not parts:
        parts.append(f"{cut.lines} lines · {_kb(cut.bytes)} KB · ~{cut.tokens:,} tokens, no limit")
    return f"{name} " + " \u00b7 ".join(parts)


def _kb(n: int) -> str:
    kb = n / KB
    return f"{kb:.0f}" if kb == int(kb) else f"{kb:.1f}"


def use(cut: Cut, limits: Limits) -> float:
    """The largest share of a limit the whole file takes (1.0 = exactly at the limit)."""
    shares = []
    if limits.lines:
        shares.append(cut.lines / limits.lines)
    if limits.bytes:
        shares.append(cut.bytes / limits.bytes)
    if limits.chars:
        shares.append(cut.chars / limits.chars)
    if limits.tokens:
        shares.append(cut.tokens / limits.tokens)
    return max(shares, default=0.0)


NEAR = 0.9  # "near its budget": a file at 90% of a limit or more


@dataclass(frozen=True, slots=True)
class Budgets:
    """The profiles in use: built-in ones and those the config's ``[budgets]`` made or changed,
    and which agent reads each repo (``[loads]``)."""

    custom: dict[str, Profile] = field(default_factory=dict)
    repos: dict[str, str] = field(default_factory=dict)  # repo name -> agent name

    def named(self, name: str) -> Profile | None:
        return profile_named(name, self.custom)

    def for_repo(self, repo: str, style: str) -> Profile:
        agent = self.repos.get(repo)
        found = self.named(agent) if agent else None
        return found or profile_for(style, self.custom)

    @property
    def signature(self) -> str:
        """Changes whenever a budget does (for caches of what it decided, such as lint's)."""
        return repr(sorted((k, v.reads, v.total) for k, v in self.custom.items())) + repr(sorted(self.repos.items()))


__all__ = [
    "AMR",
    "CLAUDE_CODE",
    "FOR_FORMAT",
    "NEAR",
    "PROFILES",
    "Budgets",
    "Cut",
    "FileLoad",
    "Limits",
    "LoadPlan",
    "Past",
    "Profile",
    "Read",
    "Used",
    "crossed",
    "custom",
    "FileCut",
    "estimate_tokens",
    "file_cut",
    "first_unloaded",
    "gauge",
    "index_section",
    "limits_of",
    "measure",
    "past_the_cut",
    "plan",
    "profile_for",
    "profile_named",
    "read_for",
    "size_text",
    "split_lines",
    "targets",
    "use",
]
