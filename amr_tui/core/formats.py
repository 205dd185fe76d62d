"""What each memory format is, as its agent reads it: the profile lint asks before it speaks.

A profile says which files the format's agent loads at the start of a session and how, what an
entry is, how its links name notes, and which of the Agent Memory Repo's rules are not this
format's (its own conventions, which raise nothing). ``docs/format.md`` section 10 has the same
profiles in prose; ``services.workspace.repo_style`` recognises the format of a folder.

Pure data and pure functions of path strings: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from amr_tui.core.paths import MEMORY_FILE, is_markdown

#: Codes a format may hold as its own convention (``Profile.quiet``).
NESTED = "AMR023"  # an indented bullet
STAR = "AMR024"  # a '*' or '+' bullet
FRONT_MATTER = "AMR028"  # YAML front matter
WRAPPED = "AMR004"  # a list item that goes on after its line
NO_INDEX = "AMR002"  # MEMORY.md without '## Index'
NO_MEMORY = "AMR001"  # no MEMORY.md
MD_SUFFIX = "AMR011"  # [[note.md]]
EMPTY_ENTRY = "AMR019"  # a bare "-": a daily note's template waiting to be filled
EMPTY_LINK = "AMR029"  # [[]]: a template's link field waiting to be filled
BRACKET_TEXT = "AMR020"  # a trailing [bracket] that is not metadata: AMR's grammar, not the format's
META_INSIDE = "AMR031"  # a [key: value] inside the text: AMR's metadata grammar, not the format's

_DATED = re.compile(r"(?:^|[^0-9])(\d{4})([-_])(\d{2})\2(\d{2})(?:[^0-9]|$)")


@dataclass(frozen=True, slots=True)
class Profile:
    """One memory format as its agent reads it."""

    name: str  # the style name (``RepoSnapshot.style``, the config's ``[formats]``)
    title: str  # how people call it
    start: tuple[str, ...]  # files the agent loads at session start, in order (fnmatch patterns)
    loads: str  # how it loads them, in a phrase
    budget: tuple[int, int] | None  # (lines, bytes) of MEMORY.md an agent loads; None: no budget
    reach: str  # "links": a note no link from the start files reaches is never read; "all": every note is
    entry: str  # "line": an entry is a bullet's line; "item": a whole list item; "paragraph": a § stretch
    # How ``[[x]]`` names a note: "path" (from the root), "name" (a file name anywhere, the
    # shortest path first), "title" (the front matter's title or name), "typed" (a Claude Code
    # memory's name without its type: ``[[design-workflow]]``); Markdown links everywhere.
    links: tuple[str, ...]
    planned_links: bool  # a [[link]] to a note not written yet is the format's way of planning one
    quiet: frozenset[str]  # the AMR rules that are this format's own conventions: never reported
    mirrors: tuple[tuple[str, str], ...] = ()  # file names that repeat each other by design
    daily: str = ""  # the folder of dated journal files the agent loads (the two latest), if any
    # The files that are the agent's memory (fnmatch patterns); () : every file of the folder. The
    # others (an OpenClaw workspace's research and skills, a Hermes home's installed skills, a
    # project's docs beside its memory bank) are read, searched and shown, and lint says only
    # what is wrong in any file: an error (a credential, bytes that read differently).
    memory: tuple[str, ...] = ()
    # The agent's write-ups among its memory files (fnmatch patterns): notes it searches, not facts
    # it curates (an OpenClaw agent's research in memory/research/: a summary, a report, the notes
    # behind a memory). They repeat each other and the memory by nature: a repeat between one and
    # another file is no duplicate; inside one, a fact has five words (as in a knowledge vault).
    writeups: tuple[str, ...] = ()


# The six core files of a Cline / Cursor memory bank, in the order the format reads them.
_MEMORY_BANK_CORE = (
    "projectbrief.md",
    "productContext.md",
    "systemPatterns.md",
    "techContext.md",
    "activeContext.md",
    "progress.md",
)
_FOREIGN = frozenset(
    {NESTED, STAR, FRONT_MATTER, WRAPPED, MD_SUFFIX, EMPTY_ENTRY, EMPTY_LINK, BRACKET_TEXT, META_INSIDE}
)

PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "amr",
            "Agent Memory Repo",
            (MEMORY_FILE,),
            "MEMORY.md up to 200 lines or 25 KB; topic files when a link from it is followed",
            (200, 25 * 1024),
            "links",
            "line",
            ("path",),
            False,
            frozenset({NESTED}),
        ),
        Profile(
            "claude-code",
            "Claude Code auto memory",
            (MEMORY_FILE,),
            "MEMORY.md up to 200 lines or 25 KB; a topic file when its line in MEMORY.md leads to it",
            (200, 25 * 1024),
            "links",
            "item",
            ("path", "name", "title", "typed"),
            False,
            _FOREIGN | {NO_INDEX},
        ),
        Profile(
            "openclaw",
            "OpenClaw workspace",
            ("AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md", MEMORY_FILE),
            "the workspace files whole at every session start, today's and yesterday's memory/ log, "
            "and memory/ through its memory search",
            None,
            "all",
            "item",
            ("path", "name"),  # a workspace kept as an Obsidian vault links its notes by name
            False,
            _FOREIGN | {NO_INDEX, NO_MEMORY},
            daily="memory",
            memory=(
                "AGENTS.md",
                "SOUL.md",
                "TOOLS.md",
                "IDENTITY.md",
                "USER.md",
                "HEARTBEAT.md",
                "BOOTSTRAP.md",
                MEMORY_FILE,
                "memory/*",
            ),
            writeups=("memory/*/*",),  # memory/research/x.md; not the daily logs memory/2026-03-05.md
        ),
        Profile(
            "hermes",
            "Hermes agent",
            ("SOUL.md", "memories/MEMORY.md", "memories/USER.md", MEMORY_FILE, "USER.md"),
            "SOUL.md, then memories/MEMORY.md and memories/USER.md as a snapshot at session start",
            None,
            "all",
            "paragraph",
            ("path",),
            False,
            _FOREIGN | {NO_INDEX, NO_MEMORY},
            memory=("SOUL.md", "memories/*", MEMORY_FILE, "USER.md"),
        ),
        Profile(
            "letta",
            "Letta memory filesystem",
            ("system/*", "system/**/*"),
            "every block under system/ in context at every turn; the other files through the memory tree",
            None,
            "all",
            "item",
            ("path",),
            False,
            _FOREIGN | {NO_INDEX, NO_MEMORY},
        ),
        Profile(
            "memory-bank",
            "Cline / Cursor memory bank",
            (
                *(f"memory-bank/{name}" for name in _MEMORY_BANK_CORE),
                "memory-bank/*",
                "memory-bank/**/*",
                *_MEMORY_BANK_CORE,
            ),
            "every file of the memory bank at the start of every task",
            None,
            "all",
            "item",
            ("path", "name"),
            False,
            _FOREIGN | {NO_INDEX, NO_MEMORY},
            mirrors=(("activeContext.md", "progress.md"),),
            memory=("memory-bank/*", *_MEMORY_BANK_CORE),
        ),
        Profile(
            "obsidian",
            "Obsidian vault",
            (),
            "nothing at start: notes are opened, searched and followed by name",
            None,
            "all",
            "item",
            ("path", "name"),
            True,
            _FOREIGN | {NO_INDEX, NO_MEMORY},
        ),
        Profile(
            "basic-memory",
            "basic-memory knowledge base",
            (),
            "nothing at start: notes are found by search and followed by title",
            None,
            "all",
            "item",
            ("path", "name", "title"),
            True,
            _FOREIGN | {NO_INDEX, NO_MEMORY},
        ),
        Profile(
            "folder",
            "plain folder of Markdown notes",
            (),
            "nothing at start: no agent format is known",
            None,
            "all",
            "item",
            ("path", "name"),
            False,
            _FOREIGN | {NO_INDEX, NO_MEMORY},
        ),
    )
}


def profile_of(style: str) -> Profile:
    """The profile of a format (``RepoSnapshot.style``); the AMR one for a name amr does not know."""
    return PROFILES.get(style) or PROFILES["amr"]


def is_journal(path: str) -> bool:
    """A dated journal file (``memory/2026-03-05.md``, ``Daily/2026-03-05 notes.md``,
    ``journal/2025_02_28_setup.md``): an agent's log of one day, whose repeated status lines (and
    the facts it records as of that day) are not duplicates to merge."""
    name = path.rsplit("/", 1)[-1]
    return is_markdown(name) and _DATED.search(name[:-3]) is not None


_TASK_LIST = re.compile(r"^(?:to[ _-]?dos?|tasks?|backlog)(?![a-z])", re.IGNORECASE)


def is_task_list(path: str) -> bool:
    """A to-do list (``TODO.md``, ``To do - list.md``, ``tasks.md``, ``backlog.md``): its items
    are tasks carried from week to week, not facts (as a checklist's ``- [ ]`` items are not)."""
    name = path.rsplit("/", 1)[-1]
    return is_markdown(name) and _TASK_LIST.match(name) is not None


_LOG_NAME = re.compile(r"(?:^|[^a-z])(?:logs?|journal|handoffs?|changelog|diary|history)(?:[^a-z]|$)", re.IGNORECASE)


def is_log(path: str) -> bool:
    """A log kept by name (``SESSION_LOG.md``, ``AGENT_HANDOFF_2026-06.md``, ``learning-log.md``,
    ``CHANGELOG.md``, ``session_history.md``): an entry per session, whose status lines recur from one session to the next
    (a check that passed, a file synced), so its lines are not duplicates of each other."""
    name = path.rsplit("/", 1)[-1]
    return is_markdown(name) and _LOG_NAME.search(name[:-3]) is not None


_TEMPLATE_PART = re.compile(r"(?:^|[^a-z])templates?(?:[^a-z]|$)", re.IGNORECASE)


def is_template(path: str) -> bool:
    """A note template (``07_Templates/Bug_Template.md``, ``templates/daily.md``): the notes made
    from it carry its lines (its headings' guidance, its placeholders), which are no facts."""
    return is_markdown(path) and any(_TEMPLATE_PART.search(part) for part in path.split("/"))


def start_files(profile: Profile, files: Iterable[str]) -> list[str]:
    """The Markdown files of ``files`` the format's agent loads at session start, in the order it
    loads them: the profile's start patterns, then the two latest dated logs of its daily folder."""
    notes = sorted(f for f in files if is_markdown(f) and not f.startswith("."))
    out: list[str] = []
    seen: set[str] = set()
    for pattern in profile.start:
        for f in notes if any(ch in pattern for ch in "*?[") else ([pattern] if pattern in notes else []):
            if f not in seen and fnmatchcase(f, pattern):
                seen.add(f)
                out.append(f)
    if profile.daily:
        prefix = profile.daily + "/"
        logs = [f for f in notes if f.startswith(prefix) and "/" not in f[len(prefix) :] and is_journal(f)]
        out += [f for f in sorted(logs)[-2:][::-1] if f not in seen]
    return out


def is_memory(profile: Profile, path: str) -> bool:
    """Whether ``path`` is one of the format's memory files (``Profile.memory``)."""
    return not profile.memory or any(fnmatchcase(path, pattern) for pattern in profile.memory)


def is_writeup(profile: Profile, path: str) -> bool:
    """Whether ``path`` is one of the agent's write-ups (``Profile.writeups``)."""
    return any(fnmatchcase(path, pattern) for pattern in profile.writeups)


def mirrored(profile: Profile, a: str, b: str) -> bool:
    """Whether the files ``a`` and ``b`` repeat each other by the format's design (a memory bank's
    ``activeContext.md`` and ``progress.md``: the current work is in both)."""
    x, y = a.rsplit("/", 1)[-1], b.rsplit("/", 1)[-1]
    return any({x, y} == {m, n} for m, n in profile.mirrors)
