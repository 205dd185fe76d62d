"""The injection corpus through every CLI command: no raw ESC or C1 byte,
no traceback, and option-looking refs and paths write nothing.

Commands come from ``amr --help``; their invocations from ``hostilehelpers.CLI_CASES`` (one line
per new command; without one, a command still runs with ``--help`` and with the repo path).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.hostilehelpers import check_cli_run, cli_invocations, make_hostile_repo, run_amr, subcommands


@pytest.fixture(scope="module")
def hostile_repo(tmp_path_factory) -> Path:
    return make_hostile_repo(tmp_path_factory.mktemp("cli") / "m\x1b[2J")


@pytest.mark.slow
@pytest.mark.parametrize("command", subcommands())
def test_cli_output_has_no_raw_controls(hostile_repo: Path, tmp_path: Path, command: str) -> None:
    repo = tmp_path / hostile_repo.name
    shutil.copytree(hostile_repo, repo, symlinks=True)
    problems: list[str] = []
    for argv in cli_invocations(command, repo, tmp_path):
        problems += check_cli_run(run_amr(argv, cwd=repo))
    assert not problems, "\n".join(problems)
    for name in ("branch-out.txt", "x.txt"):
        assert not list(tmp_path.rglob(name)), f"an option-looking ref or argument wrote {name}"


def test_cli_json_keeps_the_text_escaped_not_raw(hostile_repo: Path) -> None:
    """--json output is ASCII with \\u escapes: the payload survives exactly, nothing raw."""
    import json

    run = run_amr(["parse", str(hostile_repo / "MEMORY.md"), "--json"], cwd=hostile_repo)
    assert run.returncode == 0 and run.stdout.isascii()
    texts = [row["text"] for row in json.loads(run.stdout)]
    assert any("\x1b]52;c;aGVsbG8=\x07" in t for t in texts)
    assert any("[@click=app.quit]click to quit[/]" in t for t in texts)
