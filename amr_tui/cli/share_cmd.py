"""amr share --into DIR [--repo NAME[:PATH,...]]... [--write NAME]... [--keep-messages] [--preview] [PATH...]"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from amr_tui.cli.output import emit_json, error, safe
from amr_tui.cli.parse_cmd import check_named_paths
from amr_tui.core.textsafety import plural

if TYPE_CHECKING:  # annotations only: the share services are imported when it runs (start-up of `amr`)
    from amr_tui.services.share.build import RepoPreview

# Lazy imports: each command imports the layers it runs when it runs, so that building the parser
# (`amr --help`, `amr <command>`) loads this module alone (tests/test_startup_path.py).

COMMANDS = ("share",)

_DESCRIPTION = (
    "Share memory with a pairing session. PATHs are the memory repos to choose from (default: .; a "
    "folder holding several mounts them all). Each --repo picks one: NAME shares the whole repo (a "
    "copy of its current branch as branch main: no tags, notes, other branches, remotes or config; "
    "symlinks become plain files holding their target), NAME:PATH,FOLDER/ shares only those files "
    "and folders as a new repo whose history holds nothing else: its commit messages are written "
    "from the shared changes (authors and dates are kept), never copied, unless --keep-messages. "
    "Symlinks and submodules are left out of partial shares. Without --repo every repo is shared "
    "whole. Shared repos are read-only unless --write NAME. --preview prints what an agent would "
    "load (MEMORY.md within the 200-line / 25 KB budget, what its links reach), which links would "
    "dangle and what is left out, and shares nothing. After a share it prints the `amr mcp` command "
    "that serves the pairing session's agent only the shared repos (read-only unless --write), and a "
    "client config for it (see docs/agents.md)."
)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("share", help="share memory repos (or parts) with a pairing session", description=_DESCRIPTION)
    p.add_argument("paths", nargs="*", type=Path, help="memory repos to choose from (default: .)")
    p.add_argument("--into", type=Path, help="the session folder to create or fill (required unless --preview)")
    p.add_argument(
        "--repo", action="append", default=[], metavar="NAME[:PATH,...]", help="a repo to share, or part of one"
    )
    p.add_argument(
        "--write", action="append", default=[], metavar="NAME", help="grant the session write access to NAME"
    )
    p.add_argument(
        "--keep-messages",
        action="store_true",
        help="partial shares: keep the original message (and trailers) of each commit that touched only "
        "shared files; a commit that touched any other file still gets a message written by amr",
    )
    p.add_argument("--preview", action="store_true", help="show what would be shared, share nothing")
    p.add_argument("--json", action="store_true", help="print the preview (and result) as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from amr_tui.git.errors import AmrGitError
    from amr_tui.services.share.build import (
        left_out_json,
        preview,
        select,
        share,
    )
    from amr_tui.services.workspace import discover

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
    from amr_tui.services.share.build import mcp_argv, mcp_config

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
    from amr_tui.services.share.build import mcp_lines

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
