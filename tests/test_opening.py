"""What `amr [PATH...]` opens (services.workspace.opening): the paths named, else the current
folder when it is memory, else the config's repos; every path that cannot open is said, none
stops the others."""

from __future__ import annotations

from pathlib import Path

import pytest

from amr_tui.services.workspace import opening
from tests.historyhelpers import new_repo

INDEX = "# Memory\n\n## Index\n\n- [[notes]]\n"
NOTES = "# Notes\n\n- Joe leads the team [source: https://example.com/1]\n"


def test_named_paths_open_and_the_missing_one_is_said(tmp_path: Path) -> None:
    a = new_repo(tmp_path / "a", {"MEMORY.md": INDEX, "notes.md": NOTES})
    found = opening([a, tmp_path / "gone"], read_only={"a"}, config_repos=[])
    assert [(m.name, m.read_only) for m in found.mounts] == [("a", True)]
    assert found.problems == [f"no such file or folder: {tmp_path / 'gone'}"]
    assert found.first is None


def test_the_current_folder_when_it_is_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = new_repo(tmp_path / "a", {"MEMORY.md": INDEX, "notes.md": NOTES})
    b = new_repo(tmp_path / "b", {"MEMORY.md": INDEX, "notes.md": NOTES})
    monkeypatch.chdir(a)
    found = opening([], read_only=set(), config_repos=[b])
    assert [m.root for m in found.mounts] == [a.resolve()]


def test_else_the_config_repos_and_the_ones_not_there_are_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b = new_repo(tmp_path / "b", {"MEMORY.md": INDEX, "notes.md": NOTES})
    (tmp_path / "plain").mkdir()
    monkeypatch.chdir(tmp_path / "plain")
    found = opening([], read_only=set(), config_repos=[tmp_path / "old", b])
    assert [m.name for m in found.mounts] == ["b"]
    assert found.problems == [f"Config names a repo that is not there: {tmp_path / 'old'}"]


def test_a_file_to_open_first_is_found_in_its_repo_or_said(tmp_path: Path) -> None:
    a = new_repo(tmp_path / "a", {"MEMORY.md": INDEX, "notes.md": NOTES})
    (tmp_path / "elsewhere.md").write_text(NOTES)
    assert opening([a], read_only=set(), config_repos=[], open_at=(a / "notes.md", 3)).first == ("a", "notes.md", 3)
    outside = opening([a], read_only=set(), config_repos=[], open_at=(tmp_path / "elsewhere.md", 0))
    assert outside.first is None
    assert outside.problems == [f"{tmp_path / 'elsewhere.md'} is not in a mounted repo; not opened"]
