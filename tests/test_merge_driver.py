"""`amr merge-driver` as git runs it, `amr merge-driver install`, AMR027's helper, and which
merge drivers may run during amr's own merges."""

from __future__ import annotations

import sys
from pathlib import Path

from amr_tui.git import GitRepo
from amr_tui.git.mergedriver import amr_driver_command, configured_merge_drivers
from amr_tui.git.merging import merge_commits
from amr_tui.services.sync.gitattrs import attributes_with_driver, undefined_merge_drivers
from tests.synchelpers import amr, git


def test_driver_merges_three_files_into_ours(tmp_path):
    base, ours, theirs = (tmp_path / n for n in ("O", "A", "B"))
    base.write_bytes(b"# F\r\n\r\n- a\r\n")
    ours.write_bytes(b"# F\r\n\r\n- a\r\n- ours\r\n")
    theirs.write_bytes(b"# F\r\n\r\n- a\r\n- theirs\r\n")
    res = amr(tmp_path, "merge-driver", "O", "A", "B", "7", "notes/f.md")
    assert res.returncode == 0, res.stderr
    assert ours.read_bytes() == b"# F\r\n\r\n- a\r\n- ours\r\n- theirs\r\n"
    ours.write_bytes(b"# F\r\n\r\n- a, edited\r\n")
    theirs.write_bytes(b"# F\r\n\r\n- a, edited differently\r\n")
    res = amr(tmp_path, "merge-driver", "O", "A", "B", "9", "f.md")
    assert res.returncode == 1
    assert ours.read_bytes().count(b"<<<<<<<<< ours\r\n") == 1
    assert amr(tmp_path, "merge-driver", "O", "A").returncode == 2
    assert amr(tmp_path, "merge-driver", "missing", "A", "B").returncode == 2


def test_install_is_idempotent_keeps_lines_and_uses_an_absolute_path(make_repo):
    root = make_repo("memory", {"MEMORY.md": "# M\n\n## Index\n", ".gitattributes": "*.sql -diff\r\n*.bin binary"})
    first = amr(root, "merge-driver", "install", str(root))
    assert first.returncode == 0, first.stderr
    assert "committed" in first.stdout and "config" in first.stdout
    assert (root / ".gitattributes").read_bytes() == b"*.sql -diff\r\n*.bin binary\r\n*.md merge=amr\r\n"
    assert git(root, "status", "--porcelain").stdout == ""
    driver = git(root, "config", "--local", "merge.amr.driver").stdout.strip()
    assert driver == amr_driver_command() and Path(sys.executable).is_absolute()
    assert driver.endswith(" -m amr_tui merge-driver %O %A %B %L %P")
    commits = git(root, "rev-list", "--count", "HEAD").stdout
    again = amr(root, "merge-driver", "install", str(root))
    assert again.returncode == 0 and "already installed" in again.stdout
    assert git(root, "rev-list", "--count", "HEAD").stdout == commits
    assert git(root, "config", "--local", "--get-all", "merge.amr.driver").stdout.count("\n") == 1


def test_attributes_with_driver():
    assert attributes_with_driver(None) == b"*.md merge=amr\n"
    assert attributes_with_driver(b"*.md merge=amr\n") is None
    assert attributes_with_driver(b"*.md merge=union\n") == b"*.md merge=union\n*.md merge=amr\n"


def test_undefined_merge_drivers(make_repo, tmp_path):
    root = make_repo(
        "memory",
        {
            "MEMORY.md": "# M\n",
            ".gitattributes": "# comment merge=nope\n*.md merge=amr\n*.txt merge=union\n",
            "sub/.gitattributes": "*.x  text  merge=custom\n",
        },
    )
    assert undefined_merge_drivers(root) == [(".gitattributes", 2, "amr"), ("sub/.gitattributes", 1, "custom")]
    assert amr(root, "merge-driver", "install", str(root)).returncode == 0
    assert undefined_merge_drivers(root) == [("sub/.gitattributes", 1, "custom")]
    assert "amr" in configured_merge_drivers(GitRepo(root).runner)
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / ".gitattributes").write_text("*.md merge=amr\n")
    assert undefined_merge_drivers(plain) == []


def test_amr_merges_run_its_driver_and_never_a_repo_configured_one(make_repo, tmp_path):
    marker = tmp_path / "pwned"
    root = make_repo(
        "memory",
        {
            "MEMORY.md": "# M\n\n- a\n",
            "q.txt": "one\n",
            ".gitattributes": "*.md merge=amr\n*.txt merge=evil\n",
        },
    )
    git(root, "config", "merge.evil.driver", f"touch {marker}; false %A")
    git(root, "config", "merge.amr.driver", f"touch {marker}; false %A")  # amr's own command wins
    base = git(root, "rev-parse", "HEAD").stdout.strip()
    git(root, "checkout", "-q", "-b", "other")
    (root / "MEMORY.md").write_text("# M\n\n- a\n- theirs\n")
    (root / "q.txt").write_text("one\ntwo\n")
    git(root, "commit", "-q", "-am", "theirs")
    theirs = git(root, "rev-parse", "HEAD").stdout.strip()
    git(root, "checkout", "-q", "main")
    (root / "MEMORY.md").write_text("# M\n\n- a\n- ours\n")
    (root / "q.txt").write_text("zero\none\n")
    git(root, "commit", "-q", "-am", "ours")
    ours = git(root, "rev-parse", "HEAD").stdout.strip()
    repo = GitRepo(root)
    tm = merge_commits(repo, ours, theirs)
    assert tm.clean, tm.conflicts
    assert not marker.exists()
    assert git(root, "cat-file", "-p", f"{tm.tree}:MEMORY.md").stdout == "# M\n\n- a\n- ours\n- theirs\n"
    assert git(root, "cat-file", "-p", f"{tm.tree}:q.txt").stdout == "zero\none\ntwo\n"  # git's text merge
    assert base != ours


def test_help_and_lint_reports_a_driver_this_clone_lacks(make_repo):
    for command in ("merge-driver", "sync", "share"):
        res = amr(Path("."), command, "--help")
        assert res.returncode == 0 and "usage: amr" in res.stdout
    root = make_repo("memory", {"MEMORY.md": "# M\n\n## Index\n", ".gitattributes": "*.md merge=amr\n"})
    before = amr(root, "lint", str(root))
    assert "AMR027" in before.stdout
    assert amr(root, "merge-driver", "install", str(root)).returncode == 0
    assert "AMR027" not in amr(root, "lint", str(root)).stdout
