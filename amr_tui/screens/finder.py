"""The / finder: every entry and file of every mounted repo, as you type, never blocking.

ctrl+r switches it to the memory's past: the entries commits deleted or reworded, and tombstones
(``services.history.past``), read in a thread worker the first time."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from amr_tui.core.search.index import QueryError, SearchHit
from amr_tui.core.textsafety import make_visible
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.footer import Footer
from amr_tui.widgets.safe import SafeInput, content
from amr_tui.widgets.type_ahead import hold

if TYPE_CHECKING:
    from amr_tui.services.history.past import PastEntry, PastIndex

#: The results' options made at once (each is laid out as it is added, and 200 of them were most
#: of a keystroke's time in the app): a screenful first, the rest once typing pauses.
OPTIONS_AT_ONCE = 30
#: How long typing must pause before the rest of the results' options are made.
REST_AFTER_S = 0.12

PastLoader = Callable[[], "PastIndex | str"]
"""Builds the search index of the past (slow: run in a worker), or says why there is none."""


@dataclass(frozen=True, slots=True)
class FinderResult:
    repo: str
    path: str
    line: int
    past: PastEntry | None = None  # a result of the memory's past: open its forgotten fact or timeline


def past_note(entry: PastEntry) -> str:
    """What became of a past entry, in a few words: "deleted 2026-10-02 in 1a2b3c4"."""
    if entry.kind == "reworded":
        return f"reworded {entry.date}" + (", this wording is back" if entry.present else "")
    if entry.resurrected:
        where = f" at {entry.now[0]}:{entry.now[1]}" if entry.now else ""
        return f"forgotten {entry.date}, written again{where}: resurrected"
    if entry.commit is None:
        return f"forgotten {entry.date} (tombstone)"
    return f"deleted {entry.date} in {entry.short}" + (", back now" if entry.present else "")


def past_content(entry: PastEntry, hit: SearchHit, width: int = 200) -> Content:
    """A past result: the old text as :func:`hit_content` shows it, then what became of it (muted)."""
    return Content.assemble(
        hit_content(hit, width, where=f"{entry.repo}/{entry.path}"),
        content("  " + past_note(entry), "$warning" if entry.resurrected else "$text-muted"),
    )


def hit_content(hit: SearchHit, width: int = 200, *, where: str | None = None) -> Content:
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
    if where is None:
        where = f"{item.repo}/{item.path}" + (f":{item.line}" if item.line else "")
    icon = "\u2022 " if item.kind == "entry" else "\u25a1 "
    lacks = [content("  missing: " + make_visible(" ".join(hit.missing)), "$warning italic")] if hit.missing else []
    return Content.assemble(
        content(icon, "$text-muted"), *pieces, content("  " + make_visible(where), "$text-muted italic"), *lacks
    )


class FinderScreen(ModalScreen[FinderResult | None]):
    """Fuzzy finder. The search runs in a thread worker; stale results are dropped."""

    HELP_TITLE = "Finder"
    HELP_QUERY_SYNTAX = True  # ? lists what one types into the finder

    BINDINGS = bindings("finder")
    DEFAULT_CSS = """
    #finder-status {
        color: $text-muted;
    }
    #finder-status.-error {
        color: $error;
    }
    #finder-results {
        border: none;
    }
    """

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
        past: list[PastEntry] | None = None
        """In the memory's past: the past entry of each hit (None: hits of the memory now)."""
        coverage: tuple[int, int] | None = None
        """(files searched, files in the memory) while the first indexing runs; None: all of them."""

    @dataclass
    class PastReady(Message):
        """The search index of the memory's past is built (or there is none)."""

        index: PastIndex | None
        """The index (None when there is no past to search)."""
        note: str | None = None
        """Why there is none ("no history (not a git repo)"), or None."""

    def __init__(
        self,
        searcher: Callable[[str, int], list[SearchHit]],
        query: str = "",
        past: PastLoader | None = None,
        coverage: Callable[[], tuple[int, int] | None] | None = None,
    ) -> None:
        super().__init__()
        self.searcher = searcher  # (query, limit) -> hits; thread-safe
        self.coverage = coverage  # (files indexed, files) while the index is still being built; thread-safe
        self.shown_coverage: tuple[int, int] | None = None  # the coverage of the results shown
        self.past_loader = past  # builds the past's index in a worker; None: no past to search
        self.initial = query
        self.serial = 0
        self.hits: list[SearchHit] = []
        self.shown_query = ""  # the query the results shown are for
        self.choose_pending = False  # enter came before the results of the query typed: it waits for them
        self.in_past = False  # searching the memory's past (ctrl+r) instead of the memory now
        self.past_index: PastIndex | None = None
        self.past_entries: list[PastEntry] = []  # the past entry of each hit, in the past
        self.past_state = "unread"  # "unread", "reading", "ready" or the reason there is no past
        self._shown: FinderScreen.Results | None = None  # the results the options are of
        self._built = 0  # how many of their options are made (``_add_rest``)
        self.rest_after = REST_AFTER_S

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="finder-box"):
            yield SafeInput(
                value=self.initial, placeholder="Find entries and files in every mounted repo", id="finder-input"
            )
            yield Static("", id="finder-status", markup=False)
            yield OptionList(id="finder-results")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        if self.initial:
            self._start(self.initial)
        if self.coverage is not None and self.coverage() is not None:
            self.set_interval(0.5, self._index_grew, name="coverage")

    def _index_grew(self) -> None:
        """While the index is being built, search again when it has grown since the results shown."""
        if self.in_past or self.shown_coverage is None or self.coverage is None:
            return
        if self.coverage() != self.shown_coverage:
            self._start(self.query_one(Input).value)

    @on(Input.Changed, "#finder-input")
    def _changed(self, event: Input.Changed) -> None:
        self._start(event.value)

    def _start(self, query: str) -> None:
        self.serial += 1
        waiting = self.in_past and self.past_state != "ready"
        if not query.strip() or waiting:
            self.hits, self.past_entries = [], []
            self.shown_query = query
            self.query_one(OptionList).clear_options()
            status = self.query_one("#finder-status", Static)
            status.set_class(False, "-error")
            if not self.in_past:
                status.update("")
            elif self.past_state in ("unread", "reading"):
                status.update("memory's past: reading history...")
            else:
                status.update("memory's past: " + self.past_state if waiting else "memory's past")
            return
        self.search(self.serial, query, self.past_index if self.in_past else None)

    @work(thread=True, exclusive=True, group="finder")
    def search(self, serial: int, query: str, past: PastIndex | None = None) -> None:
        try:
            if past is not None:
                found = past.search(query, 200)
                self.post_message(self.Results(serial, query, [h for _, h in found], past=[e for e, _ in found]))
                return
            coverage = self.coverage() if self.coverage is not None else None  # before: hits cover at least this
            hits = self.searcher(query, 200)
        except QueryError as exc:
            self.post_message(self.Results(serial, query, [], str(exc), past=[] if past is not None else None))
            return
        self.post_message(self.Results(serial, query, hits, coverage=coverage))

    def action_toggle_past(self) -> None:
        """Switch between the memory now and its past (read in a worker the first time)."""
        self.in_past = not self.in_past
        if self.in_past and self.past_state == "unread":
            if self.past_loader is None:
                self.past_state = "no history to search"
            else:
                self.past_state = "reading"
                self.load_past(self.past_loader)
        self._start(self.query_one(Input).value)

    @work(thread=True, exclusive=True, group="finder-past")
    def load_past(self, loader: PastLoader) -> None:
        try:
            got = loader()
        except Exception as exc:  # a repo git refuses: say so in the status line
            self.post_message(self.PastReady(None, f"cannot read the history: {exc}"))
            return
        if isinstance(got, str):
            self.post_message(self.PastReady(None, got))
        else:
            self.post_message(self.PastReady(got))

    def on_finder_screen_past_ready(self, message: PastReady) -> None:
        self.past_index = message.index
        self.past_state = "ready" if message.index is not None else (message.note or "no history")
        if self.in_past:
            self._start(self.query_one(Input).value)

    def on_finder_screen_results(self, message: Results) -> None:
        if message.serial != self.serial or (message.past is not None) != self.in_past:
            return  # a newer keystroke (or the toggle) already asked again
        self.hits = message.hits
        self.shown_query = message.query
        self.past_entries = message.past or []
        self.shown_coverage = message.coverage
        options = self.query_one(OptionList)
        options.clear_options()
        self._shown, self._built = message, 0
        self._add_rest(message, 0)
        if message.hits:
            options.highlighted = 0
        n = len(message.hits)
        partial = sum(1 for h in message.hits if h.missing)
        status = self.query_one("#finder-status", Static)
        status.set_class(message.error is not None, "-error")
        which = "memory's past: " if self.in_past else "memory now: "
        searched = ""
        if message.coverage is not None:
            done, total = message.coverage
            searched = f" ({done:,} of {total:,} files searched; still indexing)"
        if message.error is not None:
            status.update(which + make_visible(message.error))
        elif not n:
            status.update(which + "no matches" + searched)
        else:
            more = "+" if n >= 200 else ""
            part = f" ({partial} holding only some of the words, below)" if partial else ""
            status.update(f"{which}{n}{more} match{'es' if n != 1 else ''}{part}{searched}")
        if self.choose_pending and self.shown_query == self.query_one(Input).value:
            self.choose_pending = False
            self.action_choose()

    @staticmethod
    def _options(message: Results, start: int, end: int) -> list[Option]:
        hits = message.hits[start:end]
        if message.past is not None:
            return [Option(past_content(e, h)) for e, h in zip(message.past[start:end], hits, strict=True)]
        return [Option(hit_content(h)) for h in hits]

    def _add_rest(self, message: Results, start: int) -> None:
        """The options of ``message``'s hits from ``start`` on: ``OPTIONS_AT_ONCE`` of them with
        the results, the rest when no newer results came for ``rest_after`` seconds (typing on builds
        a screenful a key) or when the cursor goes past the ones built."""
        if message.hits is not self.hits or start != self._built or start >= len(message.hits):
            return  # newer results, or the rows were made meanwhile (the cursor went past them)
        end = start + OPTIONS_AT_ONCE if start == 0 else len(message.hits)
        self.query_one(OptionList).add_options(self._options(message, start, end))
        self._built = end
        if end < len(message.hits):
            self.set_timer(self.rest_after, lambda: self._add_rest(message, end), name="finder-rest")

    def _fill(self) -> None:
        """Every hit's option, now (the cursor is going past the ones built)."""
        message = self._shown
        if message is not None and self._built < len(message.hits):
            self._add_rest(message, self._built)

    @on(Input.Submitted, "#finder-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_choose()

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if not self.hits:
            return
        cur = options.highlighted or 0
        if cur + step >= self._built:
            self._fill()
        options.highlighted = max(0, min(len(self.hits) - 1, cur + step))

    def action_choose(self) -> None:
        """Open the highlighted result; enter typed before the results of the query as typed are
        shown opens the top one of those (the keys after it wait for that)."""
        if self.query_one(Input).value != self.shown_query:
            self.choose_pending = True
            hold(self.app, "the finder's results", lambda: not self.choose_pending or not self.is_attached, 5.0)
            return
        options = self.query_one(OptionList)
        idx = options.highlighted
        if idx is None or idx >= len(self.hits):
            return
        item = self.hits[idx].item
        if self.in_past and idx < len(self.past_entries):
            entry = self.past_entries[idx]
            self.dismiss(FinderResult(entry.repo, entry.path, 0, entry))
            return
        self.dismiss(FinderResult(item.repo, item.path, item.line))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.query_one(OptionList).highlighted = event.option_index
        self.action_choose()

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
