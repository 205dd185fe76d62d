"""The main screen's edit actions: entries, whole files, $EDITOR, new/rename/delete file.

``EditActions`` is a controller, not a widget: it acts on the screen through ``EditingHost``
(what it needs of it) and makes each save a job (one commit) for the screen's save
(saving.py). An action that asks first is an async flow run as a worker of the screen (the
group ``flow:<name>``): it asks each question in turn with ``push_screen_wait``, then awaits
the save, and gives the user's text back when it was not made; a key that saves at once
begins its save there and then (``save_soon``).
The main screen loads this module at its first edit (it imports git, the parser and the
dialogs, which the first frame does without).
"""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, Protocol

from textual.app import App, SuspendNotSupported
from textual.widgets import Input
from textual.worker import Worker

from amr_tui.core.format.edit import entry_span, new_entry_line, set_metadata, today_iso
from amr_tui.core.format.links import LinkState, link_text_for
from amr_tui.core.model import Diagnostic, Entry, Severity
from amr_tui.core.scope import SCOPE_KEY, parse_scope, repo_for
from amr_tui.core.textsafety import find_controls, make_visible
from amr_tui.screens.dialogs import (
    UNSAVED_ENTRY,
    ChoiceScreen,
    ConfirmScreen,
    PromptScreen,
    TextPromptScreen,
    discard_question,
)
from amr_tui.screens.file_editor import FileEditScreen
from amr_tui.screens.main.external import edit_unread
from amr_tui.screens.main.saving import SaveJob
from amr_tui.screens.secret_check import new_secrets, secret_answer
from amr_tui.services import writegate
from amr_tui.services.loads import file_cut_of
from amr_tui.services.session import editing
from amr_tui.services.session.external import put_back, run_editor
from amr_tui.services.session.linktargets import link_targets_of
from amr_tui.services.session.session import OpenFile, Session
from amr_tui.services.undo import undo_newest
from amr_tui.services.workspace import MEMORY_FILE, is_markdown
from amr_tui.services.writegate import EditRefused, Saved
from amr_tui.widgets.entry_editor import EditTarget, EntryEditor
from amr_tui.widgets.entry_view import EntryView
from amr_tui.widgets.safe import notify_text
from amr_tui.widgets.type_ahead import hold

#: An entry edit left unsaved when its file was left: (where it was being written, the text typed).
Drafts = dict[tuple[str, str], tuple[EditTarget, str]]


class EditingHost(Protocol):
    """What the edit actions need of the screen they act on (the main screen)."""

    @property
    def app(self) -> App[Any]: ...

    @property
    def current(self) -> OpenFile | None: ...

    @property
    def view(self) -> EntryView: ...

    @property
    def editor(self) -> EntryEditor: ...

    @property
    def drafts(self) -> Drafts: ...

    foreign_repo: str | None

    def entry_edit_pending(self) -> bool: ...

    def close_editor(self) -> None: ...

    def editor_back(self) -> None: ...

    def action_reload(self) -> None: ...

    def run_worker(self, work: Coroutine[Any, Any, None], *, group: str = ...) -> Worker[None]: ...

    async def save(self, job: SaveJob, of: OpenFile | None = None, *, gives_back: bool = False) -> Saved | None: ...

    def save_soon(self, job: SaveJob, of: OpenFile | None = None) -> None: ...


def last_of(saves: Sequence[Saved]) -> Saved:
    """One save of several files (a move): the last one (the source file, where the cursor
    stays), naming the foreign changes left out in any of them."""
    result = saves[-1]
    foreign = tuple(p for r in saves for p in r.foreign)
    if foreign and not result.foreign:
        result = replace(result, foreign=foreign)
    return result


class EditActions:
    """The edit actions of ``host`` on ``session``; each save is ``host.save`` (saving.py)."""

    def __init__(self, host: EditingHost, session: Session) -> None:
        self.host = host
        self.session = session

    @property
    def app(self) -> App[Any]:
        return self.host.app

    # ------------------------------------------------------------ helpers
    def flow(self, name: str, flow: Coroutine[Any, Any, None]) -> None:
        """Run ``flow`` (its questions asked in turn) as a worker of the screen, in ``flow:<name>``."""
        self.host.run_worker(flow, group=f"flow:{name}")

    async def confirmed(self, question: ConfirmScreen, job: SaveJob, of: OpenFile | None = None) -> None:
        """Ask ``question``; yes runs the save ``job`` (based on ``of``)."""
        if await self.app.push_screen_wait(question):
            await self.host.save(job, of)

    def writable(self) -> OpenFile | None:
        """The open file when it can be written, else None (and says why)."""
        if self.host.entry_edit_pending():
            return None
        of = self.host.current
        if of is None or of.doc is None:  # not loaded: say why (too large, missing, ...) when known
            notify_text(
                self.app,
                of.message if of is not None and of.message else "Open a Markdown memory file first.",
                severity="warning",
                timeout=8,
            )
            return None
        if of.read_only:
            notify_text(self.app, f"Read-only: {of.read_only}. Nothing was changed.", severity="error")
            return None
        return of

    def writable_entry(self) -> tuple[OpenFile, Entry] | None:
        """(open file, entry under the cursor) when both can be written, else None (and says why)."""
        of = self.writable()
        if of is None or of.doc is None:
            return None
        entry = of.doc.entry_at(self.host.view.cursor_line)
        if entry is None:
            notify_text(self.app, "The cursor is not on an entry.", severity="warning")
            return None
        return of, entry

    def commit_foreign(self) -> None:
        """Commit the uncommitted changes others left in the repo's files, as their own commit."""
        current = self.host.current
        repo = current.repo if current else self.host.foreign_repo
        if repo is None:
            return
        session = self.session
        paths = writegate.foreign_changes(session, repo)
        if not paths:
            notify_text(self.app, f"{repo} has no uncommitted changes.")
            return
        listing = "\n".join(make_visible(f"  {p}") for p in paths[:10]) + (
            f"\n  … and {len(paths) - 10} more" if len(paths) > 10 else ""
        )
        question = ConfirmScreen(
            "Commit others' uncommitted changes?",
            f"These files hold changes nobody committed (agents often leave them):\n{listing}\n\n"
            "They will be committed exactly as they are on disk, in a commit of their own labelled as "
            "not made in amr.",
            "Commit them",
            "Cancel",
        )
        self.flow("commit-foreign", self.confirmed(question, lambda: writegate.commit_foreign(session, repo, paths)))

    # ------------------------------------------------------- entry edits
    def edit_entry(self) -> None:
        of = self.writable()
        if of is None or of.doc is None:
            return
        line = self.host.view.cursor_line
        if not 1 <= line <= len(of.doc.lines):
            return
        text = of.doc.lines[line - 1].text
        entry = of.doc.entry_at(line)
        if entry is not None:
            prefix, value = text[: entry.content_start], text[entry.content_start :]
            if entry.marker and not prefix.endswith((" ", "\t")):
                prefix += " "
        else:
            prefix, value = "", text
        self.start_edit(
            EditTarget(of.repo, of.path, line, "edit", prefix, value, of), f"Editing line {line} of {of.repo}/{of.path}"
        )

    def new_entry(self, where: str) -> None:
        of = self.writable()
        if of is None or of.doc is None:
            return
        line = self.host.view.cursor_line if of.doc.lines else 0
        entry = of.doc.entry_at(line)
        if of.doc.paragraphs:  # a Hermes file: an entry is a bare paragraph
            prefix = ""
        else:
            prefix = (entry.indent + (entry.marker or "-") + " ") if entry else "- "
        after = line if where == "below" else max(0, line - 1)
        if entry is not None and where == "below":
            after = entry_span(of.doc, entry)[1]
        title = next((i for i, ln in enumerate(of.doc.lines, 1) if ln.text.startswith("# ")), None)
        if title is not None and after < title:  # never above the file's heading: above its first entry
            first = next((e.line for e in of.doc.entries if e.line > title), None)
            after = first - 1 if first is not None else title
        self.start_edit(
            EditTarget(of.repo, of.path, after, where, prefix, "", of),
            f"New entry {'below' if where == 'below' else 'above'} line {line} in {of.repo}/{of.path}",
        )

    def start_edit(self, target: EditTarget, where: str) -> None:
        editor = self.host.editor
        session, repo, path = self.session, target.repo, target.path
        doc = target.base.doc if isinstance(target.base, OpenFile) else None
        if doc is not None:
            budget = file_cut_of(session.mount(repo), path, doc.to_bytes(), doc)
            cut = budget.line if budget is not None else None
            line = target.line if target.mode == "edit" else target.line + 1
            if budget is not None and cut is not None and line >= cut:
                where += (
                    f" \u00b7 past the load budget: {budget.profile.verb('stop', start=False)} reading "
                    f"{path.rsplit('/', 1)[-1]} before line {cut}"
                )
        editor.link_ok = lambda link: session.resolve_link(repo, link, path)[0] is LinkState.OK
        targets = link_targets_of(session)
        editor.link_source = lambda text, cursor: targets.complete(repo, path, text, cursor)
        draft = self.host.drafts.pop((target.repo, target.path), None)
        if draft is not None:
            old_target, value = draft
            target, where = old_target, where + " (restored draft)"
            editor.start(
                EditTarget(
                    target.repo, target.path, target.line, target.mode, target.prefix, target.original, target.base
                ),
                where,
            )
            editor.query_one(Input).value = value
        else:
            editor.start(target, where)
        self.host.view.editing = target.mode == "edit"

    def submitted(self, message: EntryEditor.Submitted) -> None:
        target, line_text = message.target, message.line_text
        errors = [d for d in message.diagnostics if d.severity is Severity.ERROR]
        if target.mode != "edit" and not line_text[len(target.prefix) :].strip():
            notify_text(self.app, "Empty entry: nothing to save.", severity="warning")
            self.host.editor_back()
            return
        others = [d for d in errors if d.code != "AMR016"]
        before = target.original if target.mode == "edit" else ""
        if len(others) < len(errors) and new_secrets(before, line_text):
            self.ask_first(self.save_asked(target, line_text, others, before))
        elif others:
            self.ask_first(self.save_asked(target, line_text, others))
        else:
            self.save_entry(target, line_text)

    def ask_first(self, flow: Coroutine[Any, Any, None]) -> None:
        """The entry needs a question before it is saved: the editor takes keys again first, so the
        dialog finds the focus where the user was and gives it back there (Esc: keep editing, and
        Esc again cancels the edit); keys typed until the question is up wait for it."""
        self.host.editor_back()
        screen = self.app.screen
        worker = self.host.run_worker(flow, group="flow:entry-save")
        hold(
            self.app, "the entry's question on its way", lambda: self.app.screen is not screen or worker.is_finished, 10
        )

    async def save_asked(
        self, target: EditTarget, line_text: str, errors: list[Diagnostic], before: str | None = None
    ) -> None:
        """Save the entry after asking: about the credential it adds to ``before`` (the text it
        replaces, when given), then whether to save a line that breaks the format (``errors``).
        Esc on either gives the text back to the editor."""
        if before is not None:
            # A credential: Enter saves a placeholder instead, typing a word saves it as written.
            text = await secret_answer(self.app, before, line_text)
            if text is None:
                self.host.editor_back()
                return
            if text != line_text:
                self.save_entry(target, text)
                return
        if errors:
            lines = "\n".join(make_visible(f"{d.code} {d.message}") for d in errors[:5])
            yes = await self.app.push_screen_wait(
                ConfirmScreen(
                    "This entry breaks the format", f"{lines}\n\nSave it anyway?", "Save anyway", "Keep editing"
                )
            )
            if not yes:
                self.host.editor_back()
                return
        self.save_entry(target, line_text)

    def save_entry(self, target: EditTarget, line_text: str) -> None:
        # The save is based on the version the edit started from, never on what a live refresh
        # put on screen since: the gate merges it onto whatever was committed meanwhile.
        session = self.session
        base = target.base
        of = base if isinstance(base, OpenFile) and base.doc is not None else session.open(target.repo, target.path)
        job: SaveJob
        if target.mode == "edit":

            def job() -> Saved:
                return editing.replace_entry_line(session, of, target.line, line_text)
        else:

            def job() -> Saved:
                return editing.insert_entry(session, of, target.line, line_text)

        self.host.save_soon(job, of)

    def cancelled(self, message: EntryEditor.Cancelled) -> None:
        if message.changed:
            self.flow("discard-edit", self.discard_edit())
        else:
            self.host.close_editor()

    async def discard_edit(self) -> None:
        if await self.app.push_screen_wait(discard_question("Discard this edit?", UNSAVED_ENTRY)):
            self.host.close_editor()

    def delete_entry(self) -> None:
        found = self.writable_entry()
        if found is None:
            return
        of, entry = found
        line, session = entry.line, self.session
        question = ConfirmScreen("Delete entry?", f"{make_visible(entry.text)}\n\nIt stays in git history.", "Delete")
        self.flow("delete-entry", self.confirmed(question, lambda: editing.delete_entry(session, of, line), of))

    def undo_last(self) -> None:
        """``z``: undo amr's newest write of this session that is not undone yet, as a new commit
        (``services.undo``); refused, with the reason, when someone changed those entries since."""
        session = self.session
        if not session.written:
            notify_text(self.app, "Nothing to undo: amr has written nothing in this session.", severity="warning")
            return

        def job() -> Saved:
            return undo_newest(session, list(session.written))

        self.host.save_soon(job)

    def stamp_added(self) -> None:
        found = self.writable_entry()
        if found is None or found[0].doc is None:
            return
        of, entry = found
        assert of.doc is not None
        today = today_iso()
        new = set_metadata(of.doc.lines[entry.line - 1].text, entry, "added", today)
        session = self.session
        had = next((item.value for item in entry.metadata if item.key == "added"), None)

        def job() -> Saved:
            return editing.replace_entry_line(session, of, entry.line, new)

        if had is None or had == today:
            self.host.save_soon(job, of)
            return
        question = ConfirmScreen(
            f"Replace added: {had} with today?", f"{entry.text}\n\nadded: {had} \u2192 {today}", "Replace"
        )
        self.flow("stamp-added", self.confirmed(question, job, of))

    def move_entry(self) -> None:
        found = self.writable_entry()
        if found is None:
            return
        of, entry = found
        session = self.session
        choices = []
        for repo in session.names:
            if session.mount(repo).read_only:
                continue
            for path in session.files(repo):
                if is_markdown(path) and (repo, path) != (of.repo, of.path):
                    choices.append((f"{repo}\0{path}", f"{repo} / {path}"))
        # A fact scoped to a project whose repo is mounted belongs there: that repo's file of the
        # same name (else its MEMORY.md) comes first, so m, enter moves it (through the write gate).
        values = entry.meta(SCOPE_KEY)
        scope = parse_scope(values[0]) if values else None
        writable = [r for r in session.names if not session.mount(r).read_only]
        home = repo_for(scope if not isinstance(scope, str) else None, writable, of.repo)
        if home is not None:
            files = session.files(home)
            path = of.path if of.path in files else MEMORY_FILE
            key = f"{home}\0{path}"
            choices = [c for c in choices if c[0] != key]
            choices.insert(0, (key, f"{home} / {path}   \u2190 where its scope ({scope}) belongs"))
        self.flow("move-entry", self.move_entry_to(of, entry, choices))

    async def move_entry_to(self, of: OpenFile, entry: Entry, choices: list[tuple[str, str]]) -> None:
        """Ask which file (of ``choices``) the entry goes to, then move it there in one save."""
        value = await self.app.push_screen_wait(ChoiceScreen("Move entry to…", choices))
        if value:
            session = self.session
            repo, path = value.split("\0", 1)
            await self.host.save(lambda: last_of(editing.move_entry(session, of, entry.line, repo, path)), of)

    def capture(self) -> None:
        """Write a new entry from anywhere; asks which repo when more than one can take it."""
        if self.host.entry_edit_pending():
            return
        session = self.session
        writable = [r for r in session.names if not session.mount(r).read_only]
        if not writable:
            notify_text(self.app, "Every mounted repo is read-only.", severity="error")
            return
        self.flow("capture", self.capture_flow(writable))

    async def capture_flow(self, writable: list[str], text: str = "") -> None:
        """Ask for the fact (starting from ``text``), then about a credential it holds, then which
        of the ``writable`` repos it is for (when more than one), then save it. Esc on a later
        question, or a save that is not made, comes back to the text in the prompt."""
        holds = "the fact you are capturing"
        targets = link_targets_of(self.session)
        here = self.host.current
        order = sorted(writable, key=lambda r: r != (here.repo if here is not None else None))
        source = partial(targets.complete_in, order, MEMORY_FILE)
        while True:
            # esc and quitting ask before dropping what was typed
            typed = await self.app.push_screen_wait(
                TextPromptScreen(
                    "Remember…",
                    text,
                    placeholder="fact [source: https://...]",
                    help_text="Goes to the top of MEMORY.md, above ## Index.",
                    what=holds,
                    link_source=source,
                )
            )
            if not typed or not typed.strip():
                return
            text = typed
            line = await secret_answer(self.app, "", new_entry_line(text), holds=holds)
            if line is None:
                continue
            if len(writable) == 1:
                repo: str | None = writable[0]
            else:
                repo = await self.app.push_screen_wait(
                    ChoiceScreen("Which memory is this for?", [(r, r) for r in writable], holds=holds)
                )
            if not repo:
                continue  # esc on "which memory": back to the text
            if await self.host.save(partial(self.capture_into, repo, line), gives_back=True):
                return
            # not saved: the text is back in the prompt

    def capture_into(self, repo: str, line: str) -> Saved:
        """In the save worker: the captured line goes at the top of MEMORY.md, above ## Index."""
        of = self.session.open(repo, MEMORY_FILE)
        if of.doc is None:
            raise EditRefused(of.message or "MEMORY.md cannot be read")
        index = next((ln for ln, lvl, t in of.doc.headings if lvl == 2 and t == "Index"), 0)
        entries_above = [e.line for e in of.doc.entries if not index or e.line < index]
        after = entries_above[-1] if entries_above else (index - 1 if index else len(of.doc.lines))
        return editing.insert_entry(self.session, of, max(0, after), line)

    # ---------------------------------------------------------- file edits
    def edit_file(self) -> None:
        of = self.writable()
        if of is None or of.data is None:
            return
        text = of.data.decode("utf-8")
        crlf = "\r\n" in text
        plain = text.replace("\r\n", "\n")
        bom = plain.startswith("\ufeff")
        if bom:
            plain = plain[1:]
        if find_controls(plain.replace("\n", "")):
            notify_text(
                self.app,
                "This file holds control characters; edit it with $EDITOR (ctrl+e) so nothing reaches the terminal.",
                severity="warning",
                timeout=8,
            )
            return
        self.open_file_editor(of, plain, crlf, bom, None)

    def open_file_editor(self, of: OpenFile, plain: str, crlf: bool, bom: bool, edited: str | None) -> None:
        """The whole-file editor on ``plain`` (the file as read), starting from ``edited`` if given."""
        self.flow("file-edit", self.file_editor(of, plain, crlf, bom, edited))

    async def file_editor(self, of: OpenFile, plain: str, crlf: bool, bom: bool, edited: str | None) -> None:
        """Edit, then save. A save that is not made for a reason the user must fix first (someone
        else's uncommitted change, a refusal, a question left unanswered) hands the text back in
        a new editor, so it is never dropped."""
        budget = file_cut_of(self.session.mount(of.repo), of.path, of.data or b"", of.doc)
        targets = link_targets_of(self.session)
        source = partial(targets.complete, of.repo, of.path)
        while True:
            new_text = await self.app.push_screen_wait(
                FileEditScreen(of.path, plain, edited=edited, repo=of.repo, budget=budget, link_source=source)
            )
            if new_text is None:
                return
            body = new_text.replace("\n", "\r\n") if crlf else new_text
            data = (("\ufeff" if bom else "") + body).encode("utf-8")
            job = partial(editing.write, self.session, of, data, f"Edit {of.path}")
            if await self.host.save(job, of, gives_back=True):
                return
            edited = new_text

    def external_editor(self) -> None:
        of = self.host.current
        if of is not None and of.read_only == "too large" and not self.host.entry_edit_pending():
            # as the file's screen says: ctrl+e opens it (amr reads none of it)
            edit_unread(self.app, self.session, of, self.host.action_reload)
            return
        of = self.writable()
        if of is None or of.data is None:
            return
        self.run_external_editor(of)

    def run_external_editor(self, of: OpenFile) -> None:
        """Hand the file to $EDITOR (it edits the file on disk), then commit what it left.

        What the editor left is never dropped in silence: not committed (a credential declined, a
        save that failed), it stays on disk and the user is told, or is put back only on request."""
        root = self.session.mount(of.repo).root
        try:
            with self.app.suspend():
                data, error = run_editor(root, of.path)
        except SuspendNotSupported:  # headless (tests): nothing to hand the terminal back from
            data, error = run_editor(root, of.path)
        if error:
            notify_text(self.app, error, severity="error")
            return
        if data is None:
            notify_text(
                self.app,
                f"{of.repo}/{of.path} cannot be read after $EDITOR (gone, or too large): nothing was committed.",
                severity="warning",
                timeout=8,
            )
            return
        if data == of.data:
            return
        before = of.data.decode("utf-8", "replace") if of.data is not None else ""
        after = data.decode("utf-8", "replace")
        if new_secrets(before, after):
            self.flow("external-editor", self.external_secrets(of, data, before, after))
        else:
            self.commit_external(of, data)

    async def external_secrets(self, of: OpenFile, left: bytes, before: str, after: str) -> None:
        """$EDITOR left a credential in the file: commit it with placeholders or as written, or
        (esc: not committed) ask what becomes of what it left."""
        chosen = await secret_answer(self.app, before, after, no="do not commit")
        if chosen is None:
            await self.external_not_committed(of, left)
        else:
            self.commit_external(of, left if chosen == after else chosen.encode("utf-8"))

    def commit_external(self, of: OpenFile, data: bytes) -> None:
        session = self.session

        def job() -> Saved:
            try:
                return editing.write(session, of, data, f"Edit {of.path} in $EDITOR")
            except Exception:
                self.app.call_from_thread(self.external_left_on_disk, of)
                raise

        self.host.save_soon(job, of)

    def external_left_on_disk(self, of: OpenFile) -> None:
        notify_text(
            self.app,
            f"Not committed: your $EDITOR changes stay in {of.repo}/{of.path} on disk, "
            "not in git (git diff shows them). amr's saves leave them out; U commits them.",
            title="$EDITOR changes kept on disk",
            severity="warning",
            timeout=12,
        )

    async def external_not_committed(self, of: OpenFile, data: bytes) -> None:
        """The user would not commit what $EDITOR left: edit again, leave it on disk, or put the file back."""
        choice = await self.app.push_screen_wait(
            ChoiceScreen(
                make_visible(f"Your $EDITOR changes to {of.repo}/{of.path} are not committed"),
                [
                    ("again", "Edit again in $EDITOR"),
                    ("keep", "Leave them on disk, not committed (git diff shows them)"),
                    ("restore", "Put the file back as it was before $EDITOR (your changes are discarded)"),
                ],
            )
        )
        if choice == "again":
            self.app.call_after_refresh(self.run_external_editor, of)
            return
        if choice == "restore":
            root = self.session.mount(of.repo).root
            try:
                restored = put_back(root, of.path, data, of.data or b"")
            except Exception as exc:  # a refused path, a disk error: say so, keep what is there
                notify_text(self.app, f"Could not put {of.path} back: {exc}", severity="error")
                restored = False
            if restored:
                notify_text(
                    self.app,
                    f"{of.repo}/{of.path} is back as it was; your $EDITOR changes are discarded.",
                    timeout=6,
                )
            else:
                notify_text(
                    self.app,
                    f"{of.path} changed again meanwhile: left as it is on disk.",
                    severity="warning",
                    timeout=8,
                )
        else:  # "keep", or esc: nothing is thrown away
            self.external_left_on_disk(of)
        self.host.action_reload()

    def new_file(self) -> None:
        if self.host.entry_edit_pending():
            return
        current, session = self.host.current, self.session
        repo = current.repo if current else (session.names[0] if session.names else None)
        if repo is None:
            return
        self.flow("new-file", self.new_file_in(repo))

    async def new_file_in(self, repo: str) -> None:
        path = await self.app.push_screen_wait(
            PromptScreen(f"New file in {repo}", placeholder="topic or folder/topic (.md added)")
        )
        if path:
            self.create_file_at(repo, path, offer_index=True)

    def create_file_at(self, repo: str, path: str, *, offer_index: bool = False) -> None:
        """Create ``path``; ``offer_index``: then ask to link it from the Index (a file made by
        following a broken link is linked already)."""
        session = self.session

        def job() -> Saved:
            saved = editing.create_file(session, repo, path)
            if (
                offer_index
                and saved.path != MEMORY_FILE
                and is_markdown(saved.path)
                and MEMORY_FILE in session.files(repo)
            ):
                self.app.call_from_thread(self.offer_index, repo, saved.path)
            return saved

        self.host.save_soon(job)

    def offer_index(self, repo: str, path: str) -> None:
        """A new file no link reaches is an orphan (AMR013): offer to link it from the Index."""
        session = self.session
        question = ConfirmScreen(
            "Add it to MEMORY.md's Index?",
            f"- [[{link_text_for(path)}]] goes under ## Index, so an agent reading MEMORY.md finds {path}.",
            "Add to the Index",
            "Not now",
        )
        # yes: the new file stays open: the Index line is the commit, not the place to go
        self.flow(
            "offer-index",
            self.confirmed(question, lambda: replace(editing.add_to_index(session, repo, path), path=path, line=1)),
        )

    def rename_file(self) -> None:
        of = self.writable()
        if of is None:
            return
        session = self.session
        backlinks = len(session.backlinks(of.repo, of.path))
        self.flow("rename-file", self.rename_file_to(of, backlinks))

    async def rename_file_to(self, of: OpenFile, backlinks: int) -> None:
        """Ask for the new path (the ``backlinks`` links to the file are rewritten), then rename."""
        new = await self.app.push_screen_wait(
            PromptScreen(
                f"Rename or move {of.path}",
                value=of.path,
                help_text=f"{backlinks} link(s) to it will be rewritten in the same commit.",
            )
        )
        if not new or new == of.path:
            return
        session, to = self.session, new

        def job() -> Saved:
            saved, _rewritten = editing.rename_file(session, of.repo, of.path, to)
            self.app.call_from_thread(self.draft_follows, of.repo, of.path, saved.path)
            return saved

        await self.host.save(job)

    def delete_file(self) -> None:
        of = self.writable()
        if of is None:
            return
        backlinks = self.session.backlinks(of.repo, of.path)
        listing = "\n".join(make_visible(f"  {b.path}:{b.line}  {b.text[:60]}") for b in backlinks[:8])
        body = make_visible(f"{of.repo}/{of.path} will be deleted (it stays in git history).")
        if backlinks:
            body += f"\n\n{len(backlinks)} link(s) to it will break:\n{listing}"
        draft = self.host.drafts.get((of.repo, of.path))
        if draft is not None:
            line = f" of line {draft[0].line}" if draft[0].mode == "edit" else ""
            body += f"\n\nYour unsaved draft{line} in this file (kept when you left it) will be discarded."
        self.flow(
            "delete-file", self.confirmed(ConfirmScreen("Delete file?", body, "Delete"), lambda: self.delete_and_go(of))
        )

    def delete_and_go(self, of: OpenFile) -> Saved:
        """In the save worker: delete the file, then show the repo's MEMORY.md."""
        saved = editing.delete_file(self.session, of.repo, of.path)
        self.app.call_from_thread(self.draft_follows, of.repo, of.path, None)
        return Saved(saved.repo, MEMORY_FILE, saved.head, saved.message, 0)

    def draft_follows(self, repo: str, old: str, new: str | None) -> None:
        """A file was renamed to ``new`` (or deleted: None): the draft kept for it moves with it
        (resumed by e in the new file; the quit question names the new path), or is dropped."""
        drafts = self.host.drafts
        draft = drafts.pop((repo, old), None)
        if draft is None or new is None:
            return
        target, value = draft
        base = replace(target.base, path=new) if isinstance(target.base, OpenFile) else None
        drafts[(repo, new)] = (replace(target, path=new, base=base), value)
