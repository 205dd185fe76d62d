"""Issue 41, points 2 and 5 in the activity review: an agent's write that pushes entries past the
load budget's cut (or writes new ones past it) is said, in ``amr activity`` and in the review
screen; and the review shows one writer's commits at a time (``--by``, ``w``). Real git repos."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git
from tests.driver import app_for, running
from tests.test_cli import amr

LONG = "# Memory\n\n" + "".join(f"- Fact number {n} about the billing service\n" for n in range(1, 199))  # 200 lines


def _agent(root: Path, text: str, message: str, name: str) -> None:
    (root / "MEMORY.md").write_text(text)
    git(root, "add", "--", "MEMORY.md")
    env = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": "agent@amr.invalid"}
    git(root, "commit", "-q", "-m", message, env=env)


@pytest.fixture
def repo(make_repo) -> Path:
    """MEMORY.md of 200 lines, all loaded; claude-code inserts three entries at the top (the last
    three facts go past the 200-line cut), then devin appends one entry at the end, past it."""
    root = make_repo("memory", {"MEMORY.md": LONG})
    body = LONG.replace("# Memory\n\n", "# Memory\n\n- Top one\n- Top two\n- Top three\n", 1)
    _agent(root, body, "Remember three rules", "claude-code")
    _agent(root, body + "- Appended by the nightly agent\n", "Remember one more", "devin")
    return root


def test_activity_says_what_a_write_pushed_past_the_cut(repo: Path) -> None:
    res = amr("activity", str(repo), "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    first, second = out["commits"]
    assert first["past_cut"]["pushed"] == [
        "Fact number 196 about the billing service",
        "Fact number 197 about the billing service",
        "Fact number 198 about the billing service",
    ]
    assert first["past_cut"]["landed"] == [] and "before line 201" in first["past_cut"]["cut"]
    assert second["past_cut"]["landed"] == ["Appended by the nightly agent"]
    text = amr("activity", str(repo)).stdout
    assert "pushed 3 entries past the load budget's cut" in text
    assert 'wrote 1 new entry past it: "Appended by the nightly agent"' in text


def test_activity_by_one_writer(repo: Path) -> None:
    out = json.loads(amr("activity", str(repo), "--json", "--by", "devin").stdout)
    assert [c["author"] for c in out["commits"]] == ["devin"]
    assert {c["author"] for c in out["changes"]} == {"devin"}
    assert json.loads(amr("activity", str(repo), "--json", "--by", "nobody").stdout)["commits"] == []


@pytest.mark.slow
async def test_the_review_screen_filters_by_writer_and_says_the_cut(repo: Path) -> None:
    app = app_for([repo], poll_interval=3600)
    async with running(app) as drive:
        await drive.press("A")
        await drive.until(lambda: type(app.screen).__name__ == "ActivityScreen", what="the activity review")
        screen = app.screen
        await drive.until(lambda: screen.activity is not None, what="the activity read")
        title = screen.query_one("#review-title")
        assert "by others" in str(title.render()) and "(w: next writer)" in str(title.render())
        await drive.press("w")
        await drive.settled()
        assert "in 1 commit by claude-code" in str(title.render())
        await drive.press("j")  # claude-code's commit
        await drive.settled()
        assert "pushed 3 entries past the load budget's cut" in str(screen.query_one("#review-status").render())
        await drive.press("w", "w")  # devin, then everyone again
        await drive.settled()
        assert "by others" in str(title.render())
