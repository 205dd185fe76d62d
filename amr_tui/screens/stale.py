"""The "Stale?" queue: facts whose evidence no longer holds in the code they cite, and facts not
verified for a while, each with one key to confirm, edit, supersede or forget it.

The queue judges every mounted repo that has code to check against (``session.verifying``: git on
the code repo, in a worker) and lists first the facts whose evidence is gone or moved, with the
evidence, then the facts that hold but were not verified within ``[verify] every``. Each write is
one commit through the write gate (``services.session.stamping``, ``editing``, the history
service's ``forget``); the row's file is read again before it, so the write is based on what the
queue showed, and the queue judges that file again after it.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option

from amr_tui.screens.dialogs import ConfirmScreen, PromptScreen, TextPromptScreen
from amr_tui.services.history import forgotten
from amr_tui.services.session import stamping
from amr_tui.services.session.editing import replace_entry_line
from amr_tui.services.writegate import Saved
from amr_tui.widgets.actions import bindings
from amr_tui.widgets.footer import Footer
from amr_tui.widgets.lists import FilterList
from amr_tui.widgets.safe import content, content_lines, notify_text

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine

    from amr_tui.services.session.session import OpenFile, Session
    from amr_tui.services.verify.run import EntryCheck, VerifyReport

NL = Content("\n")
_STYLE = {"gone": "$error", "moved": "$warning", "holds": "$success", "unknown": "$text-muted", "due": "$accent"}


@dataclass(frozen=True, slots=True)
class Row:
    check: EntryCheck
    due: bool  # listed because it was not verified lately (its evidence holds)


class StaleScreen(Screen[bool]):
    """Dismisses True when something was written (the main screen reads its files again)."""

    HELP_TITLE = "Stale? queue"
    BINDINGS = bindings("stale")
    DEFAULT_CSS = """
    #stale-title {
        text-style: bold;
    }
    #stale-status {
        color: $text-muted;
    }
    #stale-detail-box {
        border-top: hkey $panel-lighten-1;
    }
    """

    @dataclass
    class Checked(Message):
        """The repos were judged against their code."""

        reports: list[VerifyReport]
        """One report per repo that has code to check against."""
        missing: list[str]
        """Repos with no code to check against."""

    @dataclass
    class Written(Message):
        """A write of the queue is done (or failed)."""

        saved: Saved | None
        """What was committed (None on error)."""
        error: str | None
        """Why nothing was written."""
        repo: str
        path: str

    def __init__(self, session: Session, repos: list[str], *, today: _dt.date | None = None) -> None:
        super().__init__()
        self.session, self.repos, self.today = session, repos, today
        self.rows: list[Row] = []
        self.reports: list[VerifyReport] = []
        self.changed = False
        self.written: list[tuple[str, str]] = []  # (repo, commit): ``z`` on the main screen undoes them
        self.go_to: tuple[str, str, int] | None = None  # enter: the entry to open on the main screen

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(content("Stale? Facts checked against the code they cite"), id="stale-title")
        yield Static("Checking against the code\u2026", id="stale-status", markup=False)
        yield FilterList(id="stale-list")
        with VerticalScroll(id="stale-detail-box"):
            yield Static("", id="stale-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.check()

    # ------------------------------------------------------------ judging
    @work(thread=True, exclusive=True, group="stale-check")
    def check(self, paths: tuple[str, str] | None = None) -> None:
        verifying = self.session.verifying
        reports, missing = [], []
        for repo in self.repos:
            if paths is not None and paths[0] != repo:
                known = verifying.known(repo)
                if known is not None:
                    reports.append(known)
                continue
            if not verifying.sources(repo):
                missing.append(repo)
                continue
            try:
                report = verifying.run(repo, today=self.today, paths=[paths[1]] if paths else None)
            except Exception as exc:  # the code repo could not be read: say so, list the others
                self.app.call_from_thread(
                    notify_text, self.app, f"{repo}: {exc}", title="Not checked", severity="error"
                )
                continue
            reports.append(report)
        self.post_message(self.Checked(reports, missing))

    def on_stale_screen_checked(self, message: Checked) -> None:
        self.reports = message.reports
        keep = self._highlighted()
        was = self.query_one(FilterList).highlighted or 0
        self.rows = [Row(e, False) for r in message.reports for e in r.stale]
        self.rows += [Row(e, True) for r in message.reports for e in r.due]
        stale = sum(1 for r in self.rows if not r.due)
        parts = [
            f"{stale} fact{'s' if stale != 1 else ''} whose evidence no longer holds",
            f"{len(self.rows) - stale} not verified lately",
        ]
        against = "; ".join(
            f"{r.repo} against " + ", ".join(f"{name} at {head[:7]}" for name, head in r.heads.items())
            for r in message.reports
            if r.heads
        )
        errors = [e for r in message.reports for e in r.errors]
        lines = [", ".join(parts) + (f" ({against})" if against else "") + "."]
        if message.missing:
            lines.append(
                f"No code to check {', '.join(message.missing)} against: name it in the config "
                f'([repo."{message.missing[0]}"] code = ["~/src/project"]) or run amr verify --code PATH.'
            )
        lines += errors
        lines.append("c confirm  e edit  s supersede  x forget  enter open  R check again")
        self.query_one("#stale-status", Static).update(content_lines("\n".join(lines)))
        options = self.query_one(OptionList)
        options.clear_options()
        for row in self.rows:
            options.add_option(Option(self._row_content(row)))
        if self.rows:
            at = next((i for i, r in enumerate(self.rows) if keep and (r.check.path, r.check.line) == keep), was)
            options.highlighted = min(at, len(self.rows) - 1)
        options.focus()
        self._show_detail()

    def _row_content(self, row: Row) -> Content:
        e = row.check
        status = "due" if row.due else e.status or "unknown"
        when = (
            f"  verified {e.verified}"
            if e.verified
            else f"  added {e.added}, never verified"
            if e.added
            else "  never verified"
        )
        return Content.assemble(
            content(f"{status:<6}", _STYLE.get(status, "") + " bold"),
            content(f"{e.repo}/{e.path}:{e.line}  ", "$text-muted"),
            content(e.text),
            content(when if row.due else "", "$text-muted"),
        )

    def _highlighted(self) -> tuple[str, int] | None:
        row = self._row()
        return (row.check.path, row.check.line) if row else None

    def _row(self) -> Row | None:
        idx = self.query_one(FilterList).source_highlighted
        return self.rows[idx] if idx is not None and 0 <= idx < len(self.rows) else None

    def on_option_list_option_highlighted(self, _: OptionList.OptionHighlighted) -> None:
        self._show_detail()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()  # enter on the list: open the fact
        self.action_open()

    def _show_detail(self) -> None:
        row = self._row()
        box = self.query_one("#stale-detail", Static)
        if row is None:
            box.update("")
            return
        e = row.check
        parts: list[Content] = [content(e.text, "bold")]
        for c in e.checks:
            st = c.verdict.status
            parts += [
                NL,
                content(f"{st:<7}", _STYLE.get(st, "")),
                content(f"{c.evidence.label}: "),
                content(c.verdict.detail, "$text-muted"),
            ]
        stamp = f"verified {e.verified}" if e.verified else "never verified"
        added = f", added {e.added}" if e.added else ""
        reads = self.session.verifying.reads(e.repo, e.text)
        parts += [NL, content(f"{stamp}{added}; {reads.sentence(self.today or _dt.date.today())}", "$text-muted")]
        box.update(Content.assemble(*parts))

    # ------------------------------------------------------------ the keys
    def _writable(self) -> Row | None:
        row = self._row()
        if row is None:
            return None
        if self.session.mount(row.check.repo).read_only:
            notify_text(self.app, f"{row.check.repo} is read-only.", severity="error")
            return None
        return row

    def _on_writable(self, flow: Callable[[Row], Coroutine[Any, Any, None]], group: str) -> None:
        """Runs ``flow`` on the highlighted row, unless there is none or its repo is read-only."""
        row = self._writable()
        if row is not None:
            self.run_worker(flow(row), group=group)

    def _against(self, repo: str) -> str | None:
        report = next((r for r in self.reports if r.repo == repo), None)
        if report is None or not report.heads:
            return None
        return ", ".join(f"{name} {head[:7]}" for name, head in report.heads.items())

    def action_confirm(self) -> None:
        row = self._writable()
        if row is None:
            return
        if row.check.stale:
            self.run_worker(self._confirm_stale(row), group="flow:stale-confirm")
            return
        self.confirm(row)

    async def _confirm_stale(self, row: Row) -> None:
        gone = [c for c in row.check.checks if c.verdict.status in ("gone", "moved")]
        body = row.check.text + "\n\n" + "\n".join(f"{c.evidence.label}: {c.verdict.detail}" for c in gone)
        if await self.app.push_screen_wait(
            ConfirmScreen("Its evidence does not hold. Stamp it verified anyway?", body, "Stamp verified")
        ):
            self.confirm(row)

    @work(thread=True, group="stale-write")
    def confirm(self, row: Row) -> None:
        e = row.check
        self._write(
            e,
            lambda of: stamping.stamp_verified(
                self.session, of, e.line, today=self.today, against=self._against(e.repo)
            ),
        )

    def action_edit(self) -> None:
        self._on_writable(self._edit, "flow:stale-edit")

    async def _edit(self, row: Row) -> None:
        e = row.check
        of = self.session.open(e.repo, e.path)
        if of.doc is None or not 1 <= e.line <= len(of.doc.lines):
            notify_text(self.app, f"{e.path} cannot be read now.", severity="error")
            return
        raw = of.doc.lines[e.line - 1].text
        new = await self.app.push_screen_wait(
            TextPromptScreen(f"Edit {e.path}:{e.line}", raw, what="the edited line", edits_value=True)
        )
        if new is None or new == raw:
            return
        self.edit(row, raw, new)

    @work(thread=True, group="stale-write")
    def edit(self, row: Row, raw: str, new: str) -> None:
        e = row.check
        self._write(e, lambda of: replace_entry_line(self.session, of, e.line, new), raw=raw)

    def action_supersede(self) -> None:
        self._on_writable(self._supersede, "flow:stale-supersede")

    async def _supersede(self, row: Row) -> None:
        e = row.check
        hint = "; ".join(f"{c.evidence.value} is now {c.verdict.to}" for c in e.checks if c.verdict.to)
        new = await self.app.push_screen_wait(
            TextPromptScreen(
                "Supersede: the new wording (the old gets a tombstone with superseded-by)",
                _rewritten(e),
                help_text=hint,
                what="the new wording",
                edits_value=True,
            )
        )
        if new is None or not new.strip():
            return
        self.supersede(row, new)

    @work(thread=True, group="stale-write")
    def supersede(self, row: Row, new: str) -> None:
        e = row.check
        self._write(
            e,
            lambda of: stamping.supersede(
                self.session, of, e.line, new, today=self.today, against=self._against(e.repo)
            ),
        )

    def action_forget(self) -> None:
        self._on_writable(self._forget, "flow:stale-forget")

    async def _forget(self, row: Row) -> None:
        e = row.check
        if not e.entry:
            notify_text(self.app, "This is a line of prose, not an entry: edit or supersede it.", severity="warning")
            return
        gone = "; ".join(
            f"{c.evidence.label} {c.verdict.status}" + (f" in {c.verdict.commit[:7]}" if c.verdict.commit else "")
            for c in e.checks
            if c.verdict.status in ("gone", "moved")
        )
        reason = await self.app.push_screen_wait(
            PromptScreen(f"Forget: {e.text[:70]}", f"evidence: {gone}" if gone else "", "why (optional)")
        )
        if reason is None:
            return
        self.forget(row, reason.strip() or None)

    @work(thread=True, group="stale-write")
    def forget(self, row: Row, reason: str | None) -> None:
        e = row.check
        of = self.session.open(e.repo, e.path)
        raw = of.doc.lines[e.line - 1].text if of.doc is not None and 1 <= e.line <= len(of.doc.lines) else None
        try:
            done = forgotten.forget(self.session.history(e.repo), e.path, e.line, raw=raw, reason=reason)
        except Exception as exc:
            self.post_message(self.Written(None, str(exc), e.repo, e.path))
            return
        self.session.watch.reload_files(e.repo, [e.path], done.oid)
        saved = Saved(e.repo, e.path, done.oid, f"Forgot {done.text[:60]} with a tombstone", e.line)
        self.post_message(self.Written(saved, None, e.repo, e.path))

    def _write(self, e: EntryCheck, do: Callable[[OpenFile], Saved], raw: str | None = None) -> None:
        """Read the row's file again and run ``do(of)`` (a write through the gate) in this worker."""
        of = self.session.open(e.repo, e.path)
        try:
            if of.doc is None or not 1 <= e.line <= len(of.doc.lines):
                raise ValueError(f"{e.path}:{e.line} is not there any more")
            if raw is not None and of.doc.lines[e.line - 1].text != raw:
                raise ValueError(f"{e.path}:{e.line} changed meanwhile; nothing was written")
            saved = do(of)
        except Exception as exc:  # refused, a conflict, no identity: said, nothing written
            self.post_message(self.Written(None, str(exc), e.repo, e.path))
            return
        self.post_message(self.Written(saved, None, e.repo, e.path))

    def on_stale_screen_written(self, message: Written) -> None:
        if message.error is not None or message.saved is None:
            notify_text(self.app, message.error or "nothing was written", title="Not written", severity="error")
            return
        saved = message.saved
        if saved.committed and saved.head:
            self.changed = True
            self.written.append((message.repo, saved.head))
        notify_text(self.app, saved.message.splitlines()[0], title="Committed" if saved.committed else "Saved")
        self.check((message.repo, message.path))

    def action_open(self) -> None:
        row = self._row()
        if row is not None:
            self.go_to = (row.check.repo, row.check.path, row.check.line)
            self.dismiss(self.changed)

    def action_recheck(self) -> None:
        self.query_one("#stale-status", Static).update("Checking against the code\u2026")
        self.check()

    def action_close(self) -> None:
        self.dismiss(self.changed)


def _rewritten(e: EntryCheck) -> str:
    """The fact's text with each moved piece of evidence written where it is now (a start for the
    new wording)."""
    text = e.text
    for c in e.checks:
        if c.verdict.status == "moved" and c.verdict.to:
            text = text.replace(c.evidence.value, c.verdict.to)
    return text


__all__ = ["StaleScreen"]
