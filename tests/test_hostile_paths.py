"""Path safety: links and names with .., absolute paths, symlinks out of the
root and .git/... are never opened for reading or writing: not by the session, not by any edit
(new file, rename target, move target, save), not by the low-level file helpers, not by the CLI,
and not by following a link in the app."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from amr_tui.git import GitRepo
from amr_tui.git.worktree import UnsafePathError, atomic_write, read_file, remove_file
from amr_tui.services.session import editing
from amr_tui.services.session.session import OpenFile, Session
from amr_tui.services.workspace import discover, read_bytes
from tests.driver import app_for, notes, wait_for
from tests.hostilehelpers import init_repo, run_amr

SECRET = b"TOP-SECRET outside the memory root\n"

BAD_PATHS = [
    "../outside.md",
    "../../outside.md",
    "sub/../../outside.md",
    "/etc/passwd",
    "~/outside.md",
    "C:/outside.md",
    ".git/config",
    ".GIT/config",
    ".git./config",
    "sub/.git/HEAD",
    ".git",
    "out-link.md",
    "out-dir/secret.md",
    "git-link/config",
    "git-file-link",
    "a\x00b.md",
    "a\nb.md",
]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_bytes(SECRET)
    (tmp_path / "outside.md").write_bytes(SECRET)
    root = init_repo(
        tmp_path / "memory",
        {
            "MEMORY.md": "# Memory\n\n- Joe leads the team [source: https://example.com/1]\n\n## Index\n- [[notes]]\n"
            "- [[../outside]] [[out-link]] [[out-dir/secret]] [[.git/config]] [[/etc/passwd]] [[git-link/config]]\n",
            "notes.md": "- a fact [source: https://example.com/2]\n- another fact\n",
            "sub/keep.md": "- kept\n",
        },
    )
    os.symlink(tmp_path / "outside.md", root / "out-link.md")
    os.symlink(outside, root / "out-dir")
    os.symlink(root / ".git", root / "git-link")
    os.symlink(root / ".git" / "config", root / "git-file-link")
    return root


def _untouched(root: Path) -> None:
    assert (root.parent / "outside.md").read_bytes() == SECRET
    assert (root.parent / "outside" / "secret.md").read_bytes() == SECRET
    assert sorted(p.name for p in (root.parent / "outside").iterdir()) == ["secret.md"]
    config = (root / ".git" / "config").read_bytes()
    assert b"amr" not in config.lower() and b"Joe" not in config


@pytest.mark.parametrize("bad", BAD_PATHS)
def test_file_helpers_refuse(repo: Path, bad: str) -> None:
    if bad == "~/outside.md":  # not special on disk: a folder named "~" inside the root
        return
    if bad not in ("out-link.md", "git-file-link"):  # a symlink inside the root may be named, not followed out
        with pytest.raises(UnsafePathError):
            read_file(repo, bad)
    with pytest.raises((UnsafePathError, OSError)):
        atomic_write(repo, bad, b"- overwritten\n")
    with pytest.raises((UnsafePathError, OSError)):
        if remove_file(repo, bad) and bad not in ("out-link.md", "git-file-link"):
            raise AssertionError("removed")
    assert read_bytes(repo, bad) is None
    _untouched(repo)


def test_session_and_every_edit_refuse_bad_paths(repo: Path) -> None:
    s = Session(discover([repo]))
    s.load()
    assert "out-link.md" in s.repos["memory"].escaping
    head = GitRepo(repo).head()
    for bad in BAD_PATHS:
        of = s.open("memory", bad)
        assert of.data is None and of.doc is None and of.read_only, bad
        attempts = [
            lambda: editing.create_file(s, "memory", bad),
            lambda: editing.rename_file(s, "memory", "notes.md", bad),
            lambda: editing.move_entry(s, s.open("memory", "notes.md"), 1, "memory", bad),
            lambda: editing.write(s, OpenFile("memory", bad, b"", None, head), b"- written\n", "edit"),
            lambda: editing.delete_file(s, "memory", bad),
        ]
        for attempt in attempts:
            try:
                saved = attempt()
            except Exception as exc:  # refused: EditRefused, UnsafePathError, ...
                assert not isinstance(exc, AssertionError), (bad, exc)
            else:  # only "new file" may succeed, and only as a new .md file of its own
                assert saved.path == bad + ".md" and (repo / saved.path).is_file(), (bad, saved)
                assert not (repo / saved.path).is_symlink()
        _untouched(repo)
    g = GitRepo(repo)
    assert g.status().changes == ()  # the symlinks are untracked, nothing else changed
    assert set(g.ls_files()) <= {"MEMORY.md", "notes.md", "sub/keep.md", "git-file-link.md"}
    assert (repo / "notes.md").read_bytes().startswith(b"- a fact")


def test_links_out_of_the_root_are_never_followed(repo: Path) -> None:
    s = Session(discover([repo]))
    s.load()
    doc = s.document("memory", "MEMORY.md")
    states = {lk.target: s.resolve_link("memory", lk)[0].value for lk in doc.links}
    assert states["notes"] == "ok"
    for target in ("../outside", "out-link", "out-dir/secret", ".git/config", "/etc/passwd", "git-link/config"):
        assert states[target] in ("escapes", "broken"), (target, states[target])
        assert s.resolve_link("memory", next(lk for lk in doc.links if lk.target == target))[1] is None


@pytest.mark.slow
async def test_following_escaping_links_in_the_app_opens_nothing(repo: Path) -> None:
    app = app_for([repo], poll_interval=60)
    async with app.run_test(size=(140, 36)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        screen = app.screen
        screen.view.cursor_line = 7
        for _ in range(6):
            await pilot.press("tab", "enter")
            await pilot.pause(0.15)
            if type(app.screen).__name__ == "ConfirmScreen":  # "create this missing file?": no
                await pilot.press("n")
            assert screen.current.path == "MEMORY.md"
        assert any("leaves the memory root" in str(n.message) for n in notes(app))
        from amr_tui.screens.main.screen import Place

        screen.open_place(Place("memory", "out-link.md", 0))
        await wait_for(pilot, lambda: screen.current.path == "out-link.md", what="open the symlink")
        assert screen.current.data is None and "outside the memory root" in (screen.current.message or "")
    _untouched(repo)


@pytest.mark.slow
def test_cli_refuses_paths_out_of_the_root(repo: Path, tmp_path: Path) -> None:
    for argv in (
        ["forget", f"{repo}/../outside.md:1"],
        ["forget", f"{repo}/out-link.md:1"],
        ["forget", f"{repo}/out-dir/secret.md:1"],
        ["history", f"{repo}/.git/config"],
        ["history", f"{repo}/out-link.md"],
        ["forgotten", str(repo), "--restore", "x", "--to", "../outside.md"],
        ["share", str(repo), "--repo", "memory:../outside.md", "--into", str(tmp_path / "s1")],
        ["share", str(repo), "--repo", "memory:out-dir/", "--into", str(tmp_path / "s2")],
        ["share", str(repo), "--repo", "memory:.git/config", "--into", str(tmp_path / "s3")],
        ["lint", str(repo), "--fix"],
        ["search", "SECRET", str(repo)],
    ):
        run = run_amr(argv, cwd=tmp_path)
        assert "Traceback" not in run.stderr, (argv, run.stderr)
        assert "TOP-SECRET" not in run.stdout + run.stderr, argv
        _untouched(repo)
    for session in ("s1", "s2", "s3"):
        assert not list((tmp_path / session).rglob("secret*")) and not list((tmp_path / session).rglob("outside*"))
