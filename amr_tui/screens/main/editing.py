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
    from amr_tui.services.session.editing import Saved
    from amr_tui.services.session.state import OpenFile

# git, the editing service and the dialogs are imported in the methods that use them, so the
# main screen's first frame does not wait for them (see main.py).


class SaveDone(Message):
    def __init__(self, saved: Saved, extra: str = "") -> None:
        self.saved, self.extra = saved, extra
        super().__init__()


class SaveFailed(Message):
    def __init__(self, error: Exception, retry: Callable[[], None] | None, of: OpenFile | None, new_bytes: bytes | None,
                 back: Callable[[], None] | None = None) -> None:
        self.error, self.retry, self.of, self.new_bytes, self.back = error, retry, of, new_bytes, back
        super().__init__()


class EditingMixin:
    """Mixed into MainScreen; uses self.session, self.current, self.view, self.editor."""

    # ------------------------------------------------------------ helpers
    def _writable(self) -> OpenFile | None:
        if self._entry_edit_pending():
            return None
        of = self.current
        if of is None or of.doc is None:  # not loaded: say why (too large, missing, ...) when known
            self.app.notify(make_visible(of.message) if of is not None and of.message else "Open a Markdown memory file first.",
                            severity="warning", markup=False, timeout=8)
            return None
        if of.read_only:
            self.app.notify(make_visible(f"Read-only: {of.read_only}. Nothing was changed."), severity="error", markup=False)
            return None
        return of

    def _unsaved_entry_value(self) -> str | None:
        """The entry editor's text when it is open and differs from what it started with."""
        editor = self.editor
        if not editor.display or editor.target is None:
            return None
        value = editor.query_one("Input").value
        return value if value != editor.target.original else None

    def _entry_edit_pending(self) -> bool:
        """True (and says so) when an entry edit is unsaved: another write would close the editor."""
        if self._unsaved_entry_value() is None:
            return False
        self.app.notify("Finish the entry you are editing first: enter saves it, esc discards it.", severity="warning")
        self.editor.query_one("Input").focus()
        return True

    def unsaved_edits(self) -> list[str]:
        """The entry being edited (when changed) and every kept draft: what quitting would lose."""
        try:
            value = self._unsaved_entry_value()
        except Exception:  # not composed (yet, or any more): nothing typed
            return []
        edits = []
        target = self.editor.target
        if value is not None and target is not None:
            what = f"line {target.line}: the entry you are editing" if target.mode == "edit" else "the new entry you are writing"
            edits.append(f"{target.repo}/{target.path}, {what}")
        for (repo, path), (kept, _value) in self.drafts.items():
            line = f", line {kept.line}" if getattr(kept, "mode", "") == "edit" else ""
            edits.append(f"{repo}/{path}{line}: a draft kept when you left the file")
        return edits

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

    def _run_save(self, job: Callable[[], Saved | tuple], of: OpenFile | None = None, new_bytes: bytes | None = None,
                  back: Callable[[], None] | None = None) -> None:
        """Run ``job`` (a save) in a thread. ``of``: the version it is based on (a conflict shows
        the conflict view); ``back``: gives the user's text back in its editor when the save is
        not made and that editor is gone (the whole-file editor), so nothing typed is dropped."""
        if getattr(self, "_saving", False):
            # A save pressed twice runs once: the first one is still being committed.
            self.app.notify("Still saving the last change…", severity="warning", timeout=2)
            if back is not None:
                back()
            return
        self._saving = True
        self.set_status("Saving…")
        self._save_worker(job, of, new_bytes, back)

    @work(thread=True, group="save")
    def _save_worker(self, job, of, new_bytes, back) -> None:
        from amr_tui.services.session.editing import Saved

        try:
            result = job()
        except Exception as exc:  # every failure becomes a notification, never a crash
            self.post_message(SaveFailed(exc, lambda: self._run_save(job, of, new_bytes, back), of, new_bytes, back))
            return
        if isinstance(result, tuple):
            saves = [r for r in result if isinstance(r, Saved)]
            result = saves[-1]  # move: stay in the source file
            foreign = tuple(p for r in saves for p in r.foreign)
            if foreign and not result.foreign:
                from dataclasses import replace

                result = replace(result, foreign=foreign)
        self.post_message(SaveDone(result))

    def on_save_done(self, message: SaveDone) -> None:
        self._saving = False
        saved = message.saved
        self.editor.close()
        self.view.editing = False
        self.set_status(make_visible(saved.message) + (f"  ({saved.head[:8]})" if saved.head else ""))
        title = "Committed" if saved.committed and saved.head else ("Saved" if not saved.head else "Nothing to commit")
        note = make_visible(saved.message)
        if saved.merged:
            note += "\nMerged with a change committed meanwhile: " + make_visible(", ".join(saved.merged))
        self.app.notify(note, title=title, markup=False, timeout=4)
        if saved.foreign:
            self.foreign_repo = saved.repo
            self.app.notify(
                make_visible(", ".join(saved.foreign)) + " also holds uncommitted changes that were not made in amr. "
                "They were left out of this commit and are still in the file. Press U to commit them as a "
                "commit of their own.", title="Others' uncommitted changes kept", severity="warning",
                markup=False, timeout=10)
        self.refresh_tree()
        from amr_tui.screens.main.screen import Place

        self.open_place(Place(saved.repo, saved.path, saved.line), record=False)

    def on_save_failed(self, message: SaveFailed) -> None:
        from amr_tui.git.errors import ConflictError, DirtyFileError, NoIdentityError
        from amr_tui.screens.conflict import ConflictScreen

        self._saving = False
        err = message.error
        self.last_save_error = err
        self.set_status(make_visible(f"Not saved: {err}"))
        back = message.back
        if isinstance(err, NoIdentityError):
            self._ask_identity(message.retry, self._repo_at(err.where), back)
        elif isinstance(err, ConflictError) and message.of is not None:
            repo = message.of.repo
            self.app.push_screen(ConflictScreen(err.path, err.ours, err.base, err.theirs, err.merged, repo=repo),
                                 lambda choice: self._resolve_conflict(repo, err, choice, back))
        elif isinstance(err, DirtyFileError):
            self.app.notify(make_visible(f"{err} Your text is still in the editor."),
                            title="Someone else's uncommitted change", severity="error", markup=False, timeout=10)
            if back is not None:
                back()
        else:
            self.app.notify(make_visible(str(err)), title="Not saved", severity="error", markup=False, timeout=8)
            if back is not None:
                back()

    def _repo_at(self, where: str) -> str | None:
        """The mounted repo whose root is ``where`` (a NoIdentityError names the repo it needs)."""
        from pathlib import Path

        for name in self.session.names:
            try:
                if Path(self.session.mount(name).root).resolve() == Path(where).resolve():
                    return name
            except OSError:
                continue
        return self.current.repo if self.current else None

    def _ask_identity(self, retry, repo: str | None = None, back: Callable[[], None] | None = None) -> None:
        from amr_tui.screens.dialogs import PromptScreen

        target = repo or (self.current.repo if self.current else None)

        def got(value: str | None) -> None:
            if not value or target is None or "<" not in value:
                if value:
                    self.app.notify("Write it as: Name <email>", severity="warning")
                if back is not None:
                    back()
                return
            name, email = value.split("<", 1)
            git = self.session.git(target)
            if git is not None:
                git.set_local_identity(name.strip(), email.strip(" >"))
                self.app.notify(make_visible(f"Identity set for {target} only."), markup=False)
                if retry:
                    retry()

        self.app.push_screen(PromptScreen(f"Git needs a name and email to commit in {make_visible(target or 'this repo')}",
                                          placeholder="Your Name <you@example.com>",
                                          help_text="Saved in this repo's own config (never your global config)."), got)

    def _resolve_conflict(self, repo: str, err, choice, back: Callable[[], None] | None = None) -> None:
        from amr_tui.services.session import editing
        from amr_tui.services.session.state import OpenFile

        if choice is None:
            self.app.notify("Conflict left unresolved; nothing was saved."
                            + (" Your text is back in the editor." if back is not None else ""), severity="warning")
            if back is not None:
                back()
            return
        # Based on the committed version the conflict showed ("theirs"): the gate merges in what
        # was committed since, and a new conflict shows this view again.
        shown = OpenFile(repo, err.path, err.theirs, None, err.head)
        self._run_save(lambda: editing.resolve_conflict(self.session, repo, err, choice), shown, back=back)

    def action_commit_foreign(self) -> None:
        """Commit the uncommitted changes others left in the repo's files, as their own commit."""
        from amr_tui.screens.dialogs import ConfirmScreen
        from amr_tui.services import writegate

        repo = self.current.repo if self.current else getattr(self, "foreign_repo", None)
        if repo is None:
            return
        paths = writegate.foreign_changes(self.session, repo)
        if not paths:
            self.app.notify(make_visible(f"{repo} has no uncommitted changes."), markup=False)
            return
        listing = "\n".join(make_visible(f"  {p}") for p in paths[:10]) + (f"\n  … and {len(paths) - 10} more" if len(paths) > 10 else "")

        def go(yes: bool | None) -> None:
            if yes:
                self._run_save(lambda: writegate.commit_foreign(self.session, repo, paths))

        self.app.push_screen(ConfirmScreen(
            "Commit others' uncommitted changes?",
            f"These files hold changes nobody committed (agents often leave them):\n{listing}\n\n"
            "They will be committed exactly as they are on disk, in a commit of their own labelled as "
            "not made in amr.", "Commit them", "Cancel"), go)

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
        self._start_edit(EditTarget(of.repo, of.path, line, "edit", prefix, value, of), f"Editing line {line} of {of.repo}/{of.path}")

    def action_new_entry(self, where: str) -> None:
        of = self._writable()
        if of is None or of.doc is None:
            return
        line = self.view.cursor_line if of.doc.lines else 0
        entry = of.doc.entry_at(line)
        prefix = (entry.indent + (entry.marker or "-") + " ") if entry else "- "
        after = line if where == "below" else max(0, line - 1)
        if entry is not None and where == "below":
            from amr_tui.core.format.edit import entry_span

            after = entry_span(of.doc, entry)[1]
        self._start_edit(EditTarget(of.repo, of.path, after, where, prefix, "", of),
                         f"New entry {'below' if where == 'below' else 'above'} line {line} in {of.repo}/{of.path}")

    def _start_edit(self, target: EditTarget, where: str) -> None:
        draft = self.drafts.pop((target.repo, target.path), None)
        if draft is not None:
            old_target, value = draft
            target, where = old_target, where + " (restored draft)"
            self.editor.start(EditTarget(target.repo, target.path, target.line, target.mode, target.prefix, target.original,
                                         target.base), where)
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
        from amr_tui.services.session import editing

        # The save is based on the version the edit started from, never on what a live refresh
        # put on screen since: the gate merges it onto whatever was committed meanwhile.
        of = target.base
        if of is None or getattr(of, "doc", None) is None:
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
                self.app.notify(make_visible(f"Unsaved edit of {editor.target.repo}/{editor.target.path} kept as a draft; "
                                             "press e in that file to resume. Quitting asks first."),
                                markup=False, timeout=5)
            editor.close()
            self.view.editing = False
        then()

    def action_delete_entry(self) -> None:
        from amr_tui.screens.dialogs import ConfirmScreen
        from amr_tui.services.session import editing

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
        from amr_tui.core.format.edit import set_metadata, today_iso
        from amr_tui.services.session import editing

        found = self._writable_entry()
        if found is None:
            return
        of, entry = found
        new = set_metadata(of.doc.lines[entry.line - 1].text, entry, "added", today_iso())
        self._run_save(lambda: editing.replace_entry_line(self.session, of, entry.line, new), of)

    def action_move_entry(self) -> None:
        from amr_tui.screens.dialogs import ChoiceScreen
        from amr_tui.services.session import editing

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
        from amr_tui.core.format.edit import new_entry_line
        from amr_tui.screens.dialogs import ChoiceScreen, TextPromptScreen
        from amr_tui.screens.secret_check import ask_before_saving_secrets

        if self._entry_edit_pending():
            return
        writable = [r for r in self.session.names if not self.session.mount(r).read_only]
        if not writable:
            self.app.notify("Every mounted repo is read-only.", severity="error")
            return

        def prompt(value: str = "") -> None:  # esc and quitting ask before dropping what was typed
            self.app.push_screen(TextPromptScreen("Remember…", value, placeholder="fact [source: https://...]",
                                                  help_text="Goes to the top of MEMORY.md, above ## Index.",
                                                  what="the fact you are capturing"), with_text)

        def with_text(text: str | None) -> None:
            if not text or not text.strip():
                return
            line = new_entry_line(text)

            def to_repo(repo: str | None) -> None:
                if repo:  # a save that is not made gives the text back in the prompt
                    self._run_save(lambda: self._capture_into(repo, line), back=lambda: prompt(text))
                else:  # esc on "which memory": back to the text
                    prompt(text)

            def choose() -> None:
                if len(writable) == 1:
                    to_repo(writable[0])
                else:
                    self.app.push_screen(ChoiceScreen("Which memory is this for?", [(r, r) for r in writable],
                                                      holds="the fact you are capturing"), to_repo)

            ask_before_saving_secrets(self.app, "", line, choose, declined=lambda: prompt(text),
                                      holds="the fact you are capturing")

        prompt()

    def _capture_into(self, repo: str, line: str) -> Saved:
        from amr_tui.services.session.editing import EditRefused
        from amr_tui.services.session import editing

        of = self.session.open(repo, "MEMORY.md")
        if of.doc is None:
            raise EditRefused(of.message or "MEMORY.md cannot be read")
        index = next((ln for ln, lvl, t in of.doc.headings if lvl == 2 and t == "Index"), 0)
        entries_above = [e.line for e in of.doc.entries if not index or e.line < index]
        after = entries_above[-1] if entries_above else (index - 1 if index else len(of.doc.lines))
        return editing.insert_entry(self.session, of, max(0, after), line)

    # ---------------------------------------------------------- file edits
    def action_edit_file(self) -> None:
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
        self._open_file_editor(of, plain, crlf, bom, None)

    def _open_file_editor(self, of: OpenFile, plain: str, crlf: bool, bom: bool, edited: str | None) -> None:
        """The whole-file editor on ``plain`` (the file as read), starting from ``edited`` if given.

        A save that fails for a reason the user must fix first (someone else's uncommitted change,
        a refusal) hands the text back in a new editor, so it is never dropped; a conflict shows
        both versions (the conflict screen) and a missing identity retries after asking."""
        from amr_tui.screens.file_editor import FileEditScreen
        from amr_tui.services.session import editing

        def done(new_text: str | None) -> None:
            if new_text is None:
                return
            body = new_text.replace("\n", "\r\n") if crlf else new_text
            data = (("\ufeff" if bom else "") + body).encode("utf-8")
            self._run_save(lambda: editing.write(self.session, of, data, f"Edit {of.path}"), of, data,
                           back=lambda: self._open_file_editor(of, plain, crlf, bom, new_text))

        self.app.push_screen(FileEditScreen(of.path, plain, edited=edited, repo=of.repo), done)

    def action_external_editor(self) -> None:
        of = self.current
        if of is not None and of.read_only == "too large" and not self._entry_edit_pending():
            from amr_tui.screens.main.external import edit_unread

            edit_unread(self, of)  # as the file's screen says: ctrl+e opens it (amr reads none of it)
            return
        of = self._writable()
        if of is None or of.data is None:
            return
        self._run_external_editor(of)

    def _run_external_editor(self, of: OpenFile) -> None:
        """Hand the file to $EDITOR (it edits the file on disk), then commit what it left.

        What the editor left is never dropped in silence: not committed (a credential declined, a
        save that failed), it stays on disk and the user is told, or is put back only on request."""
        from amr_tui.screens.secret_check import ask_before_saving_secrets
        from textual.app import SuspendNotSupported

        from amr_tui.services.session.external import run_editor

        root = self.session.mount(of.repo).root
        try:
            with self.app.suspend():
                data, error = run_editor(root, of.path)
        except SuspendNotSupported:  # headless (tests): nothing to hand the terminal back from
            data, error = run_editor(root, of.path)
        if error:
            self.app.notify(make_visible(error), severity="error", markup=False)
            return
        if data is None:
            self.app.notify(make_visible(f"{of.repo}/{of.path} cannot be read after $EDITOR (gone, or too large): "
                                         "nothing was committed."), severity="warning", markup=False, timeout=8)
            return
        if data == of.data:
            return
        ask_before_saving_secrets(self.app, of.data.decode("utf-8", "replace"), data.decode("utf-8", "replace"),
                                  lambda: self._commit_external(of, data), no="Do not commit",
                                  declined=lambda: self._external_not_committed(of, data))

    def _commit_external(self, of: OpenFile, data: bytes) -> None:
        from amr_tui.services.session import editing

        def job():
            try:
                return editing.write(self.session, of, data, f"Edit {of.path} in $EDITOR")
            except Exception:
                self.app.call_from_thread(self._external_left_on_disk, of)
                raise

        self._run_save(job, of, data)

    def _external_left_on_disk(self, of: OpenFile) -> None:
        self.app.notify(make_visible(f"Not committed: your $EDITOR changes stay in {of.repo}/{of.path} on disk, "
                                     "not in git (git diff shows them). amr's saves leave them out; U commits them."),
                        title="$EDITOR changes kept on disk", severity="warning", markup=False, timeout=12)

    def _external_not_committed(self, of: OpenFile, data: bytes) -> None:
        """The user would not commit what $EDITOR left: edit again, leave it on disk, or put the file back."""
        from amr_tui.screens.dialogs import ChoiceScreen
        from amr_tui.services.session.external import put_back

        def chosen(choice: str | None) -> None:
            if choice == "again":
                self.call_after_refresh(self._run_external_editor, of)
                return
            if choice == "restore":
                root = self.session.mount(of.repo).root
                try:
                    restored = put_back(root, of.path, data, of.data)
                except Exception as exc:  # a refused path, a disk error: say so, keep what is there
                    self.app.notify(make_visible(f"Could not put {of.path} back: {exc}"), severity="error", markup=False)
                    restored = False
                if restored:
                    self.app.notify(make_visible(f"{of.repo}/{of.path} is back as it was; your $EDITOR changes are discarded."),
                                    markup=False, timeout=6)
                else:
                    self.app.notify(make_visible(f"{of.path} changed again meanwhile: left as it is on disk."),
                                    severity="warning", markup=False, timeout=8)
            else:  # "keep", or esc: nothing is thrown away
                self._external_left_on_disk(of)
            self.action_reload()

        self.app.push_screen(ChoiceScreen(make_visible(f"Your $EDITOR changes to {of.repo}/{of.path} are not committed"), [
            ("again", "Edit again in $EDITOR"),
            ("keep", "Leave them on disk, not committed (git diff shows them)"),
            ("restore", "Put the file back as it was before $EDITOR (your changes are discarded)"),
        ]), chosen)

    def action_new_file(self) -> None:
        from amr_tui.screens.dialogs import PromptScreen

        if self._entry_edit_pending():
            return
        repo = self.current.repo if self.current else (self.session.names[0] if self.session.names else None)
        if repo is None:
            return

        def named(path: str | None) -> None:
            if path:
                self.create_file_at(repo, path)

        self.app.push_screen(PromptScreen(f"New file in {repo}", placeholder="topic or folder/topic (.md added)"), named)

    def create_file_at(self, repo: str, path: str) -> None:
        from amr_tui.services.session import editing

        self._run_save(lambda: editing.create_file(self.session, repo, path))

    def action_rename_file(self) -> None:
        from amr_tui.screens.dialogs import PromptScreen
        from amr_tui.services.session import editing

        of = self._writable()
        if of is None:
            return
        backlinks = len(self.session.backlinks(of.repo, of.path))

        def named(new: str | None) -> None:
            if new and new != of.path:
                def job():
                    saved, rewritten = editing.rename_file(self.session, of.repo, of.path, new)
                    self.app.call_from_thread(self._draft_follows, of.repo, of.path, saved.path)
                    return saved, rewritten

                self._run_save(job)

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
        draft = self.drafts.get((of.repo, of.path))
        if draft is not None:
            line = f" of line {draft[0].line}" if draft[0].mode == "edit" else ""
            body += f"\n\nYour unsaved draft{line} in this file (kept when you left it) will be discarded."

        def go(yes: bool | None) -> None:
            if yes:
                self._run_save(lambda: self._delete_and_go(of))

        self.app.push_screen(ConfirmScreen("Delete file?", body, "Delete"), go)

    def _delete_and_go(self, of: OpenFile) -> Saved:
        from amr_tui.services.session.editing import Saved
        from amr_tui.services.session import editing

        saved = editing.delete_file(self.session, of.repo, of.path)
        self.app.call_from_thread(self._draft_follows, of.repo, of.path, None)
        return Saved(saved.repo, "MEMORY.md", saved.head, saved.message, 0)

    def _draft_follows(self, repo: str, old: str, new: str | None) -> None:
        """A file was renamed to ``new`` (or deleted: None): the draft kept for it moves with it
        (resumed by e in the new file; the quit question names the new path), or is dropped."""
        from dataclasses import replace

        draft = self.drafts.pop((repo, old), None)
        if draft is None or new is None:
            return
        target, value = draft
        base = replace(target.base, path=new) if target.base is not None else None
        self.drafts[(repo, new)] = (replace(target, path=new, base=base), value)
