"""An agent commits to the open file every 100 ms while the user saves 50 edits in the app.

Done when every agent commit is reachable from the branch and every user edit is present.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from amr_tui.services.demo import build_demo
from amr_tui.widgets.entry_view import EntryView
from tests.driver import app_for, notes, wait_for

pytestmark = pytest.mark.slow  # the slow tier: `pytest -m slow` (README)

AGENT_ENV = {
    "GIT_AUTHOR_NAME": "Agent",
    "GIT_AUTHOR_EMAIL": "agent@example.test",
    "GIT_COMMITTER_NAME": "Agent",
    "GIT_COMMITTER_EMAIL": "agent@example.test",
}


AGENT_SCRIPT = r"""
import os, subprocess, sys, time
root, stop = sys.argv[1], sys.argv[2]
path = os.path.join(root, "MEMORY.md")
tmp = os.path.join(root, ".agent-tmp")
n = 0
while not os.path.exists(stop):
    n += 1
    fact = f"- Agent fact {n} [source: https://example.com/sessions/a{n}]"
    while True:
        with open(path, "rb") as fh:
            data = fh.read()
        with open(tmp, "wb") as fh:
            fh.write(data + fact.encode() + b"\n")
        # A careful agent never shows a half-written file, and never writes over a save it did
        # not read: if the file changed since it was read (the app saved), read it again. Without
        # this the agent itself dropped the user's line now and then on a loaded machine.
        with open(path, "rb") as fh:
            if fh.read() != data:
                continue
        os.replace(tmp, path)
        break
    for _ in range(200):  # like a real agent: retry the commit (index.lock, a moved ref)
        add = subprocess.run(["git", "add", "MEMORY.md"], cwd=root, capture_output=True)
        res = subprocess.run(["git", "commit", "-q", "-m", f"agent: fact {n}"], cwd=root, capture_output=True)
        if add.returncode == 0 and res.returncode == 0:
            oid = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
            print(oid, fact, flush=True)
            break
        time.sleep(0.02)
    time.sleep(0.1)
"""


class Agent:
    """A separate agent process using plain git: append a fact and commit, every ~100 ms."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.stop_file = root.parent / "agent.stop"
        self.proc: subprocess.Popen[str] | None = None
        self.commits: list[str] = []
        self.facts: list[str] = []

    def start(self) -> None:
        env = {**os.environ, **AGENT_ENV}
        env.pop("GIT_AUTHOR_DATE", None)
        env.pop("GIT_COMMITTER_DATE", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", AGENT_SCRIPT, str(self.root), str(self.stop_file)],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )

    def finish(self) -> None:
        self.stop_file.write_text("stop")
        assert self.proc is not None
        out, _ = self.proc.communicate(timeout=60)
        for line in out.splitlines():
            oid, fact = line.split(" ", 1)
            self.commits.append(oid)
            self.facts.append(fact)


def _history_of(root: Path, text: str) -> list[str]:
    """The commits that added or dropped ``text`` (newest first), with their authors."""
    out = subprocess.run(
        ["git", "log", "--format=%h %an %s", "-S", text, "--", "MEMORY.md"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.splitlines()


async def test_agent_every_100ms_while_user_saves_50_edits(tmp_path):
    alice = build_demo(tmp_path / "vm")[0]
    agent = Agent(alice)
    app = app_for([alice], poll_interval=0.3)
    user_facts: list[str] = []
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        agent.start()
        try:
            for i in range(50):
                view = app.screen.query_one(EntryView)
                await wait_for(
                    pilot,
                    lambda: app.screen.current and app.screen.current.doc and app.screen.current.doc.entries,
                    what="doc",
                )
                view.go_to_line(app.screen.current.doc.entries[0].line)
                inp = app.screen.query_one("#editor-input")
                try:
                    # Pressed once: right after a save, with the agent writing, the key waits for
                    # the saved file to be shown (it was lost before 2026-12-01).
                    await pilot.press("o")
                    await wait_for(pilot, lambda: inp.has_focus, timeout=20, what="editor")
                except AssertionError:  # seen once under 3 extra busy loops: say what the app was doing
                    sc = app.screen
                    cur_of = getattr(sc, "current", None)
                    raise AssertionError(
                        (
                            f"editor {i} did not open",
                            type(sc).__name__,
                            app.focused,
                            sc.query_one("#editor").display,
                            cur_of and (cur_of.path, cur_of.head, cur_of.read_only, cur_of.doc is None, cur_of.message),
                            sc.query_one(EntryView).cursor_line,
                            dict(sc.drafts),
                            [str(n.message)[:80] for n in notes(app) if "changed" not in str(n.message)][-5:],
                            [(w.name, w.state.name) for w in app.workers],
                        )
                    ) from None
                fact = f"User edit {i} [added: 2026-11-29]"
                inp.value = fact
                await pilot.press("enter")
                try:
                    await wait_for(
                        pilot, lambda: not app.screen.query_one("#editor").display, timeout=20, what=f"save {i}"
                    )
                except AssertionError:
                    ed = app.screen.query_one("#editor")
                    raise AssertionError(
                        (
                            str(app.screen.query_one("#status").render()),  # "Not saved: <why>" after a failed save
                            app.focused,
                            ed.target,
                            app.screen.query_one("#editor-input").value,
                            [(w.name, w.state) for w in app.workers],
                            app.screen.query_one("#status").render(),
                        )
                    ) from None
                user_facts.append(fact)
        finally:
            agent.finish()
    text = (alice / "MEMORY.md").read_text()
    missing_user = [f for f in user_facts if f not in text]
    assert not missing_user, [(f, _history_of(alice, f)) for f in missing_user]
    assert len(agent.commits) >= 10, "the agent barely ran"
    unreachable = [
        c
        for c in agent.commits
        if subprocess.run(["git", "merge-base", "--is-ancestor", c, "HEAD"], cwd=alice).returncode != 0
    ]
    assert not unreachable
    missing_agent = [f for f in agent.facts if f not in text]
    assert not missing_agent, missing_agent
    print(f"agent commits: {len(agent.commits)}, user saves: {len(user_facts)}")
