"""The dream review in stages (fast at 100,000 facts): the run's files from git first,
the entry-level summary from the background, then the forgotten-fact marks; actions wait for the
whole review. Real git repos, no mocks; the screen is driven with Textual's Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import OptionList

from amr_tui.app import styles_dir
from amr_tui.core.diff import similarity as sim
from amr_tui.core.diff.align import applied_ids
from amr_tui.core.diff.entries import ChangeKind, diff_entries, mark_forgotten
from amr_tui.core.dreams import apply as dreamapply
from amr_tui.core.tombstones import FactMatcher
from amr_tui.screens.dreams.screen import RunReviewScreen
from amr_tui.services.dreams.service import ChangedFile, DreamService
from tests.driver import notes, record_notes, wait_for
from tests.historyhelpers import S, branch_commit, commit, git, new_repo

PORT = "Dev server runs on port 3001 for the marketing site"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: a few facts, then one deleted on purpose. dreams/nightly: a move, a rewording, a
    merge, a new file, a deleted file, and the deleted fact coming back (a resurrection)."""
    root = new_repo(
        tmp_path / "memory",
        {
            "MEMORY.md": (
                "# Memory\n\n"
                f"- The landing page uses Next.js [source: {S}/1]\n"
                f"- The landing page is styled with Tailwind CSS [source: {S}/2]\n"
                f"- Marco runs the website rewrite with one contractor [source: {S}/3]\n"
                f"- {PORT} [source: {S}/4]\n\n## Index\n- [[notes]]\n"
            ),
            "notes.md": f"# Notes\n\n- Deploys go out on Tuesdays after the standup [source: {S}/5]\n",
            "old.md": f"# Old\n\n- The staging box is called gremlin [source: {S}/6]\n",
        },
    )
    commit(
        root,
        {
            "MEMORY.md": (
                "# Memory\n\n"
                f"- The landing page uses Next.js [source: {S}/1]\n"
                f"- The landing page is styled with Tailwind CSS [source: {S}/2]\n"
                f"- Marco runs the website rewrite with one contractor [source: {S}/3]\n"
                "\n## Index\n- [[notes]]\n"
            )
        },
        "forget the dev port",
        date="2026-09-02T12:00:00+00:00",
    )
    branch_commit(
        root,
        "dreams/nightly",
        {
            "MEMORY.md": (
                "# Memory\n\n"
                f"- The landing page uses Next.js and is styled with Tailwind CSS [source: {S}/1] [source: {S}/2]\n"
                "\n## Index\n- [[notes]]\n- [[team]]\n"
            ),
            "team.md": (
                f"# Team\n\n- Marco runs the website rewrite with two contractors since mid-September [source: {S}/3]\n"
            ),
            "notes.md": (
                f"# Notes\n\n- Deploys go out on Tuesdays after the standup [source: {S}/5]\n- {PORT} [source: {S}/9]\n"
            ),
            "old.md": None,
        },
        "dream: tidy up",
    )
    return root


class Host(App[None]):
    CSS_PATH = [str(styles_dir() / "app.tcss"), str(styles_dir() / "screens.tcss")]


def _shape(review) -> tuple:
    """What a review says, in comparable form."""
    return (
        [(f.path, f.status, f.counts, f.changes, f.viewed, f.rejected) for f in review.files],
        [(c.id, c.kind, c.resurrects) for c in review.diff.changes],
        review.applied,
        review.rejected,
        review.rejected_files,
    )


def test_changed_files_come_from_git_alone(repo: Path) -> None:
    service = DreamService(repo)
    run = service.run("nightly", counts=False)
    assert (run.files_changed, run.entries_added) == (0, 0)  # no entry diff was made for it
    files = service.changed_files(run)
    numstat = {}
    for line in git(repo, "diff", "--numstat", "main...dreams/nightly").splitlines():
        added, removed, path = line.split("\t")
        numstat[path] = (int(added), int(removed))
    assert [f.path for f in files] == ["MEMORY.md", "notes.md", "old.md", "team.md"]
    assert {f.path: f.status for f in files} == {
        "MEMORY.md": "modified",
        "notes.md": "modified",
        "old.md": "deleted",
        "team.md": "added",
    }
    assert {f.path: f.lines for f in files} == numstat
    assert not any(f.viewed for f in files)
    service.mark_viewed("nightly", "notes.md")
    assert [f.path for f in service.changed_files(run) if f.viewed] == ["notes.md"]
    service.close()


def test_the_summary_in_stages_is_the_whole_review(repo: Path) -> None:
    service = DreamService(repo)
    whole = DreamService(repo).review("nightly")
    first = service.review(service.run("nightly", counts=False), history=False)
    last = service.with_forgotten(first)
    assert _shape(last) == _shape(whole)
    kinds = {c.kind for c in whole.diff.changes}
    assert {ChangeKind.MERGED, ChangeKind.MOVED, ChangeKind.RESURRECTED, ChangeKind.DROPPED} <= kinds
    # the forgotten marks change kinds, never ids: decisions taken on either stage stay valid
    assert [c.id for c in first.diff.changes] == [c.id for c in last.diff.changes]
    (res,) = [c for c in last.diff.changes if c.kind is ChangeKind.RESURRECTED]
    assert next(c for c in first.diff.changes if c.id == res.id).kind is ChangeKind.NEW
    assert "forget the dev port" in res.resurrects
    service.close()


def test_mark_forgotten_is_diff_entries_with_forgotten() -> None:
    old = {"a.md": b"# A\n\n- The build cache lives in the shared bucket now\n- Old fact here\n"}
    new = {
        "a.md": b"# A\n\n- The build cache lives in the shared bucket now\n- Staging is called gremlin again\n",
        "b.md": b"# B\n\n- Brand new fact about the deploy window\n",
    }
    matcher = FactMatcher()
    matcher.add("Staging is called gremlin again", "tombstone")
    at_once = diff_entries(old, new, forgotten=matcher)
    later = mark_forgotten(diff_entries(old, new), matcher)
    assert [(c.id, c.kind, c.resurrects) for c in at_once.changes] == [
        (c.id, c.kind, c.resurrects) for c in later.changes
    ]
    assert [c.kind for c in later.changes].count(ChangeKind.RESURRECTED) == 1


def test_applied_ids_agrees_with_dreamapply(repo: Path) -> None:
    service = DreamService(repo)
    review = service.review("nightly", history=False)
    for commit_ in (review.run.base, review.run.tip, review.run.main):
        files = service._files(commit_, review.diff.changed_paths)
        one_by_one = {c.id for c in review.diff.changes if dreamapply.applied(c, {p: files.get(p) for p in c.paths})}
        assert applied_ids(review.diff, files) == one_by_one
    assert applied_ids(review.diff, service._files(review.run.tip, review.diff.changed_paths)) == {
        c.id for c in review.diff.changes
    }
    service.close()


def test_same_fact_index_finds_the_first_match_in_order() -> None:
    texts = [
        "",
        "short",
        "the deploy window opens at nine on tuesdays",
        "links only",
        "the deploy window opens at nine on tuesday",
        "deploy window the opens at nine on tuesdays",
        "something else entirely that is long enough",
    ]
    keys = [sim.normalise(t) for t in texts]
    index = sim.SameFactIndex(keys)
    queries = [
        "the deploy window opens at nine on tuesdays",
        "the deploy window opens at 9 on tuesdays",
        "short",
        "nothing like any of them at all",
        "something else entirely that is long enougH",
    ]
    for q in map(sim.normalise, queries):
        expected = next(((j, s) for j, k in enumerate(keys) if (s := sim.same_fact(q, k)) is not None), None)
        assert index.first(q) == expected, q


class Watched(RunReviewScreen):
    """The review screen as it is, with a look at it as each stage's message comes in (Textual
    runs a subclass's handler first, then RunReviewScreen's own)."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.seen: list[tuple[str, str, int, list[str]]] = []

    def _look(self, name: str) -> None:
        options = self.query_one("#review-files", OptionList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        self.seen.append((name, self.stage, len(self.changes), prompts))

    def on_run_review_screen_files(self, message) -> None:
        self._look("Files")

    def on_run_review_screen_summary(self, message) -> None:
        self._look("Summary")
        # the files are listed and the summary is not in yet: every decision waits politely
        assert self.review is None and self.summary is None
        self.action_decide("accept")
        self.action_decide_file()
        self.action_edit_change()
        self.action_apply()
        self.action_accept_all()
        assert not self.accepted and not self.edits

    def on_run_review_screen_reviewed(self, message) -> None:
        self._look("Reviewed")


async def test_files_listed_before_the_summary_and_actions_wait(repo: Path) -> None:
    main_before = git(repo, "rev-parse", "main")
    service = DreamService(repo)
    run = service.run("dreams/nightly", counts=False)
    screen = Watched(service, "memory", run, False)
    app = Host()
    record_notes(app)
    async with app.run_test(size=(130, 36)) as pilot:
        await app.push_screen(screen)
        await wait_for(pilot, lambda: screen.stage == "done", timeout=30, what="the whole review")
        await pilot.pause()
        messages = [n.message for n in notes(app)]
    assert [s[0] for s in screen.seen] == ["Files", "Summary", "Reviewed"]
    assert screen.seen[0][1] == "reading"
    # when the summary arrived, the list already showed the run's files (git's status and lines)
    _name, stage, changes, prompts = screen.seen[1]
    assert stage == "files" and changes == 0
    assert [p.split()[0] for p in prompts] == ["MEMORY.md", "notes.md", "old.md", "team.md"]
    assert "deleted; +0 \u22123 lines" in prompts[2] and "added; +3 \u22120 lines" in prompts[3]
    assert len(messages) == 5 and all(n.startswith("Still reading the run") for n in messages)
    assert screen.seen[2][1] == "summary" and screen.seen[2][2] > 0  # the summary showed before the marks
    assert git(repo, "rev-parse", "main") == main_before  # nothing was written
    service.close()


@pytest.mark.slow
async def test_summary_fills_in_matches_the_service_and_a_resurrected_change_can_be_accepted(repo: Path) -> None:
    service = DreamService(repo)
    run = service.run("nightly")
    screen = RunReviewScreen(service, "memory", run, False)
    app = Host()
    async with app.run_test(size=(130, 36)) as pilot:
        await app.push_screen(screen)
        await wait_for(pilot, lambda: screen.review is not None, timeout=30, what="the whole review")
        await pilot.pause()
        assert _shape(screen.review) == _shape(DreamService(repo).review("nightly"))
        assert [f.path for f in screen.files] == ["MEMORY.md", "notes.md", "old.md", "team.md"]
        # the reviewer starts on a file: its changes and its side by side are there
        files = screen.query_one("#review-files", OptionList)
        files.highlighted = 1
        await wait_for(pilot, lambda: screen.path == "notes.md", what="notes.md shown")
        (res,) = [c for c in screen.changes if c.kind is ChangeKind.RESURRECTED]
        changes = screen.query_one("#review-changes", OptionList)
        changes.highlighted = screen.changes.index(res)
        changes.focus()
        await pilot.press("a")
        assert screen.accepted == {res.id}
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: PORT in (repo / "notes.md").read_text(), timeout=30, what="accepted on main")
        await wait_for(
            pilot, lambda: screen.review is not None and res.id in screen.review.applied, timeout=30, what="read again"
        )
        # a viewed mark, from the file list
        await pilot.press("v")
        await wait_for(
            pilot,
            lambda: screen.review is not None and next(f for f in screen.review.files if f.path == "notes.md").viewed,
            timeout=30,
            what="viewed",
        )
    assert "Dream-Run: nightly" in git(repo, "log", "-1", "--format=%B", "main")
    assert isinstance(service.changed_files(service.run("nightly", counts=False))[0], ChangedFile)
    service.close()
