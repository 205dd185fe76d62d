"""amr loads [REPO...] [--agent NAME] [--cwd DIR] [--json]: what an agent reads at session start

The run of the command; its parser is in cli/parsers/loads.py."""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
from pathlib import Path
from typing import Any

from amr_tui.cli.output import emit_json, error, paint, safe, use_colour
from amr_tui.core.budget import PROFILES, FileLoad, Limits, gauge, size_text
from amr_tui.services.budgets import budgets_of, profile_of
from amr_tui.services.config import load_config
from amr_tui.services.loads import RepoLoads, claude_memory_folder, here_of, project_root, repo_loads
from amr_tui.services.workspace import discover, looks_like_memory_root

TOKENS = "an estimate: a quarter of a token per ASCII character, one per CJK character, half for any other"


def run(args: argparse.Namespace) -> int:
    cfg = load_config()
    budgets, problems = budgets_of(cfg)
    for p in problems:
        error(p)
    profile = None
    if args.agent:
        profile = budgets.named(args.agent)
        if profile is None:
            names = ", ".join(sorted({*PROFILES, *budgets.custom}))
            error(f"--agent {args.agent!r}: amr knows {names} (or add [budgets.{args.agent}] to the config)")
            return 2
    try:
        today = _dt.date.fromisoformat(args.today) if args.today else _dt.date.today()
    except ValueError:
        error(f"--today takes YYYY-MM-DD, not {args.today!r}")
        return 2
    cwd = args.cwd.expanduser() if args.cwd else None
    if cwd is not None and not cwd.is_dir():
        error(f"--cwd {cwd}: no such folder")
        return 2
    paths = list(args.repos)
    if not paths:
        if cwd is not None and (profile is None or profile.name == "claude-code"):
            for cand in (claude_memory_folder(cwd), claude_memory_folder(project_root(cwd))):
                if cand.is_dir():
                    paths = [cand]
                    break
        if not paths:
            here = cwd or Path(".")
            paths = [here] if looks_like_memory_root(here) else list(cfg.repos) or [here]
    try:
        mounts = discover(paths)
    except FileNotFoundError as exc:
        error(str(exc))
        return 2
    results: list[RepoLoads] = []
    for mount in mounts:
        prof = profile or profile_of(mount, budgets)
        here = here_of(cwd, mount.root) if cwd is not None else None
        results.append(repo_loads(mount, prof, today=today, here=here))
    if args.json:
        emit_json({"repos": [_json(r) for r in results], "tokens": TOKENS})
    else:
        _print(results, cwd)
    return 1 if any(r.cut for r in results) else 0


def _limits(limits: Limits) -> dict[str, int]:
    return {
        k: v
        for k, v in (
            ("lines", limits.lines),
            ("bytes", limits.bytes),
            ("chars", limits.chars),
            ("tokens", limits.tokens),
        )
        if v is not None
    }


def _file_json(fl: FileLoad) -> dict[str, Any]:
    out: dict[str, Any] = {"path": fl.path, "present": fl.cut is not None, "limits": _limits(fl.limits)}
    if fl.cut is None:
        out["note"] = fl.note
        return out
    c = fl.cut
    out.update(
        {
            "lines": c.lines,
            "bytes": c.bytes,
            "chars": c.chars,
            "tokens": c.tokens,
            "loaded": {
                "lines": c.loaded_lines,
                "bytes": c.loaded_bytes,
                "chars": c.loaded_chars,
                "tokens": c.loaded_tokens,
            },
            "cut_line": c.cut_line,
            "cut_by": c.cut_by,
            "past": [
                {
                    "line": p.line,
                    "name": p.name,
                    "text": p.text,
                    "links": list(p.links),
                    "index": p.index,
                    "partial": p.partial,
                }
                for p in fl.past
            ],
        }
    )
    return out


def _json(r: RepoLoads) -> dict[str, Any]:
    prof = r.profile
    return {
        "repo": r.mount.name,
        "root": str(r.mount.root),
        "git": r.git,
        "agent": prof.name,
        "title": prof.title,
        "source": prof.source,
        "total": _limits(prof.total),
        "files": [_file_json(f) for f in r.plan.files],
        "tokens_loaded": r.plan.loaded_tokens,
        "past": [{"path": path, "line": p.line, "name": p.name} for path, p in r.plan.past],
        "scoped": [
            {
                "path": s.path,
                "line": s.line,
                "text": s.text,
                "scope": str(s.scope) if s.scope else None,
                "error": s.error,
                "loaded": s.loaded,
                "applies": s.applies,
            }
            for s in r.scoped
        ],
    }


def _print(results: list[RepoLoads], cwd: Path | None) -> None:
    colour = use_colour(sys.stdout)
    for r in results:
        prof = r.profile
        head = f"{r.mount.name} ({r.mount.root}): what {prof.title} loads at session start"
        print(paint(safe(head), "bold", colour))
        print(f"  budget: {safe(prof.says)} [{safe(prof.source)}]")
        if prof.total.bounded:
            print(f"  all files together: {prof.total.describe()}")
        if not r.git:
            print("  (a plain folder, not a git repo: no history, so no review or undo of its writes)")
        for fl in r.plan.files:
            if fl.cut is None:
                print(f"  {safe(fl.path)}: {fl.note}")
                continue
            c = fl.cut
            print(
                f"  {safe(fl.path)}: {c.lines} lines, {size_text(c.bytes)}, {c.chars:,} characters, "
                f"~{c.tokens:,} tokens (estimate); budget {fl.limits.describe()}"
            )
            print(f"    {safe(gauge(fl.path, c, fl.limits))}")
            if c.cut_line is None:
                print(f"    all of it loads (~{c.loaded_tokens:,} tokens)")
                continue
            print(
                paint(
                    f"    loads lines 1-{c.loaded_lines} ({size_text(c.loaded_bytes)}, ~{c.loaded_tokens:,} tokens); "
                    f"cuts at line {c.cut_line} ({_by(c.cut_by)})",
                    "warning",
                    colour,
                )
            )
            if fl.past:
                n = len(fl.past)
                print(f"    not loaded at session start ({n} entr{'y' if n == 1 else 'ies'} and links past the cut):")
                for p in fl.past:
                    link = f"  -> {', '.join(p.links)}" if p.links and p.links[0] != p.name else ""
                    mark = " (read in part)" if p.partial else ""
                    print(f"      {p.line:>5}  {safe(p.name)}{safe(link)}{mark}")
        print(f"  loaded: ~{r.plan.loaded_tokens:,} tokens (an estimate)")
        leaks = [s for s in r.scoped if s.loaded and s.applies is False]
        hidden = [s for s in r.scoped if not s.loaded and s.applies]
        bad = [s for s in r.scoped if s.error]
        if cwd is not None:
            print(f"  scopes, for a session in {safe(str(cwd))}:")
            for s in leaks:
                print(f"    loaded but not for here ({s.scope}): {safe(s.path)}:{s.line} {safe(s.text)}")
            for s in hidden:
                print(f"    holds here but past the cut ({s.scope}): {safe(s.path)}:{s.line} {safe(s.text)}")
            if not leaks and not hidden:
                print("    every scoped entry that loads holds here, and none that holds is cut")
        for s in bad:
            print(f"    {safe(s.path)}:{s.line}: {safe(s.error or '')}")


def _by(why: str | None) -> str:
    return {
        "lines": "the line limit",
        "bytes": "the byte limit",
        "characters": "the character limit",
        "tokens": "the token limit",
    }.get(why or "", f"the limit of {why}" if why else "")
