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
    not cursor moves), with a clearer name and help for the main ones."""

    NAMES = {
        "find": ("Find entries and files", "Fuzzy finder over every mounted repo"),
        "memory": ("Go to MEMORY.md", "The entry point of the current repo"),
        "new_entry('below')": ("New entry below", "Write a new entry under the cursor"),
        "capture": ("Capture a fact", "Remember something; asks which repo"),
        "new_file": ("New file", "Create a memory file in the current repo"),
        "rename_file": ("Rename or move file", "Rewrites every link to it in the same commit"),
        "delete_file": ("Delete file", "Lists its backlinks first"),
        "edit_file": ("Edit whole file", "TextArea with Markdown highlighting"),
        "toggle_raw": ("Toggle raw lines", "Show lines exactly as written"),
        "reload": ("Reload", "Read the open file again"),
        "app.stale": ("Stale? queue", "Facts whose evidence no longer holds in the code they cite"),
    }
    SKIP = {"command_palette"}
    MOVES = {"cursor", "edge", "page"}  # moving the cursor is for keys, not for a palette

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        """(name, help, run) of each enabled, described binding; one per action."""
        out: list[tuple[str, str, Callable[[], object]]] = []
        seen: set[str] = set()
        for active in self.screen.active_bindings.values():
            binding = active.binding
            if (
                not active.enabled
                or not binding.description
                or not binding.id
                or binding.action in self.SKIP
                or binding.action.split("(")[0] in self.MOVES
                or binding.action in seen
            ):
                continue  # amr's own bindings (they have ids), once each
            seen.add(binding.action)
            name, help_text = self.NAMES.get(binding.action, (binding.description, ""))
            key = self.app.get_key_display(binding)
            help_text = f"{help_text} ({key})" if help_text else f"key: {key}"
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
