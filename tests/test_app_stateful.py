"""The real app, driven by keys through Pilot, against an agent writing with plain files and git.

A Hypothesis state machine (``RuleBasedStateMachine``) where every example is one app
(``make_app`` via ``tests.driver.app_for``, run by ``tests.driver.running`` at ``TMUX_SIZE``, poll every 0.2 s)
on a real repo made with plain git in a temp dir. The user acts by keys only: j/k/g/G to move,
``e`` edit + typing + enter, ``o``/``O`` new entry, ``d`` + ``y`` delete, ``t`` date, ``E`` the
whole-file editor + typing + ctrl+s, esc (and ctrl+q) with the question answered either way,
``U`` to commit others' changes, and ctrl+o / ctrl+t / esc in the conflict view. The agent, in
the test process, appends, rewrites and deletes facts and commits them (with ``git add`` of the
whole file, or committing only its own line and leaving its other lines uncommitted), appends
without committing, commits what it left, writes and renames other files with ``git mv``, at the
moments the issue names: before an edit starts, during it, right after a live refresh, between a
poll and a save, while the save runs (a thread appending with O_APPEND and committing), and
during the whole-file editor and the conflict view.

Every fact is one line ``- fact ID VALUE`` with a value no other write uses, so the model knows
who wrote what. After every step, with plain git:

* every agent commit is reachable from HEAD, the index matches HEAD and no index.lock is left;
* HEAD and the work tree hold exactly the facts the model expects: an agent change is kept, or
  was overwritten by a save that showed the conflict (the user chose "Keep mine"), and every
  save amr reported is there unless a later step changed it;
* a save whose base was older than the agent's change to the same fact showed the conflict;
* no commit with the ``Edited-with: amr`` trailer adds a line the agent had only written without
  committing, or touches a fact the user's change did not;
* esc or ctrl+q with typed text asks first, and "keep editing" gives the text back intact; a
  refused save leaves the text in the editor; nothing typed is dropped without a question.

How it runs: Hypothesis rules are sync and Pilot is async, and Textual's ``run_test`` keeps its
context in the task that entered it, so each example runs one long-lived task on an event loop
of its own (:class:`Driver`); a rule hands that task a coroutine and runs the loop until it is
done. Between rules the loop stands still (so does the app), worker threads do not.

Waits are for events (a screen, a notification, the spied save call ending, the app showing
what is on disk at HEAD, the next poll), each with a timeout; the save calls are observed by
wrapping ``services.editing``'s functions (recording the base each save was made from), never
changed.

Budget: ``AMR_APP_STATEFUL_EXAMPLES`` (default 6) examples of ``AMR_APP_STATEFUL_STEPS``
(default 12) steps, shared by two test items (two workers run them at once). A long run, e.g. ``AMR_APP_STATEFUL_EXAMPLES=250 AMR_APP_STATEFUL_STEPS=15
pytest -s tests/test_app_stateful.py -k against`` (about 20 minutes), prints a summary (steps,
agent writes and commits, saves, conflicts shown, violations); ``AMR_APP_STATEFUL_REPORT=path.json``
writes it as JSON too.

"""

from __future__ import annotations

import asyncio
import datetime as _dt
import gc
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from textual import events

from amr_tui.git.errors import ConflictError
from amr_tui.screens.conflict import ConflictScreen
from amr_tui.screens.dialogs import ConfirmScreen
from amr_tui.screens.file_editor import FileEditScreen
from amr_tui.screens.main.screen import MainScreen
from amr_tui.services.session import editing
from tests.driver import TMUX_SIZE, app_for, running, wait_for

TODAY = _dt.date(2026, 11, 29)
EXAMPLES = int(os.environ.get("AMR_APP_STATEFUL_EXAMPLES", "6"))
STEPS = int(os.environ.get("AMR_APP_STATEFUL_STEPS", "12"))
REPORT = os.environ.get("AMR_APP_STATEFUL_REPORT")
TRAILER = "Edited-with: amr"
AGENT_ENV = {
    "GIT_AUTHOR_NAME": "Agent",
    "GIT_AUTHOR_EMAIL": "agent@example.test",
    "GIT_COMMITTER_NAME": "Agent",
    "GIT_COMMITTER_EMAIL": "agent@example.test",
}
FACT = re.compile(r"^- fact (\d+) (\S.*)$")
SAVED_TITLES = ("Committed", "Nothing to commit", "Saved")
REFUSED_TITLE = "Someone else's uncommitted change"
SEED_FACTS = 6

# What each rule's action number means, by mode (the first ones come up most: Hypothesis leans
# towards small numbers).
USER_IDLE = ["edit", "file", "new", "edit", "delete", "date", "edit", "U", "file", "new", "move"]
USER_ENTRY = [
    "enter",
    "agent_commits_after_a_poll_then_enter",
    "enter_while_the_agent_commits",
    "enter",
    "enter_while_the_agent_appends",
    "escape_keep",
    "quit_keep",
    "agent_commits_after_a_poll_then_enter",
    "escape_discard",
    "enter",
    "enter_then_e_at_once",
]
USER_FILE = [
    "ctrl+s",
    "ctrl+s_while_the_agent_commits",
    "ctrl+s",
    "ctrl+s_while_the_agent_appends",
    "escape_keep",
    "quit_keep",
    "escape_discard",
    "ctrl+s",
]
USER_CONFLICT = ["ctrl+o", "ctrl+t", "ctrl+o", "escape", "ctrl+q"]
AGENT_ACTIONS = [
    "rewrite",
    "append",
    "append_uncommitted",
    "wait_for_a_refresh",
    "delete",
    "rewrite",
    "commit_its_lines",
    "pause",
    "append_uncommitted",
    "another_file",
    "rename",
    "wait_for_a_refresh",
]
WHEN_USER = ["now", "now", "after_refresh", "after_pause"]
WHEN_AGENT = ["now", "now", "after_refresh", "after_poll"]

NAV_DEBUG: list = []
SLOW: list = []  # (rule, seconds) of steps over 5 s
STATS: Counter = Counter()
TIMES: Counter = Counter()  # seconds spent per rule


class Violation(AssertionError):
    pass


# The editing service as amr has it; each example spies on it and puts it back (from here, so a
# spy left by an example that failed to start is never wrapped again).
_REAL_EDITING = {
    name: getattr(editing, name) for name in ("replace_entry_line", "insert_entry", "delete_entry", "write")
}


def fact_line(fid: int, value: str) -> str:
    return f"- fact {fid} {value}"


def facts_and_dups(data: bytes | str | None) -> tuple[dict[int, str], list[int]]:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else (data or "")
    out: dict[int, str] = {}
    dups: list[int] = []
    for ln in text.splitlines():
        m = FACT.match(ln)
        if m:
            fid = int(m.group(1))
            if fid in out:
                dups.append(fid)
            out[fid] = m.group(2)
    return out, dups


def facts(data: bytes | str | None) -> dict[int, str]:
    return facts_and_dups(data)[0]


def conflicting_ids(merged: bytes | None) -> set[int]:
    """Facts inside the conflict markers of the conflict view's result pane."""
    ids: set[int] = set()
    inside = False
    for ln in (merged or b"").decode("utf-8", "replace").splitlines():
        if ln.startswith("<<<<<<<"):
            inside = True
        elif ln.startswith(">>>>>>>"):
            inside = False
        elif inside and (m := FACT.match(ln)):
            ids.add(int(m.group(1)))
    return ids


def change_between(before: dict[int, str], after: dict[int, str]) -> dict[int, str | None]:
    return {fid: after.get(fid) for fid in set(before) | set(after) if before.get(fid) != after.get(fid)}


def plain_git(root: Path, *args: str, env: dict[str, str] | None = None, input: bytes | None = None) -> str:
    res = subprocess.run(["git", *args], cwd=root, capture_output=True, input=input, env={**os.environ, **(env or {})})
    if res.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {res.stderr.decode(errors='replace')}")
    return res.stdout.decode("utf-8", "replace")


# ---------------------------------------------------------------------------------- the driver
class Driver:
    """One app under Pilot, on an event loop of its own, inside one long-lived task."""

    def __init__(self, app, hook) -> None:
        self.app = app
        self.loop = asyncio.new_event_loop()
        self.task: asyncio.Task | None = None
        self._inbox: asyncio.Queue | None = None

        async def start() -> None:
            self._inbox = asyncio.Queue()
            started = asyncio.get_running_loop().create_future()
            self.task = asyncio.ensure_future(self._main(started, hook))
            await asyncio.wait([started, self.task], timeout=60, return_when=asyncio.FIRST_COMPLETED)
            if self.task.done():
                self.task.result()
                raise AssertionError("the app stopped while starting")
            if not started.done():
                raise AssertionError("the app did not start within 60 s")

        self.loop.run_until_complete(start())

    async def _main(self, started: asyncio.Future, hook) -> None:
        async with running(self.app, TMUX_SIZE, ready=False, message_hook=hook) as drive:
            started.set_result(None)
            while True:
                job, fut = await self._inbox.get()
                if job is None:
                    return
                try:
                    result = await job(drive.pilot)
                except Exception as exc:  # handed to the rule that asked
                    if not fut.done():
                        fut.set_exception(exc)
                else:
                    if not fut.done():
                        fut.set_result(result)

    def call(self, job, timeout: float = 120.0):
        async def go():
            fut = asyncio.get_running_loop().create_future()
            self._inbox.put_nowait((job, fut))
            done, _ = await asyncio.wait([fut, self.task], timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            if fut in done:
                return fut.result()
            if self.task in done:
                self.task.result()
                raise AssertionError("the app stopped")
            raise AssertionError(f"a step took over {timeout} s")

        return self.loop.run_until_complete(go())

    def close(self) -> BaseException | None:
        """Quit the app; returns the error it raised, if it did."""
        error = None
        try:
            if self.task is not None and not self.task.done():
                self._inbox.put_nowait((None, None))
                self.loop.run_until_complete(asyncio.wait([self.task], timeout=30))
                if not self.task.done():
                    self.task.cancel()
                    self.loop.run_until_complete(asyncio.wait([self.task], timeout=10))
            if self.task is not None and self.task.done() and not self.task.cancelled():
                error = self.task.exception()
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.run_until_complete(self.loop.shutdown_default_executor())
        finally:
            self.loop.close()
        return error


async def wait_until(pilot, cond, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await pilot.pause(0.02)


# ------------------------------------------------------------------------------- the machine
class AppVersusAgent(RuleBasedStateMachine):
    """One app, one repo, one agent; see the module docstring."""

    def __init__(self) -> None:
        super().__init__()
        STATS["examples"] += 1
        self.tmp = Path(tempfile.mkdtemp(prefix="amr-app-sm-"))
        self.root = self.tmp / "memory"
        self.root.mkdir()
        self.step_no = 0
        self.n = 0
        self.next_id = 50
        self.head_model: dict[int, str] = {i: "s0" for i in range(SEED_FACTS)}
        self.pending: dict[int, str] = {}  # the agent's appended lines, not committed
        self.origin: dict[int, str] = {i: "seed" for i in range(SEED_FACTS)}  # who set each expected value
        self.others = ["notes/a.md", "notes/b.md"]
        self.agent_commits: list[str] = []
        self.foreign_lines: set[str] = set()  # agent lines that were uncommitted during this step
        self.allowed: set[int] = set()  # facts amr commits made during this step may touch
        self.mode = "idle"  # idle | entry | file | conflict
        self.edit: dict | None = None
        self.conflict: dict | None = None
        self.notes: list[tuple[str, str, str]] = []
        self.calls: list[dict] = []
        self.polls = 0
        self.last_choice: str | None = None  # the latest key pressed in the conflict view
        self.unseen = False  # the agent wrote since the app last showed the file as it is
        self.pending_at_start: set[int] = set()
        self.driver: Driver | None = None
        self._make_repo()
        self.checked: set[str] = set(plain_git(self.root, "rev-list", "HEAD").split())
        self._spy_on_editing()
        try:
            self._start_app()
        except BaseException:
            self.teardown()
            raise

    def _start_app(self) -> None:
        self.app = app_for([self.root], poll_interval=0.2, today=TODAY)
        real_notify = self.app.notify

        def notify(message, *, title="", severity="information", timeout=None, markup=True, **kw):
            self.notes.append((str(title), str(message), str(severity)))
            return real_notify(message, title=title, severity=severity, timeout=timeout, markup=markup, **kw)

        self.app.notify = notify

        def hook(message) -> None:
            if isinstance(message, MainScreen.Polled) and message.done:
                self.polls += 1

        self.driver = Driver(self.app, hook)
        self.in_app(self._ready)

    # ----------------------------------------------------------------- set-up and teardown
    def _make_repo(self) -> None:
        root = self.root
        plain_git(root, "init", "-q", "-b", "main")
        memory = "# Memory\n\n" + "".join(fact_line(i, "s0") + "\n" for i in range(SEED_FACTS))
        memory += "\n## Index\n- [[notes/a]]\n- [[notes/b]]\n"
        (root / "MEMORY.md").write_text(memory)
        (root / "notes").mkdir()
        (root / "notes/a.md").write_text("# A\n\n- note a\n")
        (root / "notes/b.md").write_text("# B\n\n- note b\n")
        plain_git(root, "add", "--", "MEMORY.md", "notes/a.md", "notes/b.md")
        plain_git(root, "commit", "-q", "-m", "Create memory repo")

    def _spy_on_editing(self) -> None:
        """Record each save the app asks the editing service for: the version it is based on
        (the OpenFile), what it changes, and how it ended. Nothing is changed."""
        self._real = dict(_REAL_EDITING)
        depth = threading.local()
        calls = self.calls

        def spy(name):
            real = self._real[name]

            def wrapper(session, of, *args, **kw):
                top = getattr(depth, "n", 0) == 0
                rec = {"kind": name, "of": of, "args": args, "done": False, "error": None, "result": None}
                if top:
                    calls.append(rec)
                depth.n = getattr(depth, "n", 0) + 1
                try:
                    rec["result"] = real(session, of, *args, **kw)
                    return rec["result"]
                except Exception as exc:
                    rec["error"] = exc
                    raise
                finally:
                    depth.n -= 1
                    rec["done"] = True

            return wrapper

        for name in self._real:
            setattr(editing, name, spy(name))

    def teardown(self) -> None:
        crashed = None
        try:
            if self.driver is not None:
                crashed = self.driver.close()
        finally:
            for name, fn in _REAL_EDITING.items():
                setattr(editing, name, fn)
            shutil.rmtree(self.tmp, ignore_errors=True)
            # The session's load ends with gc.freeze() (right for one app per process): here every
            # example would keep its app for good, and a long run would grow by GBs.
            gc.unfreeze()
            gc.collect()
        if crashed is not None and not getattr(self, "failed", False):
            raise AssertionError(f"the app raised {crashed!r}") from crashed

    async def _ready(self, pilot) -> None:
        await wait_until(
            pilot,
            lambda: isinstance(self.app.screen, MainScreen)
            and self.app.screen.current is not None
            and not self.app.screen.indexing,
            60,
            "the app to open MEMORY.md",
        )
        await self._settled(pilot, "start")

    # ----------------------------------------------------------------- small helpers
    def tag(self, who: str) -> str:
        self.n += 1
        return f"{who}{self.n}"

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def violation(self, kind: str, msg: str) -> None:
        text = f"[{kind}] step {self.step_no}: {msg}"
        STATS["violations"] += 1
        self.failed = True
        raise Violation(text)

    def in_app(self, job, timeout: float = 120.0):
        """Run ``job(pilot)`` in the app's task (see :class:`Driver`) and wait for it."""
        try:
            return self.driver.call(job, timeout)
        except BaseException:
            self.failed = True
            raise

    def begin(self, name: str, drawn: str = "") -> None:
        self.step_no += 1
        self._step = (name, time.monotonic())
        STATS["steps"] += 1
        STATS[f"step:{name}"] += 1
        self.allowed = set()
        self.foreign_lines = {fact_line(f, v) for f, v in self.pending.items()}
        self.pending_at_start = set(self.pending)
        note(f"step {self.step_no}: {name} ({drawn})")

    @property
    def main(self) -> MainScreen:
        return next(s for s in self.app.screen_stack if isinstance(s, MainScreen))

    def current(self):
        return self.main.current

    def disk(self) -> bytes:
        return (self.root / "MEMORY.md").read_bytes()

    def head(self) -> str:
        return plain_git(self.root, "rev-parse", "HEAD").strip()

    def visible(self) -> dict[int, int]:
        """fact id -> line number in the file the app shows."""
        of = self.current()
        out: dict[int, int] = {}
        if of is not None and of.doc is not None:
            for ln in of.doc.lines:
                m = FACT.match(ln.text)
                if m:
                    out[int(m.group(1))] = ln.number
        return out

    def screen_name(self) -> str:
        return type(self.app.screen).__name__

    # ----------------------------------------------------------------- the agent
    def agent_git(self, *args: str, input: bytes | None = None) -> str:
        last = ""
        for _ in range(400):  # like a real agent: retry while amr holds index.lock
            res = subprocess.run(
                ["git", *args], cwd=self.root, capture_output=True, input=input, env={**os.environ, **AGENT_ENV}
            )
            if res.returncode == 0:
                return res.stdout.decode()
            last = res.stderr.decode(errors="replace")
            if "index.lock" in last or "cannot lock ref" in last or "Unable to create" in last:
                time.sleep(0.02)
                continue
            raise AssertionError(f"agent: git {' '.join(args)} failed: {last}")
        raise Violation(f"[lock_left] agent: git {' '.join(args)} kept failing for 8 s: {last}")

    def agent_write(self, data: bytes) -> None:
        """A careful agent: the whole file at once (a rename), never half-written."""
        tmp = self.tmp / "agent-tmp"
        tmp.write_bytes(data)
        os.replace(tmp, self.root / "MEMORY.md")

    def agent_commit(self, message: str) -> None:
        self.agent_git("commit", "-q", "-m", message)
        self.record_agent_commit(message)

    def record_agent_commit(self, message: str) -> None:
        for ln in plain_git(self.root, "log", "-g", "-30", "--format=%H%x09%s", "HEAD").splitlines():
            oid, _, subject = ln.partition("\t")
            if subject == message:
                self.agent_commits.append(oid)
                STATS["agent_commits"] += 1
                return
        raise AssertionError(f"agent commit {message!r} not found in the reflog")

    def agent_change(self, fid: int, value: str | None, *, only_mine: bool, what: str) -> None:
        """Set (append or rewrite) or delete one fact in the work tree and commit it: the whole
        file (``git add``, so the agent's uncommitted lines go in too), or only this change."""
        new_line = fact_line(fid, value) if value is not None else None

        def apply(text: str) -> str:
            lines = text.splitlines(keepends=True)
            for i, ln in enumerate(lines):
                m = FACT.match(ln.rstrip("\n"))
                if m and int(m.group(1)) == fid:
                    if new_line is None:
                        del lines[i]
                    else:
                        lines[i] = new_line + "\n"
                    return "".join(lines)
            assert new_line is not None, f"fact {fid} to delete is not in the file"
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
            return "".join(lines) + new_line + "\n"

        STATS["agent_writes"] += 1
        self.agent_write(apply(self.disk().decode()).encode())
        message = f"agent: {what} fact {fid} #{self.n}-{self.step_no}"
        if only_mine:
            head_text = plain_git(self.root, "show", "HEAD:MEMORY.md")
            oid = self.agent_git("hash-object", "-w", "--stdin", input=apply(head_text).encode()).strip()
            self.agent_git("update-index", "--cacheinfo", f"100644,{oid},MEMORY.md")
            self.agent_commit(message)
        else:
            self.agent_git("add", "--", "MEMORY.md")
            self.agent_commit(message)
            self.head_model.update(self.pending)
            self.pending.clear()
        if value is None:
            self.head_model.pop(fid, None)
        else:
            self.head_model[fid] = value
        self.origin[fid] = f"agent {what} (step {self.step_no})"

    def agent_append_uncommitted(self) -> tuple[int, str]:
        fid, value = self.new_id(), self.tag("a")
        line = fact_line(fid, value)
        path = self.root / "MEMORY.md"
        with open(path, "ab") as fh:  # O_APPEND: lands in whichever file is there, even mid-save
            fh.write(line.encode() + b"\n")
        self.foreign_lines.add(line)
        STATS["agent_writes"] += 1
        return fid, value

    # ----------------------------------------------------------------- waiting for the app
    async def _settled(self, pilot, what: str, timeout: float = 20.0) -> None:
        """Until the file the app shows is what is on disk, read at the current HEAD."""

        def same() -> bool:
            of = self.current()
            try:
                return of is not None and of.data == self.disk() and of.head == self.head()
            except AssertionError:
                return False

        try:
            await wait_until(pilot, same, timeout, what)
            self.unseen = False
        except TimeoutError:
            of = self.current()
            st_ = os.stat(self.root / "MEMORY.md")
            self.violation(
                "stale_view",
                f"after {what} the app still shows an old MEMORY.md after {timeout} s "
                f"(shown head {of and of.head}, HEAD {self.head()}, disk mtime_ns {st_.st_mtime_ns} "
                f"size {st_.st_size}; shown facts {facts(of and of.data)}, disk facts {facts(self.disk())})",
            )

    async def _outcome(
        self, pilot, n_calls: int, n_notes: int, what: str, timeout: float = 30.0
    ) -> tuple[str, dict | None]:
        """What became of a save asked for by keys, as the user sees it."""

        def seen():
            titles = [t for t, _m, _s in self.notes[n_notes:]]
            msgs = [m for _t, m, _s in self.notes[n_notes:]]
            recs = [c for c in self.calls[n_calls:] if c["done"]]
            rec = recs[-1] if recs else None
            if (
                isinstance(self.app.screen, ConflictScreen)
                and rec is not None
                and isinstance(rec["error"], ConflictError)
            ):
                return "conflict", rec
            for t in titles:
                if t in SAVED_TITLES:
                    return "saved", rec
                if t == REFUSED_TITLE:
                    return "refused", rec
                if t == "Not saved":
                    return "error", rec
            for m in msgs:
                if m.startswith("Conflict left unresolved"):
                    return "cancelled", rec
                if m.startswith(("Empty entry", "The cursor is not on an entry", "Finish the entry")):
                    return "nothing", rec
            return None

        try:
            return await wait_until(pilot, seen, timeout, what)
        except TimeoutError:
            raise AssertionError(
                f"nothing came of {what} within {timeout} s: screen {self.screen_name()}, "
                f"notes {self.notes[n_notes:]}, calls {self.calls[n_calls:]}"
            ) from None

    # ----------------------------------------------------------------- the model
    def change_of(self, rec: dict) -> dict[int, str | None]:
        of, args = rec["of"], rec["args"]
        if rec["kind"] == "write":
            return change_between(facts(of.data), facts(args[0]))
        if rec["kind"] == "delete_entry":
            m = FACT.match(of.doc.lines[args[0] - 1].text)
            return {int(m.group(1)): None} if m else {}
        if rec["kind"] == "replace_entry_line" and of.doc.lines[args[0] - 1].text == args[1]:
            return {}  # "No change": nothing is written
        m = FACT.match(args[1])  # replace_entry_line(line, text) / insert_entry(after, text)
        return {int(m.group(1)): m.group(2)} if m else {}

    def apply_save(self, rec: dict, who: str) -> None:
        """amr reported this save done: it must have kept every change made since its base."""
        base = facts(rec["of"].data)
        change = self.change_of(rec)
        self.allowed |= set(change)
        for fid, value in change.items():
            now = self.head_model.get(fid)
            if fid not in self.pending and now != base.get(fid) and now != value:
                self.violation(
                    "lost_without_conflict",
                    f"fact {fid}: {self.origin.get(fid)} made it {now!r} after the save's base "
                    f"({base.get(fid)!r}); the user's {who} to {value!r} was reported saved with no "
                    f"conflict shown, so one of the two is lost",
                )
            self.pending.pop(fid, None)
            if value is None:
                self.head_model.pop(fid, None)
            else:
                self.head_model[fid] = value
            self.origin[fid] = f"user {who} (step {self.step_no})"
        STATS["saves"] += 1

    async def _after_save(
        self, pilot, outcome: str, rec: dict | None, who: str, what: str, lost: str = "draft_lost"
    ) -> None:
        """Update the model and the mode from a save's outcome; check what the user is left with
        (``lost``: the violation kind when the typed text is gone)."""
        if outcome == "saved":
            if rec is None or rec["error"] is not None:
                raise AssertionError(f"{what}: a save notification but the service call was {rec}")
            self.apply_save(rec, who)
            self.mode, self.edit = "idle", None
            await self._settled(pilot, what)
            if self.main.editor.display:
                self.violation("editor_left_open", f"{what}: saved but the entry editor is still open")
        elif outcome == "conflict":
            screen = self.app.screen
            assert isinstance(screen, ConflictScreen)
            STATS["conflicts_shown"] += 1
            base = facts(rec["of"].data)
            theirs = facts(screen.theirs)
            mine = self.change_of(rec)
            if not any(base.get(f) != theirs.get(f) for f in mine):
                STATS["conflicts_positional"] += 1  # no fact changed on both sides: a place both wrote at
            self.conflict = {
                "rec": rec,
                "ours": facts(screen.ours),
                "theirs": theirs,
                "conflicting": conflicting_ids(screen.merged),
                "mine": mine,
                "from": self.mode if self.mode != "conflict" else self.conflict["from"],
                "edit": self.edit,
            }
            self.mode = "conflict"
        elif outcome in ("refused", "error"):
            STATS[f"save_{outcome}"] += 1
            if outcome == "error":
                STATS_ERRORS.extend(m[:200] for t, m, _s in self.notes[-5:] if t == "Not saved")
            await self._text_still_there(pilot, what, lost)
        elif outcome == "cancelled":
            raise AssertionError(f"{what}: 'conflict left unresolved' without a conflict view")
        else:
            raise AssertionError(f"{what}: unexpected outcome {outcome!r}")

    async def _text_still_there(self, pilot, what: str, lost: str = "draft_lost") -> None:
        """The user's typed text is still in an editor after a save that did not happen."""
        edit = self.edit
        if edit is None:
            return
        if edit["kind"] == "file":
            try:
                await wait_until(pilot, lambda: isinstance(self.app.screen, FileEditScreen), 10, "the file editor back")
            except TimeoutError:
                self.mode, self.edit = "idle", None
                self.violation(
                    lost,
                    f"{what}: the whole-file edit was not saved and its text is gone, nothing "
                    f"asked (screen {self.screen_name()}, notes {self.notes[-3:]}); typed: {edit['text']!r}",
                )
                return
            text = self.app.screen.query_one("#file-edit-area").text
            if text != edit["text"]:
                self.violation(
                    "draft_lost", f"{what}: the file editor came back with other text: {text!r}, typed {edit['text']!r}"
                )
            self.mode = "file"
        else:
            editor = self.main.editor
            value = editor.query_one("#editor-input").value if editor.display else None
            if value != edit["typed"]:
                self.violation(
                    "draft_lost", f"{what}: the entry editor holds {value!r}, the user typed {edit['typed']!r}"
                )
            self.mode = "entry"

    # ----------------------------------------------------------------- the invariants
    @invariant()
    def the_repo_holds_what_the_model_says(self) -> None:
        if self.driver is None:
            return
        if getattr(self, "_step", None):
            took = time.monotonic() - self._step[1]
            TIMES[self._step[0]] += took
            if took > 5:
                SLOW.append((self._step[0], round(took, 1)))
            self._step = None
        root = self.root
        if (root / ".git" / "index.lock").exists():
            self.violation("lock_left", "index.lock is left behind between steps")
        reach = set(plain_git(root, "rev-list", "HEAD").split())
        lost = [c for c in self.agent_commits if c not in reach]
        if lost:
            self.violation("agent_commit_unreachable", f"agent commits not reachable from HEAD: {lost}")
        staged = plain_git(root, "diff", "--cached", "--name-status")
        if staged.strip():
            self.violation("index_differs", f"the index differs from HEAD between steps:\n{staged}")
        head_text = plain_git(root, "show", "HEAD:MEMORY.md")
        disk_text = self.disk().decode("utf-8", "replace")
        for where, text in (("HEAD", head_text), ("the work tree", disk_text)):
            if any(ln.startswith(("<<<<<<<", ">>>>>>>", "|||||||")) for ln in text.splitlines()):
                self.violation("markers", f"conflict markers in {where}:\n{text}")
            got, dups = facts_and_dups(text)
            if dups:
                self.violation("duplicate", f"facts {dups} twice in {where}:\n{text}")
            if "## Index" not in text or "# Memory" not in text:
                self.violation("structure", f"a heading is gone from {where}:\n{text}")
        new = [c for c in plain_git(root, "rev-list", "--reverse", "HEAD").split() if c not in self.checked]
        for oid in new:
            body = plain_git(root, "show", "-s", "--format=%B", oid)
            if TRAILER not in body:
                continue
            diff = plain_git(root, "diff-tree", "-p", "-U0", "--no-renames", "-r", f"{oid}^", oid)
            added = [ln[1:] for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
            removed = [ln[1:] for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
            swept = [ln for ln in added if ln in self.foreign_lines]
            if swept and body.startswith("Resolve edit conflict") and self.last_choice == "ctrl+o":
                self.violation(
                    "keep_mine_commits_uncommitted_lines",
                    f"'Keep mine' committed the user's whole file ({oid[:10]}), with the agent's "
                    f"uncommitted line(s) {swept} the user saw in it",
                )
            elif swept:
                self.violation(
                    "foreign_line_committed",
                    f"amr's commit {oid[:10]} ({body.splitlines()[0]!r}) adds the agent's uncommitted line(s) {swept}",
                )
            touched = {int(m.group(1)) for ln in added + removed if (m := FACT.match(ln))}
            stray = touched - self.allowed
            if stray:
                dropped = {int(m.group(1)) for ln in removed if (m := FACT.match(ln)) and int(m.group(1)) in stray}
                edited_uncommitted = self.allowed & self.pending_at_start
                kept_on_disk = facts(disk_text)
                if (
                    edited_uncommitted
                    and dropped == stray
                    and all(kept_on_disk.get(f) == self.head_model.get(f) for f in dropped)
                ):
                    self.violation(
                        "edit_of_an_uncommitted_line_drops_a_committed_fact",
                        f"amr's commit {oid[:10]} ({body.splitlines()[0]!r}) of the user's edit of the "
                        f"agent's uncommitted fact(s) {sorted(edited_uncommitted)} deletes committed "
                        f"fact(s) {sorted(dropped)} (still in the work tree):\n{diff}",
                    )
                    for f in dropped:  # what amr left: gone from HEAD, still on disk, i.e. uncommitted now
                        self.pending[f] = self.head_model.pop(f)
                        self.origin[f] = f"{self.origin.get(f)}; dropped from HEAD by amr (step {self.step_no})"
                else:
                    self.violation(
                        "commit_touches_other_facts",
                        f"amr's commit {oid[:10]} ({body.splitlines()[0]!r}) changes facts "
                        f"{sorted(stray)} the user's change did not touch:\n{diff}",
                    )
        self._compare("HEAD", facts(head_text), self.head_model)
        self._compare("the work tree", facts(disk_text), {**self.head_model, **self.pending})
        self.checked |= reach

    def _compare(self, where: str, got: dict[int, str], want: dict[int, str]) -> None:
        bad = [fid for fid in sorted(set(got) | set(want)) if got.get(fid) != want.get(fid)]
        if bad:
            users = any((self.origin.get(fid) or "").startswith("user") for fid in bad)
            new = [c for c in plain_git(self.root, "rev-list", "HEAD").split() if c not in self.checked]
            log = "".join(
                plain_git(self.root, "show", "--format=commit %h %s", "-U0", c, "--", "MEMORY.md") for c in new
            )
            self.violation(
                "user_save_lost" if users else "agent_change_lost",
                "; ".join(
                    f"fact {fid}: {where} has {got.get(fid)!r}, expected {want.get(fid)!r} (set by {self.origin.get(fid)})"
                    for fid in bad
                )
                + f"\nthe commits of this step:\n{log}",
            )

    # ----------------------------------------------------------------- user: moving and keys
    async def _focus_view(self, pilot) -> None:
        view = self.main.view
        if self.app.focused is not view:
            await pilot.press("2")
            await wait_until(pilot, lambda: self.app.focused is view, 5, "the entry view focused")

    async def _type(self, pilot, keys, until, what: str) -> None:
        """Key events exactly as Pilot sends them, but without waiting for the app to go idle
        after each one (a fast typist); then until ``until()``. Only for runs of one kind of key
        that go to the focused widget and do not move focus: plain characters, or one binding
        repeated (a binding's action and a typed character may be handled out of order)."""
        import unicodedata

        from textual import events
        from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

        for key in keys:
            if len(key) == 1 and not key.isalnum():
                key = _character_to_key(key)
            try:
                char = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
            except KeyError:
                char = key if len(key) == 1 else None
            event = events.Key(key, char)
            event.set_sender(self.app)
            self.app._driver.send_message(event)
        try:
            await wait_until(pilot, until, 15, what)
        except TimeoutError:
            raise AssertionError(f"typing did not arrive: {what}") from None

    async def _go_to(self, pilot, fid: int) -> bool:
        """Move the cursor onto fact ``fid`` by keys (g or G, then j or k)."""
        await self._focus_view(pilot)
        view = self.main.view
        target = self.visible().get(fid)
        if target is None:
            return False
        await pilot.press("G" if target > len(self.current().doc.lines) // 2 else "g")
        for _ in range(6):  # a live refresh may move the lines meanwhile: look again
            target = self.visible().get(fid)
            if target is None:
                return False
            at = view.cursor_line
            if at == target:
                return True
            lines = self.current().doc.lines
            lo, hi = sorted((at, target))
            steps = sum(1 for n in range(lo + 1, hi + 1) if lines[n - 1].text.strip())
            if at > target:
                steps = sum(1 for n in range(lo, hi) if lines[n - 1].text.strip())
            key = "j" if at < target else "k"
            try:
                await self._type(
                    pilot,
                    [key] * max(1, steps),
                    lambda: view.cursor_line == self.visible().get(fid),
                    f"the cursor onto fact {fid}",
                )
                return True
            except AssertionError:
                STATS["navigation_retries"] += 1
                NAV_DEBUG.append(
                    (
                        at,
                        target,
                        steps,
                        key,
                        view.cursor_line,
                        self.visible().get(fid),
                        [ln.text for ln in self.current().doc.lines],
                    )
                )
                continue
        return False

    async def _open_entry_editor(self, pilot, key: str) -> None:
        await pilot.press(key)
        inp = self.main.editor.query_one("#editor-input")
        await wait_until(pilot, lambda: self.main.editor.display and inp.has_focus, 10, f"the entry editor after {key}")

    # ----------------------------------------------------------------- user actions (async)
    async def _when(self, pilot, when: str) -> None:
        """A moment to act at: now, right after the app showed what is on disk, right after one
        of its polls finished, or after a short pause."""
        if when == "after_refresh":
            await self._settled(pilot, "waiting for a live refresh")
        elif when == "after_poll":
            polls = self.polls
            await wait_until(pilot, lambda: self.polls > polls, 10, "a poll")
        elif when == "after_pause":
            await pilot.pause(0.25)

    async def _start_entry_edit(self, pilot, fid: int, value: str):
        """e on a fact, the text cleared and retyped (home, ctrl+k, keys); enter comes later."""
        if not await self._go_to(pilot, fid):
            return None
        await self._open_entry_editor(pilot, "e")
        target = self.main.editor.target
        m = FACT.match(target.prefix + target.original)
        if not m:  # a refresh moved another line under the cursor: leave it
            await pilot.press("escape")
            await wait_until(pilot, lambda: not self.main.editor.display, 10, "the editor to close")
            return None
        typed = f"fact {m.group(1)} {value}"
        inp = self.main.editor.query_one("#editor-input")
        await pilot.press("home", "ctrl+k")
        await self._type(pilot, list(typed), lambda: inp.value == typed, f"typing {typed!r}")
        return {"kind": "edit", "fid": int(m.group(1)), "value": value, "typed": typed}

    async def _start_new_entry(self, pilot, anchor: int | None, key: str, fid: int, value: str):
        if anchor is not None and not await self._go_to(pilot, anchor):
            return None
        await self._focus_view(pilot)
        await self._open_entry_editor(pilot, key)
        typed = f"fact {fid} {value}"
        inp = self.main.editor.query_one("#editor-input")
        await self._type(pilot, list(typed), lambda: inp.value == typed, f"typing {typed!r}")
        return {"kind": "new", "fid": fid, "value": value, "typed": typed}

    async def _delete(self, pilot, fid: int) -> None:
        if not await self._go_to(pilot, fid):
            return
        n_calls, n_notes = len(self.calls), len(self.notes)
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(self.app.screen, ConfirmScreen), 10, "the delete question")
        if not self.app.screen.body.startswith(f"fact {fid} "):  # a refresh put another entry under the cursor
            await pilot.press("n")
            await wait_until(pilot, lambda: isinstance(self.app.screen, MainScreen), 10, "the question to close")
            return
        await pilot.press("y")
        outcome, rec = await self._outcome(pilot, n_calls, n_notes, f"d, y on fact {fid}")
        await self._after_save(pilot, outcome, rec, "delete", f"d, y on fact {fid}")

    async def _date(self, pilot, fid: int) -> None:
        if not await self._go_to(pilot, fid):
            return
        n_calls, n_notes = len(self.calls), len(self.notes)
        await pilot.press("t")
        outcome, rec = await self._outcome(pilot, n_calls, n_notes, f"t on fact {fid}")
        if outcome != "nothing":
            await self._after_save(pilot, outcome, rec, "date stamp", f"t on fact {fid}")

    async def _commit_others(self, pilot) -> None:
        """U, then y: the agent's uncommitted lines become a commit of their own."""
        pending = dict(self.pending)
        n_notes = len(self.notes)
        await self._focus_view(pilot)
        await pilot.press("U")
        if not pending:
            await wait_until(
                pilot,
                lambda: any("no uncommitted changes" in m for _t, m, _s in self.notes[n_notes:]),
                10,
                "'no uncommitted changes'",
            )
            return
        await wait_until(pilot, lambda: isinstance(self.app.screen, ConfirmScreen), 10, "the U question")
        await pilot.press("y")
        await wait_until(pilot, lambda: any(t in SAVED_TITLES for t, _m, _s in self.notes[n_notes:]), 20, "the commit")
        self.head_model.update(pending)
        for fid in pending:
            self.pending.pop(fid, None)
            self.origin[fid] = f"U: the agent's line committed (step {self.step_no})"
        self.allowed |= set(pending)
        STATS["commits_of_others_changes"] += 1
        await self._settled(pilot, "U")

    async def _open_file_editor(self, pilot, how: str, fid: int, value: str):
        """E, then by keys: a new fact typed on the last line, or one fact's line retyped."""
        await self._focus_view(pilot)
        await pilot.press("E")
        await wait_until(pilot, lambda: isinstance(self.app.screen, FileEditScreen), 10, "the file editor")
        area = self.app.screen.query_one("#file-edit-area")
        await wait_until(pilot, lambda: area.has_focus, 10, "the text area focused")
        lines = area.text.split("\n")
        original = facts(self.app.screen.original)
        typed_ok = lambda: change_between(original, facts(area.text)) == {fid: value}  # noqa: E731
        if how == "append":
            row = len(lines) - 1
        else:
            row = next((i for i, ln in enumerate(lines) if (m := FACT.match(ln)) and int(m.group(1)) == fid), None)
            if row is None:
                await pilot.press("escape")
                await wait_until(pilot, lambda: isinstance(self.app.screen, MainScreen), 10, "the editor to close")
                return None
        if row:
            await self._type(pilot, ["down"] * row, lambda: area.cursor_location[0] == row, f"the cursor to line {row}")
        if how == "append":
            await pilot.press("end", *(["enter"] if lines[-1] else []))
            await self._type(pilot, list(fact_line(fid, value)), typed_ok, "typing a new line in the file editor")
            await pilot.press("enter")
        else:
            await pilot.press("end", "ctrl+u")
            await self._type(pilot, list(fact_line(fid, value)), typed_ok, f"retyping fact {fid} in the file editor")
        return {"kind": "file", "fid": fid, "value": value, "text": area.text}

    async def _press_and_follow(self, pilot, keys: tuple[str, ...], who: str, what: str, during=None) -> None:
        """Press ``keys`` and follow the save they start; ``during`` runs in a thread meanwhile."""
        n_calls, n_notes = len(self.calls), len(self.notes)
        await pilot.press(*keys)
        agent = asyncio.ensure_future(asyncio.to_thread(during)) if during else None
        try:
            outcome, rec = await self._outcome(pilot, n_calls, n_notes, what)
        finally:
            if agent is not None:
                await agent
        if outcome != "nothing":
            await self._after_save(pilot, outcome, rec, who, what)

    async def _escape(self, pilot, discard: bool) -> None:
        """esc with typed text asks first; y drops the text, n keeps it as it was."""
        top = type(self.app.screen)
        await pilot.press("escape")
        try:
            await wait_until(pilot, lambda: isinstance(self.app.screen, ConfirmScreen), 10, "the question")
        except TimeoutError:
            self.violation(
                "draft_lost",
                f"esc with typed text asked nothing (screen {self.screen_name()}, "
                f"entry editor open: {self.main.editor.display}; typed {self.edit})",
            )
            return
        STATS["questions_asked"] += 1
        await pilot.press("y" if discard else "n")
        if discard:
            await wait_until(
                pilot,
                lambda: isinstance(self.app.screen, MainScreen) and not self.main.editor.display,
                10,
                "the editor to close",
            )
            self.mode, self.edit = "idle", None
        else:
            await wait_until(pilot, lambda: isinstance(self.app.screen, top), 10, "back to the editor")
            await self._text_still_there(pilot, "esc, then keep editing")

    async def _quit_and_stay(self, pilot) -> None:
        """ctrl+q with typed text asks first; keep editing gives the text back."""
        top = type(self.app.screen)
        await pilot.press("ctrl+q")
        try:
            await wait_until(
                pilot,
                lambda: isinstance(self.app.screen, ConfirmScreen) or self.app.return_code is not None,
                10,
                "the quit question",
            )
        except TimeoutError:
            self.violation("draft_lost", f"ctrl+q with unsaved text: no question within 10 s ({self.edit})")
            return
        if self.app.return_code is not None:
            raise Violation(
                f"[draft_lost] step {self.step_no}: ctrl+q quit with unsaved text and asked nothing: {self.edit}"
            )
        STATS["questions_asked"] += 1
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(self.app.screen, top), 10, "back to the editor")
        await self._text_still_there(pilot, "ctrl+q, then keep editing")

    def _agent_append_in_thread(self, commit: bool):
        """What an agent does while amr saves: append a fact (O_APPEND) and maybe commit the
        whole file (git add, retried while amr holds index.lock). Returns (thread body, finish)."""
        fid, value = self.new_id(), self.tag("a")
        message = f"agent: append fact {fid} during a save #{self.n}"
        line = fact_line(fid, value)
        self.foreign_lines.add(line)
        STATS["agent_writes"] += 1

        def body() -> None:
            with open(self.root / "MEMORY.md", "ab") as fh:
                fh.write(line.encode() + b"\n")
            if commit:
                self.agent_git("add", "--", "MEMORY.md")
                self.agent_git("commit", "-q", "-m", message)

        def finish() -> None:
            if commit:
                self.record_agent_commit(message)
                self.head_model.update(self.pending)
                for f in self.pending:
                    self.origin[f] = f"agent commit of its lines (step {self.step_no})"
                self.pending.clear()
                self.head_model[fid] = value
            else:
                self.pending[fid] = value
            self.origin[fid] = f"agent append during a save (step {self.step_no})"

        return body, finish

    def _while_saving(self, keys: tuple[str, ...], commit: bool) -> None:
        body, finish = self._agent_append_in_thread(commit)

        async def go(pilot):
            n_calls, n_notes = len(self.calls), len(self.notes)
            await pilot.press(*keys)
            await asyncio.to_thread(body)  # the app (and its save worker) run meanwhile
            finish()  # in the model before the save's outcome is judged: both are done by then
            outcome, rec = await self._outcome(pilot, n_calls, n_notes, f"{keys[0]} while the agent appends")
            if outcome != "nothing":
                await self._after_save(pilot, outcome, rec, self.edit["kind"], f"{keys[0]} while the agent appends")

        self.in_app(go)

    # ----------------------------------------------------------------- the rules
    # Every rule draws the same things whatever the state (an action number, a number to pick a
    # fact with, a few flag bits, a moment), and the state decides what they mean: what the app
    # does depends on timing, so a draw that depended on it (a precondition, a list of the facts on
    # screen) would make Hypothesis's replays draw differently. Each step notes what it did.
    @rule(
        action=st.integers(0, 11),
        pick=st.integers(0, 1 << 16),
        flags=st.integers(0, 15),
        when=st.sampled_from(WHEN_USER),
    )
    def user(self, action, pick, flags, when) -> None:
        """The user, by keys: what is possible in the current mode (the main screen, typing an
        entry, the whole-file editor, the conflict view)."""
        choices = {"idle": USER_IDLE, "entry": USER_ENTRY, "file": USER_FILE, "conflict": USER_CONFLICT}[self.mode]
        what = choices[action % len(choices)]
        self.begin(f"user:{self.mode}:{what}", f"when={when} pick={pick} flags={flags}")
        if self.mode == "idle":
            self._user_on_the_main_screen(what, pick, flags, when)
        elif self.mode == "entry":
            self._user_typing_an_entry(what, flags, when)
        elif self.mode == "file":
            self._user_in_the_file_editor(what, when)
        else:
            self._user_in_the_conflict_view(what, when)

    @rule(
        action=st.integers(0, 12),
        pick=st.integers(0, 1 << 16),
        flags=st.integers(0, 15),
        when=st.sampled_from(WHEN_AGENT),
    )
    def agent(self, action, pick, flags, when) -> None:
        """The agent (plain file writes and plain git), or time passing. ``flags`` bit 0: commit
        only this change (the agent's other lines stay uncommitted); bit 1: aim at the fact the
        user is editing."""
        what = AGENT_ACTIONS[action % len(AGENT_ACTIONS)]
        self.begin(f"agent:{what}", f"when={when} pick={pick} flags={flags}")
        if what == "wait_for_a_refresh":
            self.in_app(lambda pilot: self._when(pilot, "after_refresh"))
            return
        if what == "pause":
            self.in_app(lambda pilot: self._when(pilot, "after_pause"))
            return
        self.unseen = True
        if when != "now":
            self.in_app(lambda pilot: self._when(pilot, when))
        only_mine, aim = bool(flags & 1), bool(flags & 2)
        if what in ("rewrite", "delete") and len(self.head_model) <= 2:
            what = "append"
        if what == "append":
            self.agent_change(self.new_id(), self.tag("a"), only_mine=only_mine, what="append")
        elif what in ("rewrite", "delete"):
            editing_fid = self.edit["fid"] if self.edit and self.edit["fid"] in self.head_model else None
            fid = (
                editing_fid if aim and editing_fid is not None else sorted(self.head_model)[pick % len(self.head_model)]
            )
            self.agent_change(fid, self.tag("a") if what == "rewrite" else None, only_mine=only_mine, what=what)
        elif what == "append_uncommitted" or (what == "commit_its_lines" and not self.pending):
            fid, value = self.agent_append_uncommitted()
            self.pending[fid] = value
            self.origin[fid] = f"agent append, uncommitted (step {self.step_no})"
        elif what == "commit_its_lines":
            self.agent_git("add", "--", "MEMORY.md")
            self.agent_commit(f"agent: commit my lines #{self.step_no}")
            for fid in self.pending:
                self.origin[fid] = f"agent commit of its lines (step {self.step_no})"
            self.head_model.update(self.pending)
            self.pending.clear()
        else:  # another file: git mv and commit, or a line appended and committed
            which = pick % 2
            old = self.others[which]
            if what == "rename":
                new = f"notes/{Path(old).stem.split('-')[0]}-{self.step_no}.md"
                self.agent_git("mv", old, new)
                self.others[which] = new
                self.agent_commit(f"agent: rename {old} to {new} #{self.step_no}")
            else:
                with open(self.root / old, "a") as fh:
                    fh.write(f"- note {self.step_no}\n")
                self.agent_git("add", "--", old)
                self.agent_commit(f"agent: note in {old} #{self.step_no}")
            STATS["agent_writes"] += 1

    # ----------------------------------------------------------------- what the user rule does
    def _pick_shown(self, pick: int, *, undated: bool = False) -> int | None:
        shown = self.visible()
        of = self.current()
        ids = sorted(f for f in shown if not undated or "[added:" not in of.doc.lines[shown[f] - 1].text)
        return ids[pick % len(ids)] if ids else None

    def _user_on_the_main_screen(self, what: str, pick: int, flags: int, when: str) -> None:
        if what == "move":
            keys = ["jkgG"[(pick >> (2 * i)) & 3] for i in range(1 + (flags & 3))]

            async def move(pilot):
                await self._when(pilot, when)
                await self._focus_view(pilot)
                await pilot.press(*keys)

            self.in_app(move)
            note(f"  pressed {keys}")
            return
        if what == "U":

            async def commit_others(pilot):
                await self._when(pilot, when)
                await self._commit_others(pilot)

            self.in_app(commit_others)
            return
        self.in_app(lambda pilot: self._when(pilot, when))  # what the app shows then decides the fact picked
        value = self.tag("u")
        if what == "new" or (what == "file" and not flags & 4):
            fid = self.new_id()
        else:
            fid = self._pick_shown(pick, undated=what == "date")
            if fid is None:
                return
        if what == "edit":
            edit = self.in_app(lambda pilot: self._start_entry_edit(pilot, fid, value))
        elif what == "new":
            anchor = self._pick_shown(pick >> 4)
            key = "O" if flags & 4 else "o"
            edit = self.in_app(lambda pilot: self._start_new_entry(pilot, anchor, key, fid, value))
        elif what == "file":
            how = "rewrite" if flags & 4 else "append"
            edit = self.in_app(lambda pilot: self._open_file_editor(pilot, how, fid, value))
        elif what == "delete":
            note(f"  d on fact {fid}")
            self.in_app(lambda pilot: self._delete(pilot, fid))
            return
        else:
            note(f"  t on fact {fid}")
            self.in_app(lambda pilot: self._date(pilot, fid))
            return
        if edit is not None:
            self.mode = "file" if edit["kind"] == "file" else "entry"
            self.edit = edit
            note(f"  typing: {edit}")

    def _user_typing_an_entry(self, what: str, flags: int, when: str) -> None:
        self.in_app(lambda pilot: self._when(pilot, when))
        who = self.edit["kind"]
        if what == "enter":
            self.in_app(lambda pilot: self._press_and_follow(pilot, ("enter",), who, "enter in the entry editor"))
        elif what in ("enter_while_the_agent_appends", "enter_while_the_agent_commits"):
            self.unseen = True
            self._while_saving(("enter",), commit=what.endswith("commits"))
        elif what == "agent_commits_after_a_poll_then_enter":
            # Right after the app's poll finished the agent commits, then enter: before the next poll.
            self.unseen = True
            same = who == "edit" and self.edit["fid"] in self.head_model and not flags & 2
            only_mine = bool(flags & 1)
            fid = self.edit["fid"] if same else self.new_id()
            value = self.tag("a")
            note(f"  the agent {'rewrites' if same else 'appends'} fact {fid} (only its change: {only_mine})")

            async def go(pilot):
                await self._when(pilot, "after_poll")
                self.agent_change(fid, value, only_mine=only_mine, what="rewrite" if same else "append")
                await self._press_and_follow(pilot, ("enter",), who, "enter right after the agent's commit")

            self.in_app(go)
        elif what == "enter_then_e_at_once":
            self.in_app(lambda pilot: self._enter_then_e(pilot, who))
        elif what == "quit_keep":
            self.in_app(self._quit_and_stay)
        else:
            self.in_app(lambda pilot: self._escape(pilot, what == "escape_discard"))

    async def _enter_then_e(self, pilot, who: str) -> None:
        """enter and e in one read of the terminal (a quick typist): the e is never text of the
        saved line (the model's check of HEAD sees it), and once the save is shown it opens the
        editor on the line saved, with its text as saved; esc then closes it, asking nothing."""
        n_calls, n_notes = len(self.calls), len(self.notes)
        for key, char in (("enter", "\r"), ("e", "e")):
            self.app.post_message(events.Key(key, char))
        outcome, rec = await self._outcome(pilot, n_calls, n_notes, "enter and e at once")
        if outcome != "saved":
            if outcome != "nothing":
                await self._after_save(pilot, outcome, rec, who, "enter and e at once")
            return
        assert rec is not None
        self.apply_save(rec, who)
        self.mode, self.edit = "idle", None
        STATS["typed_ahead_e"] += 1
        editor, inp = self.main.editor, self.main.editor.query_one("#editor-input")
        try:
            await wait_until(pilot, lambda: editor.display and inp.has_focus, 20, "the editor after enter and e")
        except TimeoutError:
            self.violation("key_lost", f"e pressed with enter opened no editor (screen {self.screen_name()})")
            return
        target, cur = editor.target, self.current()
        shown = cur.doc.lines[target.line - 1].text if cur and 0 < target.line <= len(cur.doc.lines) else None
        if shown is None or target.prefix + inp.value != shown:
            self.violation("stale_edit", f"e after a save edits {inp.value!r}, the file shows {shown!r}")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not editor.display, 10, "esc to close the unchanged editor")
        await self._settled(pilot, "enter and e at once")

    def _user_in_the_file_editor(self, what: str, when: str) -> None:
        self.in_app(lambda pilot: self._when(pilot, when))
        if what == "ctrl+s":
            self.in_app(
                lambda pilot: self._press_and_follow(pilot, ("ctrl+s",), "whole-file edit", "ctrl+s in the file editor")
            )
        elif what.startswith("ctrl+s_while"):
            self.unseen = True
            self._while_saving(("ctrl+s",), commit=what.endswith("commits"))
        elif what == "quit_keep":
            self.in_app(self._quit_and_stay)
        else:
            self.in_app(lambda pilot: self._escape(pilot, what == "escape_discard"))

    def _user_in_the_conflict_view(self, choice: str, when: str) -> None:
        """Keep mine (ctrl+o), keep theirs (ctrl+t), cancel (esc), or try to quit (ctrl+q)."""
        STATS[f"resolved:{choice}"] += 1
        self.last_choice = choice
        c = self.conflict
        # Facts where the user's whole version differs from the committed one outside the conflict
        # and outside the user's change (the agent changed them since the user's base): "Keep mine"
        # decides the conflicting entries only, so these keep what the model says HEAD holds.
        outside = {
            fid: value
            for fid, value in change_between(c["theirs"], c["ours"]).items()
            if fid not in c["mine"] and fid not in c["conflicting"]
        }

        lost = "file_edit_conflict_drops_text" if c["from"] == "file" else "draft_lost"

        async def go(pilot):
            await self._when(pilot, when)
            if choice == "ctrl+q":  # the conflict view holds the user's text too: quitting asks first
                await pilot.press("ctrl+q")
                await wait_until(
                    pilot,
                    lambda: isinstance(self.app.screen, ConfirmScreen) or self.app.return_code is not None,
                    10,
                    "the quit question",
                )
                if self.app.return_code is not None:
                    self.failed = True
                    raise Violation(
                        f"[{lost}] step {self.step_no}: ctrl+q in the conflict view quit and asked "
                        f"nothing; the user's edit was {self.edit}"
                    )
                STATS["questions_asked"] += 1
                await pilot.press("n")
                await wait_until(
                    pilot, lambda: isinstance(self.app.screen, ConflictScreen), 10, "back to the conflict view"
                )
                return
            n_calls, n_notes = len(self.calls), len(self.notes)
            kept = {fid: (self.head_model.get(fid), self.origin.get(fid)) for fid in outside if fid not in self.pending}
            await pilot.press(choice)
            outcome, rec = await self._outcome(pilot, n_calls, n_notes, f"{choice} in the conflict view")
            self.mode = c["from"]
            if outcome == "cancelled":
                await self._text_still_there(pilot, "esc in the conflict view", lost)
                return
            await self._after_save(pilot, outcome, rec, "conflict resolution", f"{choice} in the conflict view", lost)
            head = facts(plain_git(self.root, "show", "HEAD:MEMORY.md"))
            reverted = {fid: (was, who) for fid, (was, who) in kept.items() if head.get(fid) != was}
            if outcome == "saved" and choice == "ctrl+o" and reverted:
                STATS["keep_mine_reverted_other_facts"] += len(reverted)
                self.violation(
                    "keep_mine_reverts_other_facts",
                    "; ".join(
                        f"'Keep mine' on a conflict over fact(s) {sorted(c['conflicting'] or c['mine'])} set fact {fid} "
                        f"(not in conflict, not changed by the user) in HEAD from {was!r} ({who}) to {head.get(fid)!r}, "
                        f"the user's whole file's {outside[fid]!r}"
                        for fid, (was, who) in reverted.items()
                    ),
                )

        self.in_app(go)


STATS_ERRORS: list[str] = []


def _summary() -> dict:
    s = dict(STATS)
    out = {
        "examples": s.get("examples", 0),
        "steps": s.get("steps", 0),
        "agent_writes": s.get("agent_writes", 0),
        "agent_commits": s.get("agent_commits", 0),
        "saves": s.get("saves", 0),
        "conflicts_shown": s.get("conflicts_shown", 0),
        "conflicts_positional": s.get("conflicts_positional", 0),
        "resolved": {k.split(":", 1)[1]: v for k, v in s.items() if k.startswith("resolved:")},
        "saves_refused_for_others_uncommitted_change": s.get("save_refused", 0),
        "save_errors": s.get("save_error", 0),
        "save_error_messages": STATS_ERRORS[:10],
        "questions_asked": s.get("questions_asked", 0),
        "edit_keys_typed_with_enter": s.get("typed_ahead_e", 0),
        "violations": 0,  # set from the outcome: the failing example Hypothesis reports, if any
        "violation_events_incl_shrinking": s.get("violations", 0),
        "steps_by_rule": {k.split(":", 1)[1]: v for k, v in sorted(s.items()) if k.startswith("step:")},
        "seconds_by_rule": {k: round(v, 1) for k, v in sorted(TIMES.items())},
        "slow_steps": SLOW[:20],
        "navigation_retries": s.get("navigation_retries", 0),
        "navigation_debug": [str(d)[:300] for d in NAV_DEBUG[:3]],
    }
    return out


@pytest.mark.slow
@pytest.mark.parametrize("share", [1, 2])  # the examples in two items: two test workers run them side by side
def test_the_app_against_an_agent_stateful(share: int) -> None:
    STATS.clear()
    TIMES.clear()
    SLOW.clear()
    NAV_DEBUG.clear()
    STATS_ERRORS.clear()
    started = time.monotonic()
    failure: BaseException | None = None
    try:
        run_state_machine_as_test(
            AppVersusAgent,
            settings=settings(
                max_examples=max(1, (EXAMPLES + 2 - share) // 2),  # EXAMPLES in all
                stateful_step_count=STEPS,
                deadline=None,
                derandomize=False,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
            ),
        )
    except BaseException as exc:
        failure = exc
        raise
    finally:
        summary = _summary()
        summary["seconds"] = round(time.monotonic() - started, 1)
        if failure is not None:
            parts = failure.exceptions if isinstance(failure, BaseExceptionGroup) else [failure]
            summary["violations"] = len(parts)
            summary["failure"] = "\n\n".join(
                "\n".join([f"{type(p).__name__}: {p}", *getattr(p, "__notes__", [])]) for p in parts
            )[:20000]
        print("\namr app stateful run:", json.dumps(summary, indent=2))
        if REPORT:
            Path(REPORT).write_text(json.dumps(summary, indent=2) + "\n")


# The machine's own steps in a fixed order: the conflict view is reached in every one (a random run
# gets there a few times in 20 examples), so its checks (keep_mine_reverts_other_facts,
# keep_mine_commits_uncommitted_lines, file_edit_conflict_drops_text, draft_lost, the model) run
# every time. Each step: (rule, action, pick, flags, the mode it must leave the machine in).
USER, AGENT = "user", "agent"
REPLAYS = {
    "keep_mine_with_an_agent_fact_committed_elsewhere": [
        (USER, 0, 1, 0, "entry"),  # e on fact 1, retyped
        (AGENT, 0, 3, 0, "entry"),  # the agent rewrites fact 3 and commits
        (AGENT, 0, 0, 2, "entry"),  # and fact 1, the one being edited
        (USER, 0, 0, 0, "conflict"),  # enter
        (USER, 0, 0, 0, "idle"),  # ctrl+o: fact 1 is the user's, fact 3 the agent's
    ],
    "keep_mine_with_an_agents_uncommitted_line": [
        (AGENT, 2, 0, 0, "idle"),  # a line appended, not committed
        (AGENT, 3, 0, 0, "idle"),  # the app shows it
        (USER, 0, 1, 0, "entry"),
        (AGENT, 0, 0, 3, "entry"),  # fact 1 rewritten, only that change committed
        (USER, 0, 0, 0, "conflict"),
        (USER, 0, 0, 0, "idle"),  # ctrl+o: the uncommitted line stays out of the commit
    ],
    "a_resolution_that_conflicts_again": [
        (USER, 0, 1, 0, "entry"),
        (AGENT, 0, 0, 2, "entry"),
        (USER, 0, 0, 0, "conflict"),
        (AGENT, 0, 0, 2, "conflict"),  # fact 1 again, while the conflict view is open
        (USER, 0, 0, 0, "conflict"),  # ctrl+o: a new conflict view
        (USER, 3, 0, 0, "entry"),  # esc: the entry editor, with the typed text
        (USER, 3, 0, 0, "conflict"),  # enter again
        (USER, 1, 0, 0, "idle"),  # ctrl+t
    ],
    "whole_file_edit_in_conflict": [
        (USER, 1, 2, 4, "file"),  # E, fact 2 retyped
        (AGENT, 0, 4, 0, "file"),  # fact 4 rewritten and committed
        (AGENT, 0, 0, 2, "file"),  # fact 2 too
        (USER, 0, 0, 0, "conflict"),  # ctrl+s
        (USER, 4, 0, 0, "conflict"),  # ctrl+q asks; keep editing
        (USER, 3, 0, 0, "file"),  # esc: the file editor, with the typed text
        (USER, 0, 0, 0, "conflict"),  # ctrl+s again
        (USER, 0, 0, 0, "idle"),  # ctrl+o: fact 4 stays the agent's
    ],
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REPLAYS))
def test_the_machine_replays_a_conflict(name: str) -> None:
    from hypothesis import Phase, given

    @settings(
        max_examples=1, deadline=None, database=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck)
    )
    @given(st.none())
    def replay(_none) -> None:
        machine = AppVersusAgent()
        try:
            machine.the_repo_holds_what_the_model_says()
            for i, (who, action, pick, flags, mode) in enumerate(REPLAYS[name]):
                getattr(machine, who)(action=action, pick=pick, flags=flags, when="now")
                machine.the_repo_holds_what_the_model_says()
                assert machine.mode == mode, f"step {i} ({who} {action}) left the machine in {machine.mode}, not {mode}"
        except BaseException:
            machine.failed = True
            raise
        finally:
            machine.teardown()

    replay()


# ------------------------------------------------------------- the bugs the machine found, by keys
@pytest.fixture
def repo_with_facts(make_repo) -> Path:
    memory = "# Memory\n\n" + "".join(fact_line(i, "s0") + "\n" for i in range(SEED_FACTS))
    return make_repo(files={"MEMORY.md": memory + "\n## Index\n- [[notes/a]]\n", "notes/a.md": "# A\n\n- note a\n"})


def _agent_sets(root: Path, fid: int, value: str | None, message: str, *, only_mine: bool = False) -> None:
    """The agent (plain git): fact ``fid`` set to ``value`` (appended when new; None deletes it)."""

    def apply(text: str) -> str:
        out, found = [], False
        for ln in text.splitlines(keepends=True):
            m = FACT.match(ln.rstrip("\n"))
            if m and int(m.group(1)) == fid:
                found = True
                if value is not None:
                    out.append(fact_line(fid, value) + "\n")
                continue
            out.append(ln)
        if not found and value is not None:
            out.append(fact_line(fid, value) + "\n")
        return "".join(out)

    path = root / "MEMORY.md"
    path.write_text(apply(path.read_text()))
    if only_mine:
        oid = plain_git(
            root, "hash-object", "-w", "--stdin", input=apply(plain_git(root, "show", "HEAD:MEMORY.md")).encode()
        )
        plain_git(root, "update-index", "--cacheinfo", f"100644,{oid.strip()},MEMORY.md")
    else:
        plain_git(root, "add", "MEMORY.md")
    plain_git(root, "commit", "-q", "-m", message, env=AGENT_ENV)


async def _edit_fact_by_keys(drive, fid: int, typed: str) -> None:
    pilot, app = drive.pilot, drive.app
    await drive.ready()
    view = app.screen.view
    view.focus()
    await pilot.press("g")
    while drive.current.doc.lines[view.cursor_line - 1].text != fact_line(fid, "s0"):
        await pilot.press("j")
    await pilot.press("e")
    inp = app.screen.query_one("#editor-input")
    await wait_for(pilot, lambda: inp.has_focus, what="the editor")
    await pilot.press("home", "ctrl+k", *typed)


@pytest.mark.slow
async def test_keep_mine_keeps_an_agent_fact_committed_outside_the_conflict(repo_with_facts) -> None:
    root = repo_with_facts
    app = app_for([root], poll_interval=0.2, today=TODAY)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        await _edit_fact_by_keys(drive, 1, "fact 1 u1")
        _agent_sets(root, 1, "a1", "agent: rewrite fact 1")
        _agent_sets(root, 52, "a2", "agent: append fact 52")
        agent_head = plain_git(root, "rev-parse", "HEAD").strip()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen), what="the conflict view")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: plain_git(root, "rev-parse", "HEAD").strip() != agent_head, what="the save")
    head = plain_git(root, "show", "HEAD:MEMORY.md")
    assert fact_line(1, "u1") in head  # the user's side of the conflict
    assert fact_line(52, "a2") in head, f"the agent's fact 52, not in conflict, was deleted by 'Keep mine':\n{head}"


@pytest.mark.slow
async def test_keep_mine_leaves_an_agents_uncommitted_line_out_of_the_commit(repo_with_facts) -> None:
    root = repo_with_facts
    app = app_for([root], poll_interval=0.2, today=TODAY)
    async with running(app, TMUX_SIZE, ready=False) as drive:
        pilot = drive.pilot
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        with open(root / "MEMORY.md", "a") as fh:  # the agent's line, not committed
            fh.write(fact_line(60, "draft") + "\n")
        await wait_for(pilot, lambda: b"fact 60 draft" in drive.current.data, what="the live refresh")
        await _edit_fact_by_keys(drive, 1, "fact 1 u1")
        _agent_sets(root, 1, "a1", "agent: rewrite fact 1, only that", only_mine=True)
        agent_head = plain_git(root, "rev-parse", "HEAD").strip()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen), what="the conflict view")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: plain_git(root, "rev-parse", "HEAD").strip() != agent_head, what="the save")
    assert fact_line(1, "u1") in plain_git(root, "show", "HEAD:MEMORY.md")
    added = plain_git(root, "show", "--format=", "HEAD", "--", "MEMORY.md")
    assert "+" + fact_line(60, "draft") not in added.splitlines(), (
        f"amr's commit took the agent's uncommitted line:\n{added}"
    )
    assert fact_line(60, "draft") in (root / "MEMORY.md").read_text()


async def _whole_file_edit_in_conflict(pilot, app, root: Path) -> None:
    """E, fact 1 retyped by keys; the agent commits its own fact 1; ctrl+s: the conflict view."""
    await pilot.press("E")
    await wait_for(pilot, lambda: isinstance(app.screen, FileEditScreen), what="the file editor")
    await pilot.press("down", "down", "down", "end", "ctrl+u", *fact_line(1, "u1"))
    _agent_sets(root, 1, "a1", "agent: rewrite fact 1")
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen), what="the conflict view")


@pytest.mark.slow
async def test_esc_in_the_conflict_view_of_a_whole_file_edit_keeps_the_text(repo_with_facts) -> None:
    root = repo_with_facts
    app = app_for([root], poll_interval=0.2, today=TODAY)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        await _whole_file_edit_in_conflict(pilot, app, root)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConflictScreen), what="the conflict view to close")
        await pilot.pause(0.5)
        asked = isinstance(app.screen, ConfirmScreen)
        back = (
            isinstance(app.screen, FileEditScreen)
            and fact_line(1, "u1") in app.screen.query_one("#file-edit-area").text
        )
        assert asked or back, f"the typed text is gone and nothing asked: screen {type(app.screen).__name__}"


@pytest.mark.slow
async def test_ctrl_q_in_the_conflict_view_of_a_whole_file_edit_asks_first(repo_with_facts) -> None:
    root = repo_with_facts
    app = app_for([root], poll_interval=0.2, today=TODAY)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        await _whole_file_edit_in_conflict(pilot, app, root)
        await pilot.press("ctrl+q")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ConfirmScreen) or app.return_code is not None,
            what="the question, or quitting",
        )
        assert app.return_code is None, "quit with the whole-file edit unsaved, and asked nothing"


@pytest.mark.slow
async def test_a_resolution_that_conflicts_again_shows_the_conflict_view(repo_with_facts) -> None:
    root = repo_with_facts
    app = app_for([root], poll_interval=0.2, today=TODAY)
    async with running(app, TMUX_SIZE) as drive:
        pilot = drive.pilot
        await _edit_fact_by_keys(drive, 1, "fact 1 u1")
        _agent_sets(root, 1, "a1", "agent: rewrite fact 1")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen), what="the conflict view")
        first = app.screen
        _agent_sets(root, 1, "a2", "agent: rewrite fact 1 again")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: app.screen is not first, what="the conflict view to close")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ConflictScreen)
            or "Not saved" in str(app.screen.query_one("#status").render()),
            what="what the app says",
        )
        assert isinstance(app.screen, ConflictScreen), (
            "a second conflict is a 'Not saved' message, with no conflict view"
        )
    assert fact_line(1, "a2") in plain_git(root, "show", "HEAD:MEMORY.md")  # nothing lost meanwhile


@pytest.mark.slow
async def test_editing_an_agents_uncommitted_line_keeps_a_committed_fact_it_moved(repo_with_facts) -> None:
    root = repo_with_facts  # HEAD: facts 0..5
    moved = "# Memory\n\n" + "".join(fact_line(i, "s0") + "\n" for i in (0, 1, 2, 3, 5, 4))
    (root / "MEMORY.md").write_text(moved + fact_line(60, "draft") + "\n\n## Index\n- [[notes/a]]\n")  # not committed
    app = app_for([root], poll_interval=0.2, today=TODAY)
    async with running(app, TMUX_SIZE, ready=False) as drive:
        pilot = drive.pilot
        await wait_for(
            pilot,
            lambda: getattr(app.screen, "current", None) is not None and b"fact 60 draft" in drive.current.data,
            what="the file as on disk",
        )
        view = app.screen.view
        view.focus()
        await pilot.press("g")
        while drive.current.doc.lines[view.cursor_line - 1].text != fact_line(60, "draft"):
            await pilot.press("j")
        await pilot.press("e")
        inp = app.screen.query_one("#editor-input")
        await wait_for(pilot, lambda: inp.has_focus, what="the editor")
        await pilot.press("home", "ctrl+k", *"fact 60 u1", "enter")
        await wait_for(pilot, lambda: fact_line(60, "u1") in plain_git(root, "show", "HEAD:MEMORY.md"), what="the save")
    head = plain_git(root, "show", "HEAD:MEMORY.md")
    assert fact_line(5, "s0") in head, f"committed fact 5 is gone from HEAD:\n{head}"
