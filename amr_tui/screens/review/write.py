"""The review screen's decisions that write: apply the accepted changes (after saying what they
would break), accept the whole run, reject the rest, undo. Each write runs in one worker at a
time; ``RunReviewScreen`` reads the run again when it is done."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from amr_tui.core.textsafety import make_visible
from amr_tui.screens.dialogs import ChoiceScreen, ConfirmScreen
from amr_tui.services.dreams.check import accept_problems
from amr_tui.widgets.safe import notify_text

if TYPE_CHECKING:
    from amr_tui.services.dreams.check import Problem
    from amr_tui.services.dreams.model import DreamRun, RunReview
    from amr_tui.services.dreams.service import DreamService
    from amr_tui.services.dreams.write import Accepted

    _Screen = Screen[bool]  # to the type checker the mixin is the screen it is mixed into
else:
    _Screen = object

#: A write the review does in its worker: what it says it did, or what the accept did.
Job = Callable[[], "str | Accepted"]


class ReviewWriteMixin(_Screen):
    """Mixed into ``RunReviewScreen``: uses its ``service``, ``run``, ``accepted``, ``edits``,
    ``load`` and ``_review_in``."""

    service: DreamService
    repo: str
    run: DreamRun
    read_only: bool
    review: RunReview | None
    stage: str
    accepted: set[str]
    rejected: set[str]
    edits: dict[str, str]
    changed: bool

    if TYPE_CHECKING:

        def load(self) -> None: ...

        def _review_in(self) -> bool: ...

    @dataclass
    class Checked(Message):
        """What an accept would break, worked out: the accept waits for it."""

        entries: list[str]
        """The ids of the entry changes to accept (empty: the whole run)."""
        edits: dict[str, str]
        """Entry change id to the text the reviewer wrote instead."""
        close: bool
        """Whether the screen closes once the accept is done."""
        problems: list[Problem]
        """What the accept would break: two versions of one entry, duplicates, broken links, lost
        Index links, unreachable files, MEMORY.md over budget."""
        replace: list[str] = field(default_factory=list)
        """Entry changes whose version replaces main's (the reviewer chose so)."""
        emptied: list[str] = field(default_factory=list)
        """Files the accept would leave with no entry (only a heading): offered for deletion."""
        if_deleted: list[Problem] = field(default_factory=list)
        """What deleting the emptied files too would break besides ``problems``."""

    @dataclass
    class Done(Message):
        """A write is done (or failed); the screen reads the run again."""

        text: str | None
        """What was done, to say so (None on error)."""
        error: Exception | None
        """Why nothing was written, if nothing was."""
        close: bool = False
        """Whether the screen closes now (the run left the pending list)."""
        title: str = "Committed"
        """What kind of write it was, for the notification ("Rejected", "Undone")."""

    def _guard(self) -> bool:
        if self.read_only:
            notify_text(self.app, f"{self.repo} is read-only: nothing was changed.", severity="error")
            return False
        return True

    def action_apply(self) -> None:
        if not self._guard() or not self._review_in():
            return
        if not self.accepted:
            notify_text(self.app, "Mark changes with a (or a file with A) first.", severity="warning")
            return
        entries = sorted(self.accepted)
        edits = {k: v for k, v in self.edits.items() if k in self.accepted}
        self._check_then_accept(entries, edits, close=False)

    def save_rejections(self, changes: list[str], rejected: bool) -> None:
        """Keep a rejection (or take it back) in the repo's rejection marks, at once; a run whose
        every change is then decided is closed."""
        if self._guard():
            self._save_rejections(list(changes), rejected)

    @work(thread=True, group="review-reject")
    def _save_rejections(self, changes: list[str], rejected: bool) -> None:
        try:
            self.service.reject_parts(self.run.branch, changes=changes, rejected=rejected)
            state = self.service.close_if_decided(self.run.branch) if rejected else None
        except Exception as exc:
            self.post_message(self.Done(None, exc))
            return
        if state is not None:
            what = "accepted in part, the rest rejected" if state == "accepted" else "rejected"
            self.post_message(
                self.Done(
                    f"Every change of run {self.run.id} is decided: it is closed ({what}) and left the pending list.",
                    None,
                    close=True,
                    title="Rejected",
                )
            )

    def action_accept_all(self) -> None:
        if not self._guard() or not self._review_in():
            return

        def go(yes: bool | None) -> None:
            if yes:
                self._check_then_accept([], {}, close=True)

        self.app.push_screen(ConfirmScreen("Accept the whole run?", self.run.summary, "Accept all"), go)

    def action_reject_run(self) -> None:
        if not self._guard():
            return
        note = f"{len(self.accepted)} accepted change(s) not yet applied will be dropped.\n\n" if self.accepted else ""

        def go(yes: bool | None) -> None:
            if yes:
                self._write(lambda: self._reject(), close=True, title="Rejected")

        self.app.push_screen(
            ConfirmScreen(
                "Reject the rest of this run?",
                f"{note}The run leaves the pending list; its commits stay findable and the "
                "decision can be undone (u, or amr dreams undo).",
                "Reject",
            ),
            go,
        )

    def action_undo(self) -> None:
        if self._guard():
            self._write(lambda: self.service.undo(self.run.branch), close=False, title="Undone")

    def _reject(self) -> str:
        self.service.reject(self.run.branch)
        return (
            f"Rejected run {self.run.id}: it left the pending list, nothing was committed to main "
            "(u or amr dreams undo brings it back)."
        )

    def _check_then_accept(
        self, entries: list[str], edits: dict[str, str], close: bool, replace: list[str] | None = None
    ) -> None:
        """Accept (all of the run when ``entries`` is empty), after showing what it would break."""
        self.query_one("#review-status", Static).update("Checking what the accept would leave…")
        self._check_worker(entries, edits, close, replace or [])

    @work(thread=True, exclusive=True, group="review-write")
    def _check_worker(self, entries: list[str], edits: dict[str, str], close: bool, replace: list[str]) -> None:
        try:
            problems = accept_problems(self.service, self.run.branch, entries=entries, edits=edits, replace=replace)
        except Exception:  # the accept itself says what is wrong (a conflict, a closed run)
            problems = []
        try:
            emptied = self.service.emptied_by(self.run.branch, entries=entries, edits=edits, replace=replace)
            if_deleted = (
                accept_problems(
                    self.service, self.run.branch, entries=entries, edits=edits, replace=replace, delete=emptied
                )
                if emptied
                else []
            )
        except Exception:
            emptied, if_deleted = [], []
        said = set(problems)
        extra = [p for p in if_deleted if p not in said]
        self.post_message(
            self.Checked(entries, edits, close, problems, replace=replace, emptied=emptied, if_deleted=extra)
        )

    def on_review_write_mixin_checked(self, message: Checked) -> None:
        branch, entries, edits, replace = self.run.branch, message.entries, message.edits, message.replace
        delete: list[str] = []

        def job() -> Accepted:
            return self.service.accept(branch, entries=entries, edits=edits, delete=delete, replace=replace)

        def write() -> None:
            if not message.emptied:
                self._write(job, close=message.close)
                return

            def answer(yes: bool | None) -> None:
                if yes:
                    delete.extend(message.emptied)
                self._write(job, close=message.close)

            names = ", ".join(make_visible(p) for p in message.emptied)
            body = "Yes deletes the file in the same commit; No keeps it as it is left."
            if message.if_deleted:
                broken = "\n".join(make_visible(f"- {p}") for p in message.if_deleted[:8])
                more = f"\n\u2026 and {len(message.if_deleted) - 8} more" if len(message.if_deleted) > 8 else ""
                body = f"Deleting would break {len(message.if_deleted)} link(s):\n{broken}{more}\n\n{body}"
            self.app.push_screen(
                ConfirmScreen(
                    f"This accept leaves {names} with no entries (only a heading). Delete "
                    f"{'it' if len(message.emptied) == 1 else 'them'}?",
                    body,
                    "Delete",
                    "Keep",
                ),
                answer,
            )

        if not message.problems:
            write()
            return
        title, body, choices = problem_choice(message.problems, self.service.main, bool(entries))

        def chosen(choice: str | None) -> None:
            clashing = {p.change for p in message.problems if p.kind in ("versions", "dropped")}
            if choice == "apply":
                write()
            elif choice == "replace":
                versions = [p.change for p in message.problems if p.kind == "versions"]
                self._check_then_accept(entries, edits, message.close, [*replace, *versions])
            elif choice == "skip":
                rest = [e for e in entries if e not in clashing]
                if rest:
                    self._check_then_accept(rest, {k: v for k, v in edits.items() if k in rest}, message.close, replace)
                else:
                    self.query_one("#review-status", Static).update("Nothing applied: every change marked clashes.")
            else:
                self.query_one("#review-status", Static).update("Nothing applied.")

        self.app.push_screen(ChoiceScreen(title, choices, body=body), chosen)

    def _write(self, job: Job, close: bool, title: str = "Committed") -> None:
        self.query_one("#review-status", Static).update("Writing…")
        self._write_worker(job, close, title)

    @work(thread=True, exclusive=True, group="review-write")
    def _write_worker(self, job: Job, close: bool, title: str) -> None:
        try:
            result = job()
        except Exception as exc:
            self.post_message(self.Done(None, exc))
            return
        if isinstance(result, str):
            text, closed = result, False
        else:
            text = f"Accepted ({result.how}){' and closed the run' if result.closed else ''}: {', '.join(result.items)}"
            closed = result.closed
        self.post_message(self.Done(text, None, close or closed, title))

    def on_review_write_mixin_done(self, message: Done) -> None:
        if message.error is not None:
            notify_text(self.app, str(message.error), title="Dream review", severity="error")
            self.load()
            return
        if message.text:
            self.changed = True
            notify_text(self.app, message.text, title=message.title)
        self.accepted.clear()  # the rejections are kept (saved): the next reading brings them back
        self.edits.clear()
        if message.close:
            self.dismiss(True)
        else:
            self.review, self.stage = None, "summary"  # main (or the run) moved: decide on what is read next
            self.load()


_WHAT = {
    "versions": "two versions of one entry",
    "dropped": "entries main dropped, written back",
    "duplicate": "duplicates",
    "link": "broken links",
    "index": "Index links lost",
    "unreachable": "files MEMORY.md would not reach",
    "budget": "MEMORY.md over its load budget",
}


def problem_choice(problems: list[Problem], main: str, some: bool) -> tuple[str, str, list[tuple[str, str]]]:
    """The title, the body and the choices of the dialog that shows what an accept would break.
    ``some``: the reviewer marked some entry changes (leaving the clashing ones out is a choice)."""
    counts: dict[str, int] = {}
    for p in problems:
        counts[p.kind] = counts.get(p.kind, 0) + 1
    title = "This accept would leave " + ", ".join(f"{n} \u00d7 {_WHAT.get(k, k)}" for k, n in counts.items())
    shown = "\n".join(make_visible(f"- {p}") for p in problems[:12])  # a path may hold a line break
    more = f"\n\u2026 and {len(problems) - 12} more" if len(problems) > 12 else ""
    choices: list[tuple[str, str]] = []
    versions = counts.get("versions", 0)
    clashing = versions + counts.get("dropped", 0)
    if versions:
        choices.append(("replace", f"The run's version replaces {main}'s ({versions})"))
    if clashing and some:
        choices.append(("skip", f"Leave out the {clashing} change(s) {main} changed meanwhile, apply the rest"))
    keep = " (keep both versions)" if versions else ""
    choices.append(("apply", f"Apply anyway{keep}: fix the rest after (amr lint lists it)"))
    choices.append(("cancel", "Cancel: apply nothing"))
    return title, f"{shown}{more}", choices
