"""The parser of amr share --into DIR [--repo NAME[:PATH,...]]... [--write NAME]... [--keep-messages]
[--preview] [PATH...] (run by cli/share_cmd.py)."""

from __future__ import annotations

from pathlib import Path

from amr_tui.cli.parsers.common import Run, Sub, command, json_flag, paths_arg, repeated


def add_parsers(sub: Sub) -> None:
    p = command(sub, "share", Run("share_cmd"), help=_SHARE_HELP, description=_DESCRIPTION)
    paths_arg(p, "memory repos to choose from (default: .)")
    p.add_argument("--into", type=Path, help="the session folder to create or fill (required unless --preview)")
    repeated(p, "--repo", "NAME[:PATH,...]", "a repo to share, or part of one")
    repeated(p, "--write", "NAME", "grant the session write access to NAME")
    p.add_argument(
        "--keep-messages",
        action="store_true",
        help="partial shares: keep the original message (and trailers) of each commit that touched only "
        "shared files; a commit that touched any other file still gets a message written by amr",
    )
    p.add_argument("--preview", action="store_true", help="show what would be shared, share nothing")
    json_flag(p, "print the preview (and result) as JSON")


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

_SHARE_HELP = "share memory repos (or parts) with a pairing session"
