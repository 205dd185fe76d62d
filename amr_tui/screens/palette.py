"""Command palette providers: find entries and files from ctrl+p, next to the commands."""

from __future__ import annotations

import asyncio
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from amr_tui.screens.finder import FinderResult, hit_content


class MemoryProvider(Provider):
    """Entries and files of every mounted repo (results come from the app's search index)."""

    async def search(self, query: str) -> Hits:
        app = self.app
        session = getattr(app, "session", None)
        if session is None or len(query.strip()) < 2:
            return
        hits = await asyncio.to_thread(session.search, query, 15)
        for hit in hits:
            item = hit.item
            result = FinderResult(item.repo, item.path, item.line)
            yield Hit(
                min(1.0, hit.score / 100.0),
                hit_content(hit, 120),
                partial(app.open_result, result),
                text=f"{item.repo}/{item.path}:{item.line}",
                help="Open this entry" if item.kind == "entry" else "Open this file",
            )


class ActionsProvider(Provider):
    """amr's own actions by name."""

    ACTIONS = [
        ("Find entries and files", "find", "Fuzzy finder over every mounted repo (/)"),
        ("Go to MEMORY.md", "memory", "The entry point of the current repo (M)"),
        ("New entry below", "new_entry('below')", "Write a new entry under the cursor (o)"),
        ("Capture a fact", "capture", "Remember something; asks which repo (c)"),
        ("New file", "new_file", "Create a memory file in the current repo (n)"),
        ("Rename or move file", "rename_file", "Rewrites every link to it in the same commit (R)"),
        ("Delete file", "delete_file", "Lists its backlinks first (D)"),
        ("Edit whole file", "edit_file", "TextArea with Markdown highlighting (E)"),
        ("Toggle raw lines", "toggle_raw", "Show lines exactly as written (r)"),
        ("Reload", "reload", "Read the open file again (ctrl+r)"),
    ]

    def _run(self, action: str) -> None:
        self.app.call_later(self.app.screen.run_action, action)

    async def discover(self) -> Hits:
        for name, action, help_text in self.ACTIONS:
            yield DiscoveryHit(Content(name), partial(self._run, action), text=name, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, action, help_text in self.ACTIONS:
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), partial(self._run, action), text=name, help=help_text)
