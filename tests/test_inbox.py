"""Issue 41, point 4: a review inbox that cannot rot. Everything that waits for a person (agents'
unreviewed commits, pending dreaming runs, review-mode writes) shows its age: ``amr inbox`` lists
it across repos, oldest first, and exits 1 past the configured limit; the tree's repo row and the
status line say ``N pending · oldest 9d``. Real git repos, agents' commits dated in the past."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

import pytest

from amr_tui.core.inbox import Pending, age_text, badge_text, overdue
from tests.conftest import git
from tests.driver import app_for, running
from tests.test_cli import amr

NOW = _dt.datetime.now(_dt.UTC)


def _when(days: int) -> str:
    return (NOW - _dt.timedelta(days=days)).replace(microsecond=0).isoformat()


def _agent(days: int, name: str = "claude-code") -> dict[str, str]:
    return {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": "agent@amr.invalid",
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": "agent@amr.invalid",
        "GIT_AUTHOR_DATE": _when(days),
        "GIT_COMMITTER_DATE": _when(days),
    }


def _write(root: Path, rel: str, text: str, message: str, env: dict[str, str]) -> None:
    (root / rel).write_text(text)
    git(root, "add", "--", rel)
    git(root, "commit", "-q", "-m", message, env=env)


@pytest.fixture
def repo(make_repo) -> Path:
    """Two agent commits (20 and 9 days old), a dreaming run (5 days) and a review-mode branch of
    two writes (2 days), none of them reviewed."""
    root = make_repo("memory", {"MEMORY.md": "# Memory\n\n- The user prefers short answers\n\n## Index\n"})
    body = (root / "MEMORY.md").read_text()
    _write(
        root,
        "MEMORY.md",
        body.replace("## Index", "- Deploys go out on Tuesdays\n\n## Index"),
        "Remember deploys",
        _agent(20),
    )
    body = (root / "MEMORY.md").read_text()
    _write(
        root,
        "MEMORY.md",
        body.replace("## Index", "- Staging resets nightly\n\n## Index"),
        "Remember staging",
        _agent(9),
    )
    git(root, "branch", "dreams/nightly-1")
    git(root, "switch", "-q", "dreams/nightly-1")
    _write(
        root,
        "MEMORY.md",
        body.replace("short answers", "short answers in bullets"),
        "dream: reword",
        _agent(5, "dreamer"),
    )
    git(root, "switch", "-q", "main")
    git(root, "branch", "dreams/inbox-2026-12-01")
    git(root, "switch", "-q", "dreams/inbox-2026-12-01")
    _write(root, "notes.md", "# Notes\n\n- One\n", "Remember one", _agent(2, "devin"))
    _write(root, "notes.md", "# Notes\n\n- One\n- Two\n", "Remember two", _agent(1, "devin"))
    git(root, "switch", "-q", "main")
    return root


def test_ages_read_as_the_tree_says_them() -> None:
    assert [age_text(d) for d in (0, 1, 9, 59, 60, 400, 800)] == ["today", "1d", "9d", "59d", "2mo", "13mo", "2y"]
    assert badge_text(3, NOW - _dt.timedelta(days=9, hours=1), NOW) == "3 pending \u00b7 oldest 9d"
    assert badge_text(0, None, NOW) == ""
    old = Pending("r", "activity", "a", "s", 1, NOW - _dt.timedelta(days=20))
    new = Pending("r", "dream", "b", "s", 1, NOW - _dt.timedelta(days=3))
    assert overdue([new, old], 14, NOW) == [old]


def test_inbox_lists_everything_waiting_oldest_first_and_nags_past_the_limit(repo: Path) -> None:
    res = amr("inbox", str(repo), "--json")
    assert res.returncode == 1, res.stderr  # the 20-day-old commit is past the default 14 days
    out = json.loads(res.stdout)
    kinds = [(i["kind"], i["age_days"], i["count"]) for i in out["items"]]
    assert kinds == [("activity", 20, 1), ("activity", 9, 1), ("dream", 5, 1), ("review", 2, 2)]
    assert [i["ref"] for i in out["items"][2:]] == ["nightly-1", "inbox-2026-12-01"]
    assert out["count"] == 5 and out["oldest_days"] == 20 and out["overdue"] == 1
    assert out["items"][0]["who"] == "claude-code" and out["items"][0]["overdue"] is True
    assert amr("inbox", str(repo), "--max-age", "30").returncode == 0
    text = amr("inbox", str(repo), "--max-age", "7").stdout
    assert text.splitlines()[0] == "5 pending \u00b7 oldest 20d \u00b7 2 older than 7 days"
    assert "     9d  memory  agent commit " in text and "review-mode writes inbox-2026-12-01  (2 writes)" in text


def test_inbox_limit_comes_from_the_config(repo: Path) -> None:
    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "amr"
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "config.toml").write_text("[inbox]\nmax_age_days = 30\n")
    assert amr("inbox", str(repo)).returncode == 0
    (cfg / "config.toml").write_text("[inbox]\nmax_age_days = 3\n")
    out = json.loads(amr("inbox", str(repo), "--json").stdout)
    assert out["max_age_days"] == 3 and out["overdue"] == 3


def test_a_plain_folder_has_nothing_waiting(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("# Memory\n\n- A fact\n")
    res = amr("inbox", str(folder))
    assert res.returncode == 0
    assert "a plain folder, not a git repo: no history, so nothing can wait for review" in res.stdout


@pytest.mark.slow
async def test_the_tree_and_the_status_line_say_the_age_of_the_oldest(repo: Path) -> None:
    app = app_for([repo], poll_interval=3600, today=NOW.date())
    async with running(app, ready=False) as drive:
        await drive.settled()
        tree = app.screen.query_one("#tree")
        await drive.until(lambda: "pending" in str(tree.root.children[0].label), what="the tree's pending count")
        assert "memory \u00b7 5 pending \u00b7 oldest 20d" in str(tree.root.children[0].label)
        status = str(app.screen.query_one("#status").render())
        assert status.startswith("5 pending \u00b7 oldest 20d for review")
