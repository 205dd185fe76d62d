"""Sharing for pairing: preview, whole and partial shares (leak-proof), grants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amr_tui.core.lint.repo import load_budget
from amr_tui.git import GitRepo
from amr_tui.git.rewrite import list_tree
from amr_tui.services.share.build import preview, select, share
from amr_tui.services.workspace import discover
from tests.synchelpers import amr, commit_all, git, write_files

SECRET = "- Alice's salary is 123456 [source: https://example.com/s/secret]\n"


def _history(root: Path) -> None:
    """A source repo whose history mixes shared and unshared paths (every blob unique)."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_files(
        root,
        {
            "MEMORY.md": "# Memory: Alice\n\n- Alice leads product [source: s/1]\n\n## Index\n- [[projects/payments]]\n- [[team]]\n- [[private/hr]]\n",
            "projects/payments.md": "# Payments\n\n- Launch 2026-10-15 [source: s/2]\n",
            "team.md": "# Team\n\n- Bob reviews schema PRs [source: s/3]\n",
        },
    )
    commit_all(root, "Create memory")
    write_files(root, {"private/hr.md": "# HR\n\n" + SECRET})
    commit_all(root, "HR notes (private)")
    write_files(
        root,
        {
            "projects/payments.md": "# Payments\n\n- Launch 2026-10-15 [source: s/2]\n- Uses Stripe [source: s/4]\n",
            "team.md": "# Team\n\n- Bob reviews schema PRs [source: s/3]\n- Carol on call [source: s/5]\n",
        },
    )
    commit_all(root, "Payments and team")
    git(root, "checkout", "-q", "-b", "side")
    write_files(root, {"private/hr.md": "# HR\n\n" + SECRET + "- Bonus talk in May [source: s/6]\n"})
    commit_all(root, "More HR (private)")
    git(root, "checkout", "-q", "main")
    write_files(root, {"projects/website.md": "# Website\n\n- Ships with payments [source: s/7]\n"})
    commit_all(root, "Website")
    git(root, "merge", "-q", "--no-ff", "-m", "Merge side", "side")
    (root / "private" / "hr.md").write_text("# HR\n\n- (cleared)\n")
    (root / "notes.txt").write_text("scratch: api key sk-test-123\n")
    commit_all(root, "Clear HR; scratch note")


def _blobs_by_path(root: Path) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for commit in git(root, "rev-list", "--all").stdout.split():
        for rec in git(root, "ls-tree", "-r", commit).stdout.splitlines():
            meta, path = rec.split("\t", 1)
            out.setdefault(path, set()).add(meta.split()[2])
    return out


def test_partial_share_leaks_no_object_outside_the_selection(tmp_path):
    src = tmp_path / "memory-alice"
    _history(src)
    (sel,) = select(discover([src]), ["memory-alice:MEMORY.md,projects/"])
    made = share([sel], tmp_path / "session")
    dest = made[0].path
    assert made[0].kind == "partial" and dest == tmp_path / "session" / "memory-alice"

    by_path = _blobs_by_path(src)
    shared_blobs = set().union(*(b for p, b in by_path.items() if p == "MEMORY.md" or p.startswith("projects/")))
    unshared_blobs = set().union(
        *(b for p, b in by_path.items() if not (p == "MEMORY.md" or p.startswith("projects/")))
    )
    assert unshared_blobs and not (unshared_blobs & shared_blobs)
    reachable = {line.split()[0] for line in git(dest, "rev-list", "--objects", "--all").stdout.splitlines()}
    stored = {
        line.split()[0] for line in git(dest, "cat-file", "--batch-all-objects", "--batch-check").stdout.splitlines()
    }
    assert not (reachable & unshared_blobs) and not (stored & unshared_blobs)  # the proof
    assert {o for o in stored if git(dest, "cat-file", "-t", o).stdout.strip() == "blob"} <= shared_blobs
    for commit in git(dest, "rev-list", "--all").stdout.split():
        paths = git(dest, "ls-tree", "-r", "--name-only", commit).stdout.split()
        assert all(p == "MEMORY.md" or p.startswith("projects/") for p in paths)
    assert not (dest / ".git" / "objects" / "info" / "alternates").exists()
    assert git(dest, "remote").stdout == ""
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if ".git" not in p.parts and p.is_file()) == [
        "MEMORY.md",
        "projects/payments.md",
        "projects/website.md",
    ]

    fmt = "--format=%an|%ae|%ad|%cn|%cd"  # authors and dates kept; messages written from the shared change
    assert git(dest, "log", fmt).stdout == git(src, "log", fmt, "--", "MEMORY.md", "projects").stdout
    assert git(dest, "log", "--format=%s").stdout.splitlines() == [
        "Add projects/website.md (+1 entry)",
        "Update projects/payments.md (+1 entry)",
        "Add 2 files (+5 entries)",
    ]
    assert "HR notes" not in git(dest, "log", "--all", "--format=%B").stdout

    again = share([sel], tmp_path / "again")[0]
    assert again.commit == made[0].commit  # deterministic
    manifest = json.loads((tmp_path / "session" / ".amr-share.json").read_text())["repos"]
    assert [(m["repo"], m["kind"], m["paths"], m["write"]) for m in manifest] == [
        ("memory-alice", "partial", ["MEMORY.md", "projects"], False)
    ]
    owner = json.loads((src / ".git" / "amr" / "shares.json").read_text())["shares"]  # the owner's record
    assert owner[str((tmp_path / "session").resolve())]["paths"] == ["MEMORY.md", "projects"]
    # the folder handed to the pairing session names no path of the owner's machine (issue 28 point 5)
    text = (tmp_path / "session" / ".amr-share.json").read_text()
    assert str(tmp_path) not in text and "source" not in json.loads(text)["repos"][0]


def test_whole_share_is_a_clone_of_the_branch_only(tmp_path):
    src = tmp_path / "memory-alice"
    _history(src)
    git(src, "commit", "-q", "--amend", "-m", "Clear HR; scratch note (amended)")  # leaves an unreachable commit
    made = share(select(discover([src]), ["memory-alice"]), tmp_path / "s")
    dest = made[0].path
    assert made[0].kind == "clone" and git(dest, "rev-parse", "HEAD").stdout == git(src, "rev-parse", "HEAD").stdout
    assert git(dest, "for-each-ref", "--format=%(refname)").stdout.split() == ["refs/heads/main"]  # no remote
    assert git(dest, "log", "--format=%s").stdout == git(src, "log", "--format=%s").stdout  # history as it is
    stored = {
        line.split()[0] for line in git(dest, "cat-file", "--batch-all-objects", "--batch-check").stdout.splitlines()
    }
    dangling = git(src, "rev-parse", "HEAD@{1}").stdout.strip()
    assert dangling not in stored


def test_preview_budget_reachability_and_dangling_links(tmp_path):
    src = tmp_path / "memory-alice"
    _history(src)
    long = "# Memory\n\n## Index\n- [[projects/payments]]\n- [[team]]\n- [[nowhere]]\n" + "".join(
        f"- fact {i} [source: s/{i}]\n" for i in range(300)
    )
    (src / "MEMORY.md").write_text(long)
    commit_all(src, "Long memory")
    assert sorted(list_tree(GitRepo(src), "HEAD")) == [  # what a selection can choose from
        "MEMORY.md",
        "notes.txt",
        "private/hr.md",
        "projects/payments.md",
        "projects/website.md",
        "team.md",
    ]
    (pv,) = preview(select(discover([src]), ["memory-alice:MEMORY.md,projects/"]))
    assert (pv.loaded_lines, pv.cut_line, pv.memory_lines) == (200, 201, 306)
    assert pv.reachable == ("MEMORY.md", "projects/payments.md")
    assert pv.unreachable == ("projects/website.md",)
    assert [(d.target, d.reason) for d in pv.dangling] == [("team", "not shared"), ("nowhere", "missing")]
    assert any("load budget" in w for w in pv.warnings)
    (part,) = preview(select(discover([src]), ["memory-alice:projects"]))
    assert part.memory is None and part.reachable == () and any("MEMORY.md is not shared" in w for w in part.warnings)
    assert load_budget(b"x" * 30000 + b"\n") == (0, 1)
    assert load_budget(b"a\nb\n") == (2, None)
    with pytest.raises(ValueError):
        select(discover([src]), ["memory-alice:does/not/exist"])
    with pytest.raises(ValueError):
        select(discover([src]), ["memory-bob"])


def test_share_cli(tmp_path):
    src = tmp_path / "memory-alice"
    _history(src)
    out = amr(tmp_path, "share", str(src), "--preview", "--repo", "memory-alice:MEMORY.md,projects/")
    assert out.returncode == 0, out.stderr
    assert "dangling: MEMORY.md:7 [[team]] (not shared)" in out.stdout and "all loaded" in out.stdout
    res = amr(
        tmp_path,
        "share",
        str(src),
        "--into",
        str(tmp_path / "s"),
        "--repo",
        "memory-alice:projects",
        "--write",
        "memory-alice",
        "--json",
    )
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["shared"][0]["kind"] == "partial" and data["shared"][0]["write"] is True
    assert amr(tmp_path, "share", str(src)).returncode == 2  # --into is required
