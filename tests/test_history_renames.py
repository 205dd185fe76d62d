"""File history follows renames: the service, `amr history` and the app's file history screen."""

from __future__ import annotations

import json
import subprocess
import sys

from amr_tui.services.history.service import HistoryService
from tests.conftest import FIXED_ENV, git


def _renamed_repo(make_repo):
    root = make_repo(
        "memory",
        {"MEMORY.md": "# Memory\n\n## Index\n\n- [[notes]]\n", "notes.md": "# Notes\n\n- Redis listens on 6379\n"},
    )
    (root / "notes.md").write_text("# Notes\n\n- Redis listens on 6380\n")
    git(root, "commit", "-qam", "Move redis to 6380", env=FIXED_ENV)
    git(root, "mv", "notes.md", "infra.md")
    (root / "MEMORY.md").write_text("# Memory\n\n## Index\n\n- [[infra]]\n")
    git(root, "commit", "-qam", "Rename notes to infra", env=FIXED_ENV)
    (root / "infra.md").write_text("# Notes\n\n- Redis listens on 6380\n- Postgres on 5432\n")
    git(root, "commit", "-qam", "Add postgres", env=FIXED_ENV)
    return root


def test_the_history_of_a_renamed_file_goes_back_past_the_rename(make_repo):
    root = _renamed_repo(make_repo)
    service = HistoryService(root)
    page = service.file_history("infra.md")
    subjects = [i.commit.subject for i in page.items]
    assert subjects == ["Add postgres", "Rename notes to infra", "Move redis to 6380", "Create memory repo"]
    assert [i.path for i in page.items] == ["infra.md", "infra.md", "notes.md", "notes.md"]
    rename = page.items[1]
    assert rename.old_path == "notes.md"
    # each version is read under the name it had: the old reword shows as a change, not a new file
    version = service.file_change(page.items[2].path, page.items[2].commit.oid, page.items[2].old_path)
    assert version.old and b"6379" in version.old and version.new and b"6380" in version.new
    assert any(r.kind == "metadata" or r.kind == "reworded" for r in version.rows)
    nofollow = service.file_history("infra.md", follow=False)
    assert [i.commit.subject for i in nofollow.items][-1] == "Rename notes to infra"
    # a page break carries the old name on
    first = service.file_history("infra.md", limit=2)
    assert first.next is not None and first.next.name == "notes.md"
    rest = service.file_history("infra.md", limit=2, cursor=first.next)
    assert [i.path for i in rest.items] == ["notes.md", "notes.md"]
    service.close()


def test_amr_history_follows_renames_by_default(make_repo):
    root = _renamed_repo(make_repo)
    out = subprocess.run(
        [sys.executable, "-m", "amr_tui", "history", str(root / "infra.md"), "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    items = json.loads(out)
    assert [i["path"] for i in items] == ["infra.md", "infra.md", "notes.md", "notes.md"]
    assert items[1]["renamed_from"] == "notes.md"
    text = subprocess.run(
        [sys.executable, "-m", "amr_tui", "history", str(root / "infra.md")], capture_output=True, text=True, check=True
    ).stdout
    assert "(renamed from notes.md)" in text and "Move redis to 6380" in text
