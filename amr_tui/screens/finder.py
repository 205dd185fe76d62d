"""The / finder: every entry and file of every mounted repo, as you type, never blocking."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from amr_tui.core.search.index import QueryError, SearchHit
from amr_tui.core.textsafety import make_visible
from amr_tui.widgets.safe import SafeInput, content


@dataclass(frozen=True, slots=True)
class FinderResult:
    repo: str
    path: str
    line: int


def hit_content(hit: SearchHit, width: int = 200) -> Content:
    """Matched characters highlighted; the text is made visible first, never parsed."""
    item = hit.item
    text = item.text
    positions = set(hit.positions)
    pieces: list[Content] = []
    run: list[str] = []
    run_hit = False
    for i, ch in enumerate(text[:width]):
        is_hit = i in positions
        if run and is_hit != run_hit:
            pieces.append(content("".join(run), "bold $accent underline" if run_hit else ""))
            run = []
        run.append(ch)
        run_hit = is_hit
    if run:
        pieces.append(content("".join(run), "bold $accent underline" if run_hit else ""))
    where = f"{item.repo}/{item.path}" + (f":{item.line}" if item.line else "")
    icon = "\u2022 " if item.kind == "entry" else "\u25a1 "
    lacks = [content("  missing: " + make_visible(" ".join(hit.missing)), "$warning italic")] if hit.missing else []
    return Content.assemble(
        content(icon, "$text-muted"), *pieces, content("  " + make_visible(where), "$text-muted italic"), *lacks
    )


class FinderScreen(ModalScreen[FinderResult | None]):
    """Fuzzy finder. The search runs in a thread worker; stale results are dropped."""

    BINDINGS = [
        Binding("escape", "dismiss_none", "Close", id="finder.close"),
        Binding("down", "move(1)", "Next", show=False, id="finder.down"),
        Binding("up", "move(-1)", "Previous", show=False, id="finder.up"),
        Binding("enter", "choose", "Open", id="finder.open"),
    ]

    @dataclass
    class Results(Message):
        """A search is done: its hits, or stale ones to drop."""

        serial: int
        """Which search it answers (only the latest one's results are shown)."""
        query: str
        """What was searched for."""
        hits: list[SearchHit]
        """The best matches, best first."""
        error: str | None = None
        """Why the query cannot run as typed (a malformed filter), or None."""

    def __init__(self, searcher: Callable[[str, int], list[SearchHit]], query: str = "") -> None:
        super().__init__()
        self.searcher = searcher  # (query, limit) -> hits; thread-safe
        self.initial = query
        self.serial = 0
        self.hits: list[SearchHit] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="finder-box"):
            yield SafeInput(
                value=self.initial, placeholder="Find entries and files in every mounted repo", id="finder-input"
            )
            yield Static("", id="finder-status", markup=False)
            yield OptionList(id="finder-results")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        if self.initial:
            self._start(self.initial)

    @on(Input.Changed, "#finder-input")
    def _changed(self, event: Input.Changed) -> None:
        self._start(event.value)

    def _start(self, query: str) -> None:
        self.serial += 1
        if not query.strip():
            self.hits = []
            self.query_one(OptionList).clear_options()
            self.query_one("#finder-status", Static).update("")
            return
        self.search(self.serial, query)

    @work(thread=True, exclusive=True, group="finder")
    def search(self, serial: int, query: str) -> None:
        try:
            hits = self.searcher(query, 200)
        except QueryError as exc:
            self.post_message(self.Results(serial, query, [], str(exc)))
            return
        self.post_message(self.Results(serial, query, hits))

    def on_finder_screen_results(self, message: Results) -> None:
        if message.serial != self.serial:
            return  # a newer keystroke already asked again
        self.hits = message.hits
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(hit_content(h)) for h in message.hits])
        if message.hits:
            options.highlighted = 0
        n = len(message.hits)
        partial = sum(1 for h in message.hits if h.missing)
        status = self.query_one("#finder-status", Static)
        status.set_class(message.error is not None, "-error")
        if message.error is not None:
            status.update(make_visible(message.error))
        elif not n:
            status.update("no matches")
        else:
            more = "+" if n >= 200 else ""
            part = f" ({partial} holding only some of the words, below)" if partial else ""
            status.update(f"{n}{more} match{'es' if n != 1 else ''}{part}")

    @on(Input.Submitted, "#finder-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_choose()

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if not self.hits:
            return
        cur = options.highlighted or 0
        options.highlighted = max(0, min(len(self.hits) - 1, cur + step))

    def action_choose(self) -> None:
        options = self.query_one(OptionList)
        idx = options.highlighted
        if idx is None or idx >= len(self.hits):
            return
        item = self.hits[idx].item
        self.dismiss(FinderResult(item.repo, item.path, item.line))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.query_one(OptionList).highlighted = event.option_index
        self.action_choose()

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
