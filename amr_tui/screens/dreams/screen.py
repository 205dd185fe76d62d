"""Pending dreaming runs as cards, and the review of one run: files, entry changes, side by side."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from amr_tui.core.diff.align import align
from amr_tui.core.format.links import LinkState, resolve, split_heading
from amr_tui.core.textsafety import make_visible, plural
from amr_tui.screens.dreams.edit import EntryEditScreen
from amr_tui.screens.dreams.write import WRITE_GROUP, ReviewWrites
from amr_tui.screens.live import LiveList
from amr_tui.services.dreams.evidence import dream_now
from amr_tui.services.dreams.threeway import rows_now
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.footer import Footer
from amr_tui.widgets.lists import FilterList
from amr_tui.widgets.review_panes import review_screen
from amr_tui.widgets.review_text import age, describe_change, file_line
from amr_tui.widgets.safe import content, notify_text
from amr_tui.widgets.side_by_side import SideBySide
from amr_tui.widgets.titles import ScreenTitle

if TYPE_CHECKING:
    from amr_tui.core.diff.entries import EntryChange
    from amr_tui.core.model import Link
    from amr_tui.services.dreams.model import ChangedFile, DreamRun, FileReview, RunReview
    from amr_tui.services.dreams.service import DreamService
    from amr_tui.services.session.session import Session

NL = Content("\n")
__all__ = ["DreamListScreen", "RunReviewScreen", "age", "describe_change"]


class DreamListScreen(Screen[bool]):
    HELP_TITLE = "Dreaming runs"
    BINDINGS = bindings("dreams")

    @dataclass
    class Dreamt(Message):
        """ "Dream now" is done: one line per repo."""

        lines: list[str]
        """What was made in each repo (or why nothing was)."""

    @dataclass
    class Loaded(Message):
        """The pending runs of every repo, read."""

        cards: list[tuple[str, DreamRun]]
        """(repo, run) for each pending run, repo by repo, oldest run first."""
        errors: list[str]
        """One line per repo whose runs could not be read."""

    def __init__(self, session: Session, repos: list[str], *, poll_interval: float = 1.0) -> None:
        super().__init__()
        self.session, self.repos, self.poll_interval = session, repos, poll_interval
        self.cards: list[tuple[str, DreamRun]] = []
        self.changed = False
        # a run made or decided elsewhere (amr dream, amr dreams reject) while the list is open
        self.live = LiveList(self, self._signature, self.load)

    def _signature(self) -> tuple[object, ...]:
        return tuple(self.session.dreams(repo).signature() for repo in self.repos)

    def compose(self) -> ComposeResult:
        yield Header()
        yield ScreenTitle("Pending dreaming runs (branches dreams/<run-id>)", id="dreams-title", markup=False)
        yield FilterList(id="dreams-list")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(OptionList).add_option(Option(content("Reading dreaming runs…", "$text-muted")))
        self.live.start(self.poll_interval)

    @work(thread=True, exclusive=True, group="dream-list")
    def load(self) -> None:
        self.live.mark()
        cards: list[tuple[str, DreamRun]] = []
        errors: list[str] = []
        for repo in self.repos:
            try:
                for run in self.session.dreams(repo).runs():
                    cards.append((repo, run))
            except Exception as exc:
                errors.append(f"{repo}: {exc}")
        self.post_message(self.Loaded(cards, errors))

    def on_dream_list_screen_loaded(self, message: Loaded) -> None:
        options = self.query_one(FilterList)
        at = options.source_highlighted
        was = self.cards[at] if at is not None and at < len(self.cards) else None
        typed = options.typed
        self.cards = message.cards
        options.clear_options()
        for repo, run in self.cards:
            moved = (
                "based on main's tip"
                if run.based_on_main
                else f"main moved {run.main_moved} commit(s) since it started"
            )
            options.add_option(
                Option(
                    Content.assemble(
                        content(f"{repo} \u00b7 {run.id}", "bold"),
                        content(f"   {age(run.started)}", "$text-muted"),
                        NL,
                        content(f"  {run.summary}"),
                        NL,
                        content(
                            f"  {plural(run.files_changed, 'file')} \u00b7 +{run.entries_added} \u2212{run.entries_removed} entry lines \u00b7 {moved}",
                            "$text-muted",
                        ),
                    )
                )
            )
        if not self.cards:
            options.add_option(Option(content("No pending dreaming runs. `amr dream` makes one.", "$text-muted")))
        for err in message.errors:
            notify_text(self.app, err, severity="error")
        if self.cards:  # read again: the run the cursor was on, and the filter typed, kept
            ids = [(repo, run.id) for repo, run in self.cards]
            options.highlighted = ids.index((was[0], was[1].id)) if was and (was[0], was[1].id) in ids else 0
            if typed:
                options.set_typed(typed)
        options.focus()

    @on(OptionList.OptionSelected, "#dreams-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.action_open_run()

    def action_open_run(self) -> None:
        idx = self.query_one(FilterList).source_highlighted
        if idx is None or idx >= len(self.cards):
            return
        repo, run = self.cards[idx]
        read_only = self.session.mount(repo).read_only
        review = RunReviewScreen(self.session.dreams(repo), repo, run, read_only, poll_interval=self.poll_interval)
        self.run_worker(self.review_run(review), group="flow:review-run")

    async def review_run(self, review: RunReviewScreen) -> None:
        """The run's review; the list is read again after it (a decision moves the run)."""
        if await self.app.push_screen_wait(review):
            self.changed = True
        self.load()

    def action_dream_now(self) -> None:
        notify_text(self.app, "Dreaming\u2026 (a run per repo, on its own branch)", title="Dream now")
        self.dream_now()

    @work(thread=True, exclusive=True, group="dream-now")
    def dream_now(self) -> None:
        repos = [
            (self.session.dreams(r), self.session.mount(r)) for r in self.repos if not self.session.mount(r).read_only
        ]
        self.post_message(self.Dreamt(dream_now(repos, self.session.verifying.config)))

    def on_dream_list_screen_dreamt(self, message: Dreamt) -> None:
        notify_text(self.app, "\n".join(message.lines) or "No writable repo.", title="Dream now", timeout=10)
        self.load()

    def action_close(self) -> None:
        self.dismiss(self.changed)


class RunReviewScreen(Screen[bool]):
    """One run: files with viewed marks, the entry-level summary of the file, side by side.

    It fills in in stages, from one background worker: the run's files as git lists them (a few
    git calls), then the entry-level summary (the entry diff, which changes main already has),
    then the forgotten-fact marks (a walk of main's history, slow the first time). ``stage``
    says how far it got: "reading", "files", "summary", "done" (or "error"). Files can be browsed
    and marked viewed from "files" on, and their changes read from "summary" on; deciding and
    accepting wait for "done" (``review``), so nothing is accepted before the warnings are in.
    """

    HELP_TITLE = "Dream review"

    BINDINGS = bindings("review")

    @dataclass
    class Files(Message):
        """First stage: the run (read again) and its files from git."""

        token: int
        """Which reading it comes from (``load`` counts them; an earlier one's is ignored)."""
        run: DreamRun
        """The run, read again."""
        files: list[ChangedFile]
        """The files it changes, as git lists them."""
        paths: frozenset[str] = frozenset()
        """The files a link in an entry may name: main's and the run's (``DreamService.link_targets``)."""

    @dataclass
    class Summary(Message):
        """Second stage: the entry-level review without the forgotten-fact marks."""

        token: int
        """Which reading it comes from."""
        review: RunReview
        """The review made with ``history=False``."""

    @dataclass
    class Reviewed(Message):
        """Last stage: the whole review (``DreamService.review``), or why there is none."""

        review: RunReview | None
        """The review with the forgotten-fact marks (None on error)."""
        error: Exception | None = None
        """Why the run cannot be reviewed, if it cannot."""
        token: int = 0
        """Which reading it comes from."""

    @dataclass
    class MainTip(Message):
        """Main's tip, read by the watch: the review is read again when main moved."""

        tip: str | None
        """Main's commit now (None: it could not be read)."""

    @dataclass
    class Contradictions(Message):
        """After the review: the run's entries that may contradict another entry."""

        token: int
        """Which reading it comes from."""
        found: dict[str, list[str]]
        """Change id -> "contradicts path:line (A vs B)?" (``DreamService.contradictions``)."""

    @dataclass
    class Checks(Message):
        """After the review: whether each entry the run adds or rewrites cites a source and evidence that exist."""

        token: int
        """Which reading it comes from."""
        found: dict[str, list[tuple[str, bool]]]
        """Change id -> ("source: ... (exists)", warning?), ... (``DreamService.evidence_notes``)."""

    def __init__(
        self, service: DreamService, repo: str, run: DreamRun, read_only: bool, *, poll_interval: float = 1.0
    ) -> None:
        super().__init__()
        self.checks: dict[
            str, list[tuple[str, bool]]
        ] = {}  # change id -> its source and evidence, for added or rewritten entries
        self.service, self.repo, self.run, self.read_only = service, repo, run, read_only
        self.poll_interval = poll_interval
        self.review: RunReview | None = None  # the whole review: what deciding and accepting need
        self.summary: RunReview | None = None  # the review shown: the whole one, or the one without forgotten marks
        self.files: (
            list[ChangedFile] | list[FileReview]
        ) = []  # the file list's rows: ChangedFile (first stage) or FileReview
        self.stage = "reading"
        self.path: str | None = None
        self.changes: list[EntryChange] = []
        self.accepted: set[str] = set()
        self.rejected: set[str] = set()
        self.edits: dict[str, str] = {}  # change id -> the entry line as the reviewer wrote it
        self.link_paths: frozenset[str] = frozenset()  # what a link in an edited entry may name
        self.changed = False
        self.writes = ReviewWrites(self)  # apply, accept all, reject the run, undo, rejections
        self._token = 0

    def compose(self) -> ComposeResult:
        yield from review_screen(
            content(f"{self.repo} \u00b7 {self.run.id}: {self.run.summary}"),
            "Files",
            "Entry changes in this file",
            "Reading the run…",
        )

    def on_mount(self) -> None:
        self.sub_title = make_visible(f"{self.repo} dream {self.run.id}")
        self.query_one("#review-files", OptionList).add_option(Option(content("(reading…)", "$text-muted")))
        self.load()
        self.set_interval(self.poll_interval, self._watch_main, name="review-main")

    def _watch_main(self) -> None:
        """Main moved (an agent committed) while the review is open: read it again, so the left
        side is main as it is and "changed on main since the run" is true. Not while the screen
        is under a dialog, is reading, or is writing (its own accept moves main)."""
        if not self.is_current or self.stage != "done":
            return
        if any(w.node is self and w.group == WRITE_GROUP and not w.is_finished for w in self.app.workers):
            return
        self._read_main_tip()

    @work(thread=True, exclusive=True, group="review-main")
    def _read_main_tip(self) -> None:
        try:
            self.post_message(self.MainTip(self.service.main_tip()))
        except Exception:
            self.post_message(self.MainTip(None))

    def on_run_review_screen_main_tip(self, message: MainTip) -> None:
        if message.tip is None or message.tip == self.run.main or self.stage != "done" or not self.is_current:
            return
        notify_text(
            self.app,
            f"{self.service.main} moved while this review was open: it is read again (your marks are kept).",
            title="Dream review",
        )
        self.review, self.stage = None, "summary"
        self.load()

    def load(self) -> None:
        """(Re)read the run in the background; messages of an earlier reading are ignored."""
        self._token += 1
        self._read(self._token)

    @work(thread=True, exclusive=True, group="review")
    def _read(self, token: int) -> None:
        service, worker = self.service, get_current_worker()
        try:
            run = service.run(self.run.branch, counts=False)
            self.post_message(self.Files(token, run, service.changed_files(run), service.link_targets(run)))
            if worker.is_cancelled:
                return
            summary = service.review(run, history=False)
            self.post_message(self.Summary(token, summary))
            if worker.is_cancelled:
                return
            review = service.with_forgotten(summary)
            self.post_message(self.Reviewed(review, token=token))
            if worker.is_cancelled:
                return
            try:  # marks only (reading every file of main): deciding does not wait for them
                odd = service.contradictions(review)
            except Exception:
                odd = {}
            self.post_message(self.Contradictions(token, odd))
            try:  # marks only: each added or rewritten entry's source and evidence (git on the code repo)
                checks = service.evidence_notes(review)
            except Exception:
                checks = {}
            self.post_message(self.Checks(token, checks))
        except Exception as exc:
            self.post_message(self.Reviewed(None, exc, token))

    def _status(self, text: str) -> None:
        self.query_one("#review-status", Static).update(content(text))

    def on_run_review_screen_files(self, message: Files) -> None:
        if message.token != self._token:
            return
        self.run, self.link_paths = message.run, message.paths
        if self.summary is not None:  # read again: keep showing the summary until the new one is in
            return
        self.stage, self.files = "files", message.files
        self.show_files()
        added = sum(f.lines[0] for f in self.files if f.lines)
        removed = sum(f.lines[1] for f in self.files if f.lines)
        self._status(
            f"{plural(len(self.files), 'file')} changed (+{added} \u2212{removed} lines). Reading the entry-level changes\u2026"
        )

    def on_run_review_screen_summary(self, message: Summary) -> None:
        if message.token != self._token:
            return
        self.stage, self.summary, self.files = "summary", message.review, message.review.files
        self.rejected = set(message.review.rejected)  # saved (DreamService.reject_parts)
        self.show_files()
        self._status(
            f"{len(self.summary.diff.changes)} entry changes; {len(self.summary.applied)} already on main. "
            "Checking new entries against forgotten facts\u2026"
        )

    def on_run_review_screen_reviewed(self, message: Reviewed) -> None:
        if message.token != self._token:
            return
        if message.error is not None:
            self.stage = "error"
            self._status(f"Cannot review this run: {message.error}")
            return
        review = message.review
        assert review is not None  # there is a review whenever there is no error
        self.stage, self.review = "done", review
        self.summary, self.files = review, review.files
        self.rejected = set(review.rejected)
        self.show_files()
        self._status_done(review)

    def _status_done(self, review: RunReview) -> None:
        total = len(review.diff.changes)
        done = len(review.applied)
        side = (
            f"Left: {self.service.main} now; right: the run's result."
            if review.now is None
            else f"Left: {self.service.main} now (it moved since the run started); right: the run's result."
        )
        notes = []
        if review.main_changed:
            notes.append(f"{len(review.main_changed)} changed on {self.service.main} since the run (\u26a0)")
        if review.contradictions:
            notes.append(f"{len(review.contradictions)} possible contradiction(s)")
        self._status(
            f"{total} entry changes; {done} already on main"
            + (f"; {'; '.join(notes)}" if notes else "")
            + f".  {side}  a/r decide a change, A a file, ctrl+s applies the accepted ones, X rejects the rest."
        )

    def on_run_review_screen_contradictions(self, message: Contradictions) -> None:
        if message.token != self._token or self.review is None:
            return
        self.review.contradictions = message.found
        self._status_done(self.review)
        self.refresh_changes()

    def on_run_review_screen_checks(self, message: Checks) -> None:
        if message.token != self._token:
            return
        self.checks = message.found
        self.refresh_changes()

    def show_files(self) -> None:
        """The file list from ``files``, the highlighted file kept (by path)."""
        files = self.query_one("#review-files", OptionList)
        paths = [f.path for f in self.files]
        keep = paths.index(self.path) if self.path in paths else min(files.highlighted or 0, max(len(paths) - 1, 0))
        files.clear_options()
        files.add_options([Option(file_line(f)) for f in self.files])
        if self.files:
            files.highlighted = keep
            self.show_file(paths[keep])

    @on(OptionList.OptionHighlighted, "#review-files")
    def _file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.stage != "reading" and 0 <= event.option_index < len(self.files):
            self.show_file(self.files[event.option_index].path)

    def show_file(self, path: str) -> None:
        self.path = path
        view = self.query_one(SideBySide)
        if self.summary is None:
            self.changes = []
            options = self.query_one("#review-changes", OptionList)
            options.clear_options()
            options.add_option(Option(content("(reading the entry-level changes…)", "$text-muted")))
            return
        self.changes = [c for c in self.summary.diff.changes if path in c.paths]
        self.refresh_changes()
        now = self.summary.now  # main moved since the run started: main now on the left
        view.set_rows(align(self.summary.diff, path) if now is None else rows_now(now, self.summary.now_map, path))
        view.set_decisions(self.accepted, self.rejected)

    def refresh_changes(self) -> None:
        options = self.query_one("#review-changes", OptionList)
        keep = options.highlighted or 0
        options.clear_options()
        applied: set[str] = self.summary.applied if self.summary else set()
        for change in self.changes:
            state = (
                "\u2714 "
                if change.id in self.accepted
                else "\u2718 "
                if change.id in self.rejected
                else "= "
                if change.id in applied
                else "  "
            )
            marks = [content(state, "$success"), describe_change(change, self.edits.get(change.id))]
            if self.summary and change.id in self.summary.main_changed:
                marks.append(
                    content(
                        f"  \u26a0 {self.service.main} changed this since the run: {self.summary.main_changed[change.id]}",
                        "$warning",
                    )
                )
            for note in self.summary.contradictions.get(change.id, []) if self.summary else []:
                marks.append(content(f"  \u26a0 possible contradiction: {note}", "$warning"))
            why = self.summary.reasons.get(change.id) if self.summary else None
            if why:
                marks += [NL, content(f"    why: {why}", "$text-muted")]
            for note, warn in self.checks.get(change.id, []):
                marks += [NL, content(f"    {note}", "$warning" if warn else "$text-muted")]
            options.add_option(Option(Content.assemble(*marks)))
        if self.changes:
            options.highlighted = min(keep, len(self.changes) - 1)

    @on(OptionList.OptionHighlighted, "#review-changes")
    def _change_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if 0 <= event.option_index < len(self.changes):
            change_id = self.changes[event.option_index].id
            view = self.query_one(SideBySide)
            for i, row in enumerate(view.rows):
                if row.change == change_id:
                    view.cursor = i
                    break

    def review_in(self) -> bool:
        """Whether the whole review is in; says so politely when not."""
        if self.review is None:
            notify_text(
                self.app,
                "Still reading the run\u2026 (the entry-level summary is not complete yet)",
                title="Dream review",
                severity="warning",
            )
            return False
        return True

    def action_apply(self) -> None:
        self.writes.apply()

    def action_accept_all(self) -> None:
        self.writes.accept_all()

    def action_reject_run(self) -> None:
        self.writes.reject_run()

    def action_undo(self) -> None:
        self.writes.undo()

    def _current_change(self) -> EntryChange | None:
        focused = self.focused
        if isinstance(focused, SideBySide) and focused.row and focused.row.change:
            return self.review.diff.by_id(focused.row.change) if self.review else None
        idx = self.query_one("#review-changes", OptionList).highlighted
        return self.changes[idx] if idx is not None and idx < len(self.changes) else None

    def action_decide(self, how: str) -> None:
        if not self.review_in():
            return
        change = self._current_change()
        if change is None:
            return
        was_rejected = change.id in self.rejected
        target, other = (self.accepted, self.rejected) if how == "accept" else (self.rejected, self.accepted)
        other.discard(change.id)
        if change.id in target:
            target.discard(change.id)
        else:
            target.add(change.id)
        self.refresh_changes()
        self.query_one(SideBySide).set_decisions(self.accepted, self.rejected)
        if (change.id in self.rejected) != was_rejected:
            self.writes.save_rejections([change.id], change.id in self.rejected)

    def action_decide_file(self) -> None:
        if not self.review_in():
            return
        unreject = [c.id for c in self.changes if c.id in self.rejected]
        for change in self.changes:
            self.accepted.add(change.id)
            self.rejected.discard(change.id)
        if unreject:
            self.writes.save_rejections(unreject, False)
        self.refresh_changes()
        self.query_one(SideBySide).set_decisions(self.accepted, self.rejected)

    def action_edit_change(self) -> None:
        if not self.review_in():
            return
        change = self._current_change()
        if change is None or change.new is None:
            return
        # the main editor's field and checks; esc and quitting ask before dropping what was typed
        editor = EntryEditScreen(
            self.repo,
            change.new.path,
            change.new.raw,
            title=f"Edit, then accept: {change.kind.value} entry of {change.new.path}",
            edited=self.edits.get(change.id),
            link_ok=self._link_ok,
        )
        self.run_worker(self.edit_change(change.id, editor), group="flow:review-edit")

    def _link_ok(self, link: Link) -> bool:
        """A link of an edited entry names a file of main or of the run (or a heading of its own)."""
        if not link.target.strip() and split_heading(link.raw):
            return True
        return resolve(link.target, self.link_paths).state is LinkState.OK

    async def edit_change(self, change: str, editor: EntryEditScreen) -> None:
        """The entry as the reviewer writes it (``editor``) is accepted in place of ``change``'s,
        and the list shows it so."""
        line = await self.app.push_screen_wait(editor)
        if line:
            self.edits[change] = line
            self.accepted.add(change)
            self.rejected.discard(change)
            self.refresh_changes()
            self.query_one(SideBySide).set_decisions(self.accepted, self.rejected)

    def action_toggle_viewed(self) -> None:
        f = next((f for f in self.files if f.path == self.path), None)
        if self.stage == "reading" or f is None:
            self.review_in()
            return
        self.mark_viewed(f.path, not f.viewed)

    @work(thread=True, group="viewed")
    def mark_viewed(self, path: str, viewed: bool) -> None:
        try:
            self.service.mark_viewed(self.run.branch, path, viewed)
        except Exception as exc:
            self.app.call_from_thread(self.writes.done, None, exc)
            return
        self.app.call_from_thread(self.load)

    def action_close(self) -> None:
        self.dismiss(self.changed)
