"""Issue 38 point 8: history keeps names. A file an agent renamed (`git mv styling.md
ui/styling.md`) is named as each commit knew it, in the app's history screen (`h`) as in `amr
history`; and re-blame (`p` in the fact's history, `amr history FILE:LINE --blame`) follows an
entry moved to another file (`m`) back to the file it came from, as the timeline does."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from amr_tui.screens.history import FileHistoryScreen, TimelineScreen
from amr_tui.services.history.service import HistoryService
from tests.conftest import git
from tests.driver import WIDE_SIZE, app_for, notes, running, screen_text, wait_for

AGENT = {"GIT_AUTHOR_NAME": "claude-code", "GIT_AUTHOR_EMAIL": "agent@amr.invalid"}
STYLING = "# Styling\n\n- Buttons use the brand teal #0f766e [source: https://example.com/s/1]\n"
OPS = "# Ops\n\n- Deploys freeze on Fridays after noon [source: https://example.com/s/3]\n"
FREEZE = "- Deploys freeze on Fridays after noon [source: https://example.com/s/3]"


@pytest.fixture
def repo(make_repo) -> Path:
    """styling.md renamed to ui/styling.md by an agent, then edited; an entry of ops.md moved into
    it by the user (as `m` writes it: one commit taking it out of one file and into the other)."""
    root = make_repo(
        "memory",
        {"MEMORY.md": "# Memory\n\n## Index\n- [[styling]]\n- [[ops]]\n", "styling.md": STYLING, "ops.md": OPS},
    )
    (root / "ui").mkdir()
    git(root, "mv", "styling.md", "ui/styling.md")
    (root / "MEMORY.md").write_text("# Memory\n\n## Index\n- [[ui/styling]]\n- [[ops]]\n")
    git(root, "commit", "-qam", "Move styling under ui/", env=AGENT)
    (root / "ui/styling.md").write_text(STYLING + "- Links are underlined on hover\n")
    git(root, "commit", "-qam", "Link hover", env=AGENT)
    (root / "ops.md").write_text("# Ops\n\n")
    (root / "ui/styling.md").write_text(STYLING + "- Links are underlined on hover\n" + FREEZE + "\n")
    git(root, "commit", "-qam", "Move entry from ops.md to ui/styling.md: Deploys freeze on Fridays after noon")
    return root


def test_amr_history_names_the_file_as_each_commit_knew_it(repo, capsys, monkeypatch):
    from amr_tui.cli.main import main

    monkeypatch.chdir(repo)
    assert main(["history", "ui/styling.md"]) == 0
    out = [line for line in capsys.readouterr().out.splitlines() if not line.startswith(" ")]
    assert "styling.md)" not in out[0] + out[1] and len(out) == 4, out
    assert out[2].endswith("(renamed from styling.md)") and out[3].endswith("(as styling.md)"), out


def test_reblame_follows_an_entry_moved_from_another_file(repo):
    service = HistoryService(repo)
    timeline = service.entry_timeline("ui/styling.md", 5)
    assert [(e.kind, e.from_path) for e in timeline.events] == [("moved", "ops.md"), ("added", None)]
    blamed = service.blame("ui/styling.md", 5)
    assert blamed is not None and blamed.summary.startswith("Move entry from ops.md")
    before = service.reblame(blamed, timeline)
    assert before is not None and (before.path, before.orig_line, before.summary) == ("ops.md", 3, "Create memory repo")
    assert service.reblame(before, timeline) is None  # where the timeline says it was added
    service.close()


def test_amr_history_blame_goes_on_across_the_move(repo, capsys, monkeypatch):
    from amr_tui.cli.main import main

    monkeypatch.chdir(repo)
    assert main(["history", "ui/styling.md:5", "--blame"]) == 0
    out = capsys.readouterr().out
    assert "at parent:" in out and "(ops.md:3)" in out, out


@pytest.mark.slow
async def test_the_history_screen_names_the_old_path_and_p_follows_the_move(repo):
    app = app_for([repo], poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        await drive.open("memory", "ui/styling.md")
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, FileHistoryScreen), what="history screen")
        screen = app.screen
        table = screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count == 4, what="the four commits")
        whats = [str(table.get_cell_at((row, 2))) for row in range(4)]
        assert "renamed from styling.md" in whats[2] and "as styling.md" in whats[3], whats
        await pilot.press("down", "down", "down")
        title = screen.query_one("#history-version-title")
        await wait_for(pilot, lambda: "(as styling.md)" in str(title.render()), what="the old name in the title")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, FileHistoryScreen), what="closed")
        await drive.to_line(5)
        await pilot.press("H")
        await wait_for(pilot, lambda: isinstance(app.screen, TimelineScreen), what="timeline")
        await wait_for(pilot, lambda: "Last touched" in screen_text(app), what="blame")
        await pilot.press("p")
        await wait_for(
            pilot,
            lambda: "Before that" in screen_text(app) or any("first appeared" in n.message for n in notes(app)),
            what="re-blame",
        )
        assert "(ops.md:3)" in screen_text(app), screen_text(app)
        assert not any("first appeared" in n.message for n in notes(app))
