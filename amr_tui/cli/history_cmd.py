"""amr history FILE[:LINE], amr forgotten [REPO|FOLDER], amr forget FILE:LINE and amr undo [REPO]: runs
the commands (their parsers: cli/parsers/history.py)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from amr_tui.cli.named import LeavesRepoError, locate_in_repo
from amr_tui.cli.output import commit_json, emit_json, error, paint, report_skipped, safe, skipped_json, use_colour
from amr_tui.core.format.edit import summarise
from amr_tui.core.format.parser import parse
from amr_tui.core.paths import MEMORY_FILE
from amr_tui.core.tombstones import TOMBSTONE_PATH
from amr_tui.git.errors import AmrGitError
from amr_tui.git.history import BlameLine
from amr_tui.git.models import CommitInfo
from amr_tui.services.activity.service import OneRepo
from amr_tui.services.history.forgotten import SECRET_IN_HISTORY, ForgottenFact, forget, restore
from amr_tui.services.history.service import HistoryService
from amr_tui.services.undo import last_amr_write, undo
from amr_tui.services.workspace import MAX_PARSE_BYTES, Mount, discover, find_repo_root, read_bytes
from amr_tui.services.writegate import EditRefused

_FILE_LINE = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")


def _locate(target: str) -> tuple[Path, str, int | None]:
    """(repo root, path in the repo, line or None) of FILE or FILE:LINE.

    Found as ``amr parse`` finds a file (``named.locate_in_repo``): from the name as given, and
    refused when it, or a folder on its way, is a symlink that leads out of the repo or into .git."""
    line = None
    m = _FILE_LINE.match(target)
    if m and not os.path.lexists(target):
        target, line = m["file"], int(m["line"])
    try:
        found = locate_in_repo(Path(target))
    except LeavesRepoError as exc:
        raise FileNotFoundError(str(exc)) from None
    if found is None or not (found[0] / ".git").exists() or not (found[0] / MEMORY_FILE).is_file():
        raise FileNotFoundError(f"{target} is not inside a memory repo with git")
    return found[0], found[1], line


def _commit_json(info: CommitInfo) -> dict[str, object]:
    return commit_json(info.oid, info.author_name, info.author_email, info.author_date, info.subject)


def run_history(args: argparse.Namespace) -> int:
    if args.limit < 1:
        error("--limit must be at least 1")
        return 2
    try:
        root, rel, line = _locate(args.target)
        service = HistoryService(root)
        if line is not None:
            return _timeline(service, rel, line, args)
        page = service.file_history(rel, limit=args.limit, follow=args.follow)
    except (FileNotFoundError, IndexError, ValueError, AmrGitError) as exc:
        error(str(exc))
        return 2
    report_skipped(page.skipped)
    if args.json:
        emit_json(
            [
                {
                    **_commit_json(i.commit),
                    "sources_added": list(i.sources_added),
                    "entries_added": i.entries_added,
                    "entries_removed": i.entries_removed,
                    "skipped": skipped_json(i.skipped),
                    "path": i.path,
                    **({"renamed_from": i.old_path} if i.old_path and i.old_path != i.path else {}),
                }
                for i in page.items
            ]
        )
        return 0
    colour = use_colour(sys.stdout)
    for i in page.items:
        c = i.commit
        counts = f"+{i.entries_added} -{i.entries_removed}"
        if i.old_path and i.path and i.old_path != i.path:
            renamed = f"  (renamed from {safe(i.old_path)})"
        else:
            renamed = f"  (as {safe(i.path)})" if i.path and i.path != rel else ""  # its name in that commit
        print(
            f"{paint(c.oid[:7], 'bold', colour)}  {c.author_date.date().isoformat()}  {safe(c.author_name)}  "
            f"{safe(c.subject)}  ({counts}){renamed}"
        )
        for s in i.sources_added:
            print(f"    source: {safe(s)}")
    if page.next is not None:
        print(f"(more: --limit {args.limit * 2})", file=sys.stderr)
    if not page.items:
        print(f"No commits touched {safe(rel)}.", file=sys.stderr)
    return 0


_KIND_NAMES = {
    "blank": "a blank line",
    "heading": "a heading",
    "continuation": "a continuation line of the entry above",
    "list": "a numbered or quoted list item",
    "text": "text",
    "code": "code",
    "html": "HTML",
    "quote": "a quote",
    "front_matter": "front matter",
    "rule": "a rule",
    "table": "a table row",
}


def _not_an_entry(service: HistoryService, rel: str, line: int) -> str | None:
    """Why line ``line`` of ``rel`` as committed is no entry, or None when it is one."""
    head = service.repo.resolve("HEAD")
    data = service.blobs.read(head, rel) if head else None
    if data is None:
        return None  # line_text says the file is not there
    doc = parse(data, rel)
    if doc.entry_at(line) is not None or not 1 <= line <= len(doc.lines):
        return None
    kind = _KIND_NAMES.get(doc.lines[line - 1].kind.value, "not an entry line")
    return f"{rel}:{line} is not an entry (as committed it is {kind}); name the line of a '- ' entry"


def _timeline(service: HistoryService, rel: str, line: int, args: argparse.Namespace) -> int:
    text = service.line_text(rel, line)
    why = _not_an_entry(service, rel, line)
    if why is not None:
        error(why)
        return 2
    timeline = service.timeline_of(rel, text)
    blames: list[BlameLine] = []
    if args.blame:
        b = service.blame(rel, line)
        while b is not None and len(blames) < args.limit:
            blames.append(b)
            b = service.reblame(b, timeline)  # through the moves the timeline shows
    report_skipped(timeline.skipped)
    if args.json:
        emit_json(
            {
                "path": rel,
                "line": line,
                "text": text,
                "complete": timeline.complete,
                "skipped": skipped_json(timeline.skipped),
                "events": [
                    {
                        **_commit_json(e.commit),
                        "kind": e.kind,
                        "path": e.path,
                        "from_path": e.from_path,
                        "before": e.before,
                        "after": e.after,
                        "score": round(e.score, 1),
                    }
                    for e in timeline.events
                ],
                "blame": [
                    {
                        "commit": b.commit,
                        "author": b.author_name,
                        "date": b.author_date.isoformat(),
                        "summary": b.summary,
                        "path": b.path,
                        "line": b.orig_line,
                    }
                    for b in blames
                ],
            }
        )
        return 0
    colour = use_colour(sys.stdout)
    print(f"{safe(rel)}:{line}  {safe(text.strip())}")
    for e in timeline.events:
        c = e.commit
        where = f" from {safe(e.from_path)}" if e.from_path else ""
        print(
            f"{c.author_date.date().isoformat()}  {paint(c.oid[:7], 'bold', colour)}  {e.kind:<9} "
            f"{safe(c.author_name)}  {safe(c.subject)}{where}"
        )
        if e.kind in ("reworded", "metadata", "moved") and e.before is not None:
            print(f"    was: {safe(e.before.strip())}")
    if not timeline.complete:
        print("(history does not show where this entry came from)", file=sys.stderr)
    for depth, b in enumerate(blames):
        label = "blame" if depth == 0 else "  at parent"
        print(
            f"{label}: {b.commit[:7]} {b.author_date.date().isoformat()} {safe(b.author_name)}  "
            f"{safe(b.summary)}  ({safe(b.path)}:{b.orig_line})"
        )
    return 0


def _forgotten_roots(path: Path) -> list[tuple[str, Path]]:
    """(name, root) of each repo with git that ``path`` names: the repo it is in, or each memory
    repo in the folder (as ``amr lint FOLDER`` finds them)."""
    root = find_repo_root(path)
    if root is not None and (root / ".git").exists():
        return [(root.name, root)]
    if not path.is_dir():
        raise FileNotFoundError(f"{path} is not inside a memory repo with git")
    try:
        mounts = discover([path])
    except FileNotFoundError:
        mounts = []
    found = [(m.name, m.root) for m in mounts if (m.root / ".git").exists()]
    if not found:
        raise FileNotFoundError(f"{path} is not inside a memory repo with git, nor a folder of them")
    return found


def run_forgotten(args: argparse.Namespace) -> int:
    try:
        roots = _forgotten_roots(args.repo)
    except FileNotFoundError as exc:
        error(str(exc))
        return 2
    listed: list[tuple[str, ForgottenFact]] = []
    try:
        for name, root in roots:
            service = HistoryService(root)
            facts = service.forgotten()
            report_skipped(service.history_skipped())
            if args.restore:
                fact = next((f for f in facts if f.id == args.restore), None)
                if fact is None:
                    continue
                commit = restore(service, fact, path=args.to)
                where = f"{name}/" if len(roots) > 1 else ""
                print(f'Restored "{safe(fact.text)}" to {safe(where + (args.to or fact.path or ""))} as {commit[:7]}.')
                return 0
            listed.extend((name, f) for f in facts)
        if args.restore:
            error(f"no forgotten entry {args.restore!r}: `amr forgotten` lists them")
            return 2
    except (FileNotFoundError, LookupError, ValueError, AmrGitError, EditRefused) as exc:
        error(str(exc))
        return 2
    if args.json:
        emit_json(
            [
                {
                    "id": f.id,
                    "repo": name,
                    "text": f.text,
                    "line": f.line,
                    "path": f.path,
                    "date": f.date,
                    "sources": list(f.sources),
                    "redacted": f.redacted,
                    "commit": _commit_json(f.commit) if f.commit else None,
                    "tombstone": None
                    if f.tombstone is None
                    else {
                        "line": f.tombstone.line,
                        "forgotten": f.tombstone.forgotten,
                        "reason": f.tombstone.reason,
                        "by": f.tombstone.by,
                        "digest": f.tombstone.digest,
                    },
                }
                for name, f in listed
            ]
        )
        return 0
    colour = use_colour(sys.stdout)
    for name, f in listed:
        commit = f"{f.commit.oid[:7]} {safe(f.commit.subject)}" if f.commit else "tombstone only"
        where = f"{name}/{f.path or '?'}" if len(roots) > 1 else (f.path or "?")
        print(f'{paint(f.id, "bold", colour)}  {f.date}  {safe(where)}  "{safe(f.text)}"  ({commit})')
        if f.tombstone is not None:
            why = f", {safe(f.tombstone.reason)}" if f.tombstone.reason else ""
            who = f" by {safe(f.tombstone.by)}" if f.tombstone.by else ""
            print(f"    forgotten on purpose{who}{why}")
    if not listed:
        print("Nothing was forgotten.", file=sys.stderr)
    return 0


def run_forget(args: argparse.Namespace) -> int:
    try:
        root, rel, line = _locate(args.target)
        if line is None:
            error("name the entry as FILE:LINE")
            return 2
        raw = _shown_entry_line(root, rel, line)
        done = forget(HistoryService(root), rel, line, raw=raw, reason=args.reason, redact=args.redact, by=args.by)
    except (FileNotFoundError, LookupError, ValueError, AmrGitError, EditRefused) as exc:
        error(str(exc))
        return 2
    kind = "a redacted tombstone" if args.redact or done.secret else "a tombstone"
    what = "" if args.redact or done.secret else f' "{safe(summarise(done.text))}"'
    moved = f" (line {done.line} in the last commit)" if done.line != line else ""
    print(f"Forgot {safe(rel)}:{line}{what}{moved}; {kind} is in {TOMBSTONE_PATH} ({done.oid[:7]}).")
    if done.secret:
        print(SECRET_IN_HISTORY)
    return 0


def _shown_entry_line(root: Path, rel: str, line: int) -> str | None:
    """The first line of the entry on ``line`` of the file as it is on disk (what the user sees,
    lines nobody committed included): the entry is named by that text, not by its line number.
    None for a file too large to read here (the history service then says why it refuses)."""
    data = read_bytes(root, rel, MAX_PARSE_BYTES)
    if data is None:
        if (root / rel).is_file():
            return None
        raise FileNotFoundError(f"{rel} cannot be read in {root}")
    doc = parse(data, rel)
    entry = doc.entry_at(line)
    if entry is None:
        raise ValueError(f"{rel}:{line} is not an entry")
    return doc.lines[line - 1].text


def run_undo(args: argparse.Namespace) -> int:
    try:
        root, _rel, _line = _locate(str(Path(args.repo) / MEMORY_FILE) if Path(args.repo).is_dir() else args.repo)
        mount = Mount(root.name, root)
        target = OneRepo(mount)
        if args.commit:
            oid = target.git(mount.name).resolve(args.commit)  # type: ignore[union-attr]
            if oid is None:
                error(f"--commit {args.commit}: no such commit in {root}")
                return 2
            subject = oid[:8]
        else:
            found = last_amr_write(target, mount.name)
            oid, subject = found.oid, found.subject
        saved = undo(target, mount.name, oid)
    except (FileNotFoundError, EditRefused, AmrGitError, ValueError) as exc:
        error(str(exc))
        return 2
    print(f'Undid {oid[:8]} "{safe(subject)}" as {(saved.head or "")[:8]}.')
    return 0
