"""services.demo: deterministic demo repos with agent history and a pending dreaming run."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from amr_tui.git import GitRepo, is_memory_repo
from amr_tui.services.demo import DREAM_BRANCH, MARKER, DemoError, DemoRefusedError, build_demo


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=dict(os.environ), check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("demo-a")
    build_demo(dest)
    return dest


def test_builds_two_memory_repos(demo: Path) -> None:
    for name in ("memory-alice", "memory-bob"):
        repo = demo / name
        assert is_memory_repo(repo)
        r = GitRepo(repo)
        assert r.status().is_clean and r.current_branch() == "main"
        memory = (repo / "MEMORY.md").read_text()
        assert memory.startswith("# Memory: ") and "\n## Index\n- [[" in memory
        assert "[source: https://" in memory and "; added: 2026-" in memory


def test_is_deterministic(demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A different ambient identity and clock must not change a single object id.
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Someone Else")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2030-01-01T00:00:00+00:00")
    paths = build_demo(tmp_path / "demo-b")
    for name, other in zip(("memory-alice", "memory-bob"), paths):
        a = git(demo / name, "for-each-ref", "--format=%(refname) %(objectname)")
        b = git(other, "for-each-ref", "--format=%(refname) %(objectname)")
        assert a == b


def test_alice_history_and_files(demo: Path) -> None:
    repo = demo / "memory-alice"
    for rel in (
        "team_structure.md",
        "projects/payments.md",
        "projects/website.md",
        "billing/count_paying_customers.sql",
        "tooling/bun.md",
        "landing-page.md",
        "styling.md",
        "dev-port.md",
        "backend/redis.md",
        "backend/migrations.md",
    ):
        assert (repo / rel).is_file(), rel
    assert "SELECT COUNT(DISTINCT" in (repo / "billing/count_paying_customers.sql").read_text()
    assert "Dev server was on port 3001 this afternoon" in (repo / "dev-port.md").read_text()
    authors = set(git(repo, "log", "--format=%an").splitlines())
    assert {"Claude Code", "Devin session 101", "Cursor agent"} <= authors
    count = int(git(repo, "rev-list", "--count", "main"))
    assert 12 <= count <= 20
    subjects = git(repo, "log", "--format=%s", "main").splitlines()
    assert "Update website team size" in subjects  # an edited entry
    assert "Forget the old staging URL" in subjects  # a deleted entry
    assert "staging-old" not in (repo / "projects/website.md").read_text()
    assert "staging-old" in git(repo, "log", "-p", "main", "--", "projects/website.md")
    assert "[[team_structure]]" in (repo / "projects/payments.md").read_text()


def test_pending_dream_branch(demo: Path) -> None:
    repo = demo / "memory-alice"
    r = GitRepo(repo)
    assert DREAM_BRANCH.startswith("dreams/") and DREAM_BRANCH in r.branches("dreams/")
    base = git(repo, "merge-base", "main", DREAM_BRANCH).strip()
    main = r.head()
    assert base != main and r.is_ancestor(base, main)  # main moved on after the dream started
    assert int(git(repo, "rev-list", "--count", f"{base}..main")) in (1, 2)
    assert [c.author_name for c in r.log(rev=DREAM_BRANCH, limit=3)] == ["Devin dreaming"] * 3
    stack = r.read_blob_or_none(DREAM_BRANCH, "frontend/stack.md").decode()
    assert "https://example.com/sessions/107" in stack and "https://example.com/cursor/5d81e0" in stack
    for gone in ("landing-page.md", "styling.md", "dev-port.md"):
        assert r.read_blob_or_none(DREAM_BRANCH, gone) is None
        assert r.read_blob_or_none("main", gone) is not None
    index = r.read_blob_or_none(DREAM_BRANCH, "MEMORY.md").decode()
    assert "[[frontend/stack]]" in index and "[[dev-port]]" not in index and "[[styling]]" not in index
    assert "[[frontend/stack]]" in r.read_blob_or_none(DREAM_BRANCH, "projects/website.md").decode()


def test_bob_has_one_broken_link(demo: Path) -> None:
    repo = demo / "memory-bob"
    assert "[[runbooks/rollback]]" in (repo / "deploys.md").read_text()
    assert not (repo / "runbooks").exists()
    assert "[[deploys]]" in (repo / "using_datadog_mcp.md").read_text()


def test_refuses_a_non_empty_foreign_folder(tmp_path: Path) -> None:
    dest = tmp_path / "mine"
    dest.mkdir()
    (dest / "notes.txt").write_text("keep me")
    with pytest.raises(DemoRefusedError) as info:
        build_demo(dest)
    assert isinstance(info.value, DemoError)
    assert sorted(p.name for p in dest.iterdir()) == ["notes.txt"]
    (tmp_path / "file").write_text("x")
    with pytest.raises(DemoRefusedError):
        build_demo(tmp_path / "file")


@pytest.mark.slow
def test_reuses_then_rebuilds_a_demo_folder(tmp_path: Path) -> None:
    dest = tmp_path / "demo"
    first = build_demo(dest)
    (dest / "other-stuff.txt").write_text("not ours")
    heads = [GitRepo(p).head() for p in first]
    (first[0] / "scratch.md").write_text("explored\n")
    assert build_demo(dest) == first  # reuse: nothing rebuilt
    assert (first[0] / "scratch.md").exists()
    assert build_demo(dest, rebuild=True) == first
    assert not (first[0] / "scratch.md").exists()
    assert [GitRepo(p).head() for p in first] == heads
    assert (dest / "other-stuff.txt").read_text() == "not ours" and (dest / MARKER).is_file()
