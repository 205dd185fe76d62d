"""git.worktree: path safety, O_NOFOLLOW reads, atomic bytes-only writes, temp-file sweeping."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from amr_tui.git.worktree import (
    TEMP_PREFIX,
    FileTooLargeError,
    UnsafePathError,
    atomic_write,
    read_file,
    read_file_or_none,
    remove_file,
    safe_path,
    sweep_temp_files,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "memory"
    (r / ".git").mkdir(parents=True)
    (r / ".git" / "config").write_text("[core]\n")
    (r / "notes").mkdir()
    (r / "notes" / "a.md").write_bytes(b"- a\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    return r


@pytest.mark.parametrize(
    "bad",
    [
        "../outside.txt",
        "notes/../../outside.txt",
        "/etc/passwd",
        ".git/config",
        ".git",
        "notes/.git/x",
        ".GIT/config",
        "",
        ".",
        "a\nb.md",
        "a\x00b",
        "notes/../..",
    ],
)
def test_safe_path_rejects(root: Path, bad: str) -> None:
    with pytest.raises(UnsafePathError):
        safe_path(root, bad)


def test_safe_path_accepts_and_normalises(root: Path) -> None:
    assert safe_path(root, "notes/a.md") == root.resolve() / "notes" / "a.md"
    assert safe_path(root, "./notes//a.md") == root.resolve() / "notes" / "a.md"
    assert safe_path(root, "new/deeper/file.md") == root.resolve() / "new" / "deeper" / "file.md"


def test_symlinks_pointing_outside_are_rejected(root: Path, tmp_path: Path) -> None:
    (root / "leak.md").symlink_to(tmp_path / "outside.txt")
    (root / "leakdir").symlink_to(tmp_path)
    (root / "gitlink").symlink_to(root / ".git")
    for rel in ("leak.md", "leakdir/outside.txt", "leakdir/new.md", "gitlink/config"):
        with pytest.raises(UnsafePathError):
            safe_path(root, rel)
    with pytest.raises(UnsafePathError):
        read_file(root, "leak.md")
    with pytest.raises(UnsafePathError):
        atomic_write(root, "leakdir/new.md", b"x")
    assert not (tmp_path / "new.md").exists()
    assert (tmp_path / "outside.txt").read_text() == "secret\n"


def test_symlink_inside_root_is_read_but_never_written_through(root: Path) -> None:
    (root / "alias.md").symlink_to(root / "notes" / "a.md")
    assert read_file(root, "alias.md") == b"- a\n"
    with pytest.raises(UnsafePathError):
        atomic_write(root, "alias.md", b"x")
    assert (root / "notes" / "a.md").read_bytes() == b"- a\n"


def test_read_file_limits(root: Path) -> None:
    (root / "big.md").write_bytes(b"x" * 1000)
    assert read_file(root, "big.md", max_bytes=1000) == b"x" * 1000
    with pytest.raises(FileTooLargeError):
        read_file(root, "big.md", max_bytes=999)
    with pytest.raises(FileNotFoundError):
        read_file(root, "missing.md")
    assert read_file_or_none(root, "missing.md") is None
    with pytest.raises(IsADirectoryError):
        read_file(root, "notes")


def test_atomic_write_keeps_bytes_exactly(root: Path) -> None:
    data = b"# M\r\n\r\n- caf\xc3\xa9\r\n- no newline at end\r\n- lone \r and \xff byte"
    atomic_write(root, "notes/crlf.md", data)
    assert (root / "notes" / "crlf.md").read_bytes() == data
    assert read_file(root, "notes/crlf.md") == data
    atomic_write(root, "new/dir/file.md", b"x\n")
    assert (root / "new" / "dir" / "file.md").read_bytes() == b"x\n"
    assert not [p for p in root.rglob(f"{TEMP_PREFIX}*")]
    with pytest.raises(TypeError):
        atomic_write(root, "notes/a.md", "text")  # type: ignore[arg-type]


def test_atomic_write_preserves_mode(root: Path) -> None:
    target = root / "notes" / "tool.sh"
    target.write_bytes(b"#!/bin/sh\n")
    target.chmod(0o750)
    atomic_write(root, "notes/tool.sh", b"#!/bin/sh\necho hi\n")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o750
    assert target.read_bytes() == b"#!/bin/sh\necho hi\n"


def test_atomic_write_refuses_directories_and_git(root: Path) -> None:
    with pytest.raises(UnsafePathError):
        atomic_write(root, "notes", b"x")
    with pytest.raises(UnsafePathError):
        atomic_write(root, ".git/config", b"[core]\nfsmonitor = evil\n")
    assert (root / ".git" / "config").read_text() == "[core]\n"


def test_remove_file(root: Path) -> None:
    assert remove_file(root, "notes/a.md")
    assert not (root / "notes" / "a.md").exists()
    assert not remove_file(root, "notes/a.md")


def test_sweep_temp_files(root: Path, tmp_path: Path) -> None:
    old = root / "notes" / f"{TEMP_PREFIX}a.md-123"
    fresh = root / f"{TEMP_PREFIX}b.md-456"
    in_git = root / ".git" / f"{TEMP_PREFIX}c-789"
    for p in (old, fresh, in_git):
        p.write_bytes(b"partial")
    an_hour_ago = time.time() - 3600
    os.utime(old, (an_hour_ago, an_hour_ago))
    os.utime(in_git, (an_hour_ago, an_hour_ago))
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    link = root / f"{TEMP_PREFIX}link"
    link.symlink_to(victim)
    os.utime(link, (an_hour_ago, an_hour_ago), follow_symlinks=False)
    removed = sweep_temp_files(root, older_than=60)
    assert removed == [old]
    assert fresh.exists() and in_git.exists() and link.is_symlink() and victim.exists()
