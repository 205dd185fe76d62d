"""The editor and agents writing at once, driven by keys: an edit started before a live refresh
is merged onto what the refresh brought in (a conflict when the same entry changed), a save
never carries someone else's uncommitted line, and U commits that line on its own."""

from __future__ import annotations

import pytest

from amr_tui.screens.conflict import ConflictScreen
from tests.driver import TMUX_SIZE, app_for, git, notes, running, wait_for

MEMORY = (
    "# Memory\n\n- Use npm for the website [added: 2026-09-01]\n- Deploy with fly\n\n## Index\n- [[projects/website]]\n"
)
WEBSITE = "# Website\n\n- Built with Next.js\n- Hosted on fly\n"


@pytest.fixture
def memory_repo(make_repo):
    return make_repo(files={"MEMORY.md": MEMORY, "projects/website.md": WEBSITE})


@pytest.mark.slow
async def test_an_edit_started_before_a_live_refresh_does_not_revert_the_agents_change(memory_repo) -> None:
    root = memory_repo
    app = app_for([root], poll_interval=0.2)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        await drive.edit_first_entry()
        await pilot.press("home", *"Always ")
        (root / "MEMORY.md").write_text(MEMORY.replace("Use npm", "Use npm and yarn"))
        git(root, "commit", "-qam", "agent: yarn too")
        await wait_for(pilot, lambda: "yarn" in drive.current.doc.text, what="the live refresh")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen), what="the conflict view")
    assert "npm and yarn" in git(root, "show", "HEAD:MEMORY.md")  # nothing reverted
    assert git(root, "log", "-1", "--format=%s") == "agent: yarn too\n"


@pytest.mark.slow
async def test_an_edit_started_before_a_live_refresh_merges_with_a_change_elsewhere(memory_repo) -> None:
    root = memory_repo
    app = app_for([root], poll_interval=0.2)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        await drive.edit_first_entry()
        await pilot.press("home", *"Always ")
        (root / "MEMORY.md").write_text(MEMORY.replace("Deploy with fly", "Deploy with fly.io"))
        git(root, "commit", "-qam", "agent: fly.io")
        await wait_for(pilot, lambda: "fly.io" in drive.current.doc.text, what="the live refresh")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Always Use npm" in git(root, "show", "HEAD:MEMORY.md"), what="the save")
    head = git(root, "show", "HEAD:MEMORY.md")
    assert "Deploy with fly.io" in head and "Always Use npm" in head
    assert git(root, "status", "--porcelain") == ""


async def test_t_never_commits_someone_elses_uncommitted_line(memory_repo) -> None:
    root = memory_repo
    app = app_for([root], poll_interval=0.2)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        with (root / "projects/website.md").open("a") as f:
            f.write("- Uncommitted agent line\n")
        from amr_tui.screens.main.screen import Place

        app.screen.open_place(Place("memory", "projects/website.md", 3))
        await wait_for(
            pilot,
            lambda: drive.current.path == "projects/website.md" and "Uncommitted agent line" in drive.current.doc.text,
            what="website.md",
        )
        await drive.to_line(3)
        await pilot.press("t")
        await wait_for(pilot, lambda: "added:" in git(root, "show", "HEAD:projects/website.md"), what="the commit")
        await wait_for(
            pilot, lambda: any("uncommitted changes" in str(n.message) for n in notes(app)), what="the notice"
        )
        committed = git(root, "show", "HEAD:projects/website.md")
        assert "Uncommitted agent line" not in committed
        assert "Uncommitted agent line" in (root / "projects/website.md").read_text()
        # U commits the agent's line as a commit of its own, clearly labelled.
        from amr_tui.screens.dialogs import ConfirmScreen

        await pilot.press("U")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        await pilot.press("y")
        await wait_for(
            pilot,
            lambda: "Uncommitted agent line" in git(root, "show", "HEAD:projects/website.md"),
            what="the others' commit",
        )
    body = git(root, "log", "-1", "--format=%B")
    assert "not made in amr" in body and git(root, "status", "--porcelain") == ""
