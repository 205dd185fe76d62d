"""amr init PATH, amr demo [--path DIR], amr track PATH [--yes] and amr discover [--json] [--open]

The run of the commands; its parsers are in cli/parsers/repo.py."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from amr_tui.cli import app_cmd
from amr_tui.cli.output import ask, emit_json, error, safe
from amr_tui.services.config import add_repo, config_path, load_config
from amr_tui.services.demo import DemoError, build_demo
from amr_tui.services.discovery import discover_memory
from amr_tui.services.init import TRACK_MESSAGE, InitError, init_memory_repo, track_folder, track_plan
from amr_tui.services.lint.run import lint_targets, resolve_targets


def run_track(args: argparse.Namespace) -> int:
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
            if not ask("Do it? [y/N] "):
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
    try:
        result = init_memory_repo(args.path.expanduser(), merge_driver=load_config().merge_driver)
    except InitError as exc:
        error(str(exc))
        return 2
    print(safe(str(result)))
    return 0


def run_demo(args: argparse.Namespace) -> int:
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

    return app_cmd.open_app(repos, read_only=set())


def _lint_summary(repos: list[Path]) -> int:
    results = lint_targets(resolve_targets(repos))
    by_code: dict[str, int] = {}
    for r in results:
        by_code[r.finding.diagnostic.code] = by_code.get(r.finding.diagnostic.code, 0) + 1
    print("Lint: " + (", ".join(f"{c} x{n}" for c, n in sorted(by_code.items())) or "clean"))
    print("Try: amr lint " + " ".join(safe(str(r)) for r in repos))
    return 0
