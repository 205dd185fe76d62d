"""amr sync [REPO...]: fetch, merge with amr's driver, push (never forced)

The run of the command; its parser is in cli/parsers/sync.py."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from amr_tui.cli.output import emit_json, error, safe
from amr_tui.git.errors import AmrGitError
from amr_tui.services.config import load_config
from amr_tui.services.sync.resolve import all_choice, kept_both, pending_merge, resolve
from amr_tui.services.sync.run import PendingMerge, SyncProgress, SyncResult, sync, sync_state

_SEVERITY = [0, 3, 1, 2]  # with several repos, the worst exit code wins: error > conflict > offline


def _progress(enabled: bool) -> Callable[[SyncProgress], None] | None:
    if not enabled:
        return None

    def report(ev: SyncProgress) -> None:
        sys.stderr.write(f"amr sync: [{ev.attempt}] {ev.stage}: {safe(ev.message)}\n")

    return report


def run(args: argparse.Namespace) -> int:
    repos = args.repos or [Path(".")]
    code = 0
    out: list[dict[str, Any]] = []
    for repo in repos:
        try:
            if args.status or args.conflicts:
                rc, data = _show(repo, args)
            elif args.resolve:
                rc, data = _resolve(repo, args)
            else:
                rc, data = _sync(repo, args)
        except (AmrGitError, OSError, ValueError) as exc:
            error(f"{repo}: {exc}")
            rc, data = 2, {"repo": str(repo), "status": "error", "message": str(exc)}
        out.append(data)
        code = max(code, rc, key=_SEVERITY.index)
    if args.json:
        emit_json(out)
    return code


def _sync(repo: Path, args: argparse.Namespace) -> tuple[int, dict[str, Any]]:
    res = sync(
        repo,
        remote=args.remote,
        branch=args.branch,
        attempts=args.attempts,
        push_changes=not args.no_push,
        progress=_progress(args.verbose),
        merge_driver=load_config().merge_driver and not args.no_push,
    )
    if not args.json:
        _print_result(res)
    return res.exit_code, res.to_json()


def _print_result(res: SyncResult) -> None:
    where = safe(str(res.root))
    extra = []
    if res.merges:
        extra.append(f"{res.merges} merge{'s' if res.merges != 1 else ''}")
    if res.attempts > 1:
        extra.append(f"{res.attempts} rounds")
    tail = f" ({', '.join(extra)})" if extra else ""
    if res.status == "no-remote":  # one sentence says it all: no status word before it
        print(f"{where}: {safe(res.message)}")
        return
    print(f"{where}: {res.status}: {safe(res.message)}{tail}")
    for path, fact in res.resurrected:
        print(f"  warning: a fact deleted on the other side came back in {safe(path)}: {safe(fact)}")
    if res.pending is not None:
        _print_pending(res.pending)


def _print_pending(pending: PendingMerge) -> None:
    for f in pending.files:
        for c in f.conflicts:
            print(
                f"  {safe(f.path)}:{c.line}: conflict {c.index} ({safe(c.reason)})"
                + (f": {safe(c.entry)}" if c.entry else "")
            )
            for label, lines in (("ours", c.ours), ("base", c.base), ("theirs", c.theirs)):
                shown = " | ".join(safe(x) for x in lines) if lines else "(absent)"
                print(f"    {label:6} {shown}")
    print("  resolve in the app, or: amr sync --resolve ours|theirs|both|base")


def _show(repo: Path, args: argparse.Namespace) -> tuple[int, dict[str, Any]]:
    st = sync_state(repo, args.remote, args.branch)
    pending = pending_merge(repo) if (args.conflicts or st.pending) else None
    data = {
        "repo": str(repo),
        "last_sync": st.last_sync,
        "last_attempt": st.last_attempt,
        "last_status": st.last_status,
        "last_message": st.last_message,
        "offline_since": st.offline_since,
        "ahead": st.ahead,
        "behind": st.behind,
        "upstream": st.upstream,
        "note": st.note,
        "pending": pending.to_json() if pending else None,
    }
    if not args.json:
        if st.upstream is not None:
            counts = f"ahead {st.ahead}, behind {st.behind} of {safe(st.upstream)} (as of the last fetch)"
        else:
            counts = f"ahead/behind unknown: {safe(st.note)}"
        print(
            f"{safe(str(repo))}: last sync {st.last_sync or 'never'}; last attempt "
            f"{st.last_attempt or 'never'} ({safe(st.last_status or '-')}); {counts}"
            + (f"; offline since {st.offline_since}" if st.offline_since else "")
        )
        if pending is not None:
            _print_pending(pending)
    return (1 if pending is not None else 0), data


def _resolve(repo: Path, args: argparse.Namespace) -> tuple[int, dict[str, Any]]:
    pending = pending_merge(repo)
    if pending is None:
        if not args.json:
            print(f"{safe(str(repo))}: nothing to resolve")
        return 0, {"repo": str(repo), "status": "up-to-date", "message": "nothing to resolve"}
    choices = all_choice(pending, args.resolve)
    pairs = kept_both(pending, choices)  # said before the resolution is committed
    if not args.json:
        for pair in pairs:
            print(f"  warning: {safe(pair.describe())}")
    res = resolve(
        repo,
        choices,
        push_after=not args.no_push,
        progress=_progress(args.verbose),
        pending=pending,
    )
    if not args.json:
        _print_result(res)
    return res.exit_code, {**res.to_json(), "kept_both": [p.to_json() for p in pairs]}
