"""Choose exactly which memory a pairing session gets, see what its agent would load, share."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Header, Input, SelectionList, Static
from textual.widgets.selection_list import Selection as Choice

from amr_tui.screens.dialogs import ConfirmScreen
from amr_tui.services.share.build import (
    RepoPreview,
    Selection,
    mcp_argv,
    mcp_lines,
    preview,
    select,
    share,
)
from amr_tui.services.share.route import SharedRepo
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.footer import Footer
from amr_tui.widgets.safe import content, notify_text
from amr_tui.widgets.tables import PickList
from amr_tui.widgets.titles import ScreenTitle

if TYPE_CHECKING:
    from amr_tui.services.session.session import Session

NL = Content("\n")


def choice_items(session: Session) -> list[tuple[str, str]]:
    """(value, label): each repo whole, then its folders and files."""
    items: list[tuple[str, str]] = []
    for repo in session.names:
        items.append((repo, f"{repo}  (the whole repo, as a clone)"))
        folders: set[str] = set()
        for path in session.files(repo):
            parts = path.split("/")
            for i in range(1, len(parts)):
                folders.add("/".join(parts[:i]) + "/")
        for entry in sorted(folders | set(session.files(repo))):
            if entry.split("/")[0].startswith("."):
                continue
            items.append((f"{repo}:{entry.rstrip('/')}", f"    {entry}"))
    return items


def selection_texts(values: list[str]) -> list[str]:
    """Selected values -> choice strings for services.share.select (whole repos win over parts)."""
    whole = {v for v in values if ":" not in v}
    parts: dict[str, list[str]] = {}
    for v in values:
        if ":" in v:
            repo, path = v.split(":", 1)
            if repo not in whole:
                parts.setdefault(repo, []).append(path)
    return sorted(whole) + [f"{repo}:{','.join(sorted(paths))}" for repo, paths in sorted(parts.items())]


def preview_content(previews: list[RepoPreview]) -> Content:
    parts: list[Content] = []
    for p in previews:
        kind = "whole repo" if p.whole else f"{len(p.files)} file(s), history rewritten to the selection"
        parts += [content(f"{p.repo}: {kind}{'  (write granted)' if p.write else '  (read-only)'}", "bold"), NL]
        if p.memory is None:
            parts += [content("  no MEMORY.md shared: an agent has no entry point", "$error"), NL]
        else:
            budget = (
                f"  MEMORY.md: {p.memory_lines} lines, {p.memory_bytes} bytes; an agent loads {p.loaded_lines} lines"
            )
            parts.append(content(budget, "$warning" if p.cut_line else "$text-muted"))
            if p.cut_line:
                parts.append(content(f" (stops before line {p.cut_line})", "$warning"))
            parts.append(NL)
        if p.reachable:
            parts += [content("  reachable: " + ", ".join(p.reachable), "$text-muted"), NL]
        if p.unreachable:
            parts += [content("  shared but not reachable: " + ", ".join(p.unreachable), "$warning"), NL]
        for d in p.dangling:
            parts += [content(f"  dangling: {d.path}:{d.line} [[{d.target}]] ({d.reason})", "$warning"), NL]
        for w in p.warnings:
            parts += [content(f"  {w}", "$warning"), NL]
        parts.append(NL)
    return Content.assemble(*parts) if parts else content("Select repos, folders or files on the left.", "$text-muted")


class ShareScreen(Screen[None]):
    HELP_TITLE = "Share for pairing"
    BINDINGS = bindings("share")

    @dataclass
    class Previewed(Message):
        """What the selection would share, worked out (or why it cannot be)."""

        previews: list[RepoPreview]
        """One preview per repo of the selection (empty on error)."""
        error: Exception | None
        """Why there is no preview, if there is none."""

    @dataclass
    class Shared(Message):
        """The share is done (or failed)."""

        made: list[SharedRepo]
        """The repos written into the folder (empty on error)."""
        error: Exception | None
        """Why nothing was shared, if nothing was."""

    def __init__(self, session: Session, default_dir: str) -> None:
        super().__init__()
        self.session = session
        self.default_dir = default_dir
        self.write: set[str] = set()

    def compose(self) -> ComposeResult:
        yield Header()
        yield ScreenTitle(
            "Share memory with a pairing session: pick repos, folders or files (space), "
            "w grants write to the highlighted repo, ctrl+s shares.",
            id="share-title",
            markup=False,
        )
        with Horizontal(id="share-panes"):
            with Vertical(id="share-left"):
                yield PickList(
                    *[Choice(content(label), value) for value, label in choice_items(self.session)], id="share-choices"
                )
                yield Static("Into folder:", classes="side-title", markup=False)
                yield Input(value=self.default_dir, id="share-dir")
            with VerticalScroll(id="share-right"):
                yield Static("", id="share-preview")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(SelectionList).focus()
        self.update_preview()

    def _selections(self) -> list[Selection]:
        mounts = [self.session.mount(n) for n in self.session.names]
        texts = selection_texts(list(self.query_one(SelectionList).selected))
        return (
            select(mounts, texts, write=[w for w in self.write if any(t.split(":")[0] == w for t in texts)])
            if texts
            else []
        )

    @on(SelectionList.SelectedChanged)
    def _changed(self) -> None:
        self.update_preview()

    def update_preview(self) -> None:
        try:
            selections = self._selections()
        except ValueError as exc:
            self.query_one("#share-preview", Static).update(content(str(exc), "$error"))
            return
        self.preview_worker(selections)

    @work(thread=True, exclusive=True, group="share-preview")
    def preview_worker(self, selections: list[Selection]) -> None:
        try:
            self.post_message(self.Previewed(preview(selections), None))
        except Exception as exc:
            self.post_message(self.Previewed([], exc))

    def on_share_screen_previewed(self, message: Previewed) -> None:
        widget = self.query_one("#share-preview", Static)
        if message.error is not None:
            widget.update(content(f"Cannot preview: {message.error}", "$error"))
        else:
            widget.update(preview_content(message.previews))

    def action_toggle_write(self) -> None:
        sel = self.query_one(SelectionList)
        idx = sel.highlighted
        if idx is None:
            return
        repo = str(sel.get_option_at_index(idx).value).split(":")[0]
        self.write ^= {repo}
        notify_text(self.app, f"{repo}: {'write granted' if repo in self.write else 'read-only'} for the session")
        self.update_preview()

    def action_share(self) -> None:
        try:
            selections = self._selections()
        except ValueError as exc:
            notify_text(self.app, str(exc), severity="error")
            return
        if not selections:
            notify_text(self.app, "Nothing selected.", severity="warning")
            return
        self.share_worker(selections, self.query_one("#share-dir", Input).value.strip())

    @work(thread=True, exclusive=True, group="share")
    def share_worker(self, selections: list[Selection], into: str) -> None:
        try:
            self.post_message(self.Shared(share(selections, Path(into).expanduser()), None))
        except Exception as exc:
            self.post_message(self.Shared([], exc))

    def on_share_screen_shared(self, message: Shared) -> None:
        if message.error is not None:
            notify_text(self.app, str(message.error), title="Not shared", severity="error")
            return
        names = ", ".join(f"{m.name} ({m.kind})" for m in message.made)
        done = f"Shared {names} into {message.made[0].path.parent}"
        notify_text(self.app, done, title="Shared", timeout=8)
        argv, not_served = mcp_argv(message.made)
        lines = mcp_lines(argv, not_served)
        if not argv:
            if lines:
                notify_text(self.app, "\n".join(lines), title="Shared", severity="warning", timeout=12)
            self.dismiss(None)
            return
        self.run_worker(self.offer_copy(done, lines, argv), group="flow:share-copy")

    def action_close(self) -> None:
        """Back to the memory: the flow that opened this screen (``flows.share``) ends."""
        self.dismiss(None)

    async def offer_copy(self, done: str, lines: list[str], argv: list[str]) -> None:
        """Offer to copy the ``amr mcp`` command that serves what was shared, then close."""
        if await self.app.push_screen_wait(ConfirmScreen(f"{done}.", "\n".join(lines), "Copy the command", "Close")):
            self.app.copy_to_clipboard(shlex.join(argv))
            notify_text(self.app, "The amr mcp command is on the clipboard.", title="Shared")
        self.dismiss(None)  # this screen, now on top again: the flow that opened it ends
