"""Activity review: what others committed to one repo since the user last reviewed it, entry by
entry, side by side (the dream review's ``SideBySide`` and change lines), all together or commit
by commit. ``m`` marks everything reviewed; ``x`` reverts the entry change under the cursor and
``X`` the whole commit, each as a new commit (``services.activity``). Reading and writing run in
workers; the screen only shows what they post."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from amr_tui.core.diff.align import align
from amr_tui.core.textsafety import make_visible
from amr_tui.screens.dialogs import ConfirmScreen
from amr_tui.screens.live import LiveList
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.review_panes import review_screen
from amr_tui.widgets.review_text import describe_change
from amr_tui.widgets.safe import content, notify_text
from amr_tui.widgets.side_by_side import SideBySide

if TYPE_CHECKING:
    from collections.abc import Callable

    from amr_tui.core.diff.entries import EntryChange, EntryDiff
    from amr_tui.services.activity.model import Activity, ActivityCommit
    from amr_tui.services.activity.service import ActivityService

__all__ = ["ActivityScreen"]

SINCE = {
    "mark": "since your last review",
    "mark (off this branch)": "since your last review (where this branch meets it)",
    "since": "since the commit asked for",
    "root": "from the first commit (no review yet)",
}


class ActivityScreen(Screen[bool]):
    """One repo's unreviewed activity. Row 0 of the commit list is all of it together; each
    further row is one commit by someone else, oldest first."""

    HELP_TITLE = "Activity review"

    BINDINGS = bindings("activity")

    @dataclass
    class Loaded(Message):
        """The activity, read (or why it could not be)."""

        activity: Activity | None
        """What others committed since the start; None on error."""
        error: Exception | None = None
        """Why it could not be read."""

    @dataclass
    class Done(Message):
        """A write (mark, revert) is done, or failed."""

        text: str | None
        """What was done (None on error)."""
        error: Exception | None
        """Why nothing was written."""
        title: str = "Committed"
        """The notification's title."""

    def __init__(self, service: ActivityService, repo: str, read_only: bool, *, poll_interval: float = 1.0) -> None:
        super().__init__()
        self.service, self.repo, self.read_only = service, repo, read_only
        self.poll_interval = poll_interval
        self.activity: Activity | None = None
        self.whole: Activity | None = None  # as read; ``activity`` is it, or one writer's part of it
        self.writer: str | None = None  # w: only this author's commits (None: everyone's)
        self.scope = 0  # 0: all together; k: the k-th commit (oldest first)
        self.changes: list[EntryChange] = []
        self.path: str | None = None
        self.changed = False
        self.busy = False
        # an agent's commit, or the mark moved in another shell, while the review is open
        self.live = LiveList(self, service.signature, self.load, busy=lambda: self.busy)

    def compose(self) -> ComposeResult:
        yield from review_screen(
            content(f"{self.repo} \u00b7 activity"), "Others' commits", "Entry changes", "Reading the activity\u2026"
        )

    def on_mount(self) -> None:
        self.sub_title = make_visible(f"{self.repo} activity")
        self.live.start(self.poll_interval)

    # -- reading -----------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="activity")
    def load(self) -> None:
        self.live.read(lambda: self.Loaded(self.service.activity()), lambda exc: self.Loaded(None, exc))

    def _status(self, text: str) -> None:
        self.query_one("#review-status", Static).update(content(text))

    def on_activity_screen_loaded(self, message: Loaded) -> None:
        if message.error is not None or message.activity is None:
            self._status(f"Cannot read the activity: {message.error}")
            return
        self.whole = message.activity
        if self.writer is not None and self.writer not in self.whole.authors:
            self.writer = None
        self._show()

    def action_next_writer(self) -> None:
        """w: only the next author's commits and changes (after the last: everyone's again)."""
        if self.whole is None:
            return
        authors = self.whole.authors
        at = authors.index(self.writer) + 1 if self.writer in authors else 0
        self.writer = authors[at] if at < len(authors) else None
        self.scope = 0
        self._show()

    def _show(self) -> None:
        whole = self.whole
        if whole is None:
            return
        a = self.activity = whole if self.writer is None else whole.written_by(self.writer)
        since = SINCE.get(a.start_reason, a.start_reason)
        by = f" by {self.writer}" if self.writer is not None else " by others"
        self.query_one("#review-title", Static).update(
            content(
                f"{self.repo} \u00b7 activity: {a.count} unreviewed entry change{'s' if a.count != 1 else ''} "
                f"in {len(a.commits)} commit{'s' if len(a.commits) != 1 else ''}{by}, {since}"
                + (" (w: next writer)" if len(whole.authors) > 1 else "")
            )
        )
        commits = self.query_one("#review-files", OptionList)
        keep = min(self.scope, len(a.commits))
        commits.clear_options()
        commits.add_option(Option(content(f"All together ({a.count} change{'s' if a.count != 1 else ''})", "bold")))
        for c in a.commits:
            n = sum(1 for ch in a.changes if ch.commit is c)
            commits.add_option(
                Option(
                    Content.assemble(
                        content(f"{c.short} ", "$accent"),
                        content(f"{c.date.date().isoformat()} {c.author_name} ", "bold"),  # a run's leading
                        content(f"({n}/{len(c.diff.changes)}) {c.subject}", "$text-muted"),  # space is lost in SVG
                        content(" \u00b7 past the cut" if c.pushed or c.landed else "", "$warning"),
                    )
                )
            )
        if not a.commits:
            self._status("Nothing to review: nobody else committed since. m marks the repo reviewed up to now.")
        else:
            self._status(
                "x reverts the change under the cursor, X its whole commit (each a new commit); "
                "m marks everything reviewed."
            )
        commits.highlighted = keep
        self.show_scope(keep)

    def _diff(self) -> EntryDiff | None:
        a = self.activity
        if a is None:
            return None
        return a.together if self.scope == 0 else a.commits[self.scope - 1].diff

    def _commit(self) -> ActivityCommit | None:
        a = self.activity
        return a.commits[self.scope - 1] if a is not None and self.scope > 0 else None

    def show_scope(self, scope: int) -> None:
        a = self.activity
        if a is None:
            return
        self.scope = scope
        commit = self._commit()
        said = commit.past_cut() if commit is not None else ""
        if said:  # an agent's write that pushed entries past the load budget's cut: said here
            self._status(f"{commit.short if commit else ''} {said}")
        self.changes = [c.change for c in a.changes] if commit is None else list(commit.diff.changes)
        options = self.query_one("#review-changes", OptionList)
        options.clear_options()
        # In one commit, a change that is not in the activity as a whole any more (reverted, or
        # changed again later) is marked with ↺: it is history, not something left to review.
        open_new = {(c.change.new.path, c.change.new.raw) for c in a.changes if c.change.new is not None}
        open_old = {(o.path, o.raw) for c in a.changes for o in c.change.old}
        for change in self.changes:
            if commit is None:
                settled = False
            elif change.new is not None:
                settled = (change.new.path, change.new.raw) not in open_new
            else:
                settled = not any((o.path, o.raw) in open_old for o in change.old)
            options.add_option(
                Option(
                    Content.assemble(
                        content("\u21ba " if settled else "  ", "$text-muted"),
                        content(f"{change.primary_path}  ", "$text-muted"),
                        describe_change(change),
                    )
                )
            )
        self.path = None
        if self.changes:
            options.highlighted = 0
            self.show_change(self.changes[0])
        else:
            self.query_one(SideBySide).set_rows([])

    @on(OptionList.OptionHighlighted, "#review-files")
    def _scope_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.activity is not None and event.option_index != self.scope:
            self.show_scope(event.option_index)

    @on(OptionList.OptionHighlighted, "#review-changes")
    def _change_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if 0 <= event.option_index < len(self.changes):
            self.show_change(self.changes[event.option_index])

    def show_change(self, change: EntryChange) -> None:
        diff = self._diff()
        if diff is None:
            return
        view = self.query_one(SideBySide)
        path = change.primary_path
        if path != self.path:
            self.path = path
            view.set_rows(align(diff, path))
        for i, row in enumerate(view.rows):
            if row.change == change.id:
                view.cursor = i
                break

    def _current_change(self) -> EntryChange | None:
        focused = self.focused
        if isinstance(focused, SideBySide) and focused.row and focused.row.change:
            diff = self._diff()
            found = diff.by_id(focused.row.change) if diff else None
            if found is not None:
                return found
        idx = self.query_one("#review-changes", OptionList).highlighted
        return self.changes[idx] if idx is not None and idx < len(self.changes) else None

    # -- writing -------------------------------------------------------------------------------------
    def _can_write(self) -> bool:
        if self.read_only:
            notify_text(self.app, f"{self.repo} is read-only: nothing was changed.", severity="error")
            return False
        if self.activity is None or self.busy:
            notify_text(self.app, "Still reading the activity\u2026", severity="warning")
            return False
        return True

    def action_mark_reviewed(self) -> None:
        if self.activity is None or self.busy:
            return
        head = self.activity.head

        def job() -> str:
            oid = self.service.mark_reviewed(head)
            return f"{self.repo}: reviewed up to {(oid or '')[:7]}."

        self._write(job, "Marked reviewed")

    def action_revert_change(self) -> None:
        if not self._can_write():
            return
        change = self._current_change()
        if change is None:
            return
        commit = self._commit()
        oid = commit.oid if commit is not None else None
        text = (change.new or change.old[0]).text

        def job() -> str:
            saved = self.service.revert_change(change.id, oid)
            return f"Reverted one {change.kind.value} entry ({(saved.head or '')[:7]}); the rest stays."

        question = ConfirmScreen(
            f"Revert this {change.kind.value} entry change?",
            f"{make_visible(change.primary_path)}: {make_visible(text)}\n\nA new commit undoes only this change.",
            "Revert",
        )
        self.run_worker(self._revert(question, job), group="flow:activity-revert")

    def action_revert_commit(self) -> None:
        if not self._can_write() or self.activity is None:
            return
        commit = self._commit()
        if commit is None:  # all together: the commit of the change under the cursor
            change = self._current_change()
            commit = next((c.commit for c in self.activity.changes if change and c.change.id == change.id), None)
        if commit is None:
            return
        oid = commit.oid

        def job() -> str:
            saved = self.service.revert_commit(oid)
            return f"Reverted {oid[:7]} as a new commit ({(saved.head or '')[:7]})."

        question = ConfirmScreen(
            f"Revert the whole commit {commit.short}?",
            f"{make_visible(commit.subject)}\nby {make_visible(commit.author_name)}, "
            f"{len(commit.diff.changes)} entry change(s)\n\nA new commit undoes all of it; history stays.",
            "Revert commit",
        )
        self.run_worker(self._revert(question, job), group="flow:activity-revert")

    async def _revert(self, question: ConfirmScreen, job: Callable[[], str]) -> None:
        """Ask ``question``; yes runs the revert ``job``."""
        if await self.app.push_screen_wait(question):
            self._write(job, "Reverted")

    def _write(self, job: Callable[[], str], title: str) -> None:
        self.busy = True
        self._status("Writing\u2026")
        self._write_worker(job, title)

    @work(thread=True, exclusive=True, group="activity-write")
    def _write_worker(self, job: Callable[[], str], title: str) -> None:
        try:
            self.post_message(self.Done(job(), None, title))
        except Exception as exc:
            self.post_message(self.Done(None, exc))

    def on_activity_screen_done(self, message: Done) -> None:
        self.busy = False
        if message.error is not None:
            notify_text(self.app, str(message.error), title="Activity review", severity="error")
        elif message.text:
            self.changed = True
            notify_text(self.app, message.text, title=message.title)
        self.load()

    def action_close(self) -> None:
        self.dismiss(self.changed)
