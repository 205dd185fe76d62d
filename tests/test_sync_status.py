"""``amr sync --status``: ahead and behind against the upstream (the remote-tracking branch, as
of the last fetch), or what stands in their way (no remote, not fetched yet); never "None".
A real bare remote in a temp dir and plain git for the set-up; amr run as a process."""

from __future__ import annotations

import json
from pathlib import Path

from tests.historyhelpers import commit, git, new_repo
from tests.hostilehelpers import run_amr

MEMORY = "# Memory\n\n## Index\n"


def _status(repo: Path, *extra: str) -> tuple[str, dict[str, object]]:
    text = run_amr(["sync", "--status", *extra], cwd=repo)
    assert text.returncode == 0, text
    as_json = run_amr(["sync", "--status", "--json", *extra], cwd=repo)
    assert as_json.returncode == 0, as_json
    assert "None" not in text.stdout, text.stdout
    return text.stdout, json.loads(as_json.stdout)[0]


def test_ahead_and_behind_against_a_real_bare_remote(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "--bare", "-b", "main", "remote.git")
    a = new_repo(tmp_path / "a", {"MEMORY.md": MEMORY})
    git(a, "remote", "add", "origin", str(tmp_path / "remote.git"))
    git(a, "push", "-q", "-u", "origin", "main")
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), "b")
    b = tmp_path / "b"
    commit(b, {"MEMORY.md": MEMORY + "- one\n"}, "one")
    commit(b, {"MEMORY.md": MEMORY + "- one\n- two\n"}, "two")
    git(b, "push", "-q", "origin", "main")
    commit(a, {"notes.md": "- mine\n"}, "mine")
    git(a, "fetch", "-q", "origin")
    text, data = _status(a)
    assert (data["ahead"], data["behind"], data["upstream"]) == (1, 2, "origin/main")
    assert "ahead 1, behind 2 of origin/main" in text


def test_another_remote_named_with_remote(tmp_path: Path) -> None:
    """--remote picks the remote to compare with (no upstream set for it)."""
    git(tmp_path, "init", "-q", "--bare", "-b", "main", "backup.git")
    a = new_repo(tmp_path / "a", {"MEMORY.md": MEMORY})
    git(a, "remote", "add", "backup", str(tmp_path / "backup.git"))
    git(a, "push", "-q", "backup", "main")
    commit(a, {"notes.md": "- mine\n"}, "mine")
    commit(a, {"notes.md": "- mine\n- more\n"}, "more")
    text, data = _status(a, "--remote", "backup")
    assert (data["ahead"], data["behind"], data["upstream"]) == (2, 0, "backup/main")
    assert "ahead 2, behind 0 of backup/main" in text


def test_no_remote_and_not_fetched_say_so(tmp_path: Path) -> None:
    a = new_repo(tmp_path / "a", {"MEMORY.md": MEMORY})
    text, data = _status(a)
    assert (data["ahead"], data["behind"]) == (None, None)
    assert "no remote" in text and "no remote" in str(data["note"])
    git(tmp_path, "init", "-q", "--bare", "-b", "main", "remote.git")
    git(a, "remote", "add", "origin", str(tmp_path / "remote.git"))  # added, never fetched
    text, data = _status(a)
    assert "origin/main" in text and "not fetched" in text, text
