"""``amr forgotten FOLDER``: the forgotten facts of each memory repo in the folder (as ``amr lint``
takes a folder), each with its repo. Real repos, ``amr`` run as a process."""

from __future__ import annotations

import json
from pathlib import Path

from tests.historyhelpers import commit, new_repo
from tests.hostilehelpers import run_amr

MEMORY = (
    "# Memory\n\n- Deploys need two approvals [source: https://example.com/s/1]\n- Joe leads the team\n\n## Index\n"
)
OTHER = "# Memory\n\n- Bob likes tea\n\n## Index\n\n- [[notes]]\n"
NOTES = "# Notes\n\n- an old note\n"


def _pair(tmp_path: Path) -> tuple[Path, Path, Path]:
    folder = tmp_path / "repos"
    a = new_repo(folder / "alice", {"MEMORY.md": MEMORY})
    b = new_repo(folder / "bob", {"MEMORY.md": OTHER, "notes.md": NOTES})
    return folder, a, b


def test_forgotten_takes_a_folder_of_repos(tmp_path: Path) -> None:
    folder, a, b = _pair(tmp_path)
    commit(a, {"MEMORY.md": MEMORY.replace("- Joe leads the team\n", "")}, "Drop Joe")
    commit(b, {"notes.md": "# Notes\n"}, "Drop the old note")
    run = run_amr(["forgotten", str(folder), "--json"], cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    got = sorted((f["repo"], f["path"], f["text"]) for f in json.loads(run.stdout))
    assert got == [("alice", "MEMORY.md", "Joe leads the team"), ("bob", "notes.md", "an old note")]
    text = run_amr(["forgotten", str(folder)], cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "alice/MEMORY.md" in text.stdout and "bob/notes.md" in text.stdout
    # --restore finds the id in whichever repo holds it
    fid = next(f["id"] for f in json.loads(run.stdout) if f["repo"] == "bob")
    restored = run_amr(["forgotten", str(folder), "--restore", fid], cwd=tmp_path)
    assert restored.returncode == 0, restored.stderr
    assert "- an old note" in (b / "notes.md").read_text()
