"""Opening a repo writes nothing, not even in its git dir: the app, `amr search`, `amr lint` and
`amr mcp`'s load leave every file and folder under .git as they found it (names, sizes, mtimes,
bytes). What amr keeps about a clone it only read (that it told you the merge driver is missing)
lives in the user's data folder, keyed by the repo's path."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from tests.driver import app_for, running
from tests.mcp_client import amr_mcp
from tests.test_cli import amr

MEMORY = "# Memory\n\n- Deploys go out on Tuesdays [source: https://example.com/a]\n\n## Index\n- [[notes]]\n"


def listing(git_dir: Path) -> dict[str, tuple[object, ...]]:
    """Every path under ``git_dir`` (nothing excluded) with its kind, size, mtime and, for a
    file, a digest of its bytes."""
    out: dict[str, tuple[object, ...]] = {}
    for folder, dirs, files in os.walk(git_dir):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            st = path.lstat()
            rel = path.relative_to(git_dir).as_posix()
            if name in files and not path.is_symlink():
                out[rel] = ("file", st.st_size, st.st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest())
            else:
                out[rel] = ("dir" if name in dirs else "link", st.st_mtime_ns)
    out["."] = ("dir", git_dir.stat().st_mtime_ns)
    return out


def changed(before: dict[str, tuple[object, ...]], after: dict[str, tuple[object, ...]]) -> list[str]:
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


@pytest.fixture
def repo(make_repo) -> Path:
    # No merge driver in this clone: the app tells so once, and used to record it in .git/amr.
    return make_repo("memory", {"MEMORY.md": MEMORY, "notes.md": "# Notes\n\n- Redis runs on port 6380\n"})


@pytest.mark.slow
async def test_opening_in_the_app_leaves_the_git_dir_as_it_was(repo: Path) -> None:
    before = listing(repo / ".git")
    app = app_for([repo], poll_interval=0.2)
    async with running(app) as drive:
        await drive.ready()
        await drive.until(lambda: any("merge driver" in str(n.message) for n in _notes(app)), what="the driver note")
        await drive.pilot.pause(1.0)  # a few polls and the badges' git status
        await drive.settled()
    assert changed(before, listing(repo / ".git")) == []


def _notes(app):
    from tests.driver import notes

    return notes(app)


def test_search_and_lint_leave_the_git_dir_as_it_was(repo: Path) -> None:
    before = listing(repo / ".git")
    assert amr("search", "redis", str(repo)).returncode == 0
    assert amr("search", "--history", "redis", str(repo)).returncode in (0, 1)  # 1: nothing deleted
    assert amr("lint", str(repo)).returncode in (0, 1)
    assert amr("lint", cwd=repo).returncode in (0, 1)
    assert changed(before, listing(repo / ".git")) == []


@pytest.mark.slow
async def test_mcp_load_leaves_the_git_dir_as_it_was(repo: Path, tmp_path: Path) -> None:
    before = listing(repo / ".git")
    async with amr_mcp(repo, home=tmp_path / "home") as client:
        is_error, data = await client.call("memory_load")
        assert not is_error and data["repos"]
        is_error, _ = await client.call("memory_search", {"query": "redis"})
        assert not is_error
    assert changed(before, listing(repo / ".git")) == []


def test_the_driver_note_is_kept_in_the_user_data_folder(make_repo) -> None:
    from platformdirs import user_data_dir

    from amr_tui.services.sync.gitattrs import tell_missing_driver_once

    repo = make_repo("memory")
    assert tell_missing_driver_once(repo) is True
    assert tell_missing_driver_once(repo) is False
    assert not (repo / ".git" / "amr").exists()
    kept = Path(user_data_dir("amr", appauthor=False))
    assert any(kept.rglob("*")), "the note lives in the user data folder"
    moved = repo.parent / "moved"
    repo.rename(moved)  # another path is another clone as far as the note goes
    assert tell_missing_driver_once(moved) is True
