"""Searching the past: entries deleted or reworded over history, and tombstones.

One real repo (plain git, fixed authors and dates) holds a deleted fact, a reworded one, a fact
forgotten with a tombstone, a tombstone-only fact and a fact deleted then written back. It is
searched through the history service, through ``amr search --history --json`` (a process) and
through the finder's past toggle (Pilot): enter on a deleted fact opens the forgotten facts on it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amr_tui.core.tombstones import TOMBSTONE_PATH, tombstone_line
from amr_tui.services.history.forgotten import forget
from amr_tui.services.history.service import HistoryService
from tests.driver import app_for, running, wait_for
from tests.historyhelpers import commit, new_repo
from tests.hostilehelpers import run_amr

MEMORY = (
    "# Memory\n\n"
    "- Deploys need two approvals from the platform team\n"
    "- The staging database is called tortoise-db\n"
    "- Marco runs the website rewrite with one contractor\n"
    "- Joe prefers green tea over coffee in the mornings\n\n"
    "## Index\n\n- [[notes]]\n"
)
NOTES = "# Notes\n\n- The office wifi password rotates every month\n- Lunch is at noon on Fridays\n"
REWORDED = "Marco runs the website rewrite with two contractors since mid-September"
GHOST = "The quarterly offsite moved to the lighthouse venue"


def build(root: Path) -> Path:
    new_repo(root, {"MEMORY.md": MEMORY, "notes.md": NOTES})
    text = MEMORY.replace("- The staging database is called tortoise-db\n", "")
    commit(root, {"MEMORY.md": text}, "Drop the staging database name", name="Bob", date="2026-10-02T10:00:00+00:00")
    text = text.replace("with one contractor", "with two contractors since mid-September")
    commit(root, {"MEMORY.md": text}, "Marco has two contractors now", date="2026-10-03T10:00:00+00:00")
    joe = "- Joe prefers green tea over coffee in the mornings\n"
    commit(root, {"MEMORY.md": text.replace(joe, "")}, "Drop Joe's tea", date="2026-10-04T10:00:00+00:00")
    commit(root, {"MEMORY.md": text}, "Joe's tea was right after all", date="2026-10-05T10:00:00+00:00")
    stone = tombstone_line(GHOST, date="2026-09-20", reason="cancelled", by="Ann", sources=(), file="notes.md")
    commit(root, {TOMBSTONE_PATH: stone + "\n"}, "Record a tombstone", date="2026-10-06T10:00:00+00:00")
    service = HistoryService(root)
    try:
        line = next(i for i, ln in enumerate(NOTES.splitlines(), 1) if "wifi" in ln)
        forget(service, "notes.md", line, reason="it is a secret", by="Ann")
    finally:
        service.close()
    return root


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("past") / "memory")


def test_the_service_finds_deleted_reworded_tombstoned_and_restored_facts(repo: Path) -> None:
    service = HistoryService(repo)
    try:
        forgotten = {f.text: f for f in service.forgotten()}
        [(deleted, hit)] = service.past_index().search("tortoise", 5)
        assert (deleted.kind, deleted.path, deleted.text) == (
            "deleted",
            "MEMORY.md",
            "The staging database is called tortoise-db",
        )
        assert deleted.commit is not None and deleted.commit.subject == "Drop the staging database name"
        assert deleted.commit.author_name == "Bob" and deleted.date == "2026-10-02"
        assert deleted.forgotten_id == forgotten[deleted.text].id and deleted.restorable and not deleted.present
        assert hit.item.text == deleted.text and hit.positions

        reworded = next(e for e, _ in service.past_index().search("marco one contractor", 5) if e.kind == "reworded")
        assert reworded.text == "Marco runs the website rewrite with one contractor"
        assert reworded.new_text == REWORDED and reworded.forgotten_id is None
        now = (repo / "MEMORY.md").read_text().splitlines().index(f"- {REWORDED}") + 1
        assert reworded.now == ("MEMORY.md", now)

        wifi = next(e for e, _ in service.past_index().search("wifi password", 5))
        assert wifi.kind == "deleted" and wifi.tombstone is not None and wifi.tombstone.reason == "it is a secret"
        assert wifi.forgotten_id == forgotten[wifi.text].id

        ghost = next(e for e, _ in service.past_index().search("lighthouse offsite", 5))
        assert ghost.text == GHOST and ghost.commit is None and ghost.tombstone is not None
        assert ghost.forgotten_id == forgotten[GHOST].id and not ghost.restorable and ghost.date == "2026-09-20"

        joe = next(e for e, _ in service.past_index().search("joe green tea", 5))
        assert joe.kind == "deleted" and joe.present and joe.forgotten_id is None

        # the walk is cached per HEAD; a new commit is walked on its own and shows up
        index = service.past_index()
        assert service.past_index() is index
        text = (repo / "MEMORY.md").read_text().replace("- Deploys need two approvals from the platform team\n", "")
        commit(repo, {"MEMORY.md": text}, "No more approvals", date="2026-10-07T10:00:00+00:00")
        [(gone, _)] = service.past_index().search("approvals platform", 5)
        assert gone.commit is not None and gone.commit.subject == "No more approvals"
        assert service.past_index() is not index
    finally:
        service.close()


def test_amr_search_history_json_and_text(repo: Path, tmp_path: Path) -> None:
    run = run_amr(["search", "--history", "tortoise", str(repo), "--json"], cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    [got] = json.loads(run.stdout)
    assert got["kind"] == "deleted" and got["path"] == "MEMORY.md" and got["repo"] == "memory"
    assert got["commit"]["subject"] == "Drop the staging database name" and got["commit"]["author"] == "Bob"
    assert got["restore"] == f"amr forgotten {repo} --restore {got['id']}"

    run = run_amr(["search", "--history", "one contractor", "--json"], cwd=repo)
    assert run.returncode == 0, run.stderr
    reworded = next(r for r in json.loads(run.stdout) if r["kind"] == "reworded")
    assert reworded["now"]["text"] == REWORDED and reworded["now"]["history"].startswith("amr history MEMORY.md:")

    text = run_amr(["search", "--history", "tortoise"], cwd=repo)
    assert text.returncode == 0, text.stderr
    assert "deleted" in text.stdout and "tortoise-db" in text.stdout
    assert f"amr forgotten --restore {got['id']}" in text.stdout
    none = run_amr(["search", "--history", "zebra xylophone"], cwd=repo)
    assert none.returncode == 1 and "No matches" in none.stderr


@pytest.mark.slow
async def test_the_finder_toggles_to_the_past_and_opens_a_deleted_fact(repo: Path) -> None:
    from textual.widgets import Static

    from amr_tui.screens.finder import FinderScreen
    from amr_tui.screens.forgotten import ForgottenScreen
    from amr_tui.screens.history import TimelineScreen

    app = app_for([repo], poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.screen, FinderScreen), what="finder")
        finder = app.screen
        assert isinstance(finder, FinderScreen)
        await pilot.press(*"tortoise")
        await wait_for(pilot, lambda: finder.serial and not finder.hits, what="no match now")
        await pilot.press("ctrl+r")
        status = finder.query_one("#finder-status", Static)
        await wait_for(pilot, lambda: len(finder.hits) == 1, timeout=20, what="the past result")
        assert "memory's past" in str(status.render())
        label = str(finder.query_one("#finder-results").get_option_at_index(0).prompt)
        assert "deleted 2026-10-02 in" in label and "tortoise-db" in label
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ForgottenScreen), what="forgotten screen")
        screen = app.screen
        assert isinstance(screen, ForgottenScreen)
        await wait_for(pilot, lambda: screen.facts, timeout=20, what="facts")
        await pilot.pause()
        idx = screen.query_one("#forgotten-list").source_highlighted
        assert idx is not None and screen.facts[idx].text == "The staging database is called tortoise-db"

        # a reworded fact opens the timeline of its wording of today; the toggle stays where it was left
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ForgottenScreen), what="back")
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.screen, FinderScreen), what="finder again")
        finder = app.screen
        assert isinstance(finder, FinderScreen)
        await pilot.press("ctrl+r", *"one contractor")
        await wait_for(
            pilot, lambda: any(e.kind == "reworded" for e in finder.past_entries), timeout=20, what="reworded"
        )
        at = next(i for i, e in enumerate(finder.past_entries) if e.kind == "reworded")
        assert "reworded 2026-10-03" in str(finder.query_one("#finder-results").get_option_at_index(at).prompt)
        finder.query_one("#finder-results").highlighted = at
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TimelineScreen), what="timeline")
        timeline = app.screen
        assert isinstance(timeline, TimelineScreen)
        assert (timeline.path, timeline.text) == ("MEMORY.md", REWORDED)
        assert (repo / "MEMORY.md").read_text().splitlines()[timeline.line - 1] == f"- {REWORDED}"


async def test_the_finder_says_a_plain_folder_has_no_history(tmp_path: Path) -> None:
    from textual.widgets import Static

    from amr_tui.screens.finder import FinderScreen

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "MEMORY.md").write_text("# Memory\n\n- a plain folder fact\n")
    app = app_for([plain], poll_interval=60)
    async with running(app) as drive:
        pilot = drive.pilot
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.screen, FinderScreen), what="finder")
        finder = app.screen
        assert isinstance(finder, FinderScreen)
        await pilot.press(*"plain", "ctrl+r")
        status = finder.query_one("#finder-status", Static)
        await wait_for(pilot, lambda: "no history (not a git repo)" in str(status.render()), what="no history")
        assert finder.hits == []
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: len(finder.hits) == 1, what="the memory now again")
        assert str(status.render()).startswith("memory now: 1 match")
