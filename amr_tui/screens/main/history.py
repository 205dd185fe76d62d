"""History, forgetting and dream review, reached from the main screen (a mixin)."""

from __future__ import annotations

from textual import work
from textual.message import Message

from amr_tui.core.textsafety import make_visible


class Forgot(Message):
    def __init__(self, oid: str | None, error: Exception | None) -> None:
        self.oid, self.error = oid, error
        super().__init__()


class HistoryMixin:
    """Mixed into MainScreen; uses self.session, self.current, self.view."""

    def _history_service(self):
        of = self.current
        if of is None:
            return None, None
        if self.session.git(of.repo) is None:
            self.app.notify("History needs a git repo.", severity="warning")
            return None, None
        try:
            return of, self.session.history(of.repo)
        except Exception as exc:  # a repo git refuses: say so
            self.app.notify(make_visible(str(exc)), title="History", severity="error", markup=False)
            return None, None

    def action_file_history(self) -> None:
        of, service = self._history_service()
        if service is None:
            return
        from amr_tui.screens.history import FileHistoryScreen

        self.app.push_screen(FileHistoryScreen(service, of.repo, of.path))

    def action_entry_timeline(self) -> None:
        of, service = self._history_service()
        if service is None or of.doc is None:
            return
        entry = of.doc.entry_at(self.view.cursor_line)
        if entry is None:
            self.app.notify("Put the cursor on an entry to see its history.", severity="warning")
            return
        from amr_tui.screens.history import TimelineScreen

        self.app.push_screen(TimelineScreen(service, of.repo, of.path, entry.line, entry.text))

    def action_forgotten(self) -> None:
        of, service = self._history_service()
        if service is None:
            return
        from amr_tui.screens.forgotten import ForgottenScreen

        def done(changed: bool | None) -> None:
            if changed:
                self.action_reload()
                self.refresh_tree()

        self.app.push_screen(ForgottenScreen(service, of.repo, self.session.mount(of.repo).read_only), done)

    def action_forget_entry(self) -> None:
        from amr_tui.screens.dialogs import ChoiceScreen, PromptScreen

        found = self._writable_entry()
        if found is None:
            return
        of, entry = found
        _, service = self._history_service()
        if service is None:
            return

        def with_mode(mode: str | None) -> None:
            if mode is None:
                return

            def with_reason(reason: str | None) -> None:
                if reason is None:
                    return
                self._forget(service, of.path, entry.line, reason.strip() or None, mode == "redact")

            self.app.push_screen(PromptScreen("Why forget it? (optional)", placeholder="e.g. the user asked; out of date"),
                                 with_reason)

        self.app.push_screen(ChoiceScreen(f"Forget: {entry.text[:70]}", [
            ("keep", "Forget it and record a tombstone (agents will not bring it back)"),
            ("redact", "Forget and redact: the tombstone keeps only a digest of the text"),
        ]), with_mode)

    @work(thread=True, group="forget")
    def _forget(self, service, path: str, line: int, reason: str | None, redact: bool) -> None:
        try:
            self.post_message(Forgot(service.forget(path, line, reason=reason, redact=redact), None))
        except Exception as exc:
            self.post_message(Forgot(None, exc))

    def on_forgot(self, message: Forgot) -> None:
        if message.error is not None:
            self.app.notify(make_visible(str(message.error)), title="Not forgotten", severity="error", markup=False)
            return
        self.app.notify(f"Forgotten, with a tombstone ({message.oid[:8]}).", title="Committed")
        self.action_reload()
        self.refresh_tree()

    def action_review_dreams(self) -> None:
        repos = [r for r in self.session.names if self.session.git(r) is not None]
        if not repos:
            self.app.notify("No git repo mounted.", severity="warning")
            return
        from amr_tui.screens.review.screen import DreamListScreen

        def done(changed: bool | None) -> None:
            if changed:
                self.action_reload()
                self.refresh_tree()

        self.app.push_screen(DreamListScreen(self.session, repos), done)
