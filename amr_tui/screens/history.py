"""History of a file, and of a single fact. All git work runs in thread workers."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Header, OptionList, Static
from textual.widgets.option_list import Option

from amr_tui.core.diff.align import Row
from amr_tui.core.textsafety import make_visible
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.footer import Footer
from amr_tui.widgets.lists import JumpList
from amr_tui.widgets.safe import content, notify_text, rich_text
from amr_tui.widgets.side_by_side import SideBySide
from amr_tui.widgets.tables import KeyTable
from amr_tui.widgets.titles import ScreenNote, ScreenTitle

if TYPE_CHECKING:
    from amr_tui.git.history import BlameLine
    from amr_tui.services.history.service import (
        FileVersion,
        HistoryCursor,
        HistoryItem,
        HistoryPage,
        HistoryService,
        Timeline,
    )

NL = Content("\n")

PAGE = 50


def when(dt: _dt.datetime | None) -> str:
    return dt.strftime("%Y-%m-%d %H:%M") if dt else ""


def path_note(item: HistoryItem, path: str) -> str:
    """The file's name as ``item``'s commit knew it, when it is not ``path`` (the name now):
    "renamed from OLD" on the commit that renamed it, "as OLD" before (as ``amr history`` says)."""
    if item.old_path and item.path and item.old_path != item.path:
        return f"renamed from {item.old_path}"
    if item.path and item.path != path:
        return f"as {item.path}"
    return ""


class FileHistoryScreen(Screen[None]):
    """The commits that touched a file (paged), and the file as each one left it."""

    HELP_TITLE = "File history"

    BINDINGS = bindings("history")

    @dataclass
    class Page(Message):
        """One page of the file's commits, read."""

        page: HistoryPage
        """The commits, newest first, and where the next page starts."""
        first: bool
        """Whether it is the first page (then the first commit is shown)."""

    @dataclass
    class Version(Message):
        """The file as one commit left it, read."""

        version: FileVersion
        """The file before and after the commit, aligned side by side."""

    @dataclass
    class Failed(Message):
        """Reading the history failed."""

        error: Exception
        """Why (shown as a notification)."""

    def __init__(self, service: HistoryService, repo: str, path: str) -> None:
        super().__init__()
        self.service, self.repo, self.path = service, repo, path
        self.items: list[HistoryItem] = []
        self.next_cursor: HistoryCursor | None = None
        self.loading_more = False
        self.shown: str | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield ScreenTitle(content(f"History of {self.repo}/{self.path}"), id="history-title")
        with Horizontal(id="history-panes"):
            table: DataTable[object] = KeyTable(id="history-commits", cursor_type="row", zebra_stripes=True)
            for label, width in (("When", 16), ("Who", 18), ("What", 34), ("Entries", 7), ("Sessions", 18)):
                table.add_column(label, width=width)
            yield table
            with Vertical(id="history-right"):
                yield ScreenNote(
                    "Select a commit to see the file as it left it (old left, new right).",
                    id="history-version-title",
                    markup=False,
                )
                yield SideBySide(id="history-diff")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = make_visible(f"{self.repo}/{self.path}")
        self.load_page(None, True)

    @work(thread=True, group="history-page")
    def load_page(self, cursor: HistoryCursor | None, first: bool) -> None:
        try:
            page = self.service.file_history(self.path, limit=PAGE, cursor=cursor)
        except Exception as exc:  # shown, never raised into the app
            self.post_message(self.Failed(exc))
            return
        self.post_message(self.Page(page, first))

    def on_file_history_screen_page(self, message: Page) -> None:
        table = self.query_one(DataTable)
        self.loading_more = False
        self.next_cursor = message.page.next
        for item in message.page.items:
            info = item.commit
            self.items.append(item)
            counts = f"+{item.entries_added} \u2212{item.entries_removed}"
            named = path_note(item, self.path)  # first: the column is narrow, a long subject is cut
            what = rich_text(f"({named}) ", "dim") if named else rich_text("")
            what.append_text(rich_text(info.subject))
            table.add_row(
                rich_text(when(info.author_date)),
                rich_text(info.author_name),
                what,
                rich_text(counts),
                rich_text(", ".join(s.rsplit("/", 1)[-1] for s in item.sources_added)[:40]),
            )
        if message.first:
            table.focus()
            if self.items:
                self.show_version(0)
            else:
                self.query_one("#history-version-title", Static).update("No commits touched this file.")

    def on_file_history_screen_failed(self, message: Failed) -> None:
        notify_text(self.app, str(message.error), title="History", severity="error")

    @on(DataTable.RowHighlighted, "#history-commits")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        idx = event.cursor_row
        if 0 <= idx < len(self.items):
            self.show_version(idx)
        if idx >= len(self.items) - 5 and self.next_cursor is not None and not self.loading_more:
            self.loading_more = True
            self.load_page(self.next_cursor, False)

    def show_version(self, idx: int) -> None:
        item = self.items[idx]
        oid = item.commit.oid
        if oid != self.shown:
            self.shown = oid
            self.load_version(oid, item.path or self.path, item.old_path)

    @work(thread=True, exclusive=True, group="history-version")
    def load_version(self, oid: str, path: str, old_path: str | None) -> None:
        try:
            self.post_message(self.Version(self.service.file_change(path, oid, old_path)))
        except Exception as exc:
            self.post_message(self.Failed(exc))

    def on_file_history_screen_version(self, message: Version) -> None:
        version = message.version
        if version.commit != self.shown:
            return
        item = next((i for i in self.items if i.commit.oid == version.commit), None)
        title = f"{version.commit[:8]}"
        if item is not None:
            title += f"  {item.commit.author_name}  {when(item.commit.author_date)}  {item.commit.subject}"
            named = path_note(item, self.path)
            if named:  # the file as that commit knew it, when it had another name
                title += f"  ({named})"
        self.query_one("#history-version-title", Static).update(content(title))
        view = self.query_one(SideBySide)
        if version.rows:
            view.set_rows(version.rows)
        else:
            old = (version.old or b"").decode("utf-8", "replace").split("\n")
            new = (version.new or b"").decode("utf-8", "replace").split("\n")
            rows = [
                Row(
                    i + 1 if i < len(old) else None,
                    i + 1 if i < len(new) else None,
                    old[i] if i < len(old) else None,
                    new[i] if i < len(new) else None,
                    "context" if i < len(old) and i < len(new) and old[i] == new[i] else "reworded",
                )
                for i in range(max(len(old), len(new)))
            ]
            view.set_rows(rows)


class TimelineScreen(Screen[None]):
    """When one fact came, changed, moved and (maybe) went; who last touched it, and before that."""

    HELP_TITLE = "Fact timeline"

    BINDINGS = bindings("timeline")

    @dataclass
    class Loaded(Message):
        """The fact's timeline and the blame of its line, read."""

        timeline: Timeline
        """When the fact came, changed, moved and went, newest first."""
        blame: BlameLine | None
        """The commit that last touched the line (None when it is not committed)."""

    @dataclass
    class Blamed(Message):
        """The blame one step further back, read."""

        blame: BlameLine | None
        """The commit that touched the line before (None where the line first appeared)."""

    @dataclass
    class Failed(Message):
        """Reading the history failed."""

        error: Exception
        """Why (shown in place of the blame)."""

    def __init__(self, service: HistoryService, repo: str, path: str, line: int, text: str) -> None:
        super().__init__()
        self.service, self.repo, self.path, self.line, self.text = service, repo, path, line, text
        self.blames: list[BlameLine] = []
        self.timeline: Timeline | None = None  # re-blame follows the entry as the timeline does

    def compose(self) -> ComposeResult:
        yield Header()
        yield ScreenTitle(content(f"{self.repo}/{self.path}:{self.line}  {self.text}"), id="timeline-title")
        yield ScreenNote("Reading history…", id="timeline-blame", markup=False)
        yield JumpList(id="timeline-events")
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, group="timeline")
    def load(self) -> None:
        try:
            timeline = self.service.entry_timeline(self.path, self.line)
            blame = self.service.blame(self.path, self.line)
        except Exception as exc:
            self.post_message(self.Failed(exc))
            return
        self.post_message(self.Loaded(timeline, blame))

    def on_timeline_screen_failed(self, message: Failed) -> None:
        self.query_one("#timeline-blame", Static).update(content(f"No history: {message.error}"))

    def on_timeline_screen_loaded(self, message: Loaded) -> None:
        self.timeline = message.timeline
        self._show_blame(message.blame)
        events = self.query_one(OptionList)
        labels = {
            "added": "added",
            "reworded": "reworded",
            "metadata": "metadata changed",
            "moved": "moved",
            "removed": "removed",
        }
        for ev in message.timeline.events:
            info = ev.commit
            parts = [
                content(f"{when(info.author_date)}  ", "$text-muted"),
                content(f"{labels.get(ev.kind, ev.kind):<16}", "bold"),
                content(f"{info.author_name}: {info.subject}"),
            ]
            if ev.kind == "moved" and ev.from_path:
                parts += [NL, content(f"    from {ev.from_path} to {ev.path}", "$text-muted")]
            if ev.before is not None and ev.kind != "added":
                parts += [NL, content(f"    was: {ev.before.strip()}", "$text-muted")]
            if ev.after is not None:
                parts += [NL, content(f"    now: {ev.after.strip()}")]
            events.add_option(Option(Content.assemble(*parts)))
        if not message.timeline.complete:
            events.add_option(
                Option(content("(history walk stopped before the entry's first appearance)", "$text-muted"))
            )
        events.focus()

    def _show_blame(self, blame: BlameLine | None) -> None:
        widget = self.query_one("#timeline-blame", Static)
        if blame is None:
            widget.update("No blame for this line (not committed yet?).")
            return
        self.blames.append(blame)
        depth = len(self.blames) - 1
        prefix = "Last touched" if depth == 0 else f"Before that ({depth} back)"
        widget.update(
            content(
                f"{prefix}: {blame.commit[:8]} by {blame.author_name} on {when(blame.author_date)}: "
                f"{blame.summary}  ({blame.path}:{blame.orig_line})   p: blame the parent"
            )
        )

    def action_reblame(self) -> None:
        if not self.blames:
            return
        self.reblame(self.blames[-1])

    @work(thread=True, group="reblame")
    def reblame(self, blame: BlameLine) -> None:
        try:
            self.post_message(self.Blamed(self.service.reblame(blame, self.timeline)))
        except Exception as exc:
            self.post_message(self.Failed(exc))

    def on_timeline_screen_blamed(self, message: Blamed) -> None:
        if message.blame is None:
            notify_text(self.app, "That is where the line first appeared.")
            return
        self._show_blame(message.blame)
