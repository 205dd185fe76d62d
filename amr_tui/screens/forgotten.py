"""Facts deleted over a repo's history, each restorable with one key as a new commit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Header, Static
from textual.widgets.option_list import Option

from amr_tui.core.textsafety import make_visible
from amr_tui.screens.dialogs import ConfirmScreen
from amr_tui.screens.live import LiveList
from amr_tui.services.history.forgotten import restore as restore_fact
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.footer import Footer
from amr_tui.widgets.lists import FilterList
from amr_tui.widgets.safe import content, notify_text
from amr_tui.widgets.titles import ScreenNote, ScreenTitle

if TYPE_CHECKING:
    from amr_tui.services.history.forgotten import ForgottenFact
    from amr_tui.services.history.service import HistoryService

NL = Content("\n")


class ForgottenScreen(Screen[bool]):
    """Dismisses True when something was restored (the main screen reloads)."""

    HELP_TITLE = "Forgotten facts"

    BINDINGS = bindings("forgotten")

    @dataclass
    class Loaded(Message):
        """The history walk is done (or failed)."""

        facts: list[ForgottenFact]
        """The facts deleted over the history, as the service lists them (empty on error)."""
        error: Exception | None = None
        """Why the history could not be read, if it could not."""

    @dataclass
    class Restored(Message):
        """A restore is done (or failed)."""

        oid: str | None
        """The commit that wrote the fact back (None on error)."""
        error: Exception | None
        """Why nothing was restored, if nothing was."""

    def __init__(
        self,
        service: HistoryService,
        repo: str,
        read_only: bool,
        highlight: str | None = None,
        *,
        poll_interval: float = 1.0,
    ) -> None:
        super().__init__()
        self.service, self.repo, self.read_only = service, repo, read_only
        self.highlight = highlight  # the id of the fact to highlight once listed (the finder's past)
        self.poll_interval = poll_interval
        self.facts: list[ForgottenFact] = []
        self.changed = False
        self.written: list[str] = []  # the commits of the restores made here (``z`` undoes them)
        # a fact forgotten or restored elsewhere (an agent, amr forget) while the list is open
        self.live = LiveList(self, service.signature, self.load, busy=self._restoring)

    def _restoring(self) -> bool:
        return any(w.group == "restore" and not w.is_finished for w in self.workers)

    def compose(self) -> ComposeResult:
        yield Header()
        yield ScreenTitle(
            content(f"Forgotten facts of {self.repo}: entries deleted over its history"), id="forgotten-title"
        )
        yield ScreenNote("Walking the history (the first time can take a moment)…", id="forgotten-status", markup=False)
        yield FilterList(id="forgotten-list")
        yield Footer()

    def on_mount(self) -> None:
        self.live.start(self.poll_interval)

    @work(thread=True, exclusive=True, group="forgotten")
    def load(self) -> None:
        self.live.read(lambda: self.Loaded(self.service.forgotten()), lambda exc: self.Loaded([], exc))

    def on_forgotten_screen_loaded(self, message: Loaded) -> None:
        status = self.query_one("#forgotten-status", Static)
        if message.error is not None:
            status.update(content(f"Could not read the history: {message.error}"))
            return
        options = self.query_one(FilterList)
        at = options.source_highlighted
        if self.facts and at is not None and at < len(self.facts):  # read again: keep the fact shown
            self.highlight = self.facts[at].id
        typed = options.typed
        self.facts = message.facts
        status.update(
            f"{len(self.facts)} forgotten fact{'s' if len(self.facts) != 1 else ''}.  r restores one as a new commit."
        )
        options.clear_options()
        for fact in self.facts:
            when = fact.commit.author_date.strftime("%Y-%m-%d") if fact.commit else "tombstone"
            who = f"{fact.commit.author_name}: {fact.commit.subject}" if fact.commit else ""
            tomb = "  [forgotten on purpose]" if fact.tombstone is not None else ""
            options.add_option(
                Option(
                    Content.assemble(
                        content(fact.text, "bold"),
                        content(tomb, "$warning"),
                        NL,
                        content(f"    {when}  {fact.path or ''}  {who}", "$text-muted"),
                    )
                )
            )
        if self.facts:  # the first r restores the fact shown highlighted, not nothing
            options.highlighted = 0
        at = next((i for i, f in enumerate(self.facts) if f.id == self.highlight), None)
        if at is not None:
            options.highlighted = at
        if typed:
            options.set_typed(typed)
        options.focus()

    def action_restore(self) -> None:
        idx = self.query_one(FilterList).source_highlighted
        if idx is None or idx >= len(self.facts):
            return
        fact = self.facts[idx]
        if self.read_only:
            notify_text(self.app, f"{self.repo} is read-only.", severity="error")
            return
        if fact.line is None:
            notify_text(self.app, "Only a digest of this fact was kept; it cannot be written back.", severity="warning")
            return
        self.run_worker(self.restore_asked(fact), group="flow:restore")

    async def restore_asked(self, fact: ForgottenFact) -> None:
        if await self.app.push_screen_wait(
            ConfirmScreen(
                "Restore this fact?",
                make_visible(fact.text) + "\n\n" + make_visible(f"into {fact.path} as a new commit"),
                "Restore",
            )
        ):
            self.restore(fact)

    @work(thread=True, group="restore")
    def restore(self, fact: ForgottenFact) -> None:
        try:
            self.post_message(self.Restored(restore_fact(self.service, fact), None))
        except Exception as exc:
            self.post_message(self.Restored(None, exc))

    def on_forgotten_screen_restored(self, message: Restored) -> None:
        if message.error is not None:
            notify_text(self.app, str(message.error), title="Not restored", severity="error")
            return
        assert message.oid is not None  # there is a commit whenever there is no error
        self.changed = True
        self.written.append(message.oid)
        notify_text(self.app, f"Restored as commit {message.oid[:8]}.", title="Committed")
        self.load()

    def action_close(self) -> None:
        self.dismiss(self.changed)
