"""The tags view (``#``): every tag of the mounted repos, per repo, with how many entries carry it.

A tag's count is what ``tag:NAME`` finds (``services.session.tags``: ``#tag`` in an entry's text,
``[tags: ...]``, the file's front matter). ``enter`` opens the finder on the tag's entries, ``r``
renames the tag in that repo (one commit), typing narrows the list, ``esc`` closes. The counts are
made in a thread worker; the list fills when they come.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from amr_tui.core.textsafety import plural
from amr_tui.services.session.tags import TagCount
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.lists import FilterList
from amr_tui.widgets.safe import content


@dataclass(frozen=True, slots=True)
class TagPick:
    """What the tags view was closed with."""

    action: str  # "open" (the tag's entries in the finder) or "rename"
    repo: str
    tag: str


def tag_row(count: TagCount, width: int = 0) -> Content:
    """``#tag   12 entries in 4 files``: the count in words, never a colour alone. The gap is
    part of the tag's run (``width``: the column the counts start at): a run that starts with
    spaces is drawn without them by SVG renderers."""
    name = f"#{count.tag}"
    return Content.assemble(
        content(name + " " * max(3, width - len(name)), "bold"),
        content(f"{plural(count.entries, 'entry', 'entries')} in {plural(count.files, 'file')}", "$text-muted"),
    )


class TagsScreen(ModalScreen[TagPick | None]):
    """See the module."""

    HELP_TITLE = "Tags"
    BINDINGS = bindings("tags")
    DEFAULT_CSS = """
    #tags-title {
        text-style: bold;
    }
    #tags-status, #tags-help {
        color: $text-muted;
    }
    #tags-list {
        border: none;
    }
    """

    @dataclass
    class Counted(Message):
        """The tags are counted (in a worker)."""

        counts: list[TagCount]
        """Every tag of every repo, most used first in each repo."""

    def __init__(self, count: Callable[[], list[TagCount]], writable: set[str]) -> None:
        """``count``: what counts the tags (thread-safe); ``writable``: the repos a tag can be renamed in."""
        super().__init__()
        self.count = count
        self.writable = writable
        self.counts: list[TagCount] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="tags-box"):
            yield Static("Tags", id="tags-title", markup=False)
            yield Static("Counting tags\u2026", id="tags-status", markup=False)
            yield FilterList(id="tags-list")
            yield Static(
                "enter: the tag's entries \u00b7 r: rename it in its repo (one commit) \u00b7 type to narrow \u00b7 esc: close",
                id="tags-help",
                markup=False,
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._count(self.count)

    @work(thread=True, exclusive=True, group="tags-count")
    def _count(self, count: Callable[[], list[TagCount]]) -> None:
        self.post_message(self.Counted(count()))

    def on_tags_screen_counted(self, message: Counted) -> None:
        self.counts = message.counts
        options = self.query_one(OptionList)
        options.clear_options()
        rows: list[Option] = []
        repos: list[str] = []
        width = min(40, max((len(c.tag) + 4 for c in message.counts), default=0))
        for c in message.counts:
            if c.repo not in repos:
                repos.append(c.repo)
                n = sum(1 for x in message.counts if x.repo == c.repo)
                rows.append(Option(content(f"{c.repo} \u00b7 {plural(n, 'tag')}", "bold $accent"), disabled=True))
            rows.append(Option(tag_row(c, width), id=f"{c.repo}\0{c.tag}"))
        options.add_options(rows)
        first = next((i for i, o in enumerate(rows) if not o.disabled), None)
        if first is not None:
            options.highlighted = first
        status = self.query_one("#tags-status", Static)
        if not message.counts:
            status.update("No tags yet: write #tag in an entry, [tags: a, b] after it, or tags: in front matter.")
        else:
            status.update(f"{plural(len(message.counts), 'tag')} in {plural(len(repos), 'repo')}")

    def _picked(self) -> tuple[str, str] | None:
        options = self.query_one(OptionList)
        at = options.highlighted
        if at is None:
            return None
        option = options.get_option_at_index(at)
        if option.id is None:
            return None
        repo, _, tag = option.id.partition("\0")
        return repo, tag

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is None:
            return
        repo, _, tag = event.option.id.partition("\0")
        self.dismiss(TagPick("open", repo, tag))

    def action_rename(self) -> None:
        picked = self._picked()
        if picked is None:
            return
        repo, tag = picked
        if repo not in self.writable:
            self.query_one("#tags-status", Static).update(content(f"{repo} is read-only: its tags cannot be renamed."))
            return
        self.dismiss(TagPick("rename", repo, tag))

    def action_close(self) -> None:
        self.dismiss(None)
