"""The parsers of amr init PATH, amr demo [--path DIR], amr track PATH [--yes] and amr discover
[--json] [--open] (run by cli/repo_cmds.py)."""

from __future__ import annotations

from pathlib import Path

from amr_tui.cli.parsers.common import Run, Sub, command, json_flag, paths_arg


def add_parsers(sub: Sub) -> None:
    p = command(sub, "init", Run("repo_cmds", "run_init"), help="create a memory repo", description=_INIT)
    p.add_argument("path", type=Path, nargs="?", default=Path("~/agent-memory"), help="where (default ~/agent-memory)")

    d = command(sub, "demo", Run("repo_cmds", "run_demo"), help=_DEMO_HELP, description=_DEMO)
    d.add_argument("--path", type=Path, default=None, help="where to build (default: a new temp folder)")
    d.add_argument("--no-open", action="store_true", help="only build and print where the repos are")

    t = command(sub, "track", Run("repo_cmds", "run_track"), help=_TRACK_HELP, description=_TRACK)
    t.add_argument("path", type=Path, help="the memory folder")
    t.add_argument("--yes", action="store_true", help="do it without asking")

    f = command(sub, "discover", Run("repo_cmds", "run_discover"), help=_DISCOVER_HELP, description=_DISCOVER)
    paths_arg(f, "more folders to look at (besides the usual places)")
    json_flag(f, "print a JSON array")
    f.add_argument("--open", action="store_true", help="open every folder found in the editor")


_INIT = (
    "Create a memory repo the way the Agent Memory Repo skill describes: git init, a MEMORY.md "
    "with an ## Index, and a first commit. An existing memory repo is reused; a git repo with "
    "Markdown notes but no MEMORY.md is adopted (one commit adds MEMORY.md, its Index linking the "
    "notes git tracks; nothing else changes); any other non-empty folder is left untouched."
)

_DEMO = (
    "Build memory-alice and memory-bob, with agent history and a pending dreaming run, "
    "deterministically with real git, then open them."
)

_TRACK = (
    "git init in PATH and one commit of its Markdown files and attachments (no dot-folders, no "
    "symlinks; nothing moved or rewritten), so amr can show its history, review agents' writes "
    "and undo; then PATH is added to repos in the config, so `amr` opens it with no argument "
    "(the rest of the config is kept as written). Without --yes it prints exactly what it would "
    "do and, at a terminal, asks; otherwise it changes nothing."
)

_DISCOVER = (
    "List the memory folders agents keep on this machine (Claude Code's ~/.claude/projects/*/memory, "
    "Letta's memfs under ~/.letta, basic-memory's ~/basic-memory) and the repos in amr's config, "
    "with their format and whether git holds their history. --open opens them all in the editor. "
    "Nothing is written."
)

_DEMO_HELP = "build a realistic two-repo demo and open it"

_TRACK_HELP = "put a memory folder under git, in place, and add it to the config"

_DISCOVER_HELP = "find the agent memory on this machine"
