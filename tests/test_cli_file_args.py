"""Every CLI command that takes a FILE stays inside its memory repo and bounded in size.

``amr parse`` refuses a file over ``MAX_PARSE_BYTES`` (exit 2, nothing printed) and, for a file
named inside a memory repo, one whose real location is outside that repo or in its .git (a symlinked
file, a symlinked folder, another repo seen through a symlinked folder); ``amr history FILE`` and
``amr forget FILE:LINE`` find the repo the same way and refuse the same paths. Real repos and
processes, no mocks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from amr_tui.services.workspace import MAX_PARSE_BYTES
from tests.historyhelpers import git, new_repo
from tests.hostilehelpers import run_amr

SECRET = "TOP-SECRET outside the memory root"
NOTES = "# Notes\n\n- Joe leads the team [source: https://example.com/1]\n"


@pytest.fixture
def repos(tmp_path: Path) -> tuple[Path, Path]:
    """Repo ``a`` with hostile symlinks (out of the root, into .git, into repo ``b``) and a good one."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.md").write_text(f"- {SECRET} [source: https://example.com/s]\n")
    a = new_repo(tmp_path / "a", {"MEMORY.md": "# Memory\n\n## Index\n\n- [[notes]]\n", "notes.md": NOTES})
    b = new_repo(
        tmp_path / "b",
        {
            "MEMORY.md": "# Memory\n\n## Index\n\n- [[notes]]\n",
            "notes.md": f"# Notes\n\n- {SECRET} in repo b [source: https://example.com/b]\n",
        },
    )
    os.symlink(tmp_path / "outside" / "secret.md", a / "passwd.md")
    os.symlink(tmp_path / "outside", a / "out-dir")
    os.symlink(a / ".git" / "config", a / "config.md")
    os.symlink(b / "notes.md", a / "b-notes.md")
    os.symlink(b, a / "b-dir")
    os.symlink("notes.md", a / "alias.md")
    return a, b


ESCAPING = ["passwd.md", "out-dir/secret.md", "config.md", ".git/config", "b-notes.md", "b-dir/notes.md"]


@pytest.mark.parametrize("name", ESCAPING)
def test_parse_refuses_a_path_that_leaves_its_repo(repos: tuple[Path, Path], name: str) -> None:
    a, _ = repos
    for cwd, arg in ((a, name), (a.parent, str(a / name))):
        run = run_amr(["parse", arg, "--json"], cwd=cwd)
        assert run.returncode == 2, (arg, run.stdout, run.stderr)
        assert run.stdout == "" and SECRET not in run.stderr and "Traceback" not in run.stderr
        assert "outside the memory repo" in run.stderr


def test_parse_follows_a_symlink_that_stays_inside(repos: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = repos
    run = run_amr(["parse", "alias.md"], cwd=a)
    assert run.returncode == 0 and "Joe leads the team" in run.stdout
    os.symlink(b, tmp_path / "b-link")  # a repo reached by a symlinked name, from outside any repo
    run = run_amr(["parse", str(tmp_path / "b-link" / "notes.md")], cwd=tmp_path)
    assert run.returncode == 0 and "in repo b" in run.stdout
    (tmp_path / "plain.md").write_text("- a fact outside any repo\n")
    assert "a fact outside any repo" in run_amr(["parse", "plain.md"], cwd=tmp_path).stdout


def test_parse_refuses_a_file_over_the_limit(repos: tuple[Path, Path], tmp_path: Path) -> None:
    a, _ = repos
    line = "- A fact about the service [source: https://example.com/x; added: 2026-10-01]\n"
    big = line * (MAX_PARSE_BYTES // len(line) + 2)
    (a / "big.md").write_text(big)
    (tmp_path / "big.md").write_text(big)
    for cwd, arg in ((a, "big.md"), (tmp_path, "big.md")):
        for json_flag in ([], ["--json"]):
            run = run_amr(["parse", arg, *json_flag], cwd=cwd, timeout=60)
            assert run.returncode == 2, (cwd, run.stderr)
            assert run.stdout == "" and "8 MiB" in run.stderr and "nothing was parsed" in run.stderr
    (a / "fits.md").write_text(line * 10)
    run = run_amr(["parse", "fits.md", "--json"], cwd=a)
    assert run.returncode == 0 and run.stdout.count('"line"') == 10


@pytest.mark.parametrize("name", ESCAPING)
def test_history_refuses_a_path_that_leaves_its_repo(repos: tuple[Path, Path], name: str) -> None:
    a, _ = repos
    for argv in (["history", name], ["history", f"{name}:3", "--json"]):
        run = run_amr(argv, cwd=a)
        assert run.returncode == 2, (argv, run.stdout, run.stderr)
        assert run.stdout == "" and SECRET not in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("name", ["b-notes.md", "b-dir/notes.md", "passwd.md"])
def test_forget_never_writes_through_a_symlink_out_of_its_repo(repos: tuple[Path, Path], name: str) -> None:
    a, b = repos
    heads = (git(a, "rev-parse", "HEAD"), git(b, "rev-parse", "HEAD"))
    run = run_amr(["forget", f"{name}:3", "--reason", "test"], cwd=a)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert (git(a, "rev-parse", "HEAD"), git(b, "rev-parse", "HEAD")) == heads
    assert not (a / ".amr").exists() and not (b / ".amr").exists()
    assert SECRET in (b / "notes.md").read_text()


def test_history_and_forget_still_follow_a_symlink_inside_the_repo(repos: tuple[Path, Path]) -> None:
    a, _ = repos
    run = run_amr(["history", "alias.md"], cwd=a)
    assert run.returncode == 0 and "Create memory repo" in run.stdout
    run = run_amr(["history", "alias.md:3"], cwd=a)
    assert run.returncode == 0 and run.stdout.startswith("notes.md:3")


def test_restore_refuses_a_target_that_leaves_the_repo(repos: tuple[Path, Path], tmp_path: Path) -> None:
    a, _ = repos
    git(a, "rm", "-q", "notes.md")
    git(a, "commit", "-q", "-m", "drop notes")
    listed = run_amr(["forgotten", "--json"], cwd=a)
    fid = listed.stdout.split('"id": "')[1].split('"')[0]
    for target in ("passwd.md", "out-dir/secret.md", "b-notes.md", "../outside/new.md"):
        run = run_amr(["forgotten", "--restore", fid, "--to", target], cwd=a)
        assert run.returncode == 2, (target, run.stdout, run.stderr)
    assert SECRET in (tmp_path / "outside" / "secret.md").read_text()
    assert not (tmp_path / "outside" / "new.md").exists()


ESCAPING_FOLDERS = ["out-dir", "b-dir", ".git"]


def _refuse_lint_search_and_share(repos: tuple[Path, Path], tmp_path: Path, names: list[tuple[Path, str]]) -> None:
    """``amr lint``, ``search`` and ``share`` run in each folder on each name refuse it, print
    nothing, name no secret and write nothing."""
    a, b = repos
    heads = (git(a, "rev-parse", "HEAD"), git(b, "rev-parse", "HEAD"))
    for cwd, arg in names:
        for argv in (
            ["lint", arg],
            ["lint", arg, "--json", "--fix"],
            ["search", "SECRET", arg, "--json"],
            ["share", arg, "--preview"],
            ["share", arg, "--into", str(tmp_path / "session")],
        ):
            run = run_amr(argv, cwd=cwd)
            assert run.returncode == 2, (argv, run.stdout, run.stderr)
            assert run.stdout == "" and SECRET not in run.stderr and "Traceback" not in run.stderr, argv
            assert "outside the memory repo" in run.stderr and "../b" not in run.stderr, argv
    assert not (tmp_path / "session").exists()
    assert (git(a, "rev-parse", "HEAD"), git(b, "rev-parse", "HEAD")) == heads


@pytest.mark.parametrize("name", ESCAPING + ESCAPING_FOLDERS)
def test_lint_search_and_share_refuse_a_path_that_leaves_its_repo(
    repos: tuple[Path, Path], tmp_path: Path, name: str
) -> None:
    """They followed the symlink: ``amr lint b-notes.md`` linted repo b's file and printed its path,
    ``amr search`` searched all of repo b, ``amr share`` shared repo b, ``amr lint out-dir`` linted
    the folder outside. The name as given in the repo; the absolute path from outside it is
    the slow test below for every name, and the next test for one of each kind."""
    a, _ = repos
    _refuse_lint_search_and_share(repos, tmp_path, [(a, name)])


def test_lint_search_and_share_refuse_an_absolute_path_that_leaves_its_repo(
    repos: tuple[Path, Path], tmp_path: Path
) -> None:
    """The same, named by absolute path from the folder above the repo: a file out of the root, a
    folder into another repo, the .git folder."""
    a, _ = repos
    _refuse_lint_search_and_share(repos, tmp_path, [(a.parent, str(a / n)) for n in ("passwd.md", "b-dir", ".git")])


@pytest.mark.slow
@pytest.mark.parametrize("name", ESCAPING + ESCAPING_FOLDERS)
def test_lint_search_and_share_refuse_every_absolute_path_that_leaves_its_repo(
    repos: tuple[Path, Path], tmp_path: Path, name: str
) -> None:
    a, _ = repos
    _refuse_lint_search_and_share(repos, tmp_path, [(a.parent, str(a / name))])


@pytest.mark.slow
def test_lint_search_and_share_still_follow_paths_that_stay_inside(repos: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = repos
    run = run_amr(["lint", "alias.md", "--json"], cwd=a)
    assert run.returncode == 0 and '"diagnostics": []' in run.stdout, run.stderr
    run = run_amr(["search", "Joe", "alias.md"], cwd=a)
    assert run.returncode == 0 and "a/notes.md:3" in run.stdout, run.stderr
    run = run_amr(["share", "alias.md", "--preview"], cwd=a)
    assert run.returncode == 0 and run.stdout.startswith("a (whole repo"), run.stderr
    run = run_amr(["lint", "."], cwd=a)  # the repo itself: the escaping symlinks are findings, not followed
    assert run.returncode == 1 and "AMR012" in run.stdout and SECRET not in run.stdout
    run = run_amr(["search", "SECRET", "a", "b"], cwd=tmp_path)  # repos named, and a folder holding them
    assert run.returncode == 0 and "b/notes.md:3" in run.stdout
    assert run_amr(["search", "SECRET", "."], cwd=tmp_path).returncode == 0
    os.symlink(b, tmp_path / "b-link")  # a repo reached by a symlinked name, from outside any repo
    for argv in (
        ["search", "SECRET", "b-link/notes.md"],
        ["search", "SECRET", "b-link"],
        ["lint", "b-link"],
        ["lint", "b-link/notes.md"],
        ["share", "b-link", "--preview"],
    ):
        run = run_amr(argv, cwd=tmp_path)
        assert run.returncode == 0, (argv, run.stdout, run.stderr)
