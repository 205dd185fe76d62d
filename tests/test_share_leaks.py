"""Sharing leaks nothing: canaries planted everywhere a source repo can hold text (unshared files
and file names, commit messages and trailers, tags, notes, branch names, the reflog, remotes,
config) must not appear in any object or any file of the session folder. Symlinks never reach
outside the session folder."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from amr_tui.services.share.build import select, share
from amr_tui.services.workspace import discover
from tests.synchelpers import amr, commit_all, git, write_files

# Canaries in unshared file contents and names (a whole share carries them by the user's choice).
CONTENT = ["LEAKCANARY-01", "LEAKCANARY-02", "LEAKCANARY-11"]
# Canaries in commit messages and trailers of commits that touched unshared files.
MESSAGE = ["LEAKCANARY-03", "LEAKCANARY-04", "LEAKCANARY-05", "LEAKCANARY-18"]
# Canaries outside the shared branch: refs, tags, notes, reflog, remotes, config, other branches.
REPO = [
    "LEAKCANARY-06",
    "LEAKCANARY-07",
    "LEAKCANARY-08",
    "LEAKCANARY-09",
    "LEAKCANARY-10",
    "LEAKCANARY-12",
    "LEAKCANARY-13",
    "LEAKCANARY-14",
    "LEAKCANARY-15",
    "LEAKCANARY-16",
    "LEAKCANARY-17",
    "LEAKCANARY-19",
    "LEAKCANARY-20",
]
# A commit that touched only shared files, with a trailer: kept only under keep_messages.
SHARED_ONLY = ["SHAREDONLY-1", "SHAREDONLY-2"]
PLANS = "private/LEAKCANARY-11-plans.md"


def _canary_repo(root: Path) -> None:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_files(
        root,
        {
            "MEMORY.md": "# Memory\n\n## Index\n- [[projects/website]]\n",
            "projects/website.md": "# Website\n\n- Ships in October [source: s/1]\n- Plan B exists [source: s/2]\n",
            "private/hr.md": "# HR\n\n- LEAKCANARY-01 salary 123456 [source: s/3]\n",
        },
    )
    commit_all(root, "Create memory LEAKCANARY-03")
    append = {
        "projects/website.md": "# Website\n\n- Ships in October [source: s/1]\n- Plan B exists [source: s/2]\n"
        "- Uses Stripe for payments [source: s/4]\n",
        "private/hr.md": "# HR\n\n- LEAKCANARY-01 salary 123456 [source: s/3]\n- LEAKCANARY-02 bonus [source: s/5]\n",
    }
    write_files(root, append)
    git(root, "add", "-A")
    git(
        root,
        "commit",
        "-q",
        "-m",
        "remember: LEAKCANARY-03 private fact; payments fact",
        "-m",
        "Amr-Session: LEAKCANARY-04\nCo-authored-by: LEAKCANARY-05 <agent@example.test>",
    )
    write_files(root, {"projects/website.md": append["projects/website.md"] + "- Dark mode ships too [source: s/6]\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "SHAREDONLY-1 website tweak", "-m", "Shared-Trailer: SHAREDONLY-2")
    # amr's own move, in its two commits: the shared side quotes the unshared file's name
    website = (root / "projects/website.md").read_text().replace("- Plan B exists [source: s/2]\n", "")
    write_files(root, {PLANS: "# Plans\n\n- Plan B exists [source: s/2]\n"})
    commit_all(
        root, "Move entry to private/LEAKCANARY-11-plans.md from memory-alice/projects/website.md: Plan B exists"
    )
    write_files(root, {"projects/website.md": website})
    commit_all(
        root, "Move entry from projects/website.md to memory-alice/private/LEAKCANARY-11-plans.md: Plan B exists"
    )
    # a side branch with a canary name, merged with a message quoting it
    git(root, "checkout", "-q", "-b", "LEAKCANARY-08")
    write_files(
        root, {"projects/side.md": "# Side\n\n- Side fact [source: s/7]\n", "private/hr.md": "# HR\n\n- (cleared)\n"}
    )
    commit_all(root, "side work")
    git(root, "checkout", "-q", "main")
    write_files(root, {"MEMORY.md": "# Memory\n\n## Index\n- [[projects/website]]\n- [[projects/side]]\n"})
    commit_all(root, "Index the side file")
    git(root, "merge", "-q", "--no-ff", "-m", "Merge LEAKCANARY-18 into main", "LEAKCANARY-08")
    # refs, tags, notes, reflog, remotes, config, files in .git: none of it is shared
    git(root, "tag", "-a", "v1", "-m", "LEAKCANARY-09 tag message")
    git(root, "tag", "LEAKCANARY-10")
    git(root, "notes", "add", "-m", "LEAKCANARY-07 note on a shared commit", "HEAD")
    git(root, "update-ref", "-m", "LEAKCANARY-12 reflog message", "refs/heads/main", "HEAD")
    git(root, "remote", "add", "LEAKCANARY-13", "https://LEAKCANARY-14.example.test/memory.git")
    git(root, "config", "amr.canary", "LEAKCANARY-15")
    (root / ".git" / "description").write_text("LEAKCANARY-16 description\n")
    with (root / ".git" / "info" / "exclude").open("a") as f:
        f.write("# LEAKCANARY-17\n")
    git(root, "checkout", "-q", "LEAKCANARY-08")
    write_files(root, {"projects/side.md": "# Side\n\n- LEAKCANARY-20 unmerged [source: s/8]\n"})
    commit_all(root, "LEAKCANARY-19 unmerged work")
    git(root, "checkout", "-q", "main")


def _grep_everything(session: Path, repo: Path, canaries: list[str]) -> dict[str, list[str]]:
    """Where each canary appears: every object of ``repo`` and every file under ``session``
    (work trees, .git: refs, packed-refs, logs, config, description, index, ...)."""
    found: dict[str, list[str]] = {}
    objects = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo, check=True, capture_output=True
    ).stdout
    assert objects  # the store was read
    for c in canaries:
        if c.encode() in objects:
            found.setdefault(c, []).append("objects")
    for dirpath, dirnames, filenames in os.walk(session):
        for name in [*dirnames, *filenames]:
            full = Path(dirpath) / name
            rel = str(full.relative_to(session))
            for c in canaries:
                if c in name:
                    found.setdefault(c, []).append(f"name {rel}")
            if name in filenames and not full.is_symlink():
                data = full.read_bytes()
                for c in canaries:
                    if c.encode() in data:
                        found.setdefault(c, []).append(rel)
    refs = git(repo, "for-each-ref", "--format=%(refname)").stdout + git(repo, "reflog", "--all").stdout
    for c in canaries:
        if c in refs:
            found.setdefault(c, []).append("refs/reflog")
    return found


def _only_main(dest: Path) -> None:
    assert git(dest, "for-each-ref", "--format=%(refname)").stdout.split() == ["refs/heads/main"]
    assert git(dest, "symbolic-ref", "HEAD").stdout.strip() == "refs/heads/main"
    assert git(dest, "tag").stdout == "" and git(dest, "remote").stdout == ""
    assert git(dest, "notes", "list").stdout == ""
    assert not (dest / ".git" / "FETCH_HEAD").exists() and not (dest / ".git" / "shallow").exists()
    assert not (dest / ".git" / "logs").exists()  # no reflog entry (the source's or "clone: from ...")
    assert not (dest / ".git" / "objects" / "info" / "alternates").exists()


def test_partial_share_leaks_no_message_ref_or_name(tmp_path):
    src = tmp_path / "memory-alice"
    _canary_repo(src)
    session = tmp_path / "session"
    (made,) = share(select(discover([src]), ["memory-alice:MEMORY.md,projects/"]), session)
    dest = made.path
    found = _grep_everything(session, dest, CONTENT + MESSAGE + REPO + SHARED_ONLY)
    assert found == {}
    _only_main(dest)
    assert git(dest, "status", "--porcelain").stdout == ""

    log = git(dest, "log", "--reverse", "--format=%an|%ad|%cn|%cd|%B%x00").stdout.split("\0")
    subjects = [rec.split("|", 4)[4].strip() for rec in log if rec.strip()]
    assert subjects[0] == "Add 2 files (+3 entries)\n\nAdd MEMORY.md (+1 entry)\nAdd projects/website.md (+2 entries)"
    assert subjects[1] == "Update projects/website.md (+1 entry)"
    assert subjects[2] == "Update projects/website.md (+1 entry)"
    assert subjects[3] == "Update projects/website.md (-1 entry)"
    assert "Merge" in "".join(subjects)  # the merge of a side branch that touched the selection
    fmt = "--format=%an|%ae|%ad|%cn|%ce|%cd"  # authors, committers and dates are the commits' own
    assert (
        git(dest, "log", "--first-parent", fmt).stdout
        == git(src, "log", "--first-parent", fmt, "main", "--", "MEMORY.md", "projects").stdout
    )


def test_keep_messages_keeps_only_messages_of_commits_that_touched_only_shared_files(tmp_path):
    src = tmp_path / "memory-alice"
    _canary_repo(src)
    session = tmp_path / "session"
    (made,) = share(select(discover([src]), ["memory-alice:MEMORY.md,projects/"]), session, keep_messages=True)
    dest = made.path
    # LEAKCANARY-11 is quoted by amr's move commit that touched only the shared file: kept, as asked
    assert set(_grep_everything(session, dest, CONTENT + MESSAGE + REPO)) <= {"LEAKCANARY-11"}
    messages = git(dest, "log", "--format=%B%x00").stdout
    assert "SHAREDONLY-1 website tweak\n\nShared-Trailer: SHAREDONLY-2" in messages
    assert "Update projects/website.md (+1 entry)" in messages  # the commit that touched hr.md too
    assert git(dest, "log", "--format=%(trailers:only)").stdout.split() == ["Shared-Trailer:", "SHAREDONLY-2"]
    _only_main(dest)


def test_whole_share_carries_the_branch_and_nothing_else(tmp_path):
    src = tmp_path / "memory-alice"
    _canary_repo(src)
    session = tmp_path / "session"
    (made,) = share(select(discover([src]), ["memory-alice"]), session)
    dest = made.path
    assert made.kind == "clone" and git(dest, "rev-parse", "HEAD").stdout == git(src, "rev-parse", "main").stdout
    assert _grep_everything(session, dest, REPO) == {}
    _only_main(dest)
    assert (dest / "private" / "hr.md").exists()  # the whole repo, by the user's choice


def _links(root: Path) -> None:
    (root / "passwd.md").symlink_to("/etc/passwd")
    (root / "up.md").symlink_to("../../etc/hosts")
    (root / "projects" / "abs.md").symlink_to("/etc/passwd")
    (root / "projects" / "up.md").symlink_to("../../../../../etc/hosts")
    (root / "projects" / "alias.md").symlink_to("website.md")
    commit_all(root, "links")


def _nothing_resolves_outside(session: Path) -> None:
    top = os.path.realpath(session)
    for dirpath, dirnames, filenames in os.walk(session):
        for name in [*dirnames, *filenames]:
            full = os.path.join(dirpath, name)
            assert not os.path.islink(full), full
            real = os.path.realpath(full)
            assert real == top or real.startswith(top + os.sep), f"{full} -> {real}"


def test_no_symlink_reaches_outside_a_partial_or_whole_share(tmp_path):
    src = tmp_path / "memory-alice"
    _canary_repo(src)
    _links(src)
    part = tmp_path / "part"
    (p,) = share(select(discover([src]), ["memory-alice:MEMORY.md,projects/"]), part)
    _nothing_resolves_outside(part)
    assert not (p.path / "projects" / "abs.md").exists() and not (p.path / "projects" / "alias.md").exists()
    whole = tmp_path / "whole"
    (w,) = share(select(discover([src]), ["memory-alice"]), whole)
    _nothing_resolves_outside(whole)
    assert (w.path / "passwd.md").read_text() == "/etc/passwd"  # a plain file holding the target
    assert (w.path / "projects" / "alias.md").read_text() == "website.md"
    assert git(w.path, "status", "--porcelain").stdout == ""
    assert git(w.path, "config", "core.symlinks").stdout.strip() == "false"  # a later checkout too
    git(w.path, "checkout", "-q", "HEAD~1")
    git(w.path, "checkout", "-q", "main")
    _nothing_resolves_outside(whole)
    assert [(o.path, o.kind) for o in p.left_out] == [
        ("projects/abs.md", "symlink"),
        ("projects/alias.md", "symlink"),
        ("projects/up.md", "symlink"),
    ]
    assert {o.path for o in w.left_out} == {
        "passwd.md",
        "up.md",
        "projects/abs.md",
        "projects/up.md",
        "projects/alias.md",
    }


@pytest.mark.slow
def test_share_cli_says_what_was_left_out_and_keeps_messages_on_request(tmp_path):
    src = tmp_path / "memory-alice"
    _canary_repo(src)
    _links(src)
    res = amr(tmp_path, "share", str(src), "--into", str(tmp_path / "s"), "--repo", "memory-alice:MEMORY.md,projects/")
    assert res.returncode == 0, res.stderr
    assert "left out: projects/abs.md -> /etc/passwd (symlink, not shared)" in res.stdout
    assert "left out: projects/up.md -> ../../../../../etc/hosts (symlink, not shared)" in res.stdout
    _nothing_resolves_outside(tmp_path / "s")
    res = amr(tmp_path, "share", str(src), "--into", str(tmp_path / "w"), "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert {"path": "passwd.md", "kind": "symlink", "target": "/etc/passwd"} in data["shared"][0]["left_out"]
    _nothing_resolves_outside(tmp_path / "w")
    res = amr(
        tmp_path, "share", str(src), "--into", str(tmp_path / "k"), "--repo", "memory-alice:projects", "--keep-messages"
    )
    assert res.returncode == 0, res.stderr
    messages = git(tmp_path / "k" / "memory-alice", "log", "--format=%B").stdout
    assert "SHAREDONLY-1" in messages and "LEAKCANARY-03" not in messages
    assert "--keep-messages" in amr(tmp_path, "share", "--help").stdout


def test_the_preview_says_what_a_whole_share_does_with_a_symlink(tmp_path):
    """A whole share's preview said "left out: passwd.md -> /etc/passwd (symlink: a plain file
    holding its target)" while the share holds passwd.md, a plain file with the text /etc/passwd."""
    src = tmp_path / "memory-alice"
    _canary_repo(src)
    _links(src)
    res = amr(tmp_path, "share", str(src), "--preview")
    assert res.returncode == 0, res.stderr
    assert "left out: passwd.md" not in res.stdout
    assert (
        "warning: not a symlink in the share: passwd.md -> /etc/passwd is a plain file holding the text "
        '"/etc/passwd" (what it points at is not shared)'
    ) in res.stdout
    res = amr(tmp_path, "share", str(src), "--into", str(tmp_path / "w"))
    assert res.returncode == 0, res.stderr
    shared = tmp_path / "w" / "memory-alice" / "passwd.md"
    assert not shared.is_symlink() and shared.read_text() == "/etc/passwd"  # just what the preview said
    res = amr(tmp_path, "share", str(src), "--preview", "--repo", "memory-alice:MEMORY.md,projects/")
    assert "warning: left out: projects/abs.md -> /etc/passwd (symlink, not shared)" in res.stdout
