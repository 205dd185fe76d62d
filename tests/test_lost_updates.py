"""Lost updates: editor saves interleaved with agent writes and commits.

A Hypothesis state machine drives a real repo: the user opens notes.md (a snapshot that goes
stale), edits, inserts and deletes entries through ``services.editing``; an agent (plain git)
appends and rewrites facts in notes.md and agent.md, leaves them uncommitted for a while and
commits them. Every fact is a line ``- fact ID TAG``; the model knows the last TAG each
successful write gave each ID. After every step: the branch only grows (no commit dropped), HEAD
holds exactly the model's facts (no save and no agent commit lost, nothing resurrected), and the
work tree still holds the agent's uncommitted lines. A refused save (conflict, someone's
uncommitted change) changes nothing; a save commits the file as the user saw it, so agent lines
that were on disk (uncommitted) when the user opened it are committed with it, never dropped.

The soak (``bench/soak_saves.py``: 4 agent processes every 100 ms, 1,000 saves) runs short here.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from amr_tui.git import ConflictError, DirtyFileError
from amr_tui.git.gate import Change
from amr_tui.services.session import editing
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import discover
from tests.hostilehelpers import git, init_repo

pytestmark = pytest.mark.slow  # the slow tier: `pytest -m slow` (README)

FACT = re.compile(r"^- fact (\d+) (\S+)$")
FILES = ("notes.md", "agent.md")


def line(fid: int, tag: str) -> str:
    return f"- fact {fid} {tag}"


def facts(text: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for ln in text.splitlines():
        m = FACT.match(ln)
        if m:
            assert int(m.group(1)) not in out, f"fact {m.group(1)} twice:\n{text}"
            out[int(m.group(1))] = m.group(2)
    return out


class SavesVersusAgent(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="amr-lost-"))
        self.next_id = 20
        self.committed = {"notes.md": {i: "seed" for i in range(12)}, "agent.md": {i: "seed" for i in range(12, 20)}}
        self.pending: dict[str, dict[int, str]] = {f: {} for f in FILES}  # agent's uncommitted lines
        files = {"MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n- [[agent]]\n"}
        for f in FILES:
            files[f] = f"# {f}\n\n" + "".join(line(i, t) + "\n" for i, t in self.committed[f].items())
        self.root = init_repo(self.tmp / "memory", files)
        self.session = Session(discover([self.root]))
        self.session.load()
        self.of = self.session.open("memory", "notes.md")
        self.head = self.rev()
        self.n = 0

    def teardown(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def rev(self) -> str:
        return git(self.root, "rev-parse", "HEAD").strip()

    def tag(self, who: str) -> str:
        self.n += 1
        return f"{who}{self.n}"

    # ------------------------------------------------------------------ the user
    def _save(self, job, fid: int, tag: str | None) -> None:
        before = self.rev()
        try:
            job()
        except (ConflictError, DirtyFileError, editing.EditRefused):
            assert self.rev() == before, "a refused save moved the branch"
            return
        # The save commits the user's change only: the agent's other uncommitted lines stay
        # uncommitted in the file; a line of theirs the user edited or deleted is the user's now.
        self.pending["notes.md"].pop(fid, None)
        if tag is None:
            self.committed["notes.md"].pop(fid, None)
        else:
            self.committed["notes.md"][fid] = tag
        self.of = self.session.open("memory", "notes.md")  # the app reopens the file after a save

    def _pick(self, data) -> tuple[int, int] | None:
        doc = self.of.doc
        lines = [(e.line, int(m.group(1))) for e in doc.entries if (m := FACT.match(doc.lines[e.line - 1].text))]
        return data.draw(st.sampled_from(lines)) if lines else None

    @rule()
    def user_reopens(self) -> None:
        self.of = self.session.open("memory", "notes.md")

    @rule(data=st.data())
    def user_edits(self, data) -> None:
        picked = self._pick(data)
        if picked:
            (ln, fid), tag = picked, self.tag("u")
            self._save(lambda: editing.replace_entry_line(self.session, self.of, ln, line(fid, tag)), fid, tag)

    @rule(data=st.data())
    def user_inserts(self, data) -> None:
        after = data.draw(st.integers(0, len(self.of.doc.lines)))
        fid, tag = self.next_id, self.tag("u")
        self.next_id += 1
        self._save(lambda: editing.insert_entry(self.session, self.of, after, line(fid, tag)), fid, tag)

    @rule(data=st.data())
    def user_deletes(self, data) -> None:
        picked = self._pick(data)
        if picked:
            ln, fid = picked
            self._save(lambda: editing.delete_entry(self.session, self.of, ln), fid, None)

    # ------------------------------------------------------------------ the agent
    def _agent_write(self, rel: str, text: str) -> None:
        (self.root / rel).write_text(text)

    @rule(rel=st.sampled_from(FILES))
    def agent_appends(self, rel: str) -> None:
        fid, tag = self.next_id, self.tag("a")
        self.next_id += 1
        self._agent_write(rel, (self.root / rel).read_text() + line(fid, tag) + "\n")
        self.pending[rel][fid] = tag

    @rule(rel=st.sampled_from(FILES), data=st.data())
    def agent_rewrites(self, rel: str, data) -> None:
        text = (self.root / rel).read_text()
        ids = sorted(facts(text))
        if not ids:
            return
        fid, tag = data.draw(st.sampled_from(ids)), self.tag("a")
        old = next(ln for ln in text.splitlines() if FACT.match(ln) and int(FACT.match(ln).group(1)) == fid)
        self._agent_write(rel, text.replace(old + "\n", line(fid, tag) + "\n", 1))
        self.pending[rel][fid] = tag

    @rule()
    def agent_commits(self) -> None:
        changed = [f for f in FILES if self.pending[f]]
        if not changed:
            return
        git(self.root, "add", "--", *changed)
        git(self.root, "commit", "-q", "-m", "agent")
        for f in changed:
            self.committed[f].update(self.pending[f])
            self.pending[f] = {}

    # ------------------------------------------------------------------ invariants
    @invariant()
    def nothing_lost(self) -> None:
        head = self.rev()
        assert subprocess.run(["git", "merge-base", "--is-ancestor", self.head, head], cwd=self.root).returncode == 0, (
            "a commit was dropped from the branch"
        )
        self.head = head
        for f in FILES:
            assert facts(git(self.root, "show", f"HEAD:{f}")) == self.committed[f], f
            on_disk = facts((self.root / f).read_text())
            assert on_disk == {**self.committed[f], **self.pending[f]}, f"work tree of {f}"


SavesVersusAgent.TestCase.settings = settings(  # AMR_STATEFUL_EXAMPLES=500 for a long local run
    max_examples=int(os.environ.get("AMR_STATEFUL_EXAMPLES", "8")),
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


TestSavesVersusAgent = SavesVersusAgent.TestCase


def test_soak_short(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "soak_saves", Path(__file__).parent.parent / "bench" / "soak_saves.py"
    )
    soak = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(soak)
    result = soak.run_soak(saves=25, agents=4, interval=0.1, seed=3, base=tmp_path)
    assert result["saves"] + result["gave_up"] == 25 and result["agent_commits"] > 0, result
    assert result["lost_agent_commits"] == result["lost_agent_facts"] == result["lost_user_edits"] == 0, result
    assert result["fsck_clean"], result


def test_a_save_is_not_starved_by_an_agent_committing_nonstop(tmp_path: Path) -> None:
    """After a few lost races the save holds index.lock while it merges and commits: an agent
    whose `git commit` keeps moving the branch waits for it (and retries), and nothing is lost."""
    import threading

    from amr_tui.git import GitRepo

    root = init_repo(
        tmp_path / "memory", {"MEMORY.md": "# M\n", "notes.md": "".join(line(i, "seed") + "\n" for i in range(30))}
    )
    stop = threading.Event()
    agent_commits: list[str] = []

    def agent() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            with open(root / "agent.md", "a") as f:
                f.write(f"- agent note {n}\n")
            res = subprocess.run(
                ["git", "commit", "-q", "-m", f"agent {n}", "--", "agent.md"], cwd=root, capture_output=True
            )
            if res.returncode != 0:  # the file is new: add it first; or amr holds the lock: again
                subprocess.run(["git", "add", "--", "agent.md"], cwd=root, capture_output=True)
                continue
            agent_commits.append(
                subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
            )

    r = GitRepo(root)
    base_head, base = r.head(), (root / "notes.md").read_bytes()
    thread = threading.Thread(target=agent)
    thread.start()
    try:
        saved = []
        for k in range(5):
            cur = r.head()
            data = r.read_blob_or_none(cur, "notes.md")
            new = data.replace(f"- fact {k} seed".encode(), f"- fact {k} u{k}".encode())
            saved.append(r.write_files([Change("notes.md", data, new, cur)], f"user {k}", max_attempts=6).head)
    finally:
        stop.set()
        thread.join()
    text = r.read_blob_or_none("HEAD", "notes.md").decode()
    assert all(f"- fact {k} u{k}" in text for k in range(5))
    for oid in agent_commits + saved + [base_head]:
        assert subprocess.run(["git", "merge-base", "--is-ancestor", oid, "HEAD"], cwd=root).returncode == 0
    assert base.decode().count("seed") - 5 == text.count("seed")
