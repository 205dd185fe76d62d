"""amr share --into DIR [--repo NAME[:PATH,...]]... [--write NAME]... [--keep-messages] [--preview] [PATH...]

The run of the command; its parser is in cli/parsers/share.py."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from amr_tui.cli.named import check_named_paths
from amr_tui.cli.output import emit_json, error, safe
from amr_tui.core.textsafety import plural
from amr_tui.git.errors import AmrGitError
from amr_tui.services.share.build import (
    RepoPreview,
    left_out_json,
    mcp_argv,
    mcp_config,
    mcp_lines,
    preview,
    select,
    share,
)
from amr_tui.services.workspace import discover


def run(args: argparse.Namespace) -> int:
    if not args.preview and args.into is None:
        error("--into DIR is required (or --preview)")
        return 2

    try:
        check_named_paths(args.paths)  # a symlink out of its repo (or into .git) is refused, as amr parse does
        mounts = discover(args.paths or [Path(".")])
        sels = select(mounts, args.repo, args.write)
        previews = preview(sels)
    except (AmrGitError, OSError, ValueError) as exc:
        error(str(exc))
        return 2
    data: dict[str, object] = {"preview": [p.to_json() for p in previews]}
    if not args.json:
        for pv in previews:
            _print_preview(pv)
    if args.preview:
        if args.json:
            emit_json(data)
        return 0
    try:
        made = share(sels, args.into, keep_messages=args.keep_messages)
    except (AmrGitError, OSError, ValueError) as exc:
        error(str(exc))
        return 2
    data["shared"] = [
        {
            "name": r.name,
            "repo": r.repo,
            "path": str(r.path),
            "kind": r.kind,
            "write": r.write,
            "commit": r.commit,
            "left_out": left_out_json(r.left_out),
        }
        for r in made
    ]

    argv, not_served = mcp_argv(made)
    data["mcp"] = (
        {"argv": argv, "command": shlex.join(argv), "config": mcp_config(argv), "not_served": not_served}
        if argv
        else None
    )
    if args.json:
        emit_json(data)
    else:
        for r in made:
            mode = "read-write" if r.write else "read-only"
            print(f"shared {safe(r.repo)} -> {safe(str(r.path))} ({r.kind}, {mode})")
        _print_mcp(argv, not_served)
    return 0


def _print_mcp(argv: list[str], not_served: list[str]) -> None:
    for line in mcp_lines(argv, not_served):
        print(safe(line))


def _print_preview(pv: RepoPreview) -> None:
    what = "whole repo" if pv.whole else "partial"
    print(f"{safe(pv.repo)} ({what}, {'read-write' if pv.write else 'read-only'}): {plural(len(pv.files), 'file')}")
    if pv.memory is not None:
        if pv.cut_line is None:
            print(f"  MEMORY.md: {pv.memory_lines} lines, {pv.memory_bytes} bytes: all loaded at start")
        else:
            print(
                f"  MEMORY.md: {pv.memory_lines} lines, {pv.memory_bytes} bytes: lines 1-{pv.loaded_lines} "
                f"loaded, from line {pv.cut_line} not loaded (200 lines / 25 KB budget)"
            )
    print("  reachable from MEMORY.md: " + (", ".join(safe(p) for p in pv.reachable) or "nothing"))
    if pv.unreachable:
        print("  shared, not reachable: " + ", ".join(safe(p) for p in pv.unreachable))
    for d in pv.dangling:
        print(f"  dangling: {safe(d.path)}:{d.line} [[{safe(d.target)}]] ({d.reason})")
    for w in pv.warnings:
        print(f"  warning: {safe(w)}")
