"""Command palette providers: find entries and files from ctrl+p, next to the commands."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol, cast

from textual.app import App
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.dom import DOMNode
from textual.widget import Widget

from amr_tui.screens.finder import FinderResult, hit_content
from amr_tui.widgets.actions import by_id


class _OpensResults(Protocol):
    """The app, as the palette uses it: it opens a search result on the main screen."""

    def open_result(self, result: FinderResult) -> None: ...


def _run_later(app: App[Any], node: DOMNode, action: str) -> Callable[[], object]:
    """Run ``action`` on ``node`` (where its binding is defined) once the palette has closed."""
    assert isinstance(node, (Widget, App))  # bindings are defined on widgets, screens and the app
    return partial(app.call_later, node.run_action, action)


class MemoryProvider(Provider):
    """Entries and files of every mounted repo (results come from the app's search index)."""

    async def search(self, query: str) -> Hits:
        app = self.app
        session = getattr(app, "session", None)
        if session is None or len(query.strip()) < 2:
            return
        hits = await asyncio.to_thread(session.search, query, 15)
        # a palette names what you asked for: entries holding only some of the words come only
        # when none holds them all (the finder lists both, the partial ones below)
        hits = [h for h in hits if not h.missing] or hits
        for hit in hits:
            item = hit.item
            result = FinderResult(item.repo, item.path, item.line)
            yield Hit(
                min(1.0, hit.score / 100.0),
                hit_content(hit, 120),
                partial(cast(_OpensResults, app).open_result, result),
                text=f"{item.repo}/{item.path}:{item.line}",
                help="Open this entry" if item.kind == "entry" else "Open this file",
            )


class ActionsProvider(Provider):
    """Every action of the screen the palette was opened on, by name: amr's key bindings there
    (the focused widget's, the screen's and the app's, as ? lists them, hidden ones included;
    not cursor moves), named and explained as the table of actions (widgets/actions.py) says."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        """(name, help, run) of each enabled, described binding; one per action."""
        out: list[tuple[str, str, Callable[[], object]]] = []
        seen: set[str] = set()
        for active in self.screen.active_bindings.values():
            binding = active.binding
            action = by_id(binding.id)  # amr's own bindings are in the table; Textual's are not
            if action is None or not action.in_palette or not active.enabled or binding.action in seen:
                continue
            seen.add(binding.action)
            name = action.palette or action.description
            key = self.app.get_key_display(binding)
            help_text = f"{action.palette_help} ({key})" if action.palette_help else f"key: {key}"
            out.append((name, help_text, _run_later(self.app, active.node, binding.action)))
        return out

    async def discover(self) -> Hits:
        for name, help_text, run in self._commands():
            yield DiscoveryHit(Content(name), run, text=name, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, run in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), run, text=name, help=help_text)
