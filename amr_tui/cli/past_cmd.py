"""amr search --history QUERY [PATH...]: the past of each repo with git, best first (its parser:
cli/parsers/search.py; cli/search_cmd.py hands the command over)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from amr_tui.cli.named import LeavesRepoError, check_named_paths
from amr_tui.cli.output import emit_json, error, paint, safe, use_colour
from amr_tui.core.search.query import QueryError
from amr_tui.git.errors import AmrGitError
from amr_tui.services.history.past import PastEntry, PastIndex
from amr_tui.services.history.service import HistoryService
from amr_tui.services.workspace import discover


def run_history(args: argparse.Namespace) -> int:
    """``amr search --history``: the past of each repo with git that the paths name, best first."""

    def shown(path: Path) -> str:
        """``path`` as the user would type it here: relative when under the current folder."""
        rel = os.path.relpath(path)
        return path.as_posix() if rel.startswith("..") else Path(rel).as_posix()

    try:
        check_named_paths(args.paths)
        mounts = [m for m in discover(args.paths or [Path(".")]) if (m.root / ".git").exists()]
    except (FileNotFoundError, NotADirectoryError, LeavesRepoError) as exc:
        error(str(exc))
        return 2
    if not mounts:
        error("no history (not a git repo): --history searches memory repos with git")
        return 2
    roots: dict[str, Path] = {}
    past: list[PastEntry] = []
    try:
        for m in mounts:
            service = HistoryService(m)
            try:
                past.extend(service.past())
            finally:
                service.close()
            roots[m.name] = m.root.resolve()
        found = PastIndex(past).search(args.query, args.limit)
    except AmrGitError as exc:
        error(str(exc))
        return 2
    except QueryError as exc:
        error(f"the query cannot run as typed: {exc}")
        return 2
    rows: list[dict[str, object]] = []
    for e, hit in found:
        root = roots[e.repo]
        where = shown(root)
        restore = None
        if e.restorable:
            restore = f"amr forgotten {'' if where == '.' else where + ' '}--restore {e.forgotten_id}"
        now: dict[str, object] | None = None
        if e.now is not None:
            now = {"path": e.now[0], "line": e.now[1], "text": e.new_text if e.kind == "reworded" else e.text}
            now["history"] = f"amr history {shown(root / e.now[0])}:{e.now[1]}"
        c = e.commit
        rows.append(
            {
                "kind": e.kind,
                "repo": e.repo,
                "path": e.path,
                "text": e.text,
                "line": e.line,
                "present": e.present,
                "resurrected": e.resurrected,
                "id": e.forgotten_id,
                "restore": restore,
                "new_text": e.new_text,
                "now": now,
                "date": e.date,
                "commit": None
                if c is None
                else {
                    "oid": c.oid,
                    "short": c.oid[:7],
                    "date": c.author_date.isoformat(),
                    "author": c.author_name,
                    "subject": c.subject,
                },
                "tombstone": None
                if e.tombstone is None
                else {"forgotten": e.tombstone.forgotten, "reason": e.tombstone.reason, "by": e.tombstone.by},
                "score": round(hit.score, 2),
            }
        )
    if args.json:
        emit_json(rows)
        return 0
    colour = use_colour(sys.stdout)
    for e, row in zip((e for e, _ in found), rows, strict=True):
        who = f"{e.short}  {safe(e.commit.author_name)}" if e.commit else "tombstone"
        where = f"{safe(e.repo)}/{safe(e.path)}"
        print(
            f"{paint(f'{e.kind:<8}', 'bold', colour)}  {e.date}  {who}  {paint(where, 'path', colour)}  {safe(e.text)}"
        )
        if e.commit is not None:
            print(f'    in {e.short} "{safe(e.commit.subject)}"')
        if e.tombstone is not None:
            why = f": {safe(e.tombstone.reason)}" if e.tombstone.reason else ""
            print(f"    forgotten on purpose{why}")
        if e.present and e.kind == "reworded":
            print("    this wording is in the repo again")
        elif e.present:
            current = row["now"]
            back = f"  ({current['history']})" if isinstance(current, dict) else ""
            what = "written again since: resurrected" if e.resurrected else "back in the repo now"
            print(f"    {what}{back}")
        if row["restore"]:
            print(f"    restore: {row['restore']}")
        if e.kind == "reworded":
            current = row["now"]
            if isinstance(current, dict):
                print(f"    now: {safe(e.new_text or '')}  ({current['history']})")
            else:
                print(f"    became: {safe(e.new_text or '')}")
    if not found:
        print("No matches.", file=sys.stderr)
        return 1
    return 0
