"""Helpers for history, tombstone and dreaming tests: real git repos built with plain git.

Every commit gets a fixed author and date (passed per commit), so runs are reproducible. The
code under test uses its own hardened runner; set-up uses plain git, like an agent would.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
DEVIN = FIXTURES / "devin_dream"
DEVIN_BRANCH = "dreams/devin-launch"
S = "https://example.com/sessions"


def git(cwd: Path, *args: str, env: dict[str, str] | None = None, input: str | None = None) -> str:
    full = dict(os.environ)
    if env:
        full.update(env)
    res = subprocess.run(["git", *args], cwd=cwd, env=full, check=True, capture_output=True, text=True, input=input)
    return res.stdout


def who(name: str = "Test Author", date: str = "2026-10-01T12:00:00+00:00") -> dict[str, str]:
    email = name.lower().replace(" ", ".") + "@example.test"
    return {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_COMMITTER_DATE": date,
    }


def write(root: Path, files: dict[str, str | None]) -> None:
    for rel, text in files.items():
        target = root / rel
        if text is None:
            if target.exists():
                target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode())


def commit(
    root: Path,
    files: dict[str, str | None],
    message: str,
    *,
    name: str = "Test Author",
    date: str = "2026-10-01T12:00:00+00:00",
) -> str:
    """Write (None deletes) and commit exactly these files on the checked-out branch."""
    write(root, files)
    if files:  # one git add for them all (no pathspec at all would add everything)
        git(root, "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul", input="\0".join(files))
    git(root, "commit", "-q", "-m", message, env=who(name, date))
    return git(root, "rev-parse", "HEAD").strip()


def branch_commit(
    root: Path,
    branch: str,
    files: dict[str, str | None],
    message: str,
    *,
    start: str = "main",
    name: str = "Dreamer",
    date: str = "2026-10-02T03:00:00+00:00",
) -> str:
    """Commit on ``branch`` (created at ``start`` if missing) without touching the work tree."""
    exists = (
        subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"], cwd=root, capture_output=True
        ).returncode
        == 0
    )
    parent = git(root, "rev-parse", f"refs/heads/{branch}" if exists else start).strip()
    index = root / ".git" / f"tmp-index-{os.getpid()}"
    env = {**who(name, date), "GIT_INDEX_FILE": str(index)}
    try:
        git(root, "read-tree", parent, env=env)
        for rel, text in files.items():
            if text is None:
                git(root, "update-index", "--force-remove", "--", rel, env=env)
            else:
                oid = git(root, "hash-object", "-w", "--stdin", env=env, input=text).strip()
                git(root, "update-index", "--add", "--cacheinfo", f"100644,{oid},{rel}", env=env)
        tree = git(root, "write-tree", env=env).strip()
        new = git(root, "commit-tree", tree, "-p", parent, "-m", message, env=env).strip()
    finally:
        if index.exists():
            index.unlink()
    git(root, "update-ref", f"refs/heads/{branch}", new)
    return new


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (a repo's ``.git`` left out) as text."""
    return {
        p.relative_to(folder).as_posix(): p.read_text()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(folder).parts
    }


def tree_at(root: Path, rev: str) -> dict[str, str]:
    out = git(root, "ls-tree", "-r", "--name-only", rev).splitlines()
    return {p: git(root, "show", f"{rev}:{p}") for p in out}


def new_repo(path: Path, files: dict[str, str], message: str = "Create memory repo") -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    commit(path, files, message, date="2026-09-01T12:00:00+00:00")
    return path


def devin_repo(path: Path, *, steps: bool = True) -> Path:
    """The seed's Devin launch example: ``before/`` on main, ``after/`` on dreams/devin-launch.

    With ``steps`` the run is three commits (merge, drop, regroup) like a real dreaming run.
    """
    before = snapshot(DEVIN / "before")
    after = snapshot(DEVIN / "after")
    repo = new_repo(path, before, "Remember a week of sessions")
    if not steps:
        branch_commit(repo, DEVIN_BRANCH, {**{p: None for p in before if p not in after}, **after}, "dream: one pass")
        return repo
    stack = {
        "frontend/stack.md": after["frontend/stack.md"],
        "landing-page.md": None,
        "styling.md": before["styling.md"].splitlines(keepends=True)[0]
        + "\n"
        + before["styling.md"].splitlines(keepends=True)[3],
        "bun.md": after["tooling/bun.md"],
    }
    branch_commit(repo, DEVIN_BRANCH, stack, "dream: merge landing-page and styling into frontend/stack")
    branch_commit(repo, DEVIN_BRANCH, {"dev-port.md": None}, "dream: drop dev-port", date="2026-10-02T03:00:20+00:00")
    regroup = {p: None for p in before if p not in after}
    regroup.update(after)
    branch_commit(
        repo,
        DEVIN_BRANCH,
        regroup,
        "dream: regroup under tooling/, frontend/ and backend/; infer conventions",
        date="2026-10-02T03:00:40+00:00",
    )
    return repo
