"""Repo-level lint: what needs the whole repo (links, reachability, duplicates, MEMORY.md).

Pure: the caller hands in a RepoSnapshot (file list, parsed documents, and the few facts
that need the disk, such as symlinks that point outside the root).
"""

from __future__ import annotations

import re
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter

from amr_tui.core import fuzzy
from amr_tui.core.budget import AMR as _AMR_PROFILE
from amr_tui.core.budget import Limits, measure, profile_for
from amr_tui.core.budget import Profile as LoadProfile
from amr_tui.core.format.links import (
    LinkState,
    NameIndex,
    Resolution,
    heading_known,
    index_link,
    link_text_for,
    off_by_a_folder,
    resolve,
    split_heading,
    split_target,
)
from amr_tui.core.format.parser import Document, parse
from amr_tui.core.format.rules import diag, is_worded_credential
from amr_tui.core.formats import (
    Profile,
    is_log,
    is_memory,
    is_task_list,
    is_template,
    is_writeup,
    mirrored,
    profile_of,
    start_files,
)
from amr_tui.core.formats import is_journal as is_journal  # lint's API, defined with the profiles
from amr_tui.core.lint.contradictions import find_contradictions
from amr_tui.core.lint.facts import CONTRADICTIONS_MAX_ENTRIES as CONTRADICTIONS_MAX_ENTRIES  # lint's API
from amr_tui.core.lint.facts import (
    PLACEHOLDER_LINE,
    FileFacts,
    fact_rows,
    facts_of,
    front_title,
    is_placeholder,
    normalise_text,
    same_values,
)
from amr_tui.core.model import Diagnostic, Fix, LineEdit, Link, Severity
from amr_tui.core.model import Finding as Finding  # what lint_repo returns: lint's API
from amr_tui.core.paths import MAX_PARSE_BYTES, in_amr_folder, is_markdown
from amr_tui.core.paths import MEMORY_FILE as MEMORY_FILE  # lint's API, defined with the other path rules

_AMR_LIMITS = _AMR_PROFILE.entry.limits if _AMR_PROFILE.entry else Limits(200, 25 * 1024)

INDEX_HEADING = "Index"
# amr's own budget for an AMR MEMORY.md (``core.budget.AMR``): what lint said before profiles.
LOAD_BUDGET_BYTES = _AMR_LIMITS.bytes or 25 * 1024
NEAR_DUPLICATE_THRESHOLD = 90.0  # rapidfuzz token_sort_ratio, on normalised text
NEAR_DUPLICATE_MIN_CHARS = 20

_IGNORED_NAMES = re.compile(r"^(readme|license|licence|contributing|changelog)(\..*)?$", re.I)


@dataclass(slots=True)
class RepoSnapshot:
    name: str
    files: set[str]  # every file, posix paths relative to the root
    documents: dict[str, Document]  # parsed Markdown files
    escaping: set[str] = field(default_factory=set)  # symlinks that resolve outside the root
    sizes: dict[str, int] = field(default_factory=dict)  # bytes per file, when known
    undefined_merge_drivers: list[tuple[str, int, str]] = field(default_factory=list)  # (path, line, driver)
    # Facts of Markdown files that were not parsed this time (a cache kept them; core.lint.facts).
    # A file is linted from its document when it has one, else from these.
    facts: dict[str, FileFacts] = field(default_factory=dict)
    # The memory format the folder is in (``services.workspace.memory_format``): "amr", or another
    # agent's ("claude-code", "obsidian", "letta", "basic-memory", "memory-bank", "hermes",
    # "folder"); it decides how links resolve and which findings are the format's own rules.
    style: str = "amr"
    # The agent whose load budget AMR003 holds MEMORY.md to (``core.budget``); None: the one
    # that reads this format (``profile_for(style)``).
    budget: LoadProfile | None = None

    _lower: dict[str, str] | None = None
    _names: NameIndex | None = None
    _tops: frozenset[str] | None = None
    _resolved: dict[str, Resolution] = field(default_factory=dict)
    _rows: dict[str, tuple[str, Sequence[int], list[str]]] = field(default_factory=dict)  # fact_rows, once

    @property
    def profile(self) -> Profile:
        """What the folder's format loads, what an entry is, how it links (``core.formats``)."""
        return profile_of(self.style)

    def top_folders(self) -> frozenset[str]:
        """The folders at the top of the repo that hold a file, each with its ``/``."""
        if self._tops is None:
            self._tops = frozenset(f.split("/", 1)[0] + "/" for f in self.files if "/" in f)
        return self._tops

    def lower_map(self) -> dict[str, str]:
        if self._lower is None:
            self._lower = {f.lower(): f for f in self.files}
        return self._lower

    def name_index(self) -> NameIndex:
        if self._names is None:
            links = self.profile.links
            self._names = NameIndex(self.files, self.titles() if "title" in links else None, typed="typed" in links)
        return self._names

    def titles(self) -> dict[str, str]:
        """Each Markdown file's front-matter title (or name), where it has one."""
        out = {}
        for path in self.markdown_paths():
            doc = self.documents.get(path)
            title = front_title(doc) if doc is not None else self.facts[path].title
            if title:
                out[path] = title
        return out

    def resolve(self, target: str) -> Resolution:
        """``core.format.links.resolve`` of a link target in this repo, once per distinct target
        (by note name too when the format links so: ``links_by_name``)."""
        found = self._resolved.get(target)
        if found is None:
            names = self.name_index if links_by_name(self.style) else None
            found = self._resolved[target] = resolve(target, self.files, self.lower_map, names)
        return found

    def markdown_paths(self) -> list[str]:
        """Every parsed (or known from its facts) Markdown file, sorted."""
        return sorted(self.documents.keys() | self.facts.keys())

    def file_facts(self, path: str) -> FileFacts | None:
        """The facts of one file (made from its document when it has one: for a cache to keep)."""
        doc = self.documents.get(path)
        if doc is not None:
            return facts_of(doc, whole=self.style != "amr")
        return self.facts.get(path)

    # The checks read documents directly when they have them (the app lints 100,000 parsed
    # entries; facts made on the way would be as many objects again) and facts otherwise.
    def diagnostics_of(self, path: str) -> list[Diagnostic]:
        doc = self.documents.get(path)
        return doc.diagnostics if doc is not None else self.facts[path].diagnostics

    def links_of(self, path: str) -> tuple[Sequence[Link], Callable[[int], str] | None]:
        """``(links, text of line n)`` of a Markdown file, or ``((), None)``."""
        doc = self.documents.get(path)
        if doc is not None:
            return doc.links, lambda n: doc.lines[n - 1].text
        facts = self.facts.get(path)
        if facts is None:
            return (), None
        return facts.links, facts.link_lines.__getitem__

    def headings_of(self, path: str) -> list[str] | None:
        """The heading texts of a Markdown file, or None when it is not one amr parsed."""
        doc = self.documents.get(path)
        if doc is not None:
            return [t for _ln, _lvl, t in doc.headings]
        facts = self.facts.get(path)
        return facts.headings if facts is not None else None

    def norms_of(self, path: str) -> tuple[str, Sequence[int]]:
        """The normalised whole fact of each entry that states one (``core.lint.facts.fact_rows``),
        in order, joined by line breaks, and each one's line (``FileFacts.norms`` / ``lines``)."""
        norms, lines, _texts = self.rows_of(path)
        return norms, lines

    def rows_of(self, path: str) -> tuple[str, Sequence[int], list[str]]:
        """``norms_of`` and each fact as written (``FileFacts.texts``): from the file's facts, or
        computed once from its document."""
        doc = self.documents.get(path)
        if doc is None:
            facts = self.facts[path]
            return facts.norms, facts.lines, facts.texts
        found = self._rows.get(path)
        if found is None:
            norms: list[str] = []
            lines: array[int] = array("I")
            texts: list[str] = []
            for norm, line, text in fact_rows(doc, whole=self.style != "amr"):
                norms.append(norm)
                lines.append(line)
                texts.append(text)
            found = self._rows[path] = ("\n".join(norms), lines, texts)
        return found


def links_by_name(style: str) -> bool:
    """Whether ``[[x]]`` in a repo of this format may name a note by its name or title."""
    return "name" in profile_of(style).links


def is_claude_index(doc: Document) -> bool:
    """MEMORY.md written as Claude Code's index: its top-level entries are mostly links to files."""
    top = [e for e in doc.entries if e.depth == 0]
    if not top:
        return False
    linked = {ln.line for ln in doc.links}
    return sum(1 for e in top if e.line in linked) * 2 > len(top)


def is_memory_note(path: str) -> bool:
    """Files that should be reachable from MEMORY.md (dotfiles and READMEs are not)."""
    parts = path.split("/")
    if any(p.startswith(".") for p in parts):
        return False
    return not _IGNORED_NAMES.match(parts[-1])


def lint_repo(
    repo: RepoSnapshot,
    *,
    duplicates: bool = True,
    near_duplicates: bool = True,
    contradictions: bool = True,
    contradictions_max: int | None = None,
) -> list[Finding]:
    """Every finding of the repo, sorted. ``near_duplicates=False`` skips AMR015 and AMR033 (info
    level, the costliest checks): callers that do not show info findings need not compute them;
    ``contradictions=False`` skips AMR033 alone (the app, on a large repo: see the session).
    ``contradictions_max``: with ``near_duplicates=False``, AMR033 is still looked for in a repo
    of at most this many entries (``amr lint`` counts them, so that it never says "All clean."
    over a possible contradiction it could see in a fraction of a second)."""
    findings: list[Finding] = []
    for path in repo.markdown_paths():
        findings.extend(Finding(path, d) for d in repo.diagnostics_of(path))
    findings.extend(_memory_checks(repo))
    findings.extend(_link_checks(repo))
    findings.extend(_orphans(repo))
    findings.extend(_escaping_files(repo))
    findings.extend(_unread_files(repo))
    if duplicates:
        found = _duplicates(repo, near=near_duplicates)
        small = contradictions_max is not None and entry_count(repo) <= contradictions_max
        if contradictions and (near_duplicates or small):
            odd = _contradictions(repo)
            at = {(f.path, f.diagnostic.line) for f in odd}
            # an entry that may contradict another is reported as that, not as nearly the same
            found = [f for f in found if f.diagnostic.code != "AMR015" or (f.path, f.diagnostic.line) not in at]
            found.extend(odd)
        findings.extend(found)
    for path, line, driver in repo.undefined_merge_drivers:
        findings.append(
            Finding(
                path,
                diag(
                    "AMR027",
                    f"merge={driver} is named here but merge.{driver}.driver is not configured in this clone; "
                    "git silently falls back to a text merge (run: amr merge-driver install)",
                    line,
                    1,
                ),
            )
        )
    findings.extend(_placeholders(repo))
    findings = _as_the_format_reads(repo, findings)
    findings = _one_wrap_warning_per_file(findings)
    findings = _once_per_file(findings, soft_breaks=repo.style != "amr")
    findings.sort(key=lambda f: (f.path, f.diagnostic.line, f.diagnostic.column, f.diagnostic.code))
    return findings


def _as_the_format_reads(repo: RepoSnapshot, findings: list[Finding]) -> list[Finding]:
    """The findings the folder's format speaks: none of its own conventions (``Profile.quiet``),
    and in a file that is not the agent's memory (``Profile.memory``) only errors, and of the
    credentials there only a token's own shape: a password after "password:" in a skill's tutorial
    or a write-up is its example (``is_worded_credential``)."""
    profile = repo.profile
    quiet = profile.quiet
    out = []
    for f in findings:
        d = f.diagnostic
        if d.code in quiet:
            continue
        if d.code == "AMR012" and "name" in profile.links and _from_the_vault_root(repo, d.message):
            continue
        if not is_memory(profile, f.path) and (d.severity is not Severity.ERROR or is_worded_credential(d)):
            continue
        out.append(f)
    return out


def _is_index(path: str) -> bool:
    """MEMORY.md or a note named as an index (``RULES_INDEX.md``, ``index.md``): it lists the
    memory's own files, so each of its links is checked."""
    return path == MEMORY_FILE or "index" in path.rsplit("/", 1)[-1].lower()


def _into_the_project(repo: RepoSnapshot, target: str, raw: str = "") -> bool:
    """Whether a Markdown link from a note of a memory folder that lives inside its project
    (Claude Code's ``.claude/memory/``, a ``memory-bank/``, an ``.agent/memory/``, a vault in the
    repo) names a file of the project: its first folder is no folder of the memory
    (``docs/design.md`` where the memory has no ``docs/``). Not in AMR, whose links are the
    memory's own, nor from an index (``_is_index``), which lists the memory's files."""
    if repo.style == "amr":
        return False
    written = split_target(raw) if raw else target
    for path in (target, written):  # read from the note's folder, or as written (from the project's root)
        if "/" in path and not path.startswith(("./", "../")):
            if path.split("/", 1)[0] + "/" not in repo.top_folders():
                return True
    return False


_TEMPLATE_SLOT = re.compile(r"<[^<>]+>|\{\{[^{}]*\}\}")
_ROOTED = re.compile(r"^\[\[/([^/\]][^\]]*)\]\]: absolute path; ")


def _from_the_vault_root(repo: RepoSnapshot, message: str) -> bool:
    """Whether an AMR012 "absolute path" is an Obsidian link from the vault's root (``[[/n]]``,
    ``[[/folder/note]]``: its "absolute path in vault" link format): the note it names is there,
    or the format plans notes by linking to them."""
    m = _ROOTED.match(message)
    if m is None:
        return False
    raw = m.group(1)
    return repo.profile.planned_links or repo.resolve(split_target(raw)).state is LinkState.OK


def _one_wrap_warning_per_file(findings: list[Finding]) -> list[Finding]:
    """AMR004 once per file, at its first wrapped entry, saying how many there are: an editor
    that hard-wraps bullets wraps them all, and one warning says what to change."""
    wrapped: dict[str, list[Finding]] = {}
    for f in findings:
        if f.diagnostic.code == "AMR004":
            wrapped.setdefault(f.path, []).append(f)
    if not any(len(v) > 1 for v in wrapped.values()):
        return findings
    out = [f for f in findings if f.diagnostic.code != "AMR004"]
    for path, found in wrapped.items():
        first = min(found, key=lambda f: f.diagnostic.line)
        d = first.diagnostic
        if len(found) > 1:
            d = Diagnostic(
                d.code,
                d.severity,
                f"{d.message}; {len(found)} entries of this file are wrapped onto more lines",
                d.line,
                d.column,
                d.fix,
                d.end_column,
            )
        out.append(Finding(path, d))
    return out


_SEPARATOR_FOUND = ("U+2028 in the text", "U+2029 in the text")
_NAMES_NO_FILE = re.compile(r"^\[\[([^#|\]]*)[^\]]*\]\] names no file in this repo$")


def _once_per_file(findings: list[Finding], *, soft_breaks: bool = False) -> list[Finding]:
    """Two findings said once per file, at the first, with how many more there are: a line or
    paragraph separator (AMR017; a word processor's line breaks, pasted with its text, are on many
    lines, and ``amr parse`` still shows each line), and a link to a missing note (AMR010 without
    a fix: a note that links a missing one links it on many lines, ``[[DICTION#Term|term]]``).
    ``soft_breaks``: in a format other than AMR a separator is a notice, not an error: there it is
    the writing tool's line break in running text, where in AMR it splits an entry's one line."""
    groups: dict[tuple[str, str, str], list[Finding]] = {}
    for f in findings:
        d = f.diagnostic
        if d.code == "AMR017" and d.message in _SEPARATOR_FOUND:
            groups.setdefault((f.path, d.code, d.message), []).append(f)
        elif d.code == "AMR010" and d.fix is None and (m := _NAMES_NO_FILE.match(d.message)) is not None:
            groups.setdefault((f.path, d.code, m.group(1).strip().casefold()), []).append(f)

    def alone(found: list[Finding]) -> bool:
        return len(found) < 2 and not (soft_breaks and found[0].diagnostic.code == "AMR017")

    if all(alone(v) for v in groups.values()):
        return findings
    grouped = {id(f) for v in groups.values() if not alone(v) for f in v}
    out = [f for f in findings if id(f) not in grouped]
    for (path, code, _key), found in groups.items():
        if alone(found):
            continue
        first = min(found, key=lambda f: (f.diagnostic.line, f.diagnostic.column))
        d = first.diagnostic
        more = len({f.diagnostic.line for f in found}) - 1
        severity = d.severity
        if code == "AMR017":
            tail = f"; and on {more} more line{'s' if more != 1 else ''} of this file" if more else ""
            tail += " (a word processor's line breaks?)"
            severity = Severity.INFO if soft_breaks else severity
        else:
            tail = f"; {len(found)} links of this file name it"
        out.append(Finding(path, Diagnostic(d.code, severity, d.message + tail, d.line, d.column, d.fix, d.end_column)))
    return out


def _memory_checks(repo: RepoSnapshot) -> list[Finding]:
    doc = repo.documents.get(MEMORY_FILE)
    if doc is None:
        hint = ""
        for f in repo.files:
            if f.lower() == MEMORY_FILE.lower():
                hint = f" (found '{f}': the name is case-sensitive)"
        return [Finding(MEMORY_FILE, diag("AMR001", f"no MEMORY.md at the memory root{hint}", 0))]
    out: list[Finding] = []
    if repo.style == "amr" and not _has_index(doc) and not is_claude_index(doc):
        near = [(ln, lvl, t) for ln, lvl, t in doc.headings if t.strip().lower() == "index"]
        if near:
            ln, lvl, t = near[0]
            out.append(Finding(MEMORY_FILE, diag("AMR002", f"'{'#' * lvl} {t}' should be '## Index'", ln, 1)))
        else:
            last = doc.lines[-1].number if doc.lines else 0
            fix = None
            if doc.lines:
                tail = doc.lines[-1].text
                edit = LineEdit(last, tail + ("\n\n" if tail.strip() else "\n") + "## Index")
                if _has_index(
                    parse(apply_edits(doc, [edit]), MEMORY_FILE, check=False)
                ):  # not inside an open code block
                    fix = Fix("add an ## Index heading", (edit,), path=MEMORY_FILE)
            out.append(
                Finding(
                    MEMORY_FILE,
                    diag("AMR002", "MEMORY.md has no '## Index' heading for links to topic files", 0, fix=fix),
                )
            )
    profile = repo.budget or profile_for(repo.style)
    read = profile.entry
    if read is not None and read.limits.bounded:
        data = doc.to_bytes()
        cut = measure(data, read.limits)
        if cut.cut_line is not None:
            out.append(
                Finding(
                    MEMORY_FILE,
                    diag(
                        "AMR003",
                        f"MEMORY.md has {cut.lines} lines and {repo.sizes.get(MEMORY_FILE, cut.bytes)} bytes; "
                        f"{profile.verb('load', start=False)} only the first {read.limits.describe()}: line {cut.cut_line} "
                        "on is not loaded at session start",
                        cut.cut_line,
                        1,
                    ),
                )
            )
    return out


def _has_index(doc: Document) -> bool:
    return any(level == 2 and text == INDEX_HEADING for _, level, text in doc.headings)


def index_lines(doc: Document) -> range:
    """The lines of MEMORY.md's ``## Index`` section, below its heading (empty: no Index)."""
    start = next((ln for ln, lvl, t in doc.headings if lvl == 2 and t == INDEX_HEADING), None)
    if start is None:
        return range(0)
    stop = next((ln for ln, lvl, _ in doc.headings if ln > start and lvl <= 2), len(doc.lines) + 1)
    return range(start + 1, stop)


def load_budget(data: bytes, limits: Limits = _AMR_LIMITS) -> tuple[int, int | None]:
    """``(lines loaded, first line not loaded)`` for an agent reading MEMORY.md under ``limits``
    (amr's 200 lines / 25 KB by default; ``core.budget`` has every agent's)."""
    cut = measure(data, limits)
    return cut.loaded_lines, cut.cut_line


def lint_file(repo: RepoSnapshot, path: str) -> list[Finding]:
    """What can be said of one file quickly: its own rules and its links (no orphans, no duplicates).

    For a live editor after one file changed; the whole-repo checks follow in the background."""
    if path not in repo.documents and path not in repo.facts:
        return []
    out = [Finding(path, d) for d in repo.diagnostics_of(path)]
    out.extend(_link_checks(repo, only=path))
    if path == MEMORY_FILE:
        out.extend(f for f in _memory_checks(repo) if f.path == path)
    out = _as_the_format_reads(repo, out)
    out.sort(key=lambda f: (f.diagnostic.line, f.diagnostic.column, f.diagnostic.code))
    return out


def _link_checks(repo: RepoSnapshot, only: str | None = None) -> list[Finding]:
    out: list[Finding] = []
    planned = repo.profile.planned_links
    for path in [only] if only is not None else repo.markdown_paths():
        links, line_text = repo.links_of(path)
        for link in links:
            res = repo.resolve(link.target)
            if res.state is LinkState.OK:
                if res.path in repo.escaping:
                    out.append(
                        Finding(
                            path,
                            diag(
                                "AMR012",
                                f"{link.written} is a symlink that points outside the memory root; amr never opens it",
                                link.line,
                                link.column,
                            ),
                        )
                    )
                elif (heading := split_heading(link.raw)) and res.path is not None:
                    texts = repo.headings_of(res.path)
                    if texts is not None and not heading_known(heading, texts):
                        msg = f"{link.written}: {res.path} has no heading '{heading}'"
                        out.append(Finding(path, diag("AMR032", msg, link.line, link.column)))
                continue
            if res.state is not LinkState.BROKEN:
                continue  # AMR012 / AMR029 / AMR032 in the same file come from the line rules
            if _TEMPLATE_SLOT.search(link.target):
                continue  # a template's link to fill in: [[<step note directory>/Brief]], [[{{title}}]]
            if link.label is not None and not _is_index(path) and _into_the_project(repo, link.target, link.raw):
                continue  # [design](docs/design.md) from .claude/memory/: the project's docs, not the memory's
            if (rest := off_by_a_folder(link)) is not None and repo.resolve(rest).state is LinkState.OK:
                continue  # a relative [[../../identity/SOUL]] a folder off: found by the rest of its path
            fix = None
            msg = f"{link.written} names no file in this repo"
            if planned and link.label is None and not res.suggestion:
                # Obsidian and basic-memory plan a note by linking to it before it is written: only
                # a name that is nearly a note's name (a typo) is worth saying
                meant = repo.name_index().near(link.target)
                if meant is None:
                    continue
                msg = f"{link.written} names no note; did you mean [[{meant}]]?"
            if res.suggestion and link.label is None:
                msg += f"; did you mean [[{res.suggestion}]]?"
                assert line_text is not None  # a file with links has the text of their lines
                text = line_text(link.line)
                new_raw = link.raw.replace(link.target, res.suggestion, 1)
                fix = Fix(
                    f"link to [[{res.suggestion}]]",
                    (LineEdit(link.line, text[: link.start] + "[[" + new_raw + "]]" + text[link.end :]),),
                )
            out.append(Finding(path, diag("AMR010", msg, link.line, link.column, fix)))
    return out


def reachable(repo: RepoSnapshot) -> set[str]:
    """Files reachable from MEMORY.md (and the other files the format's agent loads at start,
    ``core.formats.start_files``) by following links, those files included."""
    if MEMORY_FILE not in repo.files:
        return set()
    seen = {MEMORY_FILE, *start_files(repo.profile, repo.markdown_paths())}
    todo = list(seen)
    while todo:
        links, _ = repo.links_of(todo.pop())
        for link in links:
            res = repo.resolve(link.target)
            found = res.path  # a file when the link is OK
            if res.state is LinkState.OK and found is not None and found not in seen and found not in repo.escaping:
                seen.add(found)
                todo.append(found)
    return seen


def _orphans(repo: RepoSnapshot) -> list[Finding]:
    if MEMORY_FILE not in repo.documents or repo.profile.reach != "links":
        return []  # a format whose agent reads every note (or lists them all) leaves none unreached
    seen = reachable(repo)
    memory = repo.documents[MEMORY_FILE]
    index_line = next((ln for ln, lvl, t in memory.headings if lvl == 2 and t == INDEX_HEADING), 0)
    out: list[Finding] = []
    anchor = _index_anchor(memory, index_line) if index_line else None
    for path in sorted(repo.files - seen - repo.escaping):  # a symlink out of the root: AMR012, never linked
        if not is_memory_note(path) or not is_markdown(path):
            continue  # scripts, lock files, JSON: not notes an agent loads
        fix = None
        link = index_link(path)
        if link is not None and repo.resolve(link[2:-2]).path != path:
            link = None  # [[a]] names a.md, not the file a: a link cannot reach it
        if anchor is not None and link is not None:
            line = memory.lines[anchor - 1]
            fix = Fix("link it from the Index", (LineEdit(anchor, line.text + "\n" + f"- {link}"),), path=MEMORY_FILE)
        out.append(
            Finding(
                path,
                diag(
                    "AMR013",
                    f"not reachable from MEMORY.md; link it as [[{link_text_for(path)}]] from the Index or a linked file",
                    0,
                    fix=fix,
                ),
            )
        )
    return out


def _placeholders(repo: RepoSnapshot) -> list[Finding]:
    """AMR036 for each entry that says nothing but "test" (``core.lint.facts.is_placeholder``)."""
    out = []
    for path in repo.markdown_paths():
        if in_amr_folder(path) or not is_memory(repo.profile, path):
            continue
        norms, at = repo.norms_of(path)
        if not at:
            continue
        for m in PLACEHOLDER_LINE.finditer(norms):  # in C over the file's texts; most files have none
            norm = m.group(0)
            if is_placeholder(norm):
                line = at[norms.count("\n", 0, m.start())]
                msg = f"'{norm}' is a placeholder, not a fact: remove it, or write what it was meant to say"
                out.append(Finding(path, diag("AMR036", msg, line, 1)))
    return out


def _unread_files(repo: RepoSnapshot) -> list[Finding]:
    """AMR034 for each Markdown file over ``MAX_PARSE_BYTES``: nothing in it was checked."""
    return [
        Finding(
            path,
            diag(
                "AMR034",
                f"{size / 1e6:.1f} MB, over the {MAX_PARSE_BYTES // (1024 * 1024)} MB amr reads: nothing in it "
                "was checked, and it is not searched or loaded (split it into smaller files)",
                0,
            ),
        )
        for path, size in sorted(repo.sizes.items())
        if size > MAX_PARSE_BYTES and is_markdown(path) and path not in repo.documents and path not in repo.facts
    ]


def _escaping_files(repo: RepoSnapshot) -> list[Finding]:
    """AMR012 for each file or folder that is a symlink out of the root (or into .git): never read."""
    return [
        Finding(
            path,
            diag(
                "AMR012",
                "a symlink that leads outside the memory root, into .git, or round in a loop; "
                "amr never reads it or writes through it",
                0,
            ),
        )
        for path in sorted(repo.escaping)
    ]


UNTRACKED = "git does not track it, so --fix does not link it (git add it first)"


def without_untracked_links(
    findings: list[Finding], tracked: set[str] | frozenset[str], why: str = UNTRACKED
) -> list[Finding]:
    """The findings, with no fix that would link a file git does not track into the Index.

    ``tracked``: the repo's tracked paths (from git; the caller asks). An unreachable file that
    is not tracked is still reported (AMR013), without a fix, and the message says ``why``.
    """
    out = []
    for f in findings:
        d = f.diagnostic
        if d.code == "AMR013" and d.fix is not None and f.path not in tracked:
            d = Diagnostic(d.code, d.severity, f"{d.message}; {why}", d.line, d.column, None, d.end_column)
            f = Finding(f.path, d)
        out.append(f)
    return out


def _index_anchor(memory: Document, index_line: int) -> int:
    """The line after which a new Index link goes: the Index's last entry, or its heading."""
    stop = next((ln for ln, lvl, _ in memory.headings if ln > index_line and lvl <= 2), len(memory.lines) + 1)
    anchor = index_line
    for entry in memory.entries:
        if index_line < entry.line < stop:
            anchor = entry.line
    return anchor


def _duplicates(repo: RepoSnapshot, *, near: bool = True) -> list[Finding]:
    fuzz, process = fuzzy.fuzz, fuzzy.process

    # Every entry as a row of columns (a tuple and a string per entry, a million times, was
    # the repo lint's peak memory): its file, where its text starts in that file's joined
    # normalised texts, its length and line, and the hash of its text.
    paths: list[str] = []
    joined: list[str] = []
    file_ix, starts, sizes, lines, hashes = array("I"), array("I"), array("I"), array("I"), array("q")
    profile = repo.profile
    vault = profile.planned_links or profile.name == "folder"  # notes written as a knowledge base
    writeup: list[bool] = []  # file -> one of the agent's write-ups (``Profile.writeups``)
    log: list[bool] = []  # file -> a log kept by name (``core.formats.is_log``)
    compared: list[str] = []
    from_template: set[str] = set()  # the lines of the repo's templates: a note made from one has them
    for path in repo.markdown_paths():
        if in_amr_folder(path) or is_journal(path) or is_task_list(path) or not is_memory(profile, path):
            continue  # amr's own records repeat facts on purpose; a daily journal repeats its status lines
        if is_template(path):
            from_template.update(repo.norms_of(path)[0].split("\n"))
        else:
            compared.append(path)
    from_template.discard("")
    for path in compared:
        norms, at = repo.norms_of(path)
        if not at:
            continue
        if from_template:
            own = [(n, ln) for n, ln in zip(norms.split("\n"), at, strict=True) if n not in from_template]
            if not own:
                continue
            norms, at = "\n".join(n for n, _ in own), array("I", (ln for _, ln in own))
        f = len(paths)
        paths.append(path)
        writeup.append(is_writeup(profile, path))
        log.append(is_log(path))
        joined.append(norms)
        pos = 0
        for norm, line in zip(norms.split("\n"), at, strict=True):
            file_ix.append(f)
            starts.append(pos)
            sizes.append(len(norm))
            lines.append(line)
            hashes.append(hash(norm))
            pos += len(norm) + 1

    def text(row: int) -> str:
        start = starts[row]
        return joined[file_ix[row]][start : start + sizes[row]]

    mirror_names = {name for pair in profile.mirrors for name in pair}
    link_lines: dict[int, set[int]] = {}  # file -> the lines holding a link

    def may_relate(row: int) -> bool:
        """A copy that may repeat another by design: in a file the format mirrors, or on a line
        with a link (a summary of the note it links). Most copies are neither: checked first."""
        f = file_ix[row]
        if writeup[f] or log[f] or (mirror_names and paths[f].rsplit("/", 1)[-1] in mirror_names):
            return True
        held = link_lines.get(f)
        if held is None:
            held = link_lines[f] = {link.line for link in repo.links_of(paths[f])[0]}
        return lines[row] in held

    def related(a: int, b: int) -> bool:
        """Two copies that repeat each other by design: files the format mirrors (a memory bank's
        activeContext.md and progress.md), a write-up and another file (a research note and its
        summary, or the memory drawn from it), two lines of one log, or a summary whose entry links
        to the note it sums up."""
        fa, fb = file_ix[a], file_ix[b]
        if fa == fb:
            return log[fa]  # a log's status lines recur from one session to the next
        pa, pb = paths[fa], paths[fb]
        return (
            writeup[fa]
            or writeup[fb]
            or mirrored(profile, pa, pb)
            or _links_to(repo, pa, lines[a], pb)
            or _links_to(repo, pb, lines[b], pa)
        )

    # Same text: rows sorted by hash (stable: in reading order within a hash), the texts of a
    # run of equal hashes compared; the first row of a text is the fact, and the copies after
    # it are one AMR014, at the first of them, saying how many times the fact is written.
    out: list[Finding] = []
    again: list[list[tuple[str, int]]] = []  # each fact written more than once: its copies
    repeated = bytearray(len(hashes))
    order = sorted(range(len(hashes)), key=hashes.__getitem__)
    run = 0
    while run < len(order):
        end = run + 1
        while end < len(order) and hashes[order[end]] == hashes[order[run]]:
            end += 1
        if end - run > 1:
            copies: dict[str, list[int]] = {}
            for row in order[run:end]:
                copies.setdefault(text(row), []).append(row)
            for norm, rows_of_text in copies.items():
                if len(rows_of_text) < 2:
                    continue
                notes = vault or writeup[file_ix[rows_of_text[0]]]  # copies in one write-up: as in a vault
                if not informative(norm, notes):  # "inheritance", "History (1/2)": a list's item, not a fact
                    for row in rows_of_text[1:]:
                        repeated[row] = 1
                    continue
                kept = [rows_of_text[0]]
                special = [k for k in kept if may_relate(k)]  # the kept copies a plain one may relate to
                for row in rows_of_text[1:]:
                    repeated[row] = 1
                    if may_relate(row):
                        if any(related(k, row) for k in kept):
                            continue
                        special.append(row)
                    elif any(related(k, row) for k in special):
                        continue
                    kept.append(row)
                if len(kept) > 1:
                    again.append([(paths[file_ix[r]], lines[r]) for r in kept])
        run = end
    del order
    out.extend(_said_once(again))
    # Near-duplicate candidates: the first row of each text, long enough, in reading order.
    rows = array("I", (r for r in range(len(hashes)) if not repeated[r] and sizes[r] >= NEAR_DUPLICATE_MIN_CHARS))
    if not near:
        rows = array("I")
    norms_at = _Rows(rows, text)
    # Near duplicates: block on the two rarest words (fewest entries, then alphabetical), then
    # score inside each block: each entry against the block's earlier ones, first match wins.
    # Two passes over the texts instead of keeping 100,000 word sets alive (memory).
    freq = Counter(chain.from_iterable(set(norm.split()) for norm in norms_at))
    rank = {w: k for k, (w, _n) in enumerate(sorted(freq.items(), key=itemgetter(1, 0)))}.__getitem__
    blocks: dict[str, array[int]] = defaultdict(lambda: array("I"))
    for i, norm in enumerate(norms_at):
        for w in sorted(set(norm.split()), key=rank)[:2]:
            blocks[w].append(i)
    del freq, rank
    # token_sort_ratio(a, b) is ratio() of the sorted words. Each block sorts its members' words
    # afresh (an entry is in at most two blocks): keeping them all for 100,000 entries raised
    # the app's peak memory by megabytes that the allocator does not give back.
    reported: set[int] = set()
    for members in blocks.values():
        if len(members) < 2 or len(members) > 200:
            continue
        texts = [" ".join(sorted(norms_at[b].split())) for b in members]
        for a_pos, a in enumerate(members):
            if a in reported or a_pos == 0:
                continue
            # every earlier member at or above the threshold; the first one in block order wins
            # (extract, not extract_iter: its generator holds a cycle that outlives a paused gc)
            matches = process.extract(
                texts[a_pos], texts[:a_pos], scorer=fuzz.ratio, score_cutoff=NEAR_DUPLICATE_THRESHOLD, limit=None
            )
            # texts that differ in a number, version or date are two facts (AMR033 may call them a
            # possible contradiction), never a near duplicate
            row = rows[a]
            matches = sorted(
                (
                    m
                    for m in matches
                    if same_values(texts[a_pos], m[0])
                    and not opposite(texts[a_pos], m[0])
                    and not ((may_relate(row) or may_relate(rows[members[m[2]]])) and related(rows[members[m[2]]], row))
                ),
                key=lambda m: m[2],
            )
            if not matches:
                continue
            _choice, score, k = matches[0]
            b = rows[members[k]]
            first_path, path = paths[file_ix[b]], paths[file_ix[row]]
            where = "above" if first_path == path else f"in {first_path}"
            out.append(
                Finding(
                    path,
                    diag(
                        "AMR015",
                        f"nearly the same fact as line {lines[b]} {where} ({score:.0f}% alike)",
                        lines[row],
                        1,
                    ),
                )
            )
            reported.add(a)
    return out


#: A file holding this many facts of one other file is said to repeat it, once.
FILE_COPY_FACTS = 3


_SPACED = re.compile("[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")  # Hangul: words between spaces, as in Latin


VAULT_FACT_WORDS = 5
# Letters of the alphabets written without spaces between words (Thai, Lao, Khmer, Myanmar): a
# word of them is about six characters with its marks (ช็อกโกแลต, "chocolate", is nine), where a
# Han character is nearly a word.
_UNSPACED_LETTERS = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]")


def informative(norm: str, vault: bool = False) -> bool:
    """Whether a *normalised* text says enough to be a fact worth a duplicate finding: three words
    or more (three CJK characters count as a word, six Thai, Lao, Khmer or Myanmar letters) and, in
    Latin script, twelve characters or more.
    "inheritance", "History (1/2)" or "内存管理" twice in a list is the list's vocabulary, not a fact
    repeated. In notes kept as a knowledge base (``vault``: Obsidian, basic-memory, a plain folder)
    a list's short items recur from note to note as its vocabulary ("HTTP keep-alive", "AWS Lambda /
    Fargate", a book's title): a fact there has five words or more."""
    words = norm.split()
    unspaced = sum(len(w) for w in words if not w.isascii() and not _SPACED.match(w))  # Han, kana, Thai
    alphabetic = len(_UNSPACED_LETTERS.findall(norm)) if unspaced else 0  # Thai, Lao, Khmer, Myanmar
    size = len(words) + (unspaced - alphabetic) // 3 + alphabetic // 6
    least = VAULT_FACT_WORDS if vault and unspaced == alphabetic else 3  # 周五下午不发版 is a sentence of one "word"
    return size >= least and (len(norm) >= 12 or not norm.isascii())


def _said_once(reports: list[list[tuple[str, int]]]) -> list[Finding]:
    """One AMR014 per fact written more than once (``_written_again``); and when one file holds
    ``FILE_COPY_FACTS`` or more facts of another, one AMR014 saying the file repeats it."""
    pairs: dict[tuple[str, str], list[list[tuple[str, int]]]] = defaultdict(list)
    for copies in reports:
        (first, _), (path, _) = copies[0], copies[1]
        if first != path:
            pairs[(path, first)].append(copies)
    copied = {pair for pair, found in pairs.items() if len(found) >= FILE_COPY_FACTS}
    out = [_written_again(c) for c in reports if (c[1][0], c[0][0]) not in copied]
    for path, first in sorted(copied):
        found = sorted(pairs[(path, first)], key=lambda c: c[1][1])
        here = [c[1][1] for c in found]
        shown = ", ".join(map(str, here[:8])) + (f" and {len(here) - 8} more" if len(here) > 8 else "")
        msg = f"{len(found)} facts of this file are also in {first} (lines {shown} here): is one a copy of the other?"
        out.append(Finding(path, diag("AMR014", msg, here[0], 1)))
    return out


def _written_again(copies: list[tuple[str, int]]) -> Finding:
    """One AMR014 for a fact written at each of ``copies`` (reading order): at the second copy,
    naming the first, and how many times it is written when more than twice."""
    (f_path, f_line), (path, line) = copies[0], copies[1]
    where = "above" if f_path == path else f"in {f_path}"
    msg = f"same fact as line {f_line} {where}"
    if len(copies) > 2:
        others = [f"{p}:{n}" for p, n in copies[2:7]]
        more = f" and {len(copies) - 7} more" if len(copies) > 7 else ""
        msg += f"; written {len(copies)} times (also at {', '.join(others)}{more})"
    return Finding(path, diag("AMR014", msg, line, 1))


def _links_to(repo: RepoSnapshot, path: str, line: int, target: str) -> bool:
    """Whether a link on ``line`` of ``path`` leads to the file ``target``."""
    links, _ = repo.links_of(path)
    return any(link.line == line and repo.resolve(link.target).path == target for link in links)


# Words that turn a statement into its opposite when one text has them where the other has the
# plain word ("indirizzamento diretto" / "indirizzamento indiretto"), and plain opposites.
_NEGATING = ("in", "im", "il", "ir", "un", "non", "dis", "anti", "a", "不", "非", "无", "未")
_OPPOSITES = frozenset(
    frozenset(p)
    for p in (
        ("left", "right"),
        ("sinistro", "destro"),
        ("sinistra", "destra"),
        ("before", "after"),
        ("prima", "dopo"),
        ("min", "max"),
        ("minimum", "maximum"),
        ("upper", "lower"),
        ("static", "dynamic"),
        ("statica", "dinamica"),
        ("statico", "dinamico"),
        ("true", "false"),
        ("on", "off"),
        ("open", "closed"),
        ("public", "private"),
        ("pubblico", "privato"),
        ("input", "output"),
        ("read", "write"),
        ("push", "pull"),
        ("start", "stop"),
        ("first", "last"),
        ("increase", "decrease"),
        ("allow", "deny"),
        ("always", "never"),
        ("created", "deleted"),
        ("created", "modified"),
        ("added", "removed"),
        ("enabled", "disabled"),
        ("assoluta", "semplice"),
        ("asynchronous", "synchronous"),
    )
)


def opposite(a: str, b: str) -> bool:
    """Whether two *normalised* texts that are nearly alike say opposite things: a word of one
    is a word of the other with a negating prefix (``diretto`` / ``indiretto``, ``sync`` / ``unsync``),
    or the two differ by a pair of opposites (``left`` / ``right``)."""
    wa, wb = set(a.split()), set(b.split())
    only_a, only_b = wa - wb, wb - wa
    for x in only_a:
        for y in only_b:
            if frozenset((x, y)) in _OPPOSITES:
                return True
            long, short = (x, y) if len(x) > len(y) else (y, x)
            if long.endswith(short) and long[: len(long) - len(short)] in _NEGATING:
                return True
    return False


class _Rows:
    """The texts of some rows, read when asked for (a sequence of strings that holds none)."""

    def __init__(self, rows: array[int], text: Callable[[int], str]) -> None:
        self._rows, self._text = rows, text

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, i: int) -> str:
        return self._text(self._rows[i])

    def __iter__(self) -> Iterator[str]:
        return map(self._text, self._rows)


def entry_count(repo: RepoSnapshot) -> int:
    """How many entries the repo's Markdown files hold (from their documents or facts)."""
    return sum(
        len(doc.entries) if (doc := repo.documents.get(p)) is not None else repo.facts[p].count
        for p in repo.markdown_paths()
    )


def _contradictions(repo: RepoSnapshot) -> list[Finding]:
    """AMR033: entries whose texts differ only in a value (``core.lint.contradictions``), reported
    at the later one, naming the other place and the two values."""
    texts: list[str] = []
    where: list[tuple[str, int]] = []
    seen: set[str] = set()
    for path in repo.markdown_paths():
        if in_amr_folder(path) or not is_memory(repo.profile, path):
            continue
        # each fact as written (capitalised names count), from the file or its facts
        _norms, lines, written = repo.rows_of(path)
        for text, line in zip(written, lines, strict=True):
            norm = normalise_text(text)
            if norm and norm not in seen:  # a second copy is AMR014, not a second contradiction
                seen.add(norm)
                texts.append(text)
                where.append((path, line))
    out: list[Finding] = []
    for pair in find_contradictions(texts):
        (a_path, a_line), (b_path, b_line) = where[pair.a], where[pair.b]
        other = f"line {a_line}" if a_path == b_path else f"{a_path}:{a_line}"
        values = f"{' '.join(pair.found.b_values)} vs {' '.join(pair.found.a_values)}"
        out.append(
            Finding(b_path, diag("AMR033", f"possible contradiction: contradicts {other} ({values})?", b_line, 1))
        )
    return out


def fix_edits(findings: list[Finding]) -> dict[str, list[LineEdit]]:
    """The safe fixes of these findings, grouped by the file they edit, one edit per line."""
    out: dict[str, dict[int, LineEdit]] = defaultdict(dict)
    for f in findings:
        fix = f.diagnostic.fix
        if fix is None or len(fix.edits) != 1:
            continue
        target = fix.path or f.path
        edit = fix.edits[0]
        out[target].setdefault(edit.line, edit)
    return {path: list(edits.values()) for path, edits in out.items()}


def apply_edits(doc: Document, edits: list[LineEdit]) -> bytes:
    """Replace whole lines; a new text may hold newlines (they get the line's own ending)."""
    chosen = {e.line: e for e in edits if 1 <= e.line <= len(doc.lines)}
    default_eol = next((ln.eol for ln in doc.lines if ln.eol), "\n")
    parts = []
    for line in doc.lines:
        edit = chosen.get(line.number)
        if edit is None:
            parts.append(line.text + line.eol)
        else:
            parts.append(edit.new_text.replace("\n", line.eol or default_eol) + line.eol)
    text = ("\ufeff" if doc.bom else "") + "".join(parts)
    return text.encode("utf-8", "surrogateescape")
