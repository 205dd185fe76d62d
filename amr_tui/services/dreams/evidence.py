"""Dreaming with evidence: what amr's built-in pass proposes beyond clean-up, each with its reason.

* **Evidence gone or moved** (``services.verify``, against the memory repo's code): an entry whose
  cited path, symbol, script, target, branch or commit is gone is proposed for dropping, with the
  evidence and since which commit; an entry whose stale evidence all moved (renames git knows) is
  proposed rewritten, each moved name written where it is now.
* **Unread**: where amr knows what agents read (``services.usage``: ``amr mcp`` served the repo for
  at least ``unread_days``), an entry no agent read in that long is proposed for dropping, unless
  it was added or verified within it. Where reads are unknown, nothing is proposed.

Proposals are made from the files as committed on main (the run's base) and carried out by
``core.dreams.clean`` on the run's branch: never on main, never silently.
"""

from __future__ import annotations

import datetime as _dt
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from amr_tui.core.dreams.clean import Proposal
from amr_tui.core.format.parser import parse
from amr_tui.core.format.rules import is_real_date
from amr_tui.core.lint.repo import MEMORY_FILE
from amr_tui.core.paths import in_amr_folder, is_markdown
from amr_tui.core.verify.evidence import extract
from amr_tui.core.verify.verdict import CodeFacts, words_of
from amr_tui.services.config import Config
from amr_tui.services.dreams.make import agent_dream, builtin_dream
from amr_tui.services.dreams.model import DreamRun, RunReview, RunSource
from amr_tui.services.usage import Usage
from amr_tui.services.verify.coderepo import CodeSource, code_sources
from amr_tui.services.verify.facts import CodeRepoError, facts_for
from amr_tui.services.verify.run import EntryCheck, judge, verify_files
from amr_tui.services.workspace import Mount, style_of


def _rewritten(raw: str, check: EntryCheck) -> str | None:
    """``raw`` with each moved piece of evidence written where it is now; None when a stale piece
    did not move (or cannot be found in the line)."""
    out = raw
    for c in check.checks:
        if c.verdict.status == "gone":
            return None
        if c.verdict.status != "moved":
            continue
        to = c.verdict.to
        if not to:
            return None
        old = c.evidence.value
        new_written = re.sub(rf"(?<![\w/.-]){re.escape(old)}(?![\w-])", to, c.evidence.written, count=1)
        if new_written == c.evidence.written or c.evidence.written not in out:
            return None
        out = out.replace(c.evidence.written, new_written, 1)
    return out if out != raw else None


def evidence_proposals(
    repo: str, files: Mapping[str, bytes | None], sources: list[CodeSource], style: str, *, today: _dt.date
) -> tuple[list[Proposal], list[str]]:
    """Drop or rewrite the entries whose evidence no longer holds; and the errors (a code repo
    that could not be read)."""
    texts = {p: d for p, d in files.items() if d is not None and is_markdown(p) and not in_amr_folder(p)}
    if not sources:
        return [], []
    report = verify_files(repo, texts, sources, style, today=today)
    out: list[Proposal] = []
    for check in report.stale:
        if not check.entry:
            continue  # a line of prose: the Stale? queue, not a dream, rewords it
        raw = parse(texts[check.path], check.path).lines[check.line - 1].text
        bad = [c for c in check.checks if c.verdict.status in ("gone", "moved")]
        why = "; ".join(f"{c.evidence.label} {c.verdict.status}: {c.verdict.detail}" for c in bad)
        rewrite = _rewritten(raw, check)
        if rewrite is not None:
            out.append(Proposal("evidence", check.path, check.line, raw, f"evidence moved: {why}", rewrite))
        elif any(c.verdict.status == "gone" for c in bad):
            out.append(Proposal("evidence", check.path, check.line, raw, f"evidence gone: {why}"))
    return out, report.errors


def unread_proposals(files: Mapping[str, bytes | None], usage: Usage, *, days: int, today: _dt.date) -> list[Proposal]:
    """Entries no agent read through amr mcp in ``days`` days, where reads are known that long."""
    if not usage.known or usage.days_known(today) < days:
        return []
    cut = (today - _dt.timedelta(days=days)).isoformat()
    out: list[Proposal] = []
    for path, data in files.items():
        if data is None or not is_markdown(path) or in_amr_folder(path) or path == MEMORY_FILE:
            continue
        doc = parse(data, path)
        for entry in doc.entries:
            if not entry.text.strip() or (entry.links and not entry.text.replace(" ", "").strip("[]")):
                continue
            if any(lk.target for lk in entry.links) and entry.text.strip().startswith("[["):
                continue  # an Index-like line of links
            recent = [d for d in (entry.first("added"), entry.first("verified")) if d and is_real_date(d[:10])]
            if any(d[:10] >= cut for d in recent):
                continue
            reads = usage.of(entry.text)
            if reads.reads and reads.last and reads.last[:10] >= cut:
                continue
            when = f"last read {reads.last[:10]}" if reads.reads and reads.last else "never read"
            since = usage.since[:10] if usage.since else "?"
            out.append(
                Proposal(
                    "unread",
                    path,
                    entry.line,
                    doc.lines[entry.line - 1].text,
                    f"no agent read it through amr mcp in {days} days ({when}; reads recorded since {since})",
                )
            )
    return out


def builtin_with_evidence(
    service: RunSource,
    mount: Mount,
    config: Config | None,
    *,
    today: _dt.date | None = None,
    run_id: str | None = None,
    code: list[Path] | None = None,
) -> tuple[DreamRun | None, list[str]]:
    """amr's built-in pass with the evidence and unread proposals: the memory repo's code (``code``,
    else the config's, else a Claude Code folder's project) and the reads ``amr mcp`` recorded.
    Returns the run (None: nothing to do) and notes (a code repo that could not be read, the
    number of proposals)."""
    today = today or _dt.date.today()
    sources = code_sources(mount, config, code)
    days = config.dream_unread if config is not None else 90
    notes: list[str] = []

    def propose(files: dict[str, bytes | None]) -> list[Proposal]:
        found, errors = evidence_proposals(mount.name, files, sources, style_of(mount), today=today)
        notes.extend(errors)
        if not sources:
            notes.append("no code to check entries against: evidence not checked")
        unread = unread_proposals(files, Usage(mount.root), days=days, today=today)
        if not Usage(mount.root).known:
            notes.append("what agents read is unknown (amr mcp never served this repo): nothing dropped as unread")
        notes.append(f"{len(found)} evidence proposal(s), {len(unread)} unread proposal(s)")
        return [*found, *unread]

    run = builtin_dream(service, today=today, run_id=run_id, propose=propose)
    return run, notes


Note = tuple[str, bool]  # (what a reviewer reads, whether it is a warning)


def entry_notes(review: RunReview, sources: list[CodeSource]) -> dict[str, list[Note]]:
    """Change id -> what a reviewer should know of each entry the run adds or rewrites: whether its
    cited source exists (a memory file or a code file it names; a URL is not fetched) and whether
    each piece of evidence it cites holds in the code; each note with whether it is a warning."""
    facts: list[CodeFacts] = []
    changes = [
        c for c in review.diff.changes if c.new is not None and (c.kind == "new" or c.reworded) and not c.links_only
    ]
    if not changes:
        return {}
    texts = {c.id: c.new.text for c in changes if c.new is not None}
    found = {cid: extract(text) for cid, text in texts.items()}
    words = {w for evs in found.values() for ev in evs for w in words_of(ev)}
    commits = {ev.value for evs in found.values() for ev in evs if ev.kind == "commit"}
    for source in sources:
        try:
            facts.append(facts_for(source.path, words=words, commits=commits))
        except CodeRepoError:
            continue
    memory = set(review.diff.new_paths)
    code_files = set().union(*(f.files for f in facts)) if facts else set()
    out: dict[str, list[Note]] = {}
    for change in changes:
        assert change.new is not None
        notes: list[Note] = []
        if not change.new.sources:
            notes.append(("source: none cited", True))
        for src in change.new.sources:
            state = _source_state(src, memory, code_files)
            notes.append((f"source: {src} ({state})", state.startswith("missing")))
        evs = found.get(change.id, [])
        if evs and not facts:
            notes.append(("evidence: " + ", ".join(ev.label for ev in evs) + " (no code to check it against)", False))
        for checked in judge(evs, facts) if facts else []:
            v = checked.verdict
            notes.append(
                (f"evidence {v.status}: {checked.evidence.label} \u2014 {v.detail}", v.status in ("gone", "moved"))
            )
        out[change.id] = notes
    return out


def _source_state(src: str, memory: set[str], code_files: set[str]) -> str:
    value = src.strip()
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", value):
        return "a URL: not fetched"
    path = value.removeprefix("file:").strip("/")
    path = path.removeprefix("[[").removesuffix("]]")
    if path in memory or path + ".md" in memory:
        return "exists in the memory repo"
    if path in code_files:
        return "exists in the code"
    if "/" in path or "." in path.rsplit("/", 1)[-1]:
        return "missing: no such file in the memory repo or the code"
    return "not a file: not checked"


def dream_now(
    repos: Sequence[tuple[RunSource, Mount]], config: Config | None, *, today: _dt.date | None = None
) -> list[str]:
    """ "Dream now": a run in each repo, with ``[dream] agent`` if the config names one, else amr's
    built-in pass with its evidence and unread proposals. One line per repo saying what was made."""
    out: list[str] = []
    for service, mount in repos:
        try:
            if config is not None and config.dream_agent:
                made = agent_dream(service, shlex.split(config.dream_agent), today=today, capture=True)
                run = made.run
                note = "" if made.result.returncode == 0 else f" (the agent exited with {made.result.returncode})"
            else:
                run, notes = builtin_with_evidence(service, mount, config, today=today)
                note = f" ({notes[-1]})" if notes else ""
        except Exception as exc:  # a repo that cannot dream (no commits, a branch taken): say so, go on
            out.append(f"{mount.name}: {exc}")
            continue
        out.append(f"{mount.name}: {run.branch}: {run.summary}{note}" if run else f"{mount.name}: nothing to do{note}")
    return out


__all__ = ["Note", "builtin_with_evidence", "dream_now", "entry_notes", "evidence_proposals", "unread_proposals"]
