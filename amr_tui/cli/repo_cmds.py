"""amr init PATH, amr demo [--path DIR], amr track PATH [--yes] and amr discover [--json] [--open]"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from amr_tui.cli import app_cmd
from amr_tui.cli.app_cmd import open_app
from amr_tui.cli.output import emit_json, error, safe

# Lazy imports: each command imports the layers it runs when it runs, so that building the parser
# (`amr --help`, `amr <command>`) loads this module alone (tests/test_startup_path.py).


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "init",
        help="create a memory repo",
        description=(
            "Create a memory repo the way the Agent Memory Repo skill describes: git init, a MEMORY.md "
            "with an ## Index, and a first commit. An existing memory repo is reused; a git repo with "
            "Markdown notes but no MEMORY.md is adopted (one commit adds MEMORY.md, its Index linking the "
            "notes git tracks; nothing else changes); any other non-empty folder is left untouched."
        ),
    )
    p.add_argument("path", type=Path, nargs="?", default=Path("~/agent-memory"), help="where (default ~/agent-memory)")
    p.set_defaults(func=run_init)

    d = sub.add_parser(
        "demo",
        help="build a realistic two-repo demo and open it",
        description=(
            "Build memory-alice and memory-bob, with agent history and a pending dreaming run, "
            "deterministically with real git, then open them."
        ),
    )
    d.add_argument("--path", type=Path, default=None, help="where to build (default: a new temp folder)")
    d.add_argument("--no-open", action="store_true", help="only build and print where the repos are")
    d.set_defaults(func=run_demo)

    t = sub.add_parser(
        "track",
        help="put a memory folder under git, in place, and add it to the config",
        description=(
            "git init in PATH and one commit of its Markdown files and attachments (no dot-folders, no "
            "symlinks; nothing moved or rewritten), so amr can show its history, review agents' writes "
            "and undo; then PATH is added to repos in the config, so `amr` opens it with no argument "
            "(the rest of the config is kept as written). Without --yes it prints exactly what it would "
            "do and, at a terminal, asks; otherwise it changes nothing."
        ),
    )
    t.add_argument("path", type=Path, help="the memory folder")
    t.add_argument("--yes", action="store_true", help="do it without asking")
    t.set_defaults(func=run_track)

    f = sub.add_parser(
        "discover",
        help="find the agent memory on this machine",
        description=(
            "List the memory folders agents keep on this machine (Claude Code's ~/.claude/projects/*/memory, "
            "Letta's memfs under ~/.letta, basic-memory's ~/basic-memory) and the repos in amr's config, "
            "with their format and whether git holds their history. --open opens them all in the editor. "
            "Nothing is written."
        ),
    )
    f.add_argument("paths", nargs="*", type=Path, help="more folders to look at (besides the usual places)")
    f.add_argument("--json", action="store_true", help="print a JSON array")
    f.add_argument("--open", action="store_true", help="open every folder found in the editor")
    f.set_defaults(func=run_discover)


def run_track(args: argparse.Namespace) -> int:
    from amr_tui.services.config import add_repo, config_path, load_config
    from amr_tui.services.init import (
        TRACK_MESSAGE,
        InitError,
        track_folder,
        track_plan,
    )

    config = load_config().path or config_path()
    try:
        target, files = track_plan(args.path)
        if not args.yes:
            print(f"amr track would run git init in {safe(str(target))} and commit {TRACK_MESSAGE!r} with:")
            for rel in files:
                print(f"  {safe(rel)}")
            if target not in load_config(config).repos:
                print(f"then add {safe(str(target))} to repos in {safe(str(config))}, so amr opens it.")
            if not (sys.stdin.isatty() and sys.stdout.isatty()):
                print("Nothing was changed. Run again with --yes to do it.")
                return 1
            try:
                answer = input("Do it? [y/N] ")
            except EOFError:
                answer = ""
            if answer.strip().lower() not in ("y", "yes"):
                print("Nothing was changed.")
                return 1
        result = track_folder(target)
    except InitError as exc:
        error(str(exc))
        return 2
    print(safe(result.message))
    added, problem = add_repo(target, config)
    if problem:
        error(problem)
        return 2
    if added:
        print(f"Added {safe(str(target))} to repos in {safe(str(config))}: amr opens it with no argument.")
    return 0


def run_discover(args: argparse.Namespace) -> int:
    from amr_tui.services.config import load_config
    from amr_tui.services.discovery import discover_memory

    found = discover_memory(configured=[*load_config().repos, *args.paths])
    if args.json:
        emit_json([{"path": str(f.path), "agent": f.agent, "format": f.style, "git": f.git} for f in found])
    elif not found:
        print("No agent memory found on this machine (Claude Code, Letta, basic-memory, or amr's config).")
    else:
        for f in found:
            history = "git" if f.git else "no history (not a git repo)"
            print(f"{safe(str(f.path))}  {f.agent}, {f.style}, {history}")
    if args.open and found:
        return app_cmd.run([str(f.path) for f in found])
    return 0


def run_init(args: argparse.Namespace) -> int:
    from amr_tui.services.config import load_config
    from amr_tui.services.init import InitError, init_memory_repo

    try:
        result = init_memory_repo(args.path.expanduser(), merge_driver=load_config().merge_driver)
    except InitError as exc:
        error(str(exc))
        return 2
    print(safe(str(result)))
    return 0


def run_demo(args: argparse.Namespace) -> int:
    from amr_tui.services.demo import DemoError, build_demo

    dest = args.path or Path(tempfile.mkdtemp(prefix="amr-demo-"))
    try:
        repos = build_demo(dest.expanduser())
    except DemoError as exc:
        error(str(exc))
        return 2
    if args.no_open or not sys.stdout.isatty():
        print(f"Demo memory repos in {safe(str(dest))}:")
        for repo in repos:
            print(f"  {safe(str(repo))}")
        return _lint_summary(repos)

    return open_app(repos, read_only=set())


def _lint_summary(repos: list[Path]) -> int:
    from amr_tui.services.batch.lintrun import (
        lint_targets,
        resolve_targets,
    )

    results = lint_targets(resolve_targets(repos))
    by_code: dict[str, int] = {}
    for r in results:
        by_code[r.finding.diagnostic.code] = by_code.get(r.finding.diagnostic.code, 0) + 1
    print("Lint: " + (", ".join(f"{c} x{n}" for c, n in sorted(by_code.items())) or "clean"))
    print("Try: amr lint " + " ".join(safe(str(r)) for r in repos))
    return 0
