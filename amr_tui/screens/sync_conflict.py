"""A sync that stopped on conflicts: each conflicting entry with ours, base and theirs; choose."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option

from amr_tui.core.merge.parts import Choice, Conflict
from amr_tui.screens.dialogs import ConfirmScreen, TextPromptScreen
from amr_tui.services.sync.resolve import kept_both, resolve
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.footer import Footer
from amr_tui.widgets.lists import JumpList
from amr_tui.widgets.safe import content, notify_text, word_diff
from amr_tui.widgets.titles import ScreenTitle

if TYPE_CHECKING:
    from amr_tui.services.sync.run import PendingMerge, SyncResult
    from amr_tui.services.sync.state import FileConflict

NL = Content("\n")
LABELS = {"ours": "mine", "theirs": "theirs", "base": "base", "both": "both"}


def side(title: str, lines: tuple[str, ...]) -> Content:
    body = [content(title, "bold")]
    if not lines:
        body += [NL, content("(absent: deleted or never there)", "$text-muted")]
    for line in lines:
        body += [NL, content(line)]
    return Content.assemble(*body)


class SyncConflictScreen(Screen[object]):
    """Dismisses with the SyncResult of the resolution, or None when left unresolved."""

    HELP_TITLE = "Sync conflicts"

    BINDINGS = bindings("conflict_sync")

    @dataclass
    class Resolved(Message):
        """The resolution is committed and synced (or failed)."""

        result: SyncResult | None
        """How the sync after the resolution went (None on error)."""
        error: Exception | None
        """Why nothing was resolved, if nothing was."""

    def __init__(self, pending: PendingMerge, repo: str) -> None:
        super().__init__()
        self.pending, self.repo = pending, repo
        self.items: list[tuple[FileConflict, Conflict]] = [(f, c) for f in pending.files for c in f.conflicts]
        self.choices: dict[str, dict[int, Choice]] = {}
        self.written: set[tuple[str, int]] = set()  # (path, conflict) the user wrote with e: typed text

    def compose(self) -> ComposeResult:
        yield Header()
        yield ScreenTitle(
            content(
                f"{self.repo}: sync stopped on {len(self.items)} conflict(s) with "
                f"{self.pending.remote}/{self.pending.branch}. Nothing is half-merged; choose for each."
            ),
            id="sync-conflict-title",
        )
        with Horizontal(id="sync-conflict-panes"):
            yield JumpList(id="sync-conflicts")
            with Vertical(id="sync-conflict-sides"):
                yield Static("", id="sync-ours")
                yield Static("", id="sync-base")
                yield Static("", id="sync-theirs")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_list()
        self.query_one(OptionList).focus()

    def refresh_list(self) -> None:
        options = self.query_one(OptionList)
        keep = options.highlighted or 0
        options.clear_options()
        for f, c in self.items:
            chosen = self.choices.get(f.path, {}).get(c.index)
            mark = "edited" if isinstance(chosen, list) else LABELS.get(str(chosen), "") if chosen is not None else "?"
            title = getattr(c, "entry", "") or c.reason
            options.add_option(
                Option(
                    Content.assemble(
                        content(f"[{mark:>6}] ", "$success" if chosen is not None else "$warning"),
                        content(f"{f.path}  ", "bold"),
                        content(title),
                    )
                )
            )
        if self.items:
            options.highlighted = min(keep, len(self.items) - 1)
            self.show(options.highlighted)

    @on(OptionList.OptionHighlighted, "#sync-conflicts")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.show(event.option_index)

    def show(self, idx: int) -> None:
        if not 0 <= idx < len(self.items):
            return
        _, c = self.items[idx]
        self.query_one("#sync-ours", Static).update(side("Mine", c.ours))
        self.query_one("#sync-base", Static).update(side("Base (what both started from)", c.base))
        theirs = side("Theirs (the remote)", c.theirs)
        if c.ours and c.theirs:  # what differs from mine, word by word
            changed = word_diff("\n".join(c.ours), "\n".join(c.theirs), "bold reverse $error", "bold reverse $success")
            theirs = Content.assemble(theirs, NL, NL, content("Mine - / theirs +, word by word", "bold"), NL, changed)
        self.query_one("#sync-theirs", Static).update(theirs)

    def _current(self) -> tuple[FileConflict, Conflict] | None:
        idx = self.query_one(OptionList).highlighted
        return self.items[idx] if idx is not None and idx < len(self.items) else None

    def action_choose(self, how: str) -> None:
        current = self._current()
        if current is None:
            return
        f, c = current
        if f.whole_file and how == "both":
            notify_text(
                self.app, "This file cannot be merged line by line: choose mine, theirs or base.", severity="warning"
            )
            return
        self.choices.setdefault(f.path, {})[c.index] = how
        self.written.discard((f.path, c.index))
        if how == "both":  # two versions of one entry, differing in a value: say so now
            for pair in kept_both(self.pending, {f.path: {c.index: how}}):
                notify_text(self.app, pair.describe(), title="Possible contradiction", severity="warning")
        self._advance()

    def action_edit(self) -> None:
        current = self._current()
        if current is None or current[0].whole_file:
            return
        f, c = current
        start = " ".join(c.ours or c.theirs)
        # esc and quitting ask before dropping a changed entry (TextPromptScreen)
        prompt = TextPromptScreen(
            "Write the entry as it should be (empty removes it)",
            value=start,
            what=f"{self.repo}/{f.path}: the entry you are writing for a sync conflict",
            edits_value=True,
        )
        self.run_worker(self.write_entry(f.path, c.index, prompt), group="flow:sync-conflict-edit")

    async def write_entry(self, path: str, index: int, prompt: TextPromptScreen) -> None:
        """The entry as written in ``prompt`` resolves conflict ``index`` of ``path``."""
        value = await self.app.push_screen_wait(prompt)
        if value is not None:
            self.choices.setdefault(path, {})[index] = [value] if value.strip() else []
            self.written.add((path, index))
            self._advance()

    def _advance(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None and options.highlighted < len(self.items) - 1:
            options.highlighted += 1
        self.refresh_list()

    def action_resolve(self) -> None:
        missing = [(f.path, c.index) for f, c in self.items if c.index not in self.choices.get(f.path, {})]
        if missing:
            notify_text(self.app, f"{len(missing)} conflict(s) still need a choice.", severity="warning")
            return
        pairs = kept_both(self.pending, self.choices)
        if pairs:  # asked before the resolution is committed
            question = ConfirmScreen(
                "Keep both sides of entries that contradict each other?",
                "\n".join(p.describe() for p in pairs)
                + "\n\nBoth lines will be in the file; lint calls each pair a possible contradiction (AMR033).",
                yes="Keep both",
                no="Choose again",
            )
            self.run_worker(self.confirm_both(question), group="flow:sync-conflict-both")
            return
        self._start_resolving()

    async def confirm_both(self, question: ConfirmScreen) -> None:
        if await self.app.push_screen_wait(question):
            self._start_resolving()

    def _start_resolving(self) -> None:
        self.query_one("#sync-conflict-title", Static).update("Resolving and syncing…")
        self.resolve()

    @work(thread=True, exclusive=True, group="sync-resolve")
    def resolve(self) -> None:
        try:
            self.post_message(self.Resolved(resolve(self.pending.root, self.choices, pending=self.pending), None))
        except Exception as exc:
            self.post_message(self.Resolved(None, exc))

    def on_sync_conflict_screen_resolved(self, message: Resolved) -> None:
        if message.error is not None:
            notify_text(self.app, str(message.error), title="Not resolved", severity="error")
            return
        self.dismiss(message.result)

    def unsaved_edits(self) -> list[str]:
        """The entries written with ``e`` and not yet resolved, named for the quit question."""
        return [f"{self.repo}/{path}: an entry you wrote for a sync conflict" for path, _ in sorted(self.written)]

    def action_close(self) -> None:
        """Leave for later; entries written with ``e`` are typed text, so ask before dropping them."""
        if not self.written:
            self.dismiss(None)
            return
        n = len(self.written)
        question = ConfirmScreen(
            "Leave for later and discard what you wrote?",
            f"{n} entr{'y' if n == 1 else 'ies'} you wrote here will be lost, with the other choices made "
            "here. The sync stays stopped until its conflicts are resolved.",
            yes="Discard and leave",
            no="Keep resolving",
        )
        self.run_worker(self.leave(question), group="flow:sync-conflict-close")

    async def leave(self, question: ConfirmScreen) -> None:
        if await self.app.push_screen_wait(question):
            self.dismiss(None)
