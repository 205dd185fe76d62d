"""Pending dreaming runs as cards, and the review of one run: files, entry changes, side by side."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from amr_tui.core.entryalign import align
from amr_tui.core.textsafety import make_visible
from amr_tui.screens.dialogs import ConfirmScreen, PromptScreen
from amr_tui.widgets.safe import content

NL = Content("\n")
from amr_tui.widgets.side_by_side import SideBySide


def age(dt) -> str:
    import datetime as _dt

    if dt is None:
        return ""
    days = (_dt.datetime.now(dt.tzinfo) - dt).days
    return "today" if days <= 0 else f"{days}d ago"


def describe_change(change) -> Content:
    """One line per entry change: what kind, and what became what."""
    kind = change.kind.value
    style = {"resurrected": "$error bold", "dropped": "$warning", "new": "$success", "merged": "$accent"}.get(kind, "")
    parts = [content(f"{kind:<12}", style or "bold")]
    olds = [o.text for o in change.old]
    new = change.new.text if change.new else None
    if kind == "merged":
        parts.append(content(" + ".join(olds) + f"  \u2192  {new}"))
        parts.append(content("  (sources kept)" if change.sources_kept else f"  (LOST sources: {', '.join(change.lost_sources)})",
                             "$text-muted" if change.sources_kept else "$error"))
    elif kind == "moved" and change.new is not None:
        src = change.old[0].path if change.old else "?"
        parts.append(content(f"{new}  ({src} \u2192 {change.new.path})"))
    elif kind in ("reworded", "metadata"):
        parts.append(content(f"{olds[0] if olds else ''}  \u2192  {new}"))
    elif kind == "dropped":
        parts.append(content(olds[0] if olds else ""))
    else:
        parts.append(content(new or (olds[0] if olds else "")))
    if change.resurrects:
        parts.append(content(f"  \u26a0 resurrects a forgotten fact: {change.resurrects}", "$error"))
    return Content.assemble(*parts)


class DreamListScreen(Screen[bool]):
    BINDINGS = [
        Binding("escape,q", "close", "Back", id="dreams.close"),
        Binding("enter", "open_run", "Review", id="dreams.open"),
    ]

    class Loaded(Message):
        def __init__(self, cards: list, errors: list[str]) -> None:
            self.cards, self.errors = cards, errors
            super().__init__()

    def __init__(self, session, repos: list[str]) -> None:
        super().__init__()
        self.session, self.repos = session, repos
        self.cards: list = []
        self.changed = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Pending dreaming runs (branches dreams/<run-id>)", id="dreams-title", markup=False)
        yield OptionList(id="dreams-list")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(OptionList).add_option(Option(content("Reading dreaming runs…", "$text-muted")))
        self.load()

    @work(thread=True, exclusive=True, group="dream-list")
    def load(self) -> None:
        cards, errors = [], []
        for repo in self.repos:
            try:
                for run in self.session.dreams(repo).runs():
                    cards.append((repo, run))
            except Exception as exc:
                errors.append(f"{repo}: {exc}")
        self.post_message(self.Loaded(cards, errors))

    def on_dream_list_screen_loaded(self, message: Loaded) -> None:
        self.cards = message.cards
        options = self.query_one(OptionList)
        options.clear_options()
        for repo, run in self.cards:
            moved = "based on main's tip" if run.based_on_main else f"main moved {run.main_moved} commit(s) since it started"
            options.add_option(Option(Content.assemble(
                content(f"{repo} \u00b7 {run.id}", "bold"), content(f"   {age(run.started)}", "$text-muted"),
                NL, content(f"  {run.summary}"),
                NL, content(f"  {run.files_changed} files \u00b7 +{run.entries_added} \u2212{run.entries_removed} entry lines \u00b7 {moved}",
                        "$text-muted"))))
        if not self.cards:
            options.add_option(Option(content("No pending dreaming runs. `amr dream` makes one.", "$text-muted")))
        for err in message.errors:
            self.app.notify(make_visible(err), severity="error", markup=False)
        if self.cards:
            options.highlighted = 0
        options.focus()

    @on(OptionList.OptionSelected, "#dreams-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.action_open_run()

    def action_open_run(self) -> None:
        idx = self.query_one(OptionList).highlighted
        if idx is None or idx >= len(self.cards):
            return
        repo, run = self.cards[idx]
        read_only = self.session.mount(repo).read_only

        def done(changed: bool | None) -> None:
            if changed:
                self.changed = True
            self.load()

        self.app.push_screen(RunReviewScreen(self.session.dreams(repo), repo, run, read_only), done)

    def action_close(self) -> None:
        self.dismiss(self.changed)


class RunReviewScreen(Screen[bool]):
    """One run: files with viewed marks, the entry-level summary of the file, side by side."""

    BINDINGS = [
        Binding("escape,q", "close", "Back", id="review.close"),
        Binding("a", "decide('accept')", "Accept change", id="review.accept"),
        Binding("r", "decide('reject')", "Reject change", id="review.reject"),
        Binding("A", "decide_file", "Accept file", id="review.accept_file"),
        Binding("e", "edit_change", "Edit, then accept", show=False, id="review.edit"),
        Binding("v", "toggle_viewed", "Viewed", id="review.viewed"),
        Binding("ctrl+s", "apply", "Apply accepted", id="review.apply"),
        Binding("ctrl+a", "accept_all", "Accept run", show=False, id="review.accept_all"),
        Binding("X", "reject_run", "Reject run", id="review.reject_run"),
        Binding("u", "undo", "Undo decision", show=False, id="review.undo"),
    ]

    class Reviewed(Message):
        def __init__(self, review, error: Exception | None = None) -> None:
            self.review, self.error = review, error
            super().__init__()

    class Done(Message):
        def __init__(self, text: str | None, error: Exception | None, close: bool = False) -> None:
            self.text, self.error, self.close = text, error, close
            super().__init__()

    def __init__(self, service, repo: str, run, read_only: bool) -> None:
        super().__init__()
        self.service, self.repo, self.run, self.read_only = service, repo, run, read_only
        self.review = None
        self.path: str | None = None
        self.changes: list = []
        self.accepted: set[str] = set()
        self.rejected: set[str] = set()
        self.edits: dict[str, str] = {}
        self.changed = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(content(f"{self.repo} \u00b7 {self.run.id}: {self.run.summary}"), id="review-title")
        with Horizontal(id="review-panes"):
            with Vertical(id="review-left"):
                yield Static("Files", classes="side-title", markup=False)
                yield OptionList(id="review-files")
                yield Static("Entry changes in this file", classes="side-title", markup=False)
                yield OptionList(id="review-changes")
            with Vertical(id="review-right"):
                yield Static("Reading the run…", id="review-status", markup=False)
                yield SideBySide(id="review-diff")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = make_visible(f"{self.repo} dream {self.run.id}")
        self.query_one("#review-files", OptionList).add_option(Option(content("(reading…)", "$text-muted")))
        self.load()

    @work(thread=True, exclusive=True, group="review")
    def load(self) -> None:
        try:
            self.post_message(self.Reviewed(self.service.review(self.run.branch)))
        except Exception as exc:
            self.post_message(self.Reviewed(None, exc))

    def on_run_review_screen_reviewed(self, message: Reviewed) -> None:
        status = self.query_one("#review-status", Static)
        if message.error is not None:
            status.update(content(f"Cannot review this run: {message.error}"))
            return
        self.review = message.review
        self.show_files()
        total = len(self.review.diff.changes)
        done = len(self.review.applied)
        status.update(content(f"{total} entry changes; {done} already on main.  a/r decide a change, A a file, "
                              "ctrl+s applies the accepted ones, X rejects the rest of the run."))

    def show_files(self) -> None:
        files = self.query_one("#review-files", OptionList)
        keep = files.highlighted or 0
        files.clear_options()
        for f in self.review.files:
            counts = ", ".join(f"{n} {k}" for k, n in sorted(f.counts.items()))
            mark = "\u2713 " if f.viewed else "  "
            files.add_option(Option(Content.assemble(content(mark, "$success"), content(f.path, "bold"),
                                                     content(f"  {f.status}; {counts}", "$text-muted"))))
        if self.review.files:
            files.highlighted = min(keep, len(self.review.files) - 1)
            self.show_file(self.review.files[files.highlighted].path)

    @on(OptionList.OptionHighlighted, "#review-files")
    def _file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.review and 0 <= event.option_index < len(self.review.files):
            self.show_file(self.review.files[event.option_index].path)

    def show_file(self, path: str) -> None:
        if self.review is None:
            return
        self.path = path
        self.changes = [c for c in self.review.diff.changes if path in c.paths]
        self.refresh_changes()
        self.query_one(SideBySide).set_rows(align(self.review.diff, path))
        self.query_one(SideBySide).set_decisions(self.accepted, self.rejected)

    def refresh_changes(self) -> None:
        options = self.query_one("#review-changes", OptionList)
        keep = options.highlighted or 0
        options.clear_options()
        for change in self.changes:
            state = ("\u2714 " if change.id in self.accepted else "\u2718 " if change.id in self.rejected else
                     "= " if change.id in self.review.applied else "  ")
            options.add_option(Option(Content.assemble(content(state, "$success"), describe_change(change))))
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

    def _current_change(self):
        focused = self.focused
        if isinstance(focused, SideBySide) and focused.row and focused.row.change:
            return self.review.diff.by_id(focused.row.change) if self.review else None
        idx = self.query_one("#review-changes", OptionList).highlighted
        return self.changes[idx] if idx is not None and idx < len(self.changes) else None

    def action_decide(self, how: str) -> None:
        change = self._current_change()
        if change is None:
            return
        target, other = (self.accepted, self.rejected) if how == "accept" else (self.rejected, self.accepted)
        other.discard(change.id)
        if change.id in target:
            target.discard(change.id)
        else:
            target.add(change.id)
        self.refresh_changes()
        self.query_one(SideBySide).set_decisions(self.accepted, self.rejected)

    def action_decide_file(self) -> None:
        for change in self.changes:
            self.accepted.add(change.id)
            self.rejected.discard(change.id)
        self.refresh_changes()
        self.query_one(SideBySide).set_decisions(self.accepted, self.rejected)

    def action_edit_change(self) -> None:
        change = self._current_change()
        if change is None or change.new is None:
            return

        def edited(value: str | None) -> None:
            if value:
                self.edits[change.id] = value
                self.accepted.add(change.id)
                self.rejected.discard(change.id)
                self.refresh_changes()

        self.app.push_screen(PromptScreen("Edit the entry, then accept it", value=self.edits.get(change.id, change.new.raw)), edited)

    def action_toggle_viewed(self) -> None:
        if self.review is None or self.path is None:
            return
        f = next((f for f in self.review.files if f.path == self.path), None)
        self.mark_viewed(self.path, not (f and f.viewed))

    @work(thread=True, group="viewed")
    def mark_viewed(self, path: str, viewed: bool) -> None:
        try:
            self.service.mark_viewed(self.run.branch, path, viewed)
        except Exception as exc:
            self.post_message(self.Done(None, exc))
            return
        self.load()

    def _guard(self) -> bool:
        if self.read_only:
            self.app.notify(make_visible(f"{self.repo} is read-only: nothing was changed."), severity="error", markup=False)
            return False
        return True

    def action_apply(self) -> None:
        if not self._guard():
            return
        if not self.accepted:
            self.app.notify("Mark changes with a (or a file with A) first.", severity="warning")
            return
        entries = sorted(self.accepted)
        edits = {k: v for k, v in self.edits.items() if k in self.accepted}
        self._write(lambda: self.service.accept(self.run.branch, entries=entries, edits=edits), close=False)

    def action_accept_all(self) -> None:
        if not self._guard():
            return

        def go(yes: bool | None) -> None:
            if yes:
                self._write(lambda: self.service.accept(self.run.branch), close=True)

        self.app.push_screen(ConfirmScreen("Accept the whole run?", self.run.summary, "Accept all"), go)

    def action_reject_run(self) -> None:
        if not self._guard():
            return
        note = f"{len(self.accepted)} accepted change(s) not yet applied will be dropped.\n\n" if self.accepted else ""

        def go(yes: bool | None) -> None:
            if yes:
                self._write(lambda: self.service.reject(self.run.branch), close=True)

        self.app.push_screen(ConfirmScreen("Reject the rest of this run?",
                                           f"{note}The run leaves the pending list; its commits stay findable and the "
                                           "decision can be undone (u, or amr dreams undo).", "Reject"), go)

    def action_undo(self) -> None:
        if self._guard():
            self._write(lambda: self.service.undo(self.run.branch), close=False)

    def _write(self, job, close: bool) -> None:
        self.query_one("#review-status", Static).update("Writing…")
        self._write_worker(job, close)

    @work(thread=True, exclusive=True, group="review-write")
    def _write_worker(self, job, close: bool) -> None:
        try:
            result = job()
        except Exception as exc:
            self.post_message(self.Done(None, exc))
            return
        text = result if isinstance(result, str) else (
            f"Accepted ({result.how}){' and closed the run' if result.closed else ''}: {', '.join(result.items)}")
        self.post_message(self.Done(text, None, close or getattr(result, "closed", False)))

    def on_run_review_screen_done(self, message: Done) -> None:
        if message.error is not None:
            self.app.notify(make_visible(str(message.error)), title="Dream review", severity="error", markup=False)
            self.load()
            return
        if message.text:
            self.changed = True
            self.app.notify(make_visible(message.text), title="Committed", markup=False)
        self.accepted.clear()
        self.rejected.clear()
        self.edits.clear()
        if message.close:
            self.dismiss(True)
        else:
            self.load()

    def action_close(self) -> None:
        self.dismiss(self.changed)
