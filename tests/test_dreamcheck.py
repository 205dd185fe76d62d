"""Before an accept is committed, amr says which links and files it would break (services.dreamcheck):
only what the accept itself breaks, computed exactly as the accept would write, with nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from amr_tui.core.diff.entries import ChangeKind
from amr_tui.services.dreams.check import accept_problems
from amr_tui.services.dreams.service import DreamService
from tests.historyhelpers import branch_commit, git, new_repo

MEMORY = "# Memory\n\n## Index\n- [[old]]\n- [[keep]]\n- [[gone-already]]\n"
KEEP = "# Keep\n\n- see [[old]] for the details\n- [[old#part|alias]] again\n\n```\n- [[old]] in code does not count\n```\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = new_repo(
        tmp_path / "memory",
        {
            "MEMORY.md": MEMORY,
            "keep.md": KEEP,
            "old.md": "# Old\n\n- an old fact\n- another\n",
        },
    )
    # the run: old.md becomes topics/new.md, MEMORY.md's Index and keep.md's links follow
    branch_commit(
        root,
        "dreams/r1",
        {
            "old.md": None,
            "topics/new.md": "# New\n\n- an old fact\n- another\n- a fact with a link to [[nowhere-new]]\n",
            "MEMORY.md": MEMORY.replace("[[old]]", "[[topics/new]]"),
            "keep.md": KEEP.replace("see [[old]]", "see [[topics/new]]").replace(
                "[[old#part|alias]]", "[[topics/new#part|alias]]"
            ),
        },
        "dream: move old into topics/new",
    )
    return root


def _problems(service: DreamService, **kw) -> list[str]:
    return [str(p) for p in accept_problems(service, "r1", **kw)]


def test_the_whole_run_breaks_only_what_it_adds(repo: Path) -> None:
    service = DreamService(repo)
    # gone-already was broken before the run: not the accept's doing; the run's own new link is
    assert _problems(service) == ["topics/new.md:5: [[nowhere-new]] would name no file"]


def test_parts_that_leave_links_and_files_behind_are_named(repo: Path) -> None:
    service = DreamService(repo)
    head, status = git(repo, "rev-parse", "main"), git(repo, "status", "--porcelain")
    # the deletion alone: MEMORY.md and keep.md (left as they are) still name old; the link in code does not count
    assert _problems(service, files=["old.md"]) == [
        "MEMORY.md:4: [[old]] would name no file (the accept deletes it)",
        "keep.md:3: [[old]] would name no file (the accept deletes it)",
        "keep.md:4: [[old#part|alias]] would name no file (the accept deletes it)",
    ]
    # the new file alone: nothing links to it yet (and its own new link is broken), and its
    # entries repeat old.md's, which this accept keeps
    assert _problems(service, files=["topics/new.md"]) == [
        "topics/new.md:3: says the same as old.md:3",
        "topics/new.md:4: says the same as old.md:4",
        "topics/new.md:5: [[nowhere-new]] would name no file",
        "topics/new.md: new file that no file links to: MEMORY.md would not reach it",
    ]
    # with the Index: reached, but the Index no longer links old.md, which this accept keeps
    assert _problems(service, files=["topics/new.md", "MEMORY.md"]) == [
        "topics/new.md:3: says the same as old.md:3",
        "topics/new.md:4: says the same as old.md:4",
        "topics/new.md:5: [[nowhere-new]] would name no file",
        "MEMORY.md:4: the Index would lose [[old]] (old.md stays)",
    ]
    # the Index change alone: its new link names a file the accept does not bring
    assert "MEMORY.md:4: [[topics/new]] would name no file" in _problems(service, files=["MEMORY.md"])
    # checking wrote nothing
    assert git(repo, "rev-parse", "main") == head and git(repo, "status", "--porcelain") == status
    assert service.run("r1").state == "pending"


def test_entry_changes_are_checked_as_the_accept_replays_them(repo: Path) -> None:
    service = DreamService(repo)
    review = service.review("r1", history=False)
    moved = [c.id for c in review.diff.changes if c.kind is ChangeKind.MOVED]
    assert moved, [c.kind for c in review.diff.changes]
    found = _problems(service, entries=moved)
    assert "topics/new.md: new file that no file links to: MEMORY.md would not reach it" in found
    result = service.accept("r1", entries=moved)  # the check never stops an accept: the reviewer decides
    assert result.how == "commit" and (repo / "topics" / "new.md").exists()


def test_the_command_line_checks_and_warns(repo: Path, capsys, monkeypatch) -> None:
    from amr_tui.cli.main import main

    monkeypatch.chdir(repo)
    head = git(repo, "rev-parse", "main")
    assert main(["dreams", "accept", "r1", "--file", "old.md", "--check"]) == 1
    out = capsys.readouterr().out
    assert "MEMORY.md:4: [[old]] would name no file (the accept deletes it)" in out and "would break 3" in out
    assert git(repo, "rev-parse", "main") == head  # --check commits nothing
    assert (
        main(
            [
                "dreams",
                "accept",
                "r1",
                "--file",
                "topics/new.md",
                "--file",
                "MEMORY.md",
                "--file",
                "keep.md",
                "--file",
                "old.md",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert "Accepted" in captured.out
    assert captured.err.strip() == "warning: topics/new.md:5: [[nowhere-new]] would name no file"
