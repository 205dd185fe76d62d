"""Issue 24 point 7: before a dream accept is committed, amr shows what the result would break:
two versions of one entry (main changed it since the run started), an entry main dropped written
back, duplicates, broken links (also those the deletion of an emptied file would break), Index
links lost, MEMORY.md over its load budget; and the reviewer chooses. Real git repos; the
screen is driven with Textual's Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest

from amr_tui.cli.main import main as amr
from amr_tui.screens.dialogs import ChoiceScreen, ConfirmScreen
from amr_tui.screens.dreams.screen import DreamListScreen, RunReviewScreen
from amr_tui.services.dreams.check import accept_problems
from amr_tui.services.dreams.service import DreamService
from tests.driver import REVIEW_SIZE, app_for, running, wait_for
from tests.historyhelpers import S, branch_commit, commit, git, new_repo

BASE = f"- Deploys go out on Tuesdays after the standup [source: {S}/1]"
MAIN = f"- Deploys go out on Wednesdays after the standup [source: {S}/7]"
RUN = f"- Deploys go out on Tuesdays after the standup and a smoke test [source: {S}/1]"
STAGING = f"- Staging is rebuilt every night from main [source: {S}/4]"
CACHE = f"- The build cache lives in the CI runner's volume [source: {S}/5]"
MEMORY = "# Memory\n\n- Memory of the web team\n\n## Index\n- [[notes]]\n- [[site]]\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The run rewords the deploy entry and the cache entry; main rewords the deploy entry too
    and drops the cache entry meanwhile."""
    root = new_repo(
        tmp_path / "memory",
        {
            "MEMORY.md": MEMORY,
            "notes.md": f"# Notes\n\n{BASE}\n{STAGING}\n{CACHE}\n",
            "site.md": f"# Site\n\n- The site is static [source: {S}/6]\n",
        },
    )
    branch_commit(
        root,
        "dreams/nightly",
        {
            "notes.md": f"# Notes\n\n{RUN}\n{STAGING}\n{CACHE.replace('volume', 'cache volume')}\n",
        },
        "dream: tidy up",
    )
    commit(root, {"notes.md": f"# Notes\n\n{MAIN}\n{STAGING}\n"}, "deploys moved to Wednesdays; cache gone")
    return root


def _ids(svc: DreamService) -> dict[str, str]:
    out = {}
    for c in svc.review("nightly", history=False).diff.changes:
        text = c.new.text if c.new else c.old[0].text
        out["deploy" if "Deploys" in text else "cache" if "cache" in text else "other"] = c.id
    return out


def test_two_versions_and_an_entry_written_back_are_named_before_anything_is_written(repo: Path) -> None:
    svc = DreamService(repo)
    ids = _ids(svc)
    head = git(repo, "rev-parse", "main")
    found = accept_problems(svc, "nightly", entries=[ids["deploy"], ids["cache"]])
    kinds = {p.change: p.kind for p in found if p.change}
    assert kinds == {ids["deploy"]: "versions", ids["cache"]: "dropped"}
    versions = next(p for p in found if p.kind == "versions")
    assert "Deploys go out on Wednesdays after the standup" in versions.message
    assert "after the standup and a smoke test" in versions.message
    assert str(versions).startswith("notes.md:3: two versions of one entry: main's (line 4)")
    assert git(repo, "rev-parse", "main") == head  # checking writes nothing
    # the run's version replacing main's: no two versions left
    after = accept_problems(svc, "nightly", entries=[ids["deploy"]], replace=[ids["deploy"]])
    assert [p.kind for p in after] == []


def test_replace_writes_the_runs_version_instead_of_mains_in_one_commit(repo: Path) -> None:
    svc = DreamService(repo)
    ids = _ids(svc)
    before = git(repo, "rev-parse", "main").strip()
    result = svc.accept("nightly", entries=[ids["deploy"]], replace=[ids["deploy"]])
    assert result.how == "commit"
    notes = git(repo, "show", "main:notes.md")
    assert RUN in notes and MAIN not in notes and notes.count("Deploys go out") == 1
    assert notes.index(RUN) < notes.index(STAGING)  # where main's version stood
    assert git(repo, "rev-list", "--count", f"{before}..main").strip() == "1"
    message = git(repo, "log", "-1", "--format=%B", "main")
    assert "replaces main's version: Deploys go out on Wednesdays after the standup" in message


def test_keeping_both_is_only_what_the_reviewer_asks_for(repo: Path) -> None:
    svc = DreamService(repo)
    ids = _ids(svc)
    svc.accept("nightly", entries=[ids["deploy"]])
    notes = git(repo, "show", "main:notes.md")
    assert RUN in notes and MAIN in notes


def test_duplicates_lost_index_links_and_the_budget(tmp_path: Path) -> None:
    root = new_repo(
        tmp_path / "memory",
        {"MEMORY.md": MEMORY, "notes.md": f"# Notes\n\n{STAGING}\n", "site.md": "# Site\n\n- The site is static\n"},
    )
    many = "".join(f"- Fact number {k} about the team\n" for k in range(210))
    branch_commit(
        root,
        "dreams/nightly",
        {
            "notes.md": f"# Notes\n\n{STAGING}\n- Staging is rebuilt every night from main\n",
            "MEMORY.md": MEMORY.replace("- [[site]]\n", "") + many,
        },
        "dream: grow",
    )
    svc = DreamService(root)
    found = {(p.kind, str(p)) for p in accept_problems(svc, "nightly")}
    assert ("duplicate", "notes.md:4: says the same as line 3") in found
    assert ("index", "MEMORY.md:7: the Index would lose [[site]] (site.md stays)") in found
    budget = next(text for kind, text in found if kind == "budget")
    assert budget.startswith("MEMORY.md:201: would be 216 lines") and "first 200 lines" in budget


def test_the_command_line_refuses_two_versions_unless_told_which(repo: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(repo)
    ids = _ids(DreamService(repo))
    head = git(repo, "rev-parse", "main")
    assert amr(["dreams", "accept", "nightly", "--entry", ids["deploy"]]) == 1
    err = capsys.readouterr().err
    assert "two versions of one entry" in err and "--replace ID" in err and "nothing was committed" in err
    assert git(repo, "rev-parse", "main") == head
    assert amr(["dreams", "accept", "nightly", "--replace", ids["deploy"]]) == 0
    notes = git(repo, "show", "main:notes.md")
    assert RUN in notes and MAIN not in notes


def test_the_command_line_keeps_both_when_asked(repo: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(repo)
    ids = _ids(DreamService(repo))
    assert amr(["dreams", "accept", "nightly", "--entry", ids["deploy"], "--keep-both"]) == 0
    notes = git(repo, "show", "main:notes.md")
    assert RUN in notes and MAIN in notes


@pytest.mark.slow
def test_deleting_an_emptied_file_names_the_links_it_would_break(demo: list[Path]) -> None:
    """The demo's run merges landing-page.md into frontend/stack.md; accepting only those entry
    changes empties landing-page.md, and deleting it would break the links to it that the
    accept leaves alone."""
    alice = demo[0]
    svc = DreamService(alice)
    run = svc.runs()[0].id
    ids = [c.id for c in svc.review(run, history=False).diff.changes if "landing-page.md" in c.paths]
    assert svc.emptied_by(run, entries=ids) == ["landing-page.md"]
    kept = {str(p) for p in accept_problems(svc, run, entries=ids)}
    deleted = {str(p) for p in accept_problems(svc, run, entries=ids, delete=["landing-page.md"])} - kept
    assert any(p.startswith("projects/website.md:") and "[[landing-page]]" in p for p in deleted), deleted
    assert any(p.startswith("MEMORY.md:") and "[[landing-page]]" in p for p in deleted), deleted


async def _review(app, pilot) -> RunReviewScreen:
    await pilot.press("V")
    await wait_for(pilot, lambda: isinstance(app.screen, DreamListScreen) and app.screen.cards, what="runs")
    await pilot.press("enter")
    await wait_for(
        pilot, lambda: isinstance(app.screen, RunReviewScreen) and app.screen.review is not None, what="the review"
    )
    screen = app.screen
    assert isinstance(screen, RunReviewScreen)
    return screen


@pytest.mark.slow
async def test_pilot_the_choice_replaces_mains_version(repo: Path) -> None:
    ids = _ids(DreamService(repo))
    app = app_for([repo], poll_interval=60)
    async with running(app, REVIEW_SIZE) as drive:
        pilot = drive.pilot
        review = await _review(app, pilot)
        await wait_for(pilot, lambda: review.path == "notes.md" and review.changes, what="notes.md")
        changes = review.query_one("#review-changes")
        changes.focus()
        changes.highlighted = [c.id for c in review.changes].index(ids["deploy"])
        await pilot.pause(0.1)
        await pilot.press("a", "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the choice")
        dialog = app.screen
        assert isinstance(dialog, ChoiceScreen)
        assert "two versions of one entry" in dialog.title_text and "Wednesdays" in dialog.body
        assert dialog.choices[0] == ("replace", "The run's version replaces main's (1)")
        await pilot.press("enter")  # the first choice: the run's version replaces main's
        await wait_for(pilot, lambda: RUN in git(repo, "show", "main:notes.md"), what="the accept")
    notes = git(repo, "show", "main:notes.md")
    assert MAIN not in notes and notes.count("Deploys go out") == 1


@pytest.mark.slow
async def test_pilot_the_emptied_file_question_names_what_deleting_breaks(demo: list[Path]) -> None:
    alice = demo[0]
    app = app_for([alice], poll_interval=60)
    async with running(app, REVIEW_SIZE) as drive:
        pilot = drive.pilot
        review = await _review(app, pilot)
        files = review.query_one("#review-files")
        files.highlighted = [f.path for f in review.files].index("landing-page.md")
        await wait_for(pilot, lambda: review.path == "landing-page.md" and review.changes, what="landing-page.md")
        files.focus()
        await pilot.press("A", "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="what the accept leaves")
        await pilot.press(*"anyway", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the emptied-file question")
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert "leaves landing-page.md with no entries" in dialog.title_text
        assert "Deleting would break" in dialog.body and "projects/website.md" in dialog.body
        await pilot.press("n")  # keep it: the links still resolve
        await wait_for(pilot, lambda: "Accept 2 entry changes" in git(alice, "log", "-1", "--format=%s"), what="commit")
    assert "landing-page.md" in git(alice, "ls-tree", "--name-only", "main").split()


@pytest.mark.slow
async def test_pilot_the_review_reads_again_when_main_moves(repo: Path) -> None:
    """Issue 24 point 9: an agent commits to main while the review is open; the review shows main
    as it is now (and what main changed since the run) without leaving it, marks kept."""
    from tests.driver import said

    ids = _ids(DreamService(repo))
    app = app_for([repo], poll_interval=0.2)
    async with running(app, REVIEW_SIZE) as drive:
        pilot = drive.pilot
        review = await _review(app, pilot)
        await wait_for(pilot, lambda: review.stage == "done", what="the review read")
        changes = review.query_one("#review-changes")
        changes.focus()
        changes.highlighted = [c.id for c in review.changes].index(ids["deploy"])
        await pilot.pause(0.1)
        await pilot.press("a")
        assert ids["deploy"] in review.accepted
        before = review.run.main
        moved = f"- Deploys go out on Thursdays after the standup [source: {S}/9]"
        commit(repo, {"notes.md": f"# Notes\n\n{moved}\n{STAGING}\n"}, "agent: deploys on Thursdays")
        tip = git(repo, "rev-parse", "main").strip()
        await wait_for(pilot, lambda: review.run.main == tip and review.stage == "done", timeout=20, what="read again")
        assert review.run.main != before
        assert said(app, "moved while this review was open")
        assert review.review is not None and "Thursdays" in review.review.main_changed[ids["deploy"]]
        assert ids["deploy"] in review.accepted  # the reviewer's marks are kept
        assert app.screen is review


def test_a_copy_of_an_entry_in_a_file_the_run_leaves_alone_is_a_duplicate(tmp_path: Path) -> None:
    # issue 38 point 9: the run adds, to notes.md, the exact text of an entry of site.md, which it does not touch
    root = new_repo(
        tmp_path / "memory",
        {"MEMORY.md": MEMORY, "notes.md": f"# Notes\n\n{STAGING}\n", "site.md": f"# Site\n\n{CACHE}\n"},
    )
    branch_commit(root, "dreams/nightly", {"notes.md": f"# Notes\n\n{STAGING}\n{CACHE}\n"}, "dream: add")
    found = {(p.kind, str(p)) for p in accept_problems(DreamService(root), "nightly")}
    assert found == {("duplicate", "notes.md:4: says the same as site.md:3")}


def test_lines_that_differ_in_a_number_are_two_facts(tmp_path: Path) -> None:
    # issue 38 point 9: "number 1" and "number 27" were called the same, hundreds of times
    root = new_repo(
        tmp_path / "memory", {"MEMORY.md": MEMORY, "notes.md": "# Notes\n\n- Fact number 1 about the team\n"}
    )
    added = "".join(f"- Fact number {k} about the team\n" for k in range(2, 40))
    branch_commit(root, "dreams/nightly", {"notes.md": "# Notes\n\n- Fact number 1 about the team\n" + added}, "d")
    assert [str(p) for p in accept_problems(DreamService(root), "nightly") if p.kind == "duplicate"] == []
