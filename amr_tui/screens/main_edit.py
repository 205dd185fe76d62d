"""Editing actions of the main screen. Every save runs in a thread worker and is one commit."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message

from amr_tui.services.workspace import is_markdown
from amr_tui.core.model import Severity
from amr_tui.core.textsafety import make_visible
from amr_tui.widgets.entry_editor import EditTarget, EntryEditor

if TYPE_CHECKING:
    from amr_tui.services.editing import Saved
    from amr_tui.services.session import OpenFile

# git, the editing service and the dialogs are imported in the methods that use them, so the
# main screen's first frame does not wait for them (see main.py).


class SaveDone(Message):
    def __init__(self, saved: Saved, extra: str = "") -> None:
        self.saved, self.extra = saved, extra
        super().__init__()


class SaveFailed(Message):
    def __init__(self, error: Exception, retry: Callable[[], None] | None, of: OpenFile | None, new_bytes: bytes | None) -> None:
        self.error, self.retry, self.of, self.new_bytes = error, retry, of, new_bytes
        super().__init__()


class EditingMixin:
    """Mixed into MainScreen; uses self.session, self.current, self.view, self.editor."""

    # ------------------------------------------------------------ helpers
    def _writable(self) -> OpenFile | None:
        of = self.current
        if of is None or of.doc is None:
            self.app.notify("Open a Markdown memory file first.", severity="warning")
            return None
        if of.read_only:
            self.app.notify(make_visible(f"Read-only: {of.read_only}. Nothing was changed."), severity="error", markup=False)
            return None
        return of

    def _writable_entry(self):
        """(open file, entry under the cursor) when both can be written, else None (and says why)."""
        of = self._writable()
        if of is None or of.doc is None:
            return None
        entry = of.doc.entry_at(self.view.cursor_line)
        if entry is None:
            self.app.notify("The cursor is not on an entry.", severity="warning")
            return None
        return of, entry

    def _run_save(self, job: Callable[[], Saved | tuple], of: OpenFile | None = None, new_bytes: bytes | None = None) -> None:
        self.set_status("Saving…")
        self._save_worker(job, of, new_bytes)

    @work(thread=True, group="save")
    def _save_worker(self, job, of, new_bytes) -> None:
        from amr_tui.services.editing import Saved

        try:
            result = job()
        except Exception as exc:  # every failure becomes a notification, never a crash
            self.post_message(SaveFailed(exc, lambda: self._run_save(job, of, new_bytes), of, new_bytes))
            return
        if isinstance(result, tuple):
            result = [r for r in result if isinstance(r, Saved)][-1]  # move: stay in the source file
        self.post_message(SaveDone(result))

    def on_save_done(self, message: SaveDone) -> None:
        saved = message.saved
        self.editor.close()
        self.view.editing = False
        self.set_status(make_visible(saved.message) + (f"  ({saved.head[:8]})" if saved.head else ""))
        self.app.notify(make_visible(saved.message), title="Committed" if saved.head else "Saved", markup=False, timeout=3)
        self.refresh_tree()
        from amr_tui.screens.main import Place

        self.open_place(Place(saved.repo, saved.path, saved.line), record=False)

    def on_save_failed(self, message: SaveFailed) -> None:
        from amr_tui.git.errors import ConflictError, DirtyFileError, NoIdentityError
        from amr_tui.screens.conflict import ConflictScreen

        err = message.error
        self.last_save_error = err
        self.set_status(make_visible(f"Not saved: {err}"))
        if isinstance(err, NoIdentityError):
            self._ask_identity(message.retry)
        elif isinstance(err, ConflictError) and message.of is not None:
            self.app.push_screen(ConflictScreen(message.of.path, err.ours, err.base, err.theirs, err.merged),
                                 lambda choice: self._resolve_conflict(message.of, choice))
        elif isinstance(err, DirtyFileError):
            self.app.notify(make_visible(f"{err} Nothing was committed; your text is still in the editor. "
                                         "Reload (ctrl+r) to see the other change, then edit again."),
                            title="Someone else's uncommitted change", severity="error", markup=False, timeout=10)
        else:
            self.app.notify(make_visible(str(err)), title="Not saved", severity="error", markup=False, timeout=8)

    def _ask_identity(self, retry) -> None:
        from amr_tui.screens.dialogs import PromptScreen

        of = self.current

        def got(value: str | None) -> None:
            if not value or of is None or "<" not in value:
                if value:
                    self.app.notify("Write it as: Name <email>", severity="warning")
                return
            name, email = value.split("<", 1)
            git = self.session.git(of.repo)
            if git is not None:
                git.set_local_identity(name.strip(), email.strip(" >"))
                self.app.notify(make_visible(f"Identity set for {of.repo} only."), markup=False)
                if retry:
                    retry()

        self.app.push_screen(PromptScreen("Git needs a name and email to commit", placeholder="Your Name <you@example.com>",
                                          help_text="Saved in this repo's own config (never your global config)."), got)

    def _resolve_conflict(self, of: OpenFile, result: bytes | None) -> None:
        from amr_tui.services import editing

        if result is None:
            self.app.notify("Conflict left unresolved; nothing was saved.", severity="warning")
            return
        fresh_repo, path = of.repo, of.path

        def job():
            fresh = self.session.open(fresh_repo, path)
            return editing.write(self.session, fresh, result, f"Resolve edit conflict in {path}")

        self._run_save(job)

    # ------------------------------------------------------- entry edits
    def action_edit_entry(self) -> None:
        of = self._writable()
        if of is None or of.doc is None:
            return
        line = self.view.cursor_line
        if not 1 <= line <= len(of.doc.lines):
            return
        text = of.doc.lines[line - 1].text
        entry = of.doc.entry_at(line)
        if entry is not None:
            prefix, value = text[: entry.content_start], text[entry.content_start:]
            if not prefix.endswith((" ", "\t")):
                prefix += " "
        else:
            prefix, value = "", text
        self._start_edit(EditTarget(of.repo, of.path, line, "edit", prefix, value), f"Editing line {line} of {of.repo}/{of.path}")

    def action_new_entry(self, where: str) -> None:
        of = self._writable()
        if of is None or of.doc is None:
            return
        line = self.view.cursor_line if of.doc.lines else 0
        entry = of.doc.entry_at(line)
        prefix = (entry.indent + (entry.marker or "-") + " ") if entry else "- "
        after = line if where == "below" else max(0, line - 1)
        if entry is not None and where == "below":
            from amr_tui.core.edit import entry_span

            after = entry_span(of.doc, entry)[1]
        self._start_edit(EditTarget(of.repo, of.path, after, where, prefix, ""),
                         f"New entry {'below' if where == 'below' else 'above'} line {line} in {of.repo}/{of.path}")

    def _start_edit(self, target: EditTarget, where: str) -> None:
        draft = self.drafts.pop((target.repo, target.path), None)
        if draft is not None:
            old_target, value = draft
            target, where = old_target, where + " (restored draft)"
            self.editor.start(EditTarget(target.repo, target.path, target.line, target.mode, target.prefix, target.original), where)
            self.editor.query_one("Input").value = value
        else:
            self.editor.start(target, where)
        self.view.editing = target.mode == "edit"

    def on_entry_editor_submitted(self, message: EntryEditor.Submitted) -> None:
        from amr_tui.screens.dialogs import ConfirmScreen

        target, line_text = message.target, message.line_text
        errors = [d for d in message.diagnostics if d.severity is Severity.ERROR]
        if target.mode != "edit" and not line_text[len(target.prefix):].strip():
            self.app.notify("Empty entry: nothing to save.", severity="warning")
            return
        if errors:
            def confirmed(yes: bool | None) -> None:
                if yes:
                    self._save_entry(target, line_text)

            lines = "\n".join(make_visible(f"{d.code} {d.message}") for d in errors[:5])
            self.app.push_screen(ConfirmScreen("This entry breaks the format", f"{lines}\n\nSave it anyway?", "Save anyway", "Keep editing"), confirmed)
            return
        self._save_entry(target, line_text)

    def _save_entry(self, target: EditTarget, line_text: str) -> None:
        from amr_tui.services import editing

        of = self.current
        if of is None or (of.repo, of.path) != (target.repo, target.path):
            of = self.session.open(target.repo, target.path)
        session = self.session
        if target.mode == "edit":
            job = lambda: editing.replace_entry_line(session, of, target.line, line_text)  # noqa: E731
        else:
            job = lambda: editing.insert_entry(session, of, target.line, line_text)  # noqa: E731
        self._run_save(job, of)

    def on_entry_editor_cancelled(self, message: EntryEditor.Cancelled) -> None:
        from amr_tui.screens.dialogs import ConfirmScreen

        def drop(yes: bool | None) -> None:
            if yes:
                self.editor.close()
                self.view.editing = False
                self.view.focus()

        if message.changed:
            self.app.push_screen(ConfirmScreen("Discard this edit?", "Your changes to this entry are not saved.", "Discard", "Keep editing"), drop)
        else:
            drop(True)

    def leave_file(self, then: Callable[[], None]) -> None:
        """Navigate away; an unsaved entry edit is kept as a draft and comes back with the file."""
        editor = self.editor
        if editor.display and editor.target is not None:
            value = editor.query_one("Input").value
            if value != editor.target.original:
                self.drafts[(editor.target.repo, editor.target.path)] = (editor.target, value)
                self.app.notify("Unsaved edit kept as a draft; press e in that file to resume.", timeout=4)
            editor.close()
            self.view.editing = False
        then()

    def action_delete_entry(self) -> None:
        from amr_tui.screens.dialogs import ConfirmScreen
        from amr_tui.services import editing

        found = self._writable_entry()
        if found is None:
            return
        of, entry = found
        line = entry.line

        def go(yes: bool | None) -> None:
            if yes:
                self._run_save(lambda: editing.delete_entry(self.session, of, line), of)

        self.app.push_screen(ConfirmScreen("Delete entry?", f"{make_visible(entry.text)}\n\nIt stays in git history.", "Delete"), go)

    def action_stamp_added(self) -> None:
        from amr_tui.core.edit import set_metadata, today_iso
        from amr_tui.services import editing

        found = self._writable_entry()
        if found is None:
            return
        of, entry = found
        new = set_metadata(of.doc.lines[entry.line - 1].text, entry, "added", today_iso())
        self._run_save(lambda: editing.replace_entry_line(self.session, of, entry.line, new), of)

    def action_move_entry(self) -> None:
        from amr_tui.screens.dialogs import ChoiceScreen
        from amr_tui.services import editing

        found = self._writable_entry()
        if found is None:
            return
        of, entry = found
        choices = []
        for repo in self.session.names:
            if self.session.mount(repo).read_only:
                continue
            for path in self.session.files(repo):
                if is_markdown(path) and (repo, path) != (of.repo, of.path):
                    choices.append((f"{repo}\0{path}", f"{repo} / {path}"))

        def chosen(value: str | None) -> None:
            if value:
                repo, path = value.split("\0", 1)
                self._run_save(lambda: editing.move_entry(self.session, of, entry.line, repo, path), of)

        self.app.push_screen(ChoiceScreen("Move entry to…", choices), chosen)

    def action_capture(self) -> None:
        """Write a new entry from anywhere; asks which repo when more than one can take it."""
        from amr_tui.core.edit import new_entry_line
        from amr_tui.screens.dialogs import ChoiceScreen, PromptScreen
        from amr_tui.screens.secret_check import ask_before_saving_secrets

        writable = [r for r in self.session.names if not self.session.mount(r).read_only]
        if not writable:
            self.app.notify("Every mounted repo is read-only.", severity="error")
            return

        def with_text(text: str | None) -> None:
            if not text or not text.strip():
                return
            line = new_entry_line(text)

            def to_repo(repo: str | None) -> None:
                if repo:
                    self._run_save(lambda: self._capture_into(repo, line))

            def choose() -> None:
                if len(writable) == 1:
                    to_repo(writable[0])
                else:
                    self.app.push_screen(ChoiceScreen("Which memory is this for?", [(r, r) for r in writable]), to_repo)

            ask_before_saving_secrets(self.app, "", line, choose)

        self.app.push_screen(PromptScreen("Remember…", placeholder="fact [source: https://...]",
                                          help_text="Goes to the top of MEMORY.md, above ## Index."), with_text)

    def _capture_into(self, repo: str, line: str) -> Saved:
        from amr_tui.services.editing import EditRefused
        from amr_tui.services import editing

        of = self.session.open(repo, "MEMORY.md")
        if of.doc is None:
            raise EditRefused(of.message or "MEMORY.md cannot be read")
        index = next((ln for ln, lvl, t in of.doc.headings if lvl == 2 and t == "Index"), 0)
        entries_above = [e.line for e in of.doc.entries if not index or e.line < index]
        after = entries_above[-1] if entries_above else (index - 1 if index else len(of.doc.lines))
        return editing.insert_entry(self.session, of, max(0, after), line)

    # ---------------------------------------------------------- file edits
    def action_edit_file(self) -> None:
        from amr_tui.screens.file_editor import FileEditScreen
        from amr_tui.screens.secret_check import ask_before_saving_secrets
        from amr_tui.services import editing

        of = self._writable()
        if of is None or of.data is None:
            return
        from amr_tui.core.textsafety import find_controls

        text = of.data.decode("utf-8")
        crlf = "\r\n" in text
        plain = text.replace("\r\n", "\n")
        bom = plain.startswith("\ufeff")
        if bom:
            plain = plain[1:]
        if find_controls(plain.replace("\n", "")):
            self.app.notify("This file holds control characters; edit it with $EDITOR (ctrl+e) so nothing reaches the terminal.",
                            severity="warning", timeout=8)
            return

        def done(new_text: str | None) -> None:
            if new_text is None:
                return
            body = new_text.replace("\n", "\r\n") if crlf else new_text
            data = (("\ufeff" if bom else "") + body).encode("utf-8")
            ask_before_saving_secrets(self.app, plain, new_text, lambda: self._run_save(
                lambda: editing.write(self.session, of, data, f"Edit {of.path}"), of, data))

        self.app.push_screen(FileEditScreen(of.path, plain), done)

    def action_external_editor(self) -> None:
        from amr_tui.screens.secret_check import ask_before_saving_secrets
        from amr_tui.services import editing

        of = self._writable()
        if of is None or of.data is None:
            return
        from textual.app import SuspendNotSupported

        from amr_tui.services.external import run_editor

        root = self.session.mount(of.repo).root
        try:
            with self.app.suspend():
                data, error = run_editor(root, of.path)
        except SuspendNotSupported:  # headless (tests): nothing to hand the terminal back from
            data, error = run_editor(root, of.path)
        if error:
            self.app.notify(make_visible(error), severity="error", markup=False)
            return
        if data is not None and data != of.data:
            ask_before_saving_secrets(self.app, of.data.decode("utf-8", "replace"), data.decode("utf-8", "replace"),
                                      lambda: self._run_save(lambda: editing.write(self.session, of, data,
                                                                                   f"Edit {of.path} in $EDITOR"), of, data))

    def action_new_file(self) -> None:
        from amr_tui.screens.dialogs import PromptScreen

        repo = self.current.repo if self.current else (self.session.names[0] if self.session.names else None)
        if repo is None:
            return

        def named(path: str | None) -> None:
            if path:
                self.create_file_at(repo, path)

        self.app.push_screen(PromptScreen(f"New file in {repo}", placeholder="topic or folder/topic (.md added)"), named)

    def create_file_at(self, repo: str, path: str) -> None:
        from amr_tui.services import editing

        self._run_save(lambda: editing.create_file(self.session, repo, path))

    def action_rename_file(self) -> None:
        from amr_tui.screens.dialogs import PromptScreen
        from amr_tui.services import editing

        of = self._writable()
        if of is None:
            return
        backlinks = len(self.session.backlinks(of.repo, of.path))

        def named(new: str | None) -> None:
            if new and new != of.path:
                self._run_save(lambda: editing.rename_file(self.session, of.repo, of.path, new))

        self.app.push_screen(PromptScreen(f"Rename or move {of.path}", value=of.path,
                                          help_text=f"{backlinks} link(s) to it will be rewritten in the same commit."), named)

    def action_delete_file(self) -> None:
        from amr_tui.screens.dialogs import ConfirmScreen

        of = self._writable()
        if of is None:
            return
        backlinks = self.session.backlinks(of.repo, of.path)
        listing = "\n".join(make_visible(f"  {b.path}:{b.line}  {b.text[:60]}") for b in backlinks[:8])
        body = make_visible(f"{of.repo}/{of.path} will be deleted (it stays in git history).")
        if backlinks:
            body += f"\n\n{len(backlinks)} link(s) to it will break:\n{listing}"

        def go(yes: bool | None) -> None:
            if yes:
                self._run_save(lambda: self._delete_and_go(of))

        self.app.push_screen(ConfirmScreen("Delete file?", body, "Delete"), go)

    def _delete_and_go(self, of: OpenFile) -> Saved:
        from amr_tui.services.editing import Saved
        from amr_tui.services import editing

        saved = editing.delete_file(self.session, of.repo, of.path)
        return Saved(saved.repo, "MEMORY.md", saved.head, saved.message, 0)
