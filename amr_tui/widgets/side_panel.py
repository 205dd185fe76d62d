"""The right-hand panel: the entry under the cursor, its diagnostics, backlinks and links."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from amr_tui.core.format.links import LinkState
from amr_tui.core.model import Diagnostic, Entry, Link
from amr_tui.core.scope import SCOPE_KEY, describe, parse_scope
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.lists import FilterList
from amr_tui.widgets.safe import content

if TYPE_CHECKING:
    from amr_tui.services.session.session import Backlink


@dataclass(frozen=True, slots=True)
class Target:
    path: str | None  # file to open (same repo)
    line: int
    link: Link | None = None  # for an outgoing link (may be broken)


NL = Content("\n")


def entry_details(
    entry: Entry | None, line_text: str, diags: list[Diagnostic], *, belongs: str | None = None
) -> Content:
    """The entry's text, its metadata (a scope with what it means), its section and findings;
    ``belongs``: the mounted repo its ``project:`` scope names, when it is not this one."""
    parts: list[Content] = []
    if entry is not None:
        parts.append(content(entry.text or "(no text)", "bold"))
        for item in entry.metadata:
            parts += [NL, content(f"{item.key}: ", "$text-muted"), content(item.value)]
            if item.key.lower() == SCOPE_KEY:  # what the scope means, or what a scope takes
                read = parse_scope(item.value)
                said = f"  ({describe(read)})" if not isinstance(read, str) else f"  ({read})"
                parts.append(content(said, "$text-muted" if not isinstance(read, str) else "$warning"))
        if entry.section:
            parts += [NL, content(f"section: {entry.section}", "$text-muted")]
        if belongs:
            parts += [NL, content(f"belongs in {belongs}: m moves it there", "$warning")]
    elif line_text.strip():
        parts.append(content(line_text.strip()))
    for d in diags:
        style = {"error": "$error", "warning": "$warning"}.get(d.severity.value, "$text-muted")
        parts += [NL, content(f"{d.code} ", style + " bold")]
        parts.append(content(d.message, style))
        if d.fix is not None:
            parts.append(content(f" (fix: {d.fix.description})", "$text-muted"))
    return Content.assemble(*parts) if parts else content("")


class SidePanel(Vertical):
    HELP_TITLE = "Side panel"
    BINDINGS = bindings("side")
    DEFAULT_CSS = """
    #backlinks, #outgoing {
        border: none;
        background: $surface;
    }
    """

    @dataclass
    class Open(Message):
        """A backlink or an outgoing link was chosen: open it."""

        target: Target
        """The file and line to open (and the link followed, if any)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._back: list[Target] = []
        self._out: list[Target] = []

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="entry-box"):
            yield Static("", id="entry-details")
            checks = Static("", id="entry-checks")
            checks.display = False  # shown when the fact under the cursor cites evidence
            yield checks
        yield Static("Backlinks", classes="side-title", id="backlinks-title", markup=False)
        yield FilterList(id="backlinks")
        yield Static("Links from this file", classes="side-title", id="outgoing-title", markup=False)
        yield FilterList(id="outgoing")

    def show_entry(
        self, entry: Entry | None, line_text: str, diags: list[Diagnostic], *, belongs: str | None = None
    ) -> None:
        self.query_one("#entry-details", Static).update(entry_details(entry, line_text, diags, belongs=belongs))

    def show_checks(self, lines: list[tuple[str, str]]) -> None:
        """Lines about whether the fact still holds: its evidence and verdicts, when it was last
        verified, how often agents read it (``style``: holds, moved, gone, muted)."""
        styles = {"gone": "$error", "moved": "$warning", "holds": "$success", "unknown": "$text-muted"}
        parts: list[Content] = []
        for text, style in lines:
            parts += [NL, content(text, styles.get(style, "$text-muted"))]
        box = self.query_one("#entry-checks", Static)
        box.display = bool(parts)  # nothing to say: no room taken
        if parts:
            box.update(Content.assemble(*parts))

    def show_links(self, backlinks: list[Backlink], outgoing: list[tuple[Link, LinkState, str | None]]) -> None:
        back = self.query_one("#backlinks", OptionList)
        back.clear_options()
        self._back = [Target(b.path, b.line) for b in backlinks]
        back.add_options(
            [
                Option(Content.assemble(content(f"{b.path}:{b.line} ", "$text-muted"), content(b.text)))
                for b in backlinks
            ]
        )
        self.query_one("#backlinks-title", Static).update(f"Backlinks ({len(backlinks)})")
        out = self.query_one("#outgoing", OptionList)
        out.clear_options()
        self._out = [Target(path, 1, link) for link, _, path in outgoing]
        opts = []
        for link, state, _path in outgoing:
            style = "" if state is LinkState.OK else "$error strike" if state is LinkState.BROKEN else "$error"
            note = {
                LinkState.BROKEN: "  (missing)",
                LinkState.ESCAPES: "  (outside the repo)",
                LinkState.EMPTY: "  (empty)",
            }.get(state, "")
            opts.append(
                Option(
                    Content.assemble(
                        content(f"{link.line}: ", "$text-muted"),
                        content(link.written, style),
                        content(note, "$text-muted"),
                    )
                )
            )
        out.add_options(opts)
        self.query_one("#outgoing-title", Static).update(f"Links from this file ({len(outgoing)})")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        targets = self._back if event.option_list.id == "backlinks" else self._out
        lst = event.option_list
        index = lst.source_index(event.option_index) if isinstance(lst, FilterList) else event.option_index
        if index is not None and 0 <= index < len(targets):
            self.post_message(self.Open(targets[index]))
