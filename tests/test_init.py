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
    return subprocess.run(
        ["git", *args], cwd=cwd, env=dict(os.environ), check=True, capture_output=True, text=True
    ).stdout


def test_creates_missing_path_with_parents(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "agent-memory"
    result = init_memory_repo(target)
    assert result.created and result.clean and result.path == target.resolve()
    assert is_memory_repo(target)
    assert (target / "MEMORY.md").read_bytes() == MEMORY_TEMPLATE == b"# Memory\n\n## Index\n"
    assert git(target, "log", "--format=%s").splitlines() == ["Create memory repo"]
    assert git(target, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    # amr's merge driver comes in the same commit, and in this clone's config (issue 24 point 8)
    assert git(target, "ls-files").splitlines() == [".gitattributes", "MEMORY.md"]
    assert (target / ".gitattributes").read_text() == "*.md merge=amr\n"
    assert git(target, "config", "--get", "merge.amr.driver").strip().endswith("merge-driver %O %A %B %L %P")
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


# -- adopting a git repo that already holds notes ------------------------------------------------


def test_adopts_a_repo_with_tracked_notes_as_one_commit_of_memory_md(make_repo, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("- not the repo's\n")
    repo = make_repo(
        "notes",
        files={
            "notes.md": "- a fact\n",
            "projects/payments.md": "- b\n",
            "README.md": "readme\n",
            "billing/q.sql": "select 1;\n",
            ".amr/forgotten.md": "# Forgotten facts\n",
            "pick[1].md": "- odd name\n",
        },
    )
    (repo / "evil.md").symlink_to(outside)  # a tracked symlink that leaves the repo
    git(repo, "add", "evil.md")
    git(repo, "commit", "-qm", "a symlink")
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / "untracked.md").write_text("- not tracked\n")
    (repo / "notes.md").write_text("- a fact, edited and not committed\n")
    (repo / "staged.md").write_text("- staged only\n")
    git(repo, "add", "staged.md")
    status_before = git(repo, "status", "--porcelain")

    result = init_memory_repo(repo)

    assert result.created and result.path == repo.resolve()
    memory = (repo / "MEMORY.md").read_text()
    assert memory == "# Memory\n\n## Index\n- [[notes]]\n- [[projects/payments]]\n"
    assert git(repo, "log", "--format=%s").splitlines()[0].startswith("Create memory repo")
    assert git(repo, "rev-parse", "HEAD~1").strip() == head
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == [".gitattributes", "MEMORY.md"]
    assert git(repo, "status", "--porcelain") == status_before  # nothing else swept in or touched
    assert (repo / "notes.md").read_text() == "- a fact, edited and not committed\n"
    assert outside.read_text() == "- not the repo's\n"
    assert "2 notes" in result.message and "MEMORY.md" in result.message


def test_adopting_refuses_what_it_cannot_own(make_repo) -> None:
    repo = make_repo("code", files={"sub/notes.md": "- a\n"})
    with pytest.raises(InitRefusedError):  # a folder inside the work tree, not its top level
        init_memory_repo(repo / "sub")
    (repo / "memory.md").write_text("- lower case\n")  # would be the same file on some disks
    with pytest.raises(InitRefusedError):
        init_memory_repo(repo)
    assert not (repo / "MEMORY.md").exists() and git(repo, "rev-list", "--count", "HEAD").strip() == "1"
    (repo / "memory.md").unlink()  # the top level itself, with nothing in the way: adopted
    assert init_memory_repo(repo).created
    assert (repo / "MEMORY.md").read_text() == "# Memory\n\n## Index\n- [[sub/notes]]\n"
    with pytest.raises(InitRefusedError):  # now a memory repo's subfolder: refused as before
        init_memory_repo(repo / "sub")


def test_cli_init_adopts_and_says_what_it_did(make_repo) -> None:
    from tests.test_cli import amr

    repo = make_repo("notes", files={"team.md": "- Priya owns pricing\n"})
    (repo / "draft.md").write_text("- untracked\n")
    res = amr("init", str(repo))
    assert res.returncode == 0, res.stderr
    assert "Adopted" in res.stdout and "MEMORY.md" in res.stdout and "team.md" in res.stdout
    assert (repo / "MEMORY.md").read_text() == "# Memory\n\n## Index\n- [[team]]\n"
    assert git(repo, "status", "--porcelain") == "?? draft.md\n"
    again = amr("init", str(repo))
    assert again.returncode == 0 and "already a memory repo" in again.stdout
    assert (repo / "MEMORY.md").read_text() == "# Memory\n\n## Index\n- [[team]]\n"


def test_the_merge_driver_is_left_alone_when_the_config_opts_out(tmp_path: Path) -> None:
    target = tmp_path / "plain"
    init_memory_repo(target, merge_driver=False)
    assert git(target, "ls-files").splitlines() == ["MEMORY.md"]
    assert subprocess.run(["git", "config", "--get", "merge.amr.driver"], cwd=target).returncode == 1


def test_reusing_a_repo_configures_the_driver_in_this_clone_and_commits_nothing(make_repo) -> None:
    repo = make_repo("mem", files={"MEMORY.md": "# Memory\n\n## Index\n"})
    head = git(repo, "rev-parse", "HEAD").strip()
    result = init_memory_repo(repo)
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert "merge.amr.* in this clone's git config" in result.message
    assert git(repo, "config", "--get", "merge.amr.driver").strip()


def test_the_preview_says_exactly_what_init_and_adoption_write_and_writes_nothing(tmp_path) -> None:
    """Issue 25 point 4: the app's question before creating a memory repo."""
    import subprocess

    from amr_tui.services.init import InitRefusedError, init_memory_repo, preview_init

    fresh = tmp_path / "fresh"
    assert "git init, then one commit ('Create memory repo')" in preview_init(fresh)
    assert not fresh.exists()
    notes = tmp_path / "notes"
    notes.mkdir()
    for name in ("alpha.md", "beta.md"):
        (notes / name).write_text(f"# {name}\n\n- a fact\n")
    env = {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@t"}
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "notes"]):
        subprocess.run(["git", *argv], cwd=notes, check=True, env={**__import__("os").environ, **env})
    shown = preview_init(notes)
    assert "    - [[alpha]]\n    - [[beta]]\n" in shown and "Nothing else is changed" in shown
    assert not (notes / "MEMORY.md").exists()
    result = init_memory_repo(notes, identity=("T", "t@t"))
    assert (notes / "MEMORY.md").read_text() == "# Memory\n\n## Index\n- [[alpha]]\n- [[beta]]\n" and result.created
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "x.txt").write_text("x")
    import pytest

    with pytest.raises(InitRefusedError):
        preview_init(busy)


def test_adopting_many_notes_writes_an_index_that_fits_the_budget(tmp_path) -> None:
    """Issue 25 point 4: 300 notes in three folders: the Index links the folders' new _index.md
    files (each linking its notes), MEMORY.md stays within the load budget, and every note is
    reachable: lint finds neither AMR003 nor AMR013."""
    import os
    import subprocess

    from amr_tui.core.lint.repo import lint_repo
    from amr_tui.services.init import init_memory_repo, preview_init
    from amr_tui.services.workspace import discover, load_snapshot

    root = tmp_path / "notes"
    for folder in ("people", "projects", "tools"):
        (root / folder).mkdir(parents=True)
        for k in range(100):
            (root / folder / f"n{k}.md").write_text(f"# {folder} {k}\n\n- fact {k} of {folder}\n")
    (root / "overview.md").write_text("# Overview\n\n- what this is\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@t"}
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "notes"]):
        subprocess.run(["git", *argv], cwd=root, check=True, env=env)
    shown = preview_init(root)
    assert "people/_index.md (new: links the 100 notes of its folder)" in shown
    init_memory_repo(root, identity=("T", "t@t"))
    memory = (root / "MEMORY.md").read_text()
    assert memory.splitlines()[3:] == [
        "- [[overview]]",
        "- [[people/_index]]",
        "- [[projects/_index]]",
        "- [[tools/_index]]",
    ]
    codes = {f.diagnostic.code for f in lint_repo(load_snapshot(discover([root])[0]))}
    assert "AMR003" not in codes and "AMR013" not in codes, codes
