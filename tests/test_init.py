"""services.init: create a memory repo the way the skill does, reuse one, refuse anything else."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from amr_tui.git import GitRepo, NoIdentityError, is_memory_repo
from amr_tui.services.init import (
    MEMORY_TEMPLATE,
    InitError,
    InitNoIdentityError,
    InitRefusedError,
    init_memory_repo,
)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=dict(os.environ), check=True,
                          capture_output=True, text=True).stdout


def test_creates_missing_path_with_parents(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "agent-memory"
    result = init_memory_repo(target)
    assert result.created and result.clean and result.path == target.resolve()
    assert is_memory_repo(target)
    assert (target / "MEMORY.md").read_bytes() == MEMORY_TEMPLATE == b"# Memory\n\n## Index\n"
    assert git(target, "log", "--format=%s").splitlines() == ["Create memory repo"]
    assert git(target, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert git(target, "ls-files").splitlines() == ["MEMORY.md"]
    assert GitRepo(target).status().is_clean
    assert result.head == git(target, "rev-parse", "HEAD").strip()
    assert "Created memory repo" in str(result)


def test_creates_in_empty_folder(tmp_path: Path) -> None:
    target = tmp_path / "empty"
    target.mkdir()
    assert init_memory_repo(target).created


def test_reuses_an_existing_memory_repo(tmp_path: Path, make_repo) -> None:
    repo = make_repo("mem", files={"MEMORY.md": "# Memory: Joe\n\n## Index\n", "a.md": "- a\n"})
    head = git(repo, "rev-parse", "HEAD").strip()
    result = init_memory_repo(repo)
    assert not result.created and result.clean and result.head == head
    assert "already a memory repo" in result.message
    assert git(repo, "rev-parse", "HEAD").strip() == head
    (repo / "a.md").write_text("- edited\n")
    dirty = init_memory_repo(repo)
    assert not dirty.clean and "uncommitted" in dirty.message
    assert (repo / "a.md").read_text() == "- edited\n"


def test_refuses_non_empty_folder_and_changes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "project"
    target.mkdir()
    (target / "README.md").write_text("hello")
    with pytest.raises(InitRefusedError) as info:
        init_memory_repo(target)
    assert isinstance(info.value, InitError)
    assert "changed nothing" in str(info.value)
    assert sorted(p.name for p in target.iterdir()) == ["README.md"]


def test_refuses_repo_without_memory_md_and_subfolders(make_repo) -> None:
    repo = make_repo("code", files={"README.md": "x\n"})
    with pytest.raises(InitRefusedError):
        init_memory_repo(repo)
    assert not (repo / "MEMORY.md").exists()
    mem = make_repo("mem", files={"MEMORY.md": "# M\n", "sub/a.md": "- a\n"})
    with pytest.raises(InitRefusedError):  # inside a memory repo, but not its top level
        init_memory_repo(mem / "sub")


def test_refuses_a_file(tmp_path: Path) -> None:
    f = tmp_path / "file.md"
    f.write_text("x")
    with pytest.raises(InitRefusedError):
        init_memory_repo(f)
    assert f.read_text() == "x"


def test_no_identity_creates_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(var)
    target = tmp_path / "new" / "memory"
    with pytest.raises(InitNoIdentityError) as info:
        init_memory_repo(target)
    assert isinstance(info.value, NoIdentityError) and isinstance(info.value, InitError)
    assert "user.email" in str(info.value) and "global" in str(info.value)
    assert not (tmp_path / "new").exists()
    assert not (Path(os.environ["HOME"]) / ".gitconfig").exists()


def test_unsafe_repo_becomes_init_error(make_repo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo()
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    with pytest.raises(InitError) as info:
        init_memory_repo(repo)
    assert "another user" in str(info.value)
