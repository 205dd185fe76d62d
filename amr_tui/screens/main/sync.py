"""Sync with the remote, resolve a stopped sync, and share for pairing (a MainScreen mixin)."""

from __future__ import annotations

import tempfile

from textual import work
from textual.message import Message

from amr_tui.core.textsafety import make_visible


class SyncProgressed(Message):
    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__()


class Synced(Message):
    def __init__(self, repo: str, result, error: Exception | None) -> None:
        self.repo, self.result, self.error = repo, result, error
        super().__init__()


class SyncMixin:
    """Uses self.session, self.current, self.set_status, self.refresh_tree, self.action_reload."""

    def action_sync(self) -> None:
        repo = self.current.repo if self.current else (self.session.names[0] if self.session.names else None)
        if repo is None or self.session.git(repo) is None:
            self.app.notify("Sync needs a git repo.", severity="warning")
            return
        if self.session.mount(repo).read_only:
            self.app.notify(make_visible(f"{repo} is read-only: no sync."), severity="error", markup=False)
            return
        self.set_status(make_visible(f"Syncing {repo}…"))
        self._sync_worker(repo)

    @work(thread=True, exclusive=True, group="sync")
    def _sync_worker(self, repo: str) -> None:
        from amr_tui.services.sync.run import sync

        root = self.session.mount(repo).root
        try:
            result = sync(root, progress=lambda p: self.post_message(SyncProgressed(f"{repo}: {p.message}")))
        except Exception as exc:  # sync reports its own failures; this is for the unexpected
            self.post_message(Synced(repo, None, exc))
            return
        self.post_message(Synced(repo, result, None))

    def on_sync_progressed(self, message: SyncProgressed) -> None:
        self.set_status(make_visible(message.text))

    def on_synced(self, message: Synced) -> None:
        if message.error is not None:
            self.app.notify(make_visible(str(message.error)), title="Sync failed", severity="error", markup=False)
            return
        result = message.result
        self.set_status(make_visible(f"{message.repo}: {result.message}"))
        severity = "information" if result.ok else "warning" if result.status in ("offline", "conflict") else "error"
        self.app.notify(make_visible(result.message), title=f"Sync: {result.status}", severity=severity, markup=False)
        for path, fact in getattr(result, "resurrected", ()):
            self.app.notify(make_visible(f"{path}: brings back a deleted fact: {fact}"), title="Resurrected fact",
                            severity="warning", markup=False, timeout=10)
        self.session.poll()
        self.session.refresh_info(message.repo)  # ahead/behind and last sync changed
        self.refresh_tree()
        self.action_reload()
        if result.pending is not None:
            from amr_tui.screens.sync_conflict import SyncConflictScreen

            self.app.push_screen(SyncConflictScreen(result.pending, message.repo),
                                 lambda res: self._after_resolve(message.repo, res))

    def _after_resolve(self, repo: str, result) -> None:
        if result is None:
            self.app.notify("Conflicts left for later: the repo is unchanged; sync again to resolve.", severity="warning")
            return
        self.post_message(Synced(repo, result, None))

    def action_share(self) -> None:
        from amr_tui.screens.share import ShareScreen

        self.app.push_screen(ShareScreen(self.session, tempfile.mkdtemp(prefix="amr-share-")))
