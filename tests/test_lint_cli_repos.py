"""`amr lint` (and `--fix`) on repos that are not tidy memory repos, run as a real process:
Markdown without MEMORY.md, untracked files, symlinks out of the repo, a repo git refuses."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.test_cli import amr


def _codes(res: subprocess.CompletedProcess[str]) -> set[tuple[str, str]]:
    return {(d["path"], d["code"]) for d in json.loads(res.stdout)["diagnostics"]}


# -- item: a git repo with notes but no MEMORY.md is linted, with AMR001 -----------------------

def test_git_repo_with_markdown_but_no_memory_md_reports_amr001_and_lints_the_rest(make_repo):
    repo = make_repo("notes", {"notes.md": "* star bullet [added: 2026-02-30]\n", "sub/more.md": "- fine\n"})
    res = amr("lint", str(repo), "--json")
    assert res.returncode == 1, res.stderr
    found = _codes(res)
    assert ("MEMORY.md", "AMR001") in found
    assert ("notes.md", "AMR008") in found  # the rest is linted
    here = amr("lint", "--json", cwd=repo / "sub")  # no argument: the git work tree around the folder
    assert here.returncode == 1 and ("MEMORY.md", "AMR001") in _codes(here), here.stderr
    one = amr("lint", str(repo / "notes.md"), "--json")  # one file of such a repo
    assert one.returncode == 1 and _codes(one) == {("notes.md", "AMR008")}, one.stderr


def test_a_folder_named_explicitly_with_markdown_is_linted(tmp_path: Path):
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "a.md").write_text("- a fact\n")
    res = amr("lint", str(folder), "--json")
    assert res.returncode == 1 and ("MEMORY.md", "AMR001") in _codes(res), res.stderr


def test_nothing_to_lint_is_still_a_usage_error(tmp_path: Path, make_repo):
    assert amr("lint", str(tmp_path / "nope")).returncode == 2
    code = make_repo("code", {"main.py": "print(1)\n"})
    res = amr("lint", str(code))
    assert res.returncode == 2 and "no MEMORY.md" in res.stderr and "Markdown" in res.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    assert amr("lint", str(empty)).returncode == 2
    plain = tmp_path / "plain"  # not git, not named: the current folder is not linted
    plain.mkdir()
    (plain / "a.md").write_text("- a\n")
    assert amr("lint", cwd=plain).returncode == 2
