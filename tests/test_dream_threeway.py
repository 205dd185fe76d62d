"""The three-way dream review: main as it is now on the left, entries main changed since the run
started marked (and never overwritten silently), rejections saved, a fully decided run closed,
an emptied file offered for deletion, and possible contradictions flagged. Real git repos; the
screen is driven with Textual's Pilot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import OptionList

from amr_tui.screens.dialogs import ChoiceScreen, ConfirmScreen
from amr_tui.screens.dreams.screen import DreamListScreen, RunReviewScreen
from amr_tui.services.dreams.service import DreamService
from amr_tui.services.dreams.threeway import rows_now
from amr_tui.widgets.side_by_side import SideBySide
from tests.driver import REVIEW_SIZE, app_for, notes, running, wait_for
from tests.historyhelpers import S, branch_commit, commit, git, new_repo

BASE_DEPLOY = f"- Deploys go out on Tuesdays after the standup [source: {S}/1]"
MAIN_DEPLOY = f"- Deploys go out on Wednesdays after the standup [source: {S}/7]"
RUN_DEPLOY = f"- Deploys go out on Tuesdays after the standup and a smoke test [source: {S}/1]"
AVIF = f"- Hero images are served from the CDN as AVIF [source: {S}/8]"
JPEG = f"- Hero images are served from the CDN as JPEG [source: {S}/3]"
WEB = f"- The web app ships every week [source: {S}/2]"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """base: notes.md, web.md (one entry), site.md. dreams/nightly: rewords the deploy entry, adds
    an AVIF entry, drops web.md's only entry (deletes the file). Then main rewords the deploy
    entry too (Wednesdays)."""
    root = new_repo(
        tmp_path / "memory",
        {
            "MEMORY.md": "# Memory\n\n- Memory of the web team\n\n## Index\n- [[notes]]\n- [[site]]\n",
            "notes.md": f"# Notes\n\n{BASE_DEPLOY}\n- Staging is rebuilt nightly [source: {S}/4]\n",
            "web.md": f"# Web\n\n{WEB}\n",
            "site.md": f"# Site\n\n- The site is static [source: {S}/5]\n{JPEG}\n",
        },
    )
    branch_commit(
        root,
        "dreams/nightly",
        {
            "notes.md": f"# Notes\n\n{RUN_DEPLOY}\n- Staging is rebuilt nightly [source: {S}/4]\n{AVIF}\n",
            "web.md": None,
        },
        "dream: tidy up",
    )
    commit(
        root,
        {"notes.md": f"# Notes\n\n{MAIN_DEPLOY}\n- Staging is rebuilt nightly [source: {S}/4]\n"},
        "deploys moved to Wednesdays",
        date="2026-10-03T09:00:00+00:00",
    )
    return root


def _ids(root: Path) -> tuple[DreamService, dict[str, str]]:
    svc = DreamService(root)
    review = svc.review("nightly", history=False)
    by = {}
    for c in review.diff.changes:
        text = c.new.text if c.new else c.old[0].text
        by["deploy" if "Deploys" in text else "avif" if "AVIF" in text else "web"] = c.id
    return svc, by


def test_review_marks_what_main_changed_and_shows_main_now(repo: Path) -> None:
    svc, ids = _ids(repo)
    review = svc.review("nightly", history=False)
    assert set(ids) == {"deploy", "avif", "web"}
    assert review.main_changed == {ids["deploy"]: "main now reads: Deploys go out on Wednesdays after the standup"}
    assert review.now is not None
    rows = rows_now(review.now, review.now_map, "notes.md")
    left = [r.old_text for r in rows if r.old_text]
    assert MAIN_DEPLOY in left and BASE_DEPLOY not in left  # the left side is main now
    deploy_rows = [r for r in rows if r.change == ids["deploy"]]
    assert deploy_rows and deploy_rows[0].old_text == MAIN_DEPLOY and deploy_rows[0].new_text == RUN_DEPLOY
    assert [r.change for r in rows if r.new_text == AVIF] == [ids["avif"]]
    assert svc.contradictions(review) == {ids["avif"]: ["contradicts site.md:4 (AVIF vs JPEG)?"]}
    # accepting the change main also changed keeps main's line: nothing of main's is dropped
    svc.accept("nightly", entries=[ids["deploy"]])
    text = git(repo, "show", "main:notes.md")
    assert MAIN_DEPLOY in text and RUN_DEPLOY in text


def test_service_closes_a_fully_decided_run_and_deletes_an_emptied_file_on_request(repo: Path) -> None:
    svc, ids = _ids(repo)
    assert svc.emptied_by("nightly", entries=[ids["web"]]) == ["web.md"]
    with pytest.raises(Exception, match="leaves entries"):
        svc.accept("nightly", entries=[ids["avif"]], delete=["notes.md"])
    svc.reject_parts("nightly", changes=[ids["deploy"]])
    assert svc.close_if_decided("nightly") is None  # two changes are still undecided
    done = svc.accept("nightly", entries=[ids["web"], ids["avif"]], delete=["web.md"])
    assert done.closed and [r.id for r in svc.runs()] == []
    assert "web.md" not in git(repo, "ls-tree", "--name-only", "main").split()
    assert "Dream-Deleted-Empty: web.md" in git(repo, "log", "-1", "--format=%B", "main")
    assert git(repo, "for-each-ref", "--format=%(refname)", "refs/amr/dreams/").split() == [
        "refs/amr/dreams/accepted/nightly"
    ]
    assert MAIN_DEPLOY in git(repo, "show", "main:notes.md")


@pytest.mark.slow
async def test_pilot_three_way_review_saves_rejections_and_closes_the_run(repo: Path) -> None:
    """In the screen: the marks, the question before applying over main's change, r saved at
    once, the empty-file question (yes deletes it in the same commit), and the run closed."""
    _svc, ids = _ids(repo)
    app = app_for([repo], poll_interval=60)
    async with running(app, REVIEW_SIZE) as drive:
        pilot = drive.pilot
        await pilot.press("V")
        await wait_for(pilot, lambda: isinstance(app.screen, DreamListScreen) and app.screen.cards, what="runs")
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, RunReviewScreen) and app.screen.review is not None,
            timeout=20,
            what="the review",
        )
        review = app.screen
        assert isinstance(review, RunReviewScreen)
        await wait_for(pilot, lambda: review.review.contradictions, what="the contradiction marks")
        files = review.query_one("#review-files", OptionList)
        files.highlighted = [f.path for f in review.files].index("notes.md")
        await pilot.pause(0.1)
        await wait_for(pilot, lambda: review.path == "notes.md" and len(review.changes) == 2, what="notes.md")
        listed = "\n".join(
            str(review.query_one("#review-changes", OptionList).get_option_at_index(i).prompt)
            for i in range(len(review.changes))
        )
        assert "main changed this since the run: main now reads: Deploys go out on Wednesdays" in listed
        assert "possible contradiction: contradicts site.md:4 (AVIF vs JPEG)?" in listed
        view = review.query_one(SideBySide)
        assert MAIN_DEPLOY in [r.old_text for r in view.rows] and BASE_DEPLOY not in [r.old_text for r in view.rows]
        status = str(review.query_one("#review-status").render())
        assert "main now (it moved since the run started)" in status

        changes = review.query_one("#review-changes", OptionList)
        changes.focus()
        order = [c.id for c in review.changes]
        main_before = git(repo, "rev-parse", "main").strip()
        # accepting the entry main changed asks first, naming both versions; Escape leaves main as it is
        changes.highlighted = order.index(ids["deploy"])
        await pilot.pause(0.1)
        await pilot.press("a", "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the question")
        assert "1 \u00d7 two versions of one entry" in app.screen.title_text
        assert "Wednesdays" in app.screen.body and "and a smoke test" in app.screen.body
        assert [cid for cid, _ in app.screen.choices] == ["replace", "skip", "apply", "cancel"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is review, what="back to the review")
        assert git(repo, "rev-parse", "main").strip() == main_before
        # r is saved at once
        await pilot.press("r")
        assert review.rejected == {ids["deploy"]} and review.accepted == set()
        await wait_for(
            pilot,
            lambda: DreamService(repo).rejections("nightly")["changes"] == [ids["deploy"]],
            what="the rejection saved",
        )
        changes.highlighted = order.index(ids["avif"])
        await pilot.pause(0.1)
        await pilot.press("a")
        files.highlighted = [f.path for f in review.files].index("web.md")
        await wait_for(pilot, lambda: review.path == "web.md" and len(review.changes) == 1, what="web.md")
        await pilot.press("A", "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the empty-file question")
        assert "leaves web.md with no entries" in app.screen.title_text
        await pilot.press("y")
        # every change decided: the run closes and leaves the pending list
        await wait_for(pilot, lambda: isinstance(app.screen, DreamListScreen), timeout=20, what="the list")
        await wait_for(pilot, lambda: not app.screen.cards, timeout=20, what="no pending run")
        assert any("closed the run" in n.message for n in notes(app))

    assert "web.md" not in git(repo, "ls-tree", "--name-only", "main").split()
    notes_md = git(repo, "show", "main:notes.md")
    assert MAIN_DEPLOY in notes_md and RUN_DEPLOY not in notes_md and AVIF in notes_md
    assert git(repo, "rev-list", "--count", f"{main_before}..main").strip() == "1"  # one commit, the deletion in it
    assert "refs/amr/dreams/accepted/nightly" in git(repo, "for-each-ref", "--format=%(refname)", "refs/amr/dreams/")


@pytest.mark.slow
async def test_pilot_rejecting_the_last_change_closes_the_run(repo: Path) -> None:
    """r on every change (nothing accepted): the run is closed as rejected, nothing committed."""
    app = app_for([repo], poll_interval=60)
    main_before = git(repo, "rev-parse", "main").strip()
    async with running(app, REVIEW_SIZE) as drive:
        pilot = drive.pilot
        await pilot.press("V")
        await wait_for(pilot, lambda: isinstance(app.screen, DreamListScreen) and app.screen.cards, what="runs")
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, RunReviewScreen) and app.screen.review is not None,
            timeout=20,
            what="the review",
        )
        review = app.screen
        assert isinstance(review, RunReviewScreen)
        files = review.query_one("#review-files", OptionList)
        changes = review.query_one("#review-changes", OptionList)
        for path in ("notes.md", "web.md"):
            files.highlighted = [f.path for f in review.files].index(path)
            await wait_for(pilot, lambda p=path: review.path == p, what=path)
            changes.focus()
            for k in range(len(review.changes)):
                changes.highlighted = k
                await pilot.pause(0.05)
                await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, DreamListScreen), timeout=20, what="the list")
        await wait_for(pilot, lambda: not app.screen.cards, timeout=20, what="no pending run")
        assert any(n.title == "Rejected" for n in notes(app))
    assert git(repo, "rev-parse", "main").strip() == main_before
    assert "refs/amr/dreams/rejected/nightly" in git(repo, "for-each-ref", "--format=%(refname)", "refs/amr/dreams/")


def test_demo_run_flags_the_jpeg_avif_pair_in_review_and_after_accepting_in_lint(demo: list[Path]) -> None:
    alice = demo[0]
    svc = DreamService(alice)
    (run,) = svc.runs()
    review = svc.review(run, history=False)
    flagged = {cid: notes_ for cid, notes_ in svc.contradictions(review).items() if any("JPEG" in n for n in notes_)}
    avif = next(c for c in review.diff.changes if c.new and "AVIF" in c.new.text)
    assert flagged == {avif.id: ["contradicts projects/website.md:5 (AVIF vs JPEG)?"]}
    # main moved its Index since the run started: MEMORY.md entry by entry, the other files whole
    files = [f.path for f in review.files if f.path != "MEMORY.md"]
    memory = [c.id for c in review.diff.changes if c.paths == ("MEMORY.md",)]
    svc.accept(run.id, files=files, entries=memory)
    assert [r.id for r in svc.runs()] == []  # nothing left undecided: the run is closed
    out = subprocess.run(  # amr lint, as a user runs it
        [sys.executable, "-m", "amr_tui", "lint", "--severity", "info", "--no-cache", str(alice)],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    assert "AMR033 possible contradiction: contradicts frontend/stack.md:4 (JPEG vs AVIF)?" in out
    assert "projects/website.md:5" in out


async def test_pilot_demo_review_flags_the_jpeg_avif_pair(driver) -> None:
    """On the demo, the pending run's review marks the moved AVIF entry as a possible
    contradiction of the website notes' JPEG entry (issue 16's done-when)."""
    app = driver.app
    await driver.press("V")
    await driver.until(lambda: getattr(app.screen, "cards", None), what="the pending dreams")
    await driver.press("enter")
    await driver.until(
        lambda: isinstance(app.screen, RunReviewScreen) and app.screen.review is not None, what="the review"
    )
    review = app.screen
    assert isinstance(review, RunReviewScreen)
    await driver.until(lambda: review.review.contradictions, what="the contradiction marks")
    files = review.query_one("#review-files", OptionList)
    files.highlighted = [f.path for f in review.files].index("frontend/stack.md")
    await driver.until(lambda: review.path == "frontend/stack.md", what="frontend/stack.md")
    options = review.query_one("#review-changes", OptionList)
    listed = [str(options.get_option_at_index(i).prompt) for i in range(len(review.changes))]
    flagged = [line for line in listed if "possible contradiction" in line]
    assert len(flagged) == 1
    assert "as AVIF" in flagged[0] and "contradicts projects/website.md:5 (AVIF vs JPEG)?" in flagged[0]
    assert "1 possible contradiction(s)" in str(review.query_one("#review-status").render())


def test_an_entry_accepted_as_edited_counts_as_decided(repo: Path) -> None:
    """An entry accepted with the reviewer's own wording is not on main as the run wrote it; the
    accept commit names it, so rejecting the rest still closes the run."""
    svc, ids = _ids(repo)
    edited = "- Hero images are served from the CDN as AVIF, with a JPEG fallback"
    done = svc.accept("nightly", entries=[ids["avif"]], edits={ids["avif"]: edited})
    assert not done.closed
    assert ids["avif"] not in svc.review("nightly", history=False).applied
    svc.reject_parts("nightly", changes=[ids["deploy"]])
    assert svc.close_if_decided("nightly") is None  # web.md's drop is still undecided
    svc.reject_parts("nightly", changes=[ids["web"]])
    assert svc.close_if_decided("nightly") == "accepted"
    assert [r.id for r in svc.runs()] == []
    assert edited in git(repo, "show", "main:notes.md")


def test_dreams_show_names_main_changes_and_contradictions(repo: Path) -> None:
    _svc, ids = _ids(repo)
    amr = [sys.executable, "-m", "amr_tui", "dreams"]
    out = subprocess.run([*amr, "show", "nightly", "--no-history"], cwd=repo, capture_output=True, text=True).stdout
    assert f"{ids['deploy']}: main changed this since the run: main now reads: Deploys go out on Wednesdays" in out
    assert f"{ids['avif']}: possible contradiction: contradicts site.md:4 (AVIF vs JPEG)?" in out
    data = json.loads(
        subprocess.run(
            [*amr, "show", "nightly", "--no-history", "--json"], cwd=repo, capture_output=True, text=True
        ).stdout
    )
    assert data["contradictions"] == {ids["avif"]: ["contradicts site.md:4 (AVIF vs JPEG)?"]}
    assert list(data["main_changed"]) == [ids["deploy"]]


def test_accepting_the_whole_run_over_mains_change_is_refused_clearly(repo: Path) -> None:
    """A whole accept merges files three ways: main and the run changed the deploy line, so it
    is refused with what to do, and main keeps its version."""
    svc = DreamService(repo)
    before = git(repo, "rev-parse", "main").strip()
    with pytest.raises(Exception, match="notes.md: the run and main changed the same lines; accept it entry by entry"):
        svc.accept("nightly")
    assert git(repo, "rev-parse", "main").strip() == before
    assert [r.id for r in svc.runs()] == ["nightly"]
