"""amr lint [PATH...] [--json] [--fix [--no-commit]]

The run of the command; its parser is in cli/parsers/lint.py."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from amr_tui.cli.named import LeavesRepoError, check_named_paths
from amr_tui.cli.output import emit_json, error, paint, report_skipped, safe, use_colour
from amr_tui.cli.parsers.lint import SEVERITIES as _SEVERITIES
from amr_tui.core.lint.facts import CONTRADICTIONS_MAX_ENTRIES
from amr_tui.core.model import Diagnostic
from amr_tui.services.lint.run import FixRefusedError, LintTarget, lint_targets, resolve_targets

if TYPE_CHECKING:  # annotations only: the files a --history walk skipped (git is loaded by --history alone)
    from amr_tui.git.history import SkippedBlob


def run(args: argparse.Namespace) -> int:
    paths = args.paths or [Path(".")]
    try:
        check_named_paths(paths)  # a symlink out of its repo (or into .git) is refused, as amr parse does
        targets: list[LintTarget] = resolve_targets(paths, explicit=bool(args.paths))
    except (FileNotFoundError, NotADirectoryError, LeavesRepoError) as exc:
        error(str(exc))
        return 2
    if args.no_commit and not args.fix:
        error("--no-commit goes with --fix")
        return 2
    fixed = 0
    refused = 0  # repos git refuses, where --fix wrote nothing
    notes: list[str] = []  # what --fix committed, and what it left
    if args.fix:
        from amr_tui.services.lint.fix import fix_repo  # --fix alone loads git and the write gate

        for target in targets:
            try:
                done = fix_repo(target.mount, duplicates=not args.no_duplicates, commit=not args.no_commit)
            except FixRefusedError as exc:  # nothing written there; the others are still fixed
                error(str(exc))
                refused += 1
                continue
            fixed += done.applied
            where = f" in {safe(target.display_root)}" if len(targets) > 1 and target.display_root else ""
            if done.commit:
                notes.append(f"Committed the fixes{where} as {done.commit[:7]} (amr undo takes them back).")
            elif done.applied and not args.no_commit and not done.commit:
                notes.append(f"The fixes{where} are in the work tree, not committed (not a git repo with a commit).")
            if done.left:
                notes.append(
                    f"Left {done.left} fix{'es' if done.left != 1 else ''}{where} unmade: on lines nobody committed "
                    "(someone's uncommitted edit) or in a file git does not track; amr lint --fix --no-commit "
                    "fixes them in the work tree."
                )
    skipped: list[SkippedBlob] = []  # files the --history walk did not read (over MAX_PARSE_BYTES)
    unlooked: list[str] = []  # repos too large for AMR033 below --severity info
    results = lint_targets(
        targets,
        duplicates=not args.no_duplicates,
        history=args.history,
        near_duplicates=args.severity == "info",
        use_cache=not args.no_cache,
        skipped=skipped,
        unlooked=unlooked,
    )
    if skipped:
        report_skipped(skipped)
    floor = _SEVERITIES.index(args.severity)
    level = {s: _SEVERITIES.index(s.value) for s in {r.finding.diagnostic.severity for r in results}}
    shown = [r for r in results if level[r.finding.diagnostic.severity] <= floor]
    if any(r.finding.diagnostic.code == "AMR033" for r in shown):  # who wrote the two lines (git blame)
        from amr_tui.services.history.authors import label_lint  # git: only with contradictions to label

        shown = label_lint(shown, {t.mount.name: t.mount.root for t in targets})
    if args.json:
        emit_json(
            {
                "diagnostics": [
                    {
                        "repo": r.repo,
                        "path": r.finding.path,
                        **r.finding.diagnostic.to_json(),
                        "fixable": r.finding.diagnostic.fix is not None,
                    }
                    for r in shown
                ]
            }
        )
    else:
        colour = use_colour(sys.stdout)
        lines = []
        counts = dict.fromkeys(_SEVERITIES, 0)
        for r in shown:
            d = r.finding.diagnostic
            severity = d.severity.value
            counts[severity] += 1
            where = safe(r.display_path)
            if d.line:
                where += f":{d.line}:{max(d.column, 1)}"
            fixmark = " [*]" if d.fix is not None else ""
            lines.append(
                f"{paint(where, 'path', colour)}: {paint(d.code, severity, colour)} {safe(d.message)}{fixmark}\n"
            )
        sys.stdout.write("".join(lines))
        sys.stdout.flush()
        summary = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n)
        if fixed:
            print(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.", file=sys.stderr)
        for note in notes:
            print(note, file=sys.stderr)
        below = _below_floor([r.finding.diagnostic for r in results if level[r.finding.diagnostic.severity] > floor])
        if shown:
            fixable = sum(1 for r in shown if r.finding.diagnostic.fix is not None)
            tail = f" ({fixable} fixable with --fix)" if fixable and not args.fix else ""
            print(f"Found {summary}{tail}.", file=sys.stderr)
            if below:
                print(f"Also {below}.", file=sys.stderr)
        elif refused:  # the files were read, but --fix could not run there: not "clean" (exit 2)
            print(
                f"No findings, but --fix was refused in {refused} repo{'s' if refused != 1 else ''} "
                "(said above): nothing was written there.",
                file=sys.stderr,
            )
        elif below:  # never "All clean." over a possible contradiction it did not show
            print(f"No {' or '.join(_worse(args.severity))}. {below[0].upper()}{below[1:]}.", file=sys.stderr)
        elif unlooked and args.severity != "info" and not args.no_duplicates:
            print(
                f"No {' or '.join(_worse(args.severity))}. Possible contradictions (AMR033) were not looked for "
                f"in {', '.join(safe(u) for u in unlooked)} (over {CONTRADICTIONS_MAX_ENTRIES:,} entries): "
                "--severity info looks for them.",
                file=sys.stderr,
            )
        else:
            print("All clean.", file=sys.stderr)
    return 2 if refused else 1 if shown else 0


def _worse(severity: str) -> list[str]:
    """The severities shown at ``severity`` and above, as words: ["errors", "warnings"]."""
    return [f"{s}s" for s in _SEVERITIES[: _SEVERITIES.index(severity) + 1]]


def _below_floor(hidden: list[Diagnostic]) -> str:
    """What lint found under the severity asked for, in a few words with how to see it
    ("1 possible contradiction (AMR033): --severity info lists it"), or "" when nothing."""
    if not hidden:
        return ""
    warnings = sum(1 for d in hidden if d.severity.value == "warning")
    contradictions = sum(1 for d in hidden if d.code == "AMR033")
    notes = len(hidden) - warnings - contradictions
    parts = []
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    if contradictions:
        parts.append(f"{contradictions} possible contradiction{'s' if contradictions != 1 else ''} (AMR033)")
    if notes:
        parts.append(f"{notes} style note{'s' if notes != 1 else ''}")
    floor = "warning" if warnings and not (contradictions or notes) else "info"
    return f"{' and '.join(parts)}: --severity {floor} lists {'it' if len(hidden) == 1 else 'them'}"
