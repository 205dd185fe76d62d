"""amr sync installs amr's merge driver where a clone lacks it (issue 24 point 8), unless the
config says ``merge_driver = false``; the app tells a clone without it once."""

from __future__ import annotations

import subprocess
from pathlib import Path

from amr_tui.services.sync.gitattrs import tell_missing_driver_once
from tests.synchelpers import amr, clone, commit_all, git, git_server, write_files  # noqa: F401


def _configured(root: Path) -> bool:
    return subprocess.run(["git", "config", "--get", "merge.amr.driver"], cwd=root).returncode == 0


def test_sync_installs_the_driver_and_pushes_the_attribute(git_server, tmp_path: Path) -> None:
    url = git_server.create("memory", {"MEMORY.md": "# Memory\n\n## Index\n"}, work=tmp_path)
    a = clone(url, tmp_path / "a", name="Ann")
    assert not _configured(a)
    res = amr(a, "sync")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Installed amr's merge driver" in res.stdout + res.stderr
    assert _configured(a) and (a / ".gitattributes").read_text() == "*.md merge=amr\n"
    b = clone(url, tmp_path / "b", name="Bob")  # the attribute came with the push
    assert (b / ".gitattributes").read_text() == "*.md merge=amr\n"
    again = amr(a, "sync")
    assert "Installed" not in again.stdout + again.stderr


def test_sync_leaves_the_driver_alone_when_the_config_opts_out(git_server, tmp_path: Path) -> None:
    url = git_server.create("memory", {"MEMORY.md": "# Memory\n\n## Index\n"}, work=tmp_path)
    a = clone(url, tmp_path / "a", name="Ann")
    cfg = Path.home() / ".config" / "amr" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text("merge_driver = false\n")
    res = amr(a, "sync")
    assert res.returncode == 0, res.stdout + res.stderr
    assert not _configured(a) and not (a / ".gitattributes").exists()


def test_a_clone_without_the_driver_is_told_once(make_repo) -> None:
    repo = make_repo("memory")
    assert tell_missing_driver_once(repo) is True
    assert tell_missing_driver_once(repo) is False
    other = make_repo("other")
    git(other, "config", "merge.amr.driver", "amr merge-driver %O %A %B %L %P")
    assert tell_missing_driver_once(other) is False
