"""``amr lint --fix`` commits its fixes as amr's own commit through the write gate, and only them
(issue 38 point 2): an agent's uncommitted line stays out of the commit and as it was in the
file. ``--fix --no-commit`` leaves the fixes in the work tree, as ruff does."""

from __future__ import annotations

from pathlib import Path

import pytest

from amr_tui.cli.main import main
from amr_tui.services.lint.fix import fix_repo
from amr_tui.services.undo import undo
from amr_tui.services.workspace import discover
from amr_tui.services.writegate import RepoTarget
from tests.conftest import git

COMMITTED = "# Memory\n\n* starred fact one\n- plain fact two\n\n## Index\n"
STRAY = "* an agent's stray line, not committed\n"


@pytest.fixture
def repo(make_repo) -> Path:
    root = make_repo(files={"MEMORY.md": COMMITTED})
    with open(root / "MEMORY.md", "a") as f:
        f.write(STRAY)  # an agent's uncommitted line, itself fixable (AMR024)
    return root


def _lint_fix(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["lint", "--fix", *args, str(root)])
    return code, capsys.readouterr().err


def test_fix_commits_only_the_fixed_lines_and_leaves_the_agents_line_alone(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    _code, err = _lint_fix(repo, capsys)
    assert git(repo, "rev-list", "--count", f"{head}..HEAD").strip() == "1"
    body = git(repo, "log", "-1", "--format=%B")
    assert body.startswith("Fix 1 lint finding in MEMORY.md (amr lint --fix)") and "Edited-with: amr" in body
    assert git(repo, "show", "HEAD:MEMORY.md") == COMMITTED.replace("* starred", "- starred")
    on_disk = (repo / "MEMORY.md").read_text()
    assert on_disk == COMMITTED.replace("* starred", "- starred") + STRAY  # the agent's line as it wrote it
    assert git(repo, "diff", "--cached") == ""  # nothing staged: the index is HEAD's
    assert git(repo, "status", "--porcelain").strip() == "M MEMORY.md"  # the agent's line only
    assert "Committed the fixes as" in err and "Left 1 fix unmade" in err, err


def test_fix_commit_is_amrs_own_and_undo_takes_it_back(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": COMMITTED})
    (mount,) = discover([root])
    done = fix_repo(mount)
    assert done.applied == 1 and done.commit == git(root, "rev-parse", "HEAD").strip()
    undone = undo(RepoTarget.of(mount), mount.name, done.commit)
    assert undone.committed and git(root, "show", "HEAD:MEMORY.md") == COMMITTED
    assert git(root, "status", "--porcelain") == ""


def test_fix_no_commit_leaves_every_fix_in_the_work_tree(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    _code, err = _lint_fix(repo, capsys, "--no-commit")
    assert git(repo, "rev-parse", "HEAD").strip() == head  # nothing committed
    on_disk = (repo / "MEMORY.md").read_text()
    assert "- starred fact one" in on_disk and "- an agent's stray line" in on_disk  # both fixed, for the user
    assert "Committed" not in err and "Fixed 2 findings." in err


def test_no_commit_without_fix_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--no-commit", str(repo)]) == 2
    assert "--no-commit goes with --fix" in capsys.readouterr().err


def test_fix_in_a_folder_that_is_not_a_git_repo_writes_the_files(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "MEMORY.md").write_text(COMMITTED)
    (mount,) = discover([root])
    done = fix_repo(mount)
    assert done.applied == 1 and done.commit is None
    assert (root / "MEMORY.md").read_text() == COMMITTED.replace("* starred", "- starred")
