"""The write gate (amr_tui.git.gate): merges onto what is committed, never sweeps someone else's
uncommitted change into amr's commit, and never loses a byte written to the file while it works.

Every test runs real git in a temp repo; the "agent" is plain file writes and plain git.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from amr_tui.git import GitRepo
from amr_tui.git.errors import ConflictError
from amr_tui.git.gate import STEPS, Change, commit_files
from tests.conftest import git

BASE = b"# Memory\n\n- Use npm for the website [added: 2026-09-01]\n- Deploy with fly\n\n## Index\n"


def _show(root: Path, rev: str, path: str) -> bytes:
    return git(root, "show", f"{rev}:{path}").encode()


def _status(root: Path) -> str:
    return git(root, "status", "--porcelain")


def test_a_change_based_on_an_old_version_keeps_the_agents_commit(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    (root / "MEMORY.md").write_bytes(BASE + b"- Agent fact\n")
    git(root, "commit", "-qam", "agent")
    want = BASE.replace(b"Deploy with fly", b"Deploy with fly.io")
    res = commit_files(repo, [Change("MEMORY.md", BASE, want)], "Edit")
    final = _show(root, "HEAD", "MEMORY.md")
    assert b"fly.io" in final and b"Agent fact" in final
    assert res.merged == ("MEMORY.md",)
    assert _status(root) == ""


def test_the_same_entry_changed_on_both_sides_is_a_conflict_not_a_revert(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    head = git(root, "rev-parse", "HEAD").strip()
    (root / "MEMORY.md").write_bytes(BASE.replace(b"npm", b"npm and yarn"))
    git(root, "commit", "-qam", "agent: yarn too")
    want = BASE.replace(b"- Use npm", b"- Always use npm")
    with pytest.raises(ConflictError):
        commit_files(repo, [Change("MEMORY.md", BASE, want)], "Edit")
    assert git(root, "rev-parse", "HEAD~1").strip() == head
    assert b"npm and yarn" in (root / "MEMORY.md").read_bytes()


def test_someone_elses_uncommitted_line_stays_out_of_the_commit_and_in_the_file(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    dirty = BASE.replace(b"## Index\n", b"## Index\n") + b"- Uncommitted agent line\n"
    (root / "MEMORY.md").write_bytes(dirty)
    want = dirty.replace(b"Deploy with fly", b"Deploy with fly [added: 2026-12-01]")  # the user saw the dirty file
    res = commit_files(repo, [Change("MEMORY.md", dirty, want)], "Date an entry")
    committed = _show(root, "HEAD", "MEMORY.md")
    assert b"added: 2026-12-01" in committed
    assert b"Uncommitted agent line" not in committed
    on_disk = (root / "MEMORY.md").read_bytes()
    assert b"Uncommitted agent line" in on_disk and b"added: 2026-12-01" in on_disk
    assert res.foreign == ("MEMORY.md",)
    assert _status(root).strip() == "M MEMORY.md"  # only the agent's line is left uncommitted


def test_a_foreign_staged_change_stays_staged(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    (root / "MEMORY.md").write_bytes(BASE + b"- Staged by an agent\n")
    git(root, "add", "MEMORY.md")
    want = BASE.replace(b"fly", b"fly.io")
    commit_files(repo, [Change("MEMORY.md", BASE, want)], "Edit")
    assert b"Staged by an agent" not in _show(root, "HEAD", "MEMORY.md")
    staged = git(root, "show", ":MEMORY.md").encode()
    assert b"Staged by an agent" in staged and b"fly.io" in staged


def _outside_writer(root: Path, how: str, counter: list[int]):
    """A write from outside the gate, by path, the way agents write files."""

    def write(step: str) -> None:
        counter[0] += 1
        line = f"- outside write {counter[0]} at {step}\n".encode()
        path = root / "MEMORY.md"
        if how == "append":
            with open(path, "ab") as f:
                f.write(line)
        else:  # read, write a temp file, rename it over (editors and many agents)
            data = path.read_bytes()
            tmp = root / f".agent-tmp-{counter[0]}"
            tmp.write_bytes(data + line)
            os.replace(tmp, path)

    return write


@pytest.mark.parametrize("how", ["append", "rename"])
@pytest.mark.parametrize("at", STEPS)
def test_no_write_from_outside_is_lost_at_any_step(make_repo, at: str, how: str) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    counter = [0]
    writer = _outside_writer(root, how, counter)
    fired: list[str] = []

    def probe(step: str) -> None:
        if step == at and not fired:
            fired.append(step)
            writer(step)

    want = BASE.replace(b"Deploy with fly", b"Deploy with fly.io")
    commit_files(repo, [Change("MEMORY.md", BASE, want)], "Edit", probe=probe)
    assert fired == [at]
    on_disk = (root / "MEMORY.md").read_bytes()
    committed = _show(root, "HEAD", "MEMORY.md")
    assert f"outside write 1 at {at}".encode() in on_disk, on_disk
    assert b"fly.io" in on_disk and b"fly.io" in committed
    assert b"outside write" not in committed


@pytest.mark.parametrize("at", ["head", "merged", "built"])
def test_an_agent_commit_at_any_step_before_the_lock_is_kept(make_repo, at: str) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    fired: list[str] = []

    def probe(step: str) -> None:
        if step == at and not fired:
            fired.append(step)
            with open(root / "MEMORY.md", "ab") as f:
                f.write(b"- agent committed this\n")
            git(root, "commit", "-qam", "agent")

    want = BASE.replace(b"Deploy with fly", b"Deploy with fly.io")
    commit_files(repo, [Change("MEMORY.md", BASE, want)], "Edit", probe=probe)
    committed = _show(root, "HEAD", "MEMORY.md")
    assert b"agent committed this" in committed and b"fly.io" in committed
    assert _status(root) == ""
    assert "agent" in git(root, "log", "--format=%s", "-3")


def test_deleting_a_file_someone_is_editing_keeps_their_text(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode(), "notes.md": "# Notes\n\n- one\n"})
    repo = GitRepo(root)
    (root / "notes.md").write_bytes(b"# Notes\n\n- one\n- uncommitted two\n")
    commit_files(repo, [Change("notes.md", b"# Notes\n\n- one\n", None)], "Delete notes.md")
    assert "notes.md" not in git(root, "ls-files")
    assert b"uncommitted two" in (root / "notes.md").read_bytes()


def test_a_branch_that_is_not_checked_out_moves_without_touching_the_work_tree(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    git(root, "branch", "side")
    (root / "MEMORY.md").write_bytes(BASE + b"- dirty\n")
    res = commit_files(repo, [Change("MEMORY.md", BASE, BASE + b"- on side\n")], "Side", branch="side")
    assert b"on side" in _show(root, "side", "MEMORY.md")
    assert (root / "MEMORY.md").read_bytes() == BASE + b"- dirty\n"
    assert res.committed


def test_editing_a_line_someone_left_uncommitted_commits_the_users_line(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    read_at = git(root, "rev-parse", "HEAD").strip()
    dirty = BASE + b"- Uncommitted agent fact\n"
    (root / "MEMORY.md").write_bytes(dirty)
    want = dirty.replace(b"Uncommitted agent fact", b"Agent fact, corrected by the user")
    commit_files(repo, [Change("MEMORY.md", dirty, want, read_at)], "Edit")
    committed = _show(root, "HEAD", "MEMORY.md")
    assert b"corrected by the user" in committed and b"Uncommitted agent fact" not in committed
    assert _status(root) == ""


def test_deleting_a_line_the_agent_committed_after_the_user_read_it_deletes_it(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    read_at = git(root, "rev-parse", "HEAD").strip()
    dirty = BASE + b"- Agent fact\n"
    (root / "MEMORY.md").write_bytes(dirty)
    git(root, "commit", "-qam", "agent")  # committed after the user opened the file
    want = BASE  # the user deleted the agent's line
    commit_files(repo, [Change("MEMORY.md", dirty, want, read_at)], "Remove entry")
    assert b"Agent fact" not in _show(root, "HEAD", "MEMORY.md")
    assert _status(root) == ""
