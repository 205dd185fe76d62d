"""The hardened git runner: environment, config overrides, option injection, error classes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from amr_tui.git import (
    GitError,
    GitRepo,
    GitRunner,
    GitTimeoutError,
    LockedError,
    NotARepoError,
    UnsafeRepoError,
    blob_oid,
    end_of_options,
    git_binary,
    history,
    run_git,
)
from amr_tui.git.overrides import BASE_CONFIG, repo_overrides
from amr_tui.git.runner import build_env


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Plain git for set-up and for playing the agent (amr code uses its own runner)."""
    result = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **(env or {})}, check=True, capture_output=True, text=True
    )
    return result.stdout


def cfg(runner: GitRunner, key: str) -> str | None:
    res = runner.run(["config", "--get", key], ok=(0, 1))
    return res.text.rstrip("\n") if res.returncode == 0 else None


def test_git_binary_is_absolute() -> None:
    assert os.path.isabs(git_binary())


def test_environment_for_read_and_write_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_DIR", "/somewhere/else")
    monkeypatch.setenv("GIT_EXEC_PATH", "/evil/exec")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='evil'")
    monkeypatch.setenv("GIT_CONFIG_KEY_7", "core.pager")
    read = build_env(None, BASE_CONFIG, write=False)
    write = build_env({"GIT_INDEX_FILE": "/tmp/x"}, BASE_CONFIG, write=True)
    for env in (read, write):
        assert env["GIT_CONFIG_NOSYSTEM"] == "1"
        assert env["GIT_TERMINAL_PROMPT"] == "0"
        assert env["GIT_PAGER"] == "cat"
        assert env["LC_ALL"] == "C"
        assert env["GIT_LITERAL_PATHSPECS"] == "1"
        assert "GIT_DIR" not in env and "GIT_EXEC_PATH" not in env
        assert "GIT_CONFIG_PARAMETERS" not in env
        assert int(env["GIT_CONFIG_COUNT"]) == len(BASE_CONFIG)
        assert env.get("GIT_CONFIG_KEY_7") == BASE_CONFIG[7][0]
    assert read["GIT_OPTIONAL_LOCKS"] == "0"
    assert "GIT_OPTIONAL_LOCKS" not in write
    assert write["GIT_INDEX_FILE"] == "/tmp/x"
    # The conftest identity passes through untouched.
    assert read["GIT_AUTHOR_NAME"] == "Test Author"


def test_overrides_beat_repo_config(make_repo) -> None:
    repo = make_repo()
    for key, value in [
        ("core.fsmonitor", "/bin/evil"),
        ("core.hooksPath", "/tmp/evil-hooks"),
        ("core.pager", "evil"),
        ("diff.external", "/bin/evil"),
        ("log.showSignature", "true"),
        ("credential.helper", "evil"),
        ("commit.gpgSign", "true"),
        ("core.editor", "evil"),
    ]:
        git(repo, "config", key, value)
    runner = GitRunner(repo)
    expected = dict(BASE_CONFIG)
    for key in (
        "core.fsmonitor",
        "core.hooksPath",
        "core.pager",
        "diff.external",
        "log.showSignature",
        "credential.helper",
        "commit.gpgSign",
        "core.editor",
    ):
        assert cfg(runner, key) == expected[key], key


def test_configured_filters_and_drivers_are_blanked(make_repo) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", ".gitattributes": "*.md filter=fromattr diff=d1\n"})
    git(repo, "config", "filter.evil.clean", "touch x")
    git(repo, "config", "filter.evil.required", "true")
    git(repo, "config", "filter.proc.process", "touch x")
    git(repo, "config", "diff.d1.textconv", "touch x")
    git(repo, "config", "merge.m1.driver", "touch x")
    git(repo, "config", "merge.amr.driver", "repo-chosen-command %A")
    runner = GitRunner(repo)
    assert cfg(runner, "filter.evil.clean") == ""
    assert cfg(runner, "filter.evil.required") == "false"
    assert cfg(runner, "filter.proc.process") == ""
    assert cfg(runner, "filter.fromattr.smudge") == ""  # named only in .gitattributes
    assert cfg(runner, "diff.d1.textconv") == ""
    assert cfg(runner, "merge.m1.driver") == ""
    # amr's own driver name is blanked too unless amr supplies its command, which then wins.
    assert cfg(runner, "merge.amr.driver") == ""
    ours = GitRunner(repo, merge_drivers={"amr": "amr-merge-driver %O %A %B"})
    assert cfg(ours, "merge.amr.driver") == "amr-merge-driver %O %A %B"


def test_new_filter_is_seen_after_config_changes(make_repo) -> None:
    repo = make_repo()
    runner = GitRunner(repo)
    assert cfg(runner, "filter.late.clean") is None
    git(repo, "config", "filter.late.clean", "touch x")
    assert cfg(runner, "filter.late.clean") == ""


def test_filters_from_included_config_are_blanked(make_repo, tmp_path: Path) -> None:
    repo = make_repo()
    inc = tmp_path / "included.cfg"
    inc.write_text('[filter "inc"]\n\tclean = touch x\n')
    git(repo, "config", "include.path", str(inc))
    runner = GitRunner(repo)
    assert cfg(runner, "filter.inc.clean") == ""
    # The included file changes without .git/config changing: still caught (no caching).
    inc.write_text('[filter "inc2"]\n\tsmudge = touch x\n')
    assert cfg(runner, "filter.inc2.smudge") == ""


def test_repo_overrides_parses_odd_names() -> None:
    dump = b"filter.we.ird name.clean\ntouch x\0diff.a.textconv\ncat\0merge.m.driver\nx\0"
    out = dict(repo_overrides(dump))
    assert out["filter.we.ird name.clean"] == ""
    assert out["diff.a.textconv"] == "" and out["diff.a.command"] == ""
    assert out["merge.m.driver"] == ""


def test_option_looking_ref_writes_nothing(make_repo) -> None:
    repo = make_repo()
    runner = GitRunner(repo)
    res = runner.run(["log", *end_of_options("--output=x.txt")], check=False)
    assert res.returncode != 0
    assert not (repo / "x.txt").exists()
    r = GitRepo(repo)
    assert r.resolve("--output=y.txt") is None
    assert history.log_entries(r, "--output=z.txt", paths=("MEMORY.md",)) == []
    assert r.read_blob_or_none("--output=w.txt", "MEMORY.md") is None
    assert history.log_entries(r, paths=("--output=v.txt",)) == []
    assert not any(p.name.endswith(".txt") for p in repo.iterdir())


def test_git_error_carries_details(make_repo) -> None:
    repo = make_repo()
    with pytest.raises(GitError) as info:
        GitRunner(repo).run(["cat-file", "-t", "0" * 40])
    err = info.value
    assert err.returncode != 0
    assert isinstance(err.stderr, str) and err.stderr
    assert err.argv == ("cat-file", "-t", "0" * 40)
    assert err.args[2] == err.argv


def test_not_a_repo(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    monkey_ceiling = {"GIT_CEILING_DIRECTORIES": str(tmp_path)}
    with pytest.raises(NotARepoError):
        GitRunner(plain, env=monkey_ceiling).run(["rev-parse", "--show-toplevel"])
    with pytest.raises(NotARepoError):
        GitRepo(tmp_path / "missing")
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    with pytest.raises(NotARepoError):
        GitRepo(bare)


def test_unsafe_repo_gets_a_clear_message(make_repo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo()
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    with pytest.raises(UnsafeRepoError) as info:
        GitRepo(repo)
    message = str(info.value)
    assert "another user" in message and "amr will not override" in message
    with pytest.raises(UnsafeRepoError):
        run_git(repo, ["status"])
    # Never added safe.directory on the user's behalf.
    assert not (Path(os.environ["HOME"]) / ".gitconfig").exists()
    monkeypatch.delenv("GIT_TEST_ASSUME_DIFFERENT_OWNER")
    assert "safe.directory" not in git(repo, "config", "--list")


def test_stale_ref_lock_raises_locked_and_is_kept(make_repo) -> None:
    repo = make_repo()
    head = git(repo, "rev-parse", "HEAD").strip()
    lock = repo / ".git" / "refs" / "heads" / "main.lock"
    lock.write_text("")
    runner = GitRunner(repo, lock_timeout=0.2)
    with pytest.raises(LockedError) as info:
        runner.run(["update-ref", "refs/heads/main", head, head], write=True)
    assert "never deletes lock files" in str(info.value)
    assert lock.exists()


def test_timeout_is_enforced(make_repo) -> None:
    repo = make_repo()
    with pytest.raises(GitTimeoutError):
        GitRunner(repo, timeout=1e-9).run(["status"])


def test_input_and_text(make_repo) -> None:
    repo = make_repo()
    runner = GitRunner(repo)
    oid = runner.text(["hash-object", "--no-filters", "--stdin"], input=b"a\r\nb\r\n").strip()
    assert oid == blob_oid(b"a\r\nb\r\n")
    assert runner.run(["rev-parse", "--show-toplevel"]).text.strip() == str(repo.resolve())


def test_a_folder_made_a_repo_of_its_own_is_that_repo_at_once(tmp_path: Path) -> None:
    """The work tree a folder is in is asked of git once per process (``GitRunner.repo_info``),
    and asked again when it may have changed: ``git init`` in a project's folder makes the folder
    a repo of its own, and a handle made after that names the folder, not the project."""
    from amr_tui.git.handle import RepoHandle

    project = tmp_path / "project"
    memory = project / "memory"
    memory.mkdir(parents=True)
    git(project, "init", "-q")
    assert RepoHandle(memory).root == project.resolve()
    git(memory, "init", "-q")
    assert RepoHandle(memory).root == memory.resolve()
    # and back: the folder's own repo removed, the project is the repo again
    import shutil

    shutil.rmtree(memory / ".git")
    assert RepoHandle(memory).root == project.resolve()
    shutil.rmtree(project / ".git")
    with pytest.raises(NotARepoError):
        RepoHandle(memory)
