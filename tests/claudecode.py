"""A Claude Code auto-memory folder in the shape Claude Code writes it, for the tests of what
loads at session start (issue 41) and for the captures of docs/loads.md.

``build(home, project, lines=240)`` writes ``<home>/.claude/projects/<key>/memory/``: a
MEMORY.md index of ``lines`` lines, ``- [Title](file.md) — description`` each (no ``## Index``
heading, as Claude Code writes it), and one topic file per line with front matter ``name``,
``description`` and ``type`` (``feedback_*``, ``project_*``, ``reference_*``, ``user_*``). A few
topic files carry a ``scope:``. ``git=True`` makes the folder a git repo with one commit.

Run as a script to build one: ``python -m tests.claudecode HOME [/tmp/proj] [--git] [--wide]``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

KINDS = ("feedback", "project", "reference", "user")
TOPICS = (
    "deploy freeze",
    "test runner",
    "lockfile",
    "staging database",
    "code review",
    "release notes",
    "feature flags",
    "error budget",
    "on-call rotation",
    "api versioning",
)


def folder_for(home: Path, project: str) -> Path:
    return home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", project) / "memory"


def title(n: int) -> str:
    kind = KINDS[n % len(KINDS)]
    return f"{kind.capitalize()} {n:03d}: {TOPICS[n % len(TOPICS)]}"


def file_name(n: int) -> str:
    kind = KINDS[n % len(KINDS)]
    return f"{kind}_{TOPICS[n % len(TOPICS)].replace(' ', '_').replace('-', '_')}_{n:03d}.md"


def index_line(n: int, wide: bool = False) -> str:
    desc = f"what to remember about the {TOPICS[n % len(TOPICS)]} (note {n})"
    if wide:  # ~150 bytes a line: 25 KB binds before line 200
        desc += " — with the reasons, the commands to run and who to ask when it goes wrong"
    return f"- [{title(n)}]({file_name(n)}) \u2014 {desc}"


def scope_of(n: int) -> str | None:
    if n % 40 == 7:
        return "global"
    if n % 40 == 17:
        return "project:other-app"
    return None


def build(home: Path, project: str = "/tmp/proj", *, lines: int = 240, git: bool = False, wide: bool = False) -> Path:
    folder = folder_for(home, project)
    folder.mkdir(parents=True, exist_ok=True)
    memory = "".join(index_line(n, wide) + "\n" for n in range(1, lines + 1))
    (folder / "MEMORY.md").write_text(memory, encoding="utf-8")
    for n in range(1, lines + 1):
        kind = KINDS[n % len(KINDS)]
        scope = scope_of(n)
        head = [
            "---",
            f"name: {title(n)}",
            f"description: what to remember about the {TOPICS[n % len(TOPICS)]} (note {n})",
            f"type: {kind}",
            *([f"scope: {scope}"] if scope else []),
            "---",
            "",
        ]
        body = f"The {TOPICS[n % len(TOPICS)]} rule number {n}: ask before changing it.\n"
        (folder / file_name(n)).write_text("\n".join(head) + "\n" + body, encoding="utf-8")
    if git:
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "Claude Code",
            "GIT_AUTHOR_EMAIL": "claude-code@localhost",
            "GIT_COMMITTER_NAME": "Claude Code",
            "GIT_COMMITTER_EMAIL": "claude-code@localhost",
        }
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=folder, check=True, env=env)
        subprocess.run(["git", "add", "--", "."], cwd=folder, check=True, env=env)
        subprocess.run(["git", "commit", "-qm", "Claude Code memory"], cwd=folder, check=True, env=env)
    return folder


if __name__ == "__main__":  # pragma: no cover - a helper for captures
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    print(
        build(
            Path(args[0]), args[1] if len(args) > 1 else "/tmp/proj", git="--git" in sys.argv, wide="--wide" in sys.argv
        )
    )
