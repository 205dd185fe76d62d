"""The review screen's decisions that write: apply the accepted changes (after saying what they
would break), accept the whole run, reject the rest, undo, and keep rejections.

:class:`ReviewWrites` is the screen's (``RunReviewScreen.writes``), composed with it through the
:class:`ReviewHost` protocol. Each decision is an async flow run as one worker of the screen: git
runs in a thread (``asyncio.to_thread``), each question is asked with ``push_screen_wait``, and
the screen reads the run again when the write is done. One write runs at a time (the group
``flow:review-write``, exclusive)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from textual.widgets import Static

from amr_tui.core.textsafety import make_visible
from amr_tui.screens.dialogs import ChoiceScreen, ConfirmScreen
from amr_tui.services.dreams.check import accept_problems
from amr_tui.widgets.safe import notify_text
from amr_tui.widgets.type_ahead import hold

if TYPE_CHECKING:
    from textual.app import App
    from textual.worker import Worker

    from amr_tui.services.dreams.check import Problem
    from amr_tui.services.dreams.model import DreamRun, RunReview
    from amr_tui.services.dreams.service import DreamService
    from amr_tui.services.dreams.write import Accepted

#: A write the review does in a thread: what it says it did, or what the accept did.
Job = Callable[[], "str | Accepted"]

#: The worker group of the review's writes (``RunReviewScreen`` does not re-read main meanwhile).
WRITE_GROUP = "flow:review-write"


class ReviewHost(Protocol):
    """What the writes need from the review screen."""

    service: DreamService
    repo: str
    run: DreamRun
    read_only: bool
    review: RunReview | None
    stage: str
    accepted: set[str]
    edits: dict[str, str]
    changed: bool

    @property
    def app(self) -> App[Any]: ...

    def query_one(self, selector: str, expect_type: type[Static]) -> Static: ...

    def run_worker(
        self, work: Coroutine[Any, Any, None], *, group: str = ..., exclusive: bool = ...
    ) -> Worker[None]: ...

    def load(self) -> None:
        """Read the run again."""
        ...

    def dismiss(self, result: bool) -> Any: ...

    def review_in(self) -> bool:
        """Whether the whole review is in; says so when not."""
        ...


@dataclass
class _Check:
    """What an accept would break, worked out in a thread."""

    problems: list[Problem]
    emptied: list[str] = field(default_factory=list)
    """Files the accept would leave with no entry (only a heading): offered for deletion."""
    if_deleted: list[Problem] = field(default_factory=list)
    """What deleting the emptied files too would break besides ``problems``."""


def _check(service: DreamService, branch: str, entries: list[str], edits: dict[str, str], replace: list[str]) -> _Check:
    try:
        problems = accept_problems(service, branch, entries=entries, edits=edits, replace=replace)
    except Exception:  # the accept itself says what is wrong (a conflict, a closed run)
        problems = []
    try:
        emptied = service.emptied_by(branch, entries=entries, edits=edits, replace=replace)
        if_deleted = (
            accept_problems(service, branch, entries=entries, edits=edits, replace=replace, delete=emptied)
            if emptied
            else []
        )
    except Exception:
        emptied, if_deleted = [], []
    said = set(problems)
    return _Check(problems, emptied, [p for p in if_deleted if p not in said])


class ReviewWrites:
    """The review screen's writes (see the module)."""

    def __init__(self, screen: ReviewHost) -> None:
        self.screen = screen

    def _status(self, text: str) -> None:
        self.screen.query_one("#review-status", Static).update(text)

    def _guard(self) -> bool:
        if self.screen.read_only:
            notify_text(self.screen.app, f"{self.screen.repo} is read-only: nothing was changed.", severity="error")
            return False
        return True

    def _run(self, flow: Coroutine[Any, Any, None]) -> None:
        worker = self.screen.run_worker(flow, group=WRITE_GROUP, exclusive=True)
        # The keys typed after ctrl+s (enter: "Apply anyway") answer the question the check asks,
        # or act once the write is done: they wait until one or the other (widgets/type_ahead.py).
        app = self.screen.app
        on = app.screen
        hold(app, "a review write on its way", lambda: worker.is_finished or app.screen is not on, 30.0)

    # ------------------------------------------------------------------ actions
    def apply(self) -> None:
        """Apply the changes marked accepted, after saying what the accept would break."""
        s = self.screen
        if not self._guard() or not s.review_in():
            return
        if not s.accepted:
            notify_text(s.app, "Mark changes with a (or a file with A) first.", severity="warning")
            return
        entries = sorted(s.accepted)
        edits = {k: v for k, v in s.edits.items() if k in s.accepted}
        self._status("Checking what the accept would leave\u2026")
        self._run(self._accept(entries, edits, close=False))

    def accept_all(self) -> None:
        if self._guard() and self.screen.review_in():
            self._run(self._accept_all())

    def reject_run(self) -> None:
        if self._guard():
            self._run(self._reject_run())

    def undo(self) -> None:
        if self._guard():
            branch = self.screen.run.branch
            self._write(lambda: self.screen.service.undo(branch), close=False, title="Undone")

    def save_rejections(self, changes: list[str], rejected: bool) -> None:
        """Keep a rejection (or take it back) in the repo's rejection marks, at once; a run whose
        every change is then decided is closed."""
        if self._guard():
            self.screen.run_worker(self._save_rejections(list(changes), rejected), group="review-reject")

    # -------------------------------------------------------------------- flows
    async def _accept_all(self) -> None:
        s = self.screen
        if await s.app.push_screen_wait(ConfirmScreen("Accept the whole run?", s.run.summary, "Accept all")):
            self._status("Checking what the accept would leave\u2026")
            await self._accept([], {}, close=True)

    async def _reject_run(self) -> None:
        s = self.screen
        note = f"{len(s.accepted)} accepted change(s) not yet applied will be dropped.\n\n" if s.accepted else ""
        yes = await s.app.push_screen_wait(
            ConfirmScreen(
                "Reject the rest of this run?",
                f"{note}The run leaves the pending list; its commits stay findable and the "
                "decision can be undone (u, or amr dreams undo).",
                "Reject",
            )
        )
        if yes:
            await self._do(self._reject, close=True, title="Rejected")

    def _reject(self) -> str:
        run = self.screen.run
        self.screen.service.reject(run.branch)
        return (
            f"Rejected run {run.id}: it left the pending list, nothing was committed to main "
            "(u or amr dreams undo brings it back)."
        )

    async def _save_rejections(self, changes: list[str], rejected: bool) -> None:
        s = self.screen
        branch, run_id = s.run.branch, s.run.id

        def save() -> str | None:
            s.service.reject_parts(branch, changes=changes, rejected=rejected)
            return s.service.close_if_decided(branch) if rejected else None

        try:
            state = await asyncio.to_thread(save)
        except Exception as exc:
            self.done(None, exc)
            return
        if state is not None:
            what = "accepted in part, the rest rejected" if state == "accepted" else "rejected"
            self.done(
                f"Every change of run {run_id} is decided: it is closed ({what}) and left the pending list.",
                None,
                close=True,
                title="Rejected",
            )

    async def _accept(self, entries: list[str], edits: dict[str, str], *, close: bool) -> None:
        """Accept (all of the run when ``entries`` is empty), after showing what it would break."""
        s = self.screen
        branch, replace = s.run.branch, list[str]()
        while True:
            check = await asyncio.to_thread(_check, s.service, branch, entries, edits, replace)
            if not check.problems:
                break
            title, body, choices = problem_choice(check.problems, s.service.main, bool(entries))
            choice = await s.app.push_screen_wait(ChoiceScreen(title, choices, body=body))
            if choice == "apply":
                break
            if choice == "replace":
                replace = [*replace, *(p.change for p in check.problems if p.kind == "versions")]
            elif choice == "skip":
                clashing = {p.change for p in check.problems if p.kind in ("versions", "dropped")}
                rest = [e for e in entries if e not in clashing]
                if not rest:
                    self._status("Nothing applied: every change marked clashes.")
                    return
                entries, edits = rest, {k: v for k, v in edits.items() if k in rest}
            else:
                self._status("Nothing applied.")
                return
            self._status("Checking what the accept would leave\u2026")
        delete: list[str] = []
        if check.emptied:
            yes = await s.app.push_screen_wait(_delete_emptied(check))
            if yes:
                delete = check.emptied
        chosen = list(entries)
        await self._do(
            lambda: s.service.accept(branch, entries=chosen, edits=edits, delete=delete, replace=replace), close=close
        )

    def _write(self, job: Job, close: bool, title: str = "Committed") -> None:
        self._run(self._do(job, close=close, title=title))

    async def _do(self, job: Job, *, close: bool, title: str = "Committed") -> None:
        self._status("Writing\u2026")
        try:
            result = await asyncio.to_thread(job)
        except Exception as exc:
            self.done(None, exc)
            return
        if isinstance(result, str):
            text, closed = result, False
        else:
            text = f"Accepted ({result.how}){' and closed the run' if result.closed else ''}: {', '.join(result.items)}"
            closed = result.closed
        self.done(text, None, close or closed, title)

    def done(self, text: str | None, error: Exception | None, close: bool = False, title: str = "Committed") -> None:
        """A write is done (or failed): say so, and read the run again (or close the screen)."""
        s = self.screen
        if error is not None:
            notify_text(s.app, str(error), title="Dream review", severity="error")
            s.load()
            return
        if text:
            s.changed = True
            notify_text(s.app, text, title=title)
        s.accepted.clear()  # the rejections are kept (saved): the next reading brings them back
        s.edits.clear()
        if close:
            s.dismiss(True)
        else:
            s.review, s.stage = None, "summary"  # main (or the run) moved: decide on what is read next
            s.load()


def _delete_emptied(check: _Check) -> ConfirmScreen:
    """The question whether to delete the files an accept leaves with no entry."""
    names = ", ".join(make_visible(p) for p in check.emptied)
    body = "Yes deletes the file in the same commit; No keeps it as it is left."
    if check.if_deleted:
        broken = "\n".join(make_visible(f"- {p}") for p in check.if_deleted[:8])
        more = f"\n\u2026 and {len(check.if_deleted) - 8} more" if len(check.if_deleted) > 8 else ""
        body = f"Deleting would break {len(check.if_deleted)} link(s):\n{broken}{more}\n\n{body}"
    return ConfirmScreen(
        f"This accept leaves {names} with no entries (only a heading). Delete "
        f"{'it' if len(check.emptied) == 1 else 'them'}?",
        body,
        "Delete",
        "Keep",
    )


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
