"""The agent interface (AgentMemory, in-process, no MCP) as a Hypothesis state machine on a real
git repo, with a plain-git agent and a person editing the work tree beside it.

Rules: remember a new fact; edit an entry by (line, hash) from a fresh read, or from an earlier
read that may be stale; forget one; move one to the other file; a plain-git agent commits lines
inserted above existing entries, rewords an entry, or appends one; a person leaves an edit
uncommitted in the work tree and commits it later. The model knows every fact that must be in
HEAD (amr's, the agent's, the person's committed ones) and the lines only in the work tree.

Invariants: a write with a stale hash changes nothing (HEAD and the file as they were); every fact
the model holds is in HEAD, once, in its file, as last written; a forgotten fact is gone; the
person's uncommitted line is never committed by amr (it stays in the work tree only until they
commit it); HEAD moves by exactly one commit on a written reply (its parent the old HEAD) and by
none otherwise. Real git, no mocks.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from amr_tui.services.agent.memory import AgentMemory, Writer
from amr_tui.services.agent.model import entry_hash
from amr_tui.services.workspace import discover

pytestmark = pytest.mark.slow  # the slow tier: `pytest -m slow` (README)

FILES = ("notes.md", "topic.md")
WORDS = (
    "amber basil cedar delta ember fjord garnet harbor indigo juniper kestrel lumen marble nectar onyx "
    "pepper quartz raven sienna tundra umber violet willow xenon yarrow zephyr falcon orchid copper "
    "meadow thistle canyon glacier lantern pebble saffron timber walnut badger cobalt dingo egret ferret "
    "gopher heron ibis jackal koala lemur mole newt otter puffin quail rook stoat tapir urchin vole wombat yak zebu"
).split()
AGENT_ENV = {
    "GIT_AUTHOR_NAME": "Plain Agent",
    "GIT_AUTHOR_EMAIL": "plain@agent.test",
    "GIT_COMMITTER_NAME": "Plain Agent",
    "GIT_COMMITTER_EMAIL": "plain@agent.test",
}
USER_ENV = {
    "GIT_AUTHOR_NAME": "Other Person",
    "GIT_AUTHOR_EMAIL": "other@person.test",
    "GIT_COMMITTER_NAME": "Other Person",
    "GIT_COMMITTER_EMAIL": "other@person.test",
}
FID = re.compile(r"\b([aru]\d+q)\b")  # a fact's id: a<n>q (amr), r<n>q (plain agent), u<n>q (person)
TAG = re.compile(r"\btag (t\d+)\b")
WHO = Writer("stateful-agent", "s1")


def git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    res = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, env={**os.environ, **(env or {})})
    assert res.returncode == 0, f"git {' '.join(args)}: {res.stderr}"
    return res.stdout


class AgentVersusGit(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="amr-agent-sm-"))
        self.root = self.tmp / "memory"
        self.root.mkdir()
        git(self.root, "init", "-q", "-b", "main")
        files = {
            "MEMORY.md": "# Memory\n\n## Index\n\n- [[notes]]: notes\n- [[topic]]: the topic\n",
            "notes.md": "# Notes\n\n- Seed r0q about the wiki, tag t0 [source: https://example.com/s/0]\n",
            "topic.md": "# Topic\n\n- Seed r1q about the farm, tag t0 [source: https://example.com/s/1]\n",
        }
        for rel, text in files.items():
            (self.root / rel).write_text(text)
        git(self.root, "add", "--", *files)
        git(self.root, "commit", "-q", "-m", "Create memory repo")
        self.memory = AgentMemory(discover([self.root]))
        self.rng = random.Random(0)
        self.n = 10  # ids above the seeds
        # fid -> (file, tag): the facts HEAD must hold
        self.facts: dict[str, tuple[str, str]] = {"r0q": ("notes.md", "t0"), "r1q": ("topic.md", "t0")}
        self.gone: set[str] = set()  # facts forgotten: never in HEAD again
        self.pending: dict[str, list[str]] = {f: [] for f in FILES}  # the person's uncommitted lines
        self.snapshots: dict[str, list[dict[str, Any]]] = {}  # path -> entries of an earlier read
        self.tags = 0
        self.history = [self.head()]

    def teardown(self) -> None:
        self.memory.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # ---------------------------------------------------------------- helpers
    def head(self) -> str:
        return git(self.root, "rev-parse", "HEAD").strip()

    def committed(self, rel: str) -> str:
        return git(self.root, "show", f"HEAD:{rel}")

    def new_id(self, kind: str) -> str:
        self.n += 1
        return f"{kind}{self.n}q"

    def new_tag(self) -> str:
        self.tags += 1
        return f"t{self.tags}"

    def words(self) -> str:
        return " ".join(self.rng.sample(WORDS, 5))

    def amr_entries(self, rel: str) -> list[dict[str, Any]]:
        """The file's entries as the interface reads them now, remembered as a snapshot."""
        read = self.memory.read("memory", rel)
        entries = [{"line": e.line, "hash": e.hash, "raw": e.raw, "text": e.text} for e in read.entries]
        self.snapshots[rel] = entries
        return entries

    def fact_entry(self, rel: str, data: st.DataObject) -> dict[str, Any] | None:
        """A fresh read's entry holding one of the model's committed facts in ``rel``."""
        entries = [
            e
            for e in self.amr_entries(rel)
            if (m := FID.search(e["raw"])) and self.facts.get(m.group(1), ("", ""))[0] == rel
        ]
        return data.draw(st.sampled_from(entries)) if entries else None

    def wrote(self, before: str, reply: Any, *, allow_conflict: bool = False) -> bool:
        """HEAD moved by exactly one commit (parent: the old HEAD) on "written", else not at all."""
        after = self.head()
        allowed = {"written", "conflict"} if allow_conflict else {"written"}
        assert reply.status in allowed, (reply.status, reply.message)
        assert reply.message.strip()
        if reply.status != "written":
            assert after == before, "a write that was not made moved HEAD"
            return False
        assert reply.commit == after
        assert git(self.root, "rev-parse", f"{after}^").strip() == before, "more than one commit per write"
        self.history.append(after)
        return True

    def agent_commit(self, rel: str, text: str, message: str) -> None:
        (self.root / rel).write_text(text)
        git(self.root, "commit", "-q", "-m", message, "--", rel, env=AGENT_ENV)
        self.history.append(self.head())

    # ---------------------------------------------------------------- amr's writes
    @rule(rel=st.sampled_from(FILES))
    def remember(self, rel: str) -> None:
        fid, tag = self.new_id("a"), self.new_tag()
        before = self.head()
        reply = self.memory.remember(
            f"Host {fid} runs {self.words()}, tag {tag}", WHO, path=rel, source="https://example.com/m"
        )
        if self.wrote(before, reply, allow_conflict=bool(self.pending[rel])):
            self.facts[fid] = (rel, tag)

    @rule(rel=st.sampled_from(FILES), data=st.data())
    def edit(self, rel: str, data: st.DataObject) -> None:
        entry = self.fact_entry(rel, data)
        if entry is None:
            return
        fid, tag = FID.search(entry["raw"]).group(1), self.new_tag()  # type: ignore[union-attr]
        before = self.head()
        reply = self.memory.edit("memory", rel, entry["line"], entry["hash"], TAG.sub(f"tag {tag}", entry["text"]), WHO)
        if self.wrote(before, reply, allow_conflict=bool(self.pending[rel])):
            assert reply.entry is not None and f"tag {tag}" in reply.entry.raw
            self.facts[fid] = (rel, tag)

    @rule(rel=st.sampled_from(FILES), data=st.data())
    def edit_from_an_earlier_read(self, rel: str, data: st.DataObject) -> None:
        """The snapshot's entry is found by its hash while its text is in the file once; else the
        reply is "stale" and nothing changes."""
        snap = [e for e in self.snapshots.get(rel, []) if (m := FID.search(e["raw"])) and m.group(1) in self.facts]
        if not snap:
            return
        entry = data.draw(st.sampled_from(snap))
        fid, tag = FID.search(entry["raw"]).group(1), self.new_tag()  # type: ignore[union-attr]
        now = (self.root / rel).read_text().splitlines()
        before, file_before = self.head(), (self.root / rel).read_bytes()
        reply = self.memory.edit("memory", rel, entry["line"], entry["hash"], TAG.sub(f"tag {tag}", entry["text"]), WHO)
        if now.count(entry["raw"]) != 1 or self.facts[fid][0] != rel:
            assert reply.status == "stale", (reply.status, reply.message)
            assert self.head() == before and (self.root / rel).read_bytes() == file_before
            assert reply.message.strip()
            return
        if self.wrote(before, reply, allow_conflict=bool(self.pending[rel])):
            self.facts[fid] = (rel, tag)

    @rule(rel=st.sampled_from(FILES), data=st.data())
    def edit_with_a_wrong_hash(self, rel: str, data: st.DataObject) -> None:
        entry = self.fact_entry(rel, data)
        if entry is None:
            return
        before, file_before = self.head(), (self.root / rel).read_bytes()
        wrong = entry_hash(entry["raw"] + " (as it was)")
        reply = self.memory.edit("memory", rel, entry["line"], wrong, "Anything at all, tag t999", WHO)
        assert reply.status == "stale" and reply.message.strip(), (reply.status, reply.message)
        assert reply.current is not None and reply.current.raw == entry["raw"]
        assert self.head() == before and (self.root / rel).read_bytes() == file_before

    @rule(rel=st.sampled_from(FILES), data=st.data())
    def forget(self, rel: str, data: st.DataObject) -> None:
        entry = self.fact_entry(rel, data)
        if entry is None:
            return
        fid = FID.search(entry["raw"]).group(1)  # type: ignore[union-attr]
        before = self.head()
        reply = self.memory.forget("memory", rel, entry["line"], entry["hash"], "the model says so", WHO)
        if self.wrote(before, reply, allow_conflict=bool(self.pending[rel])):
            del self.facts[fid]
            self.gone.add(fid)

    @rule(rel=st.sampled_from(FILES), data=st.data())
    def move(self, rel: str, data: st.DataObject) -> None:
        entry = self.fact_entry(rel, data)
        if entry is None:
            return
        fid = FID.search(entry["raw"]).group(1)  # type: ignore[union-attr]
        to = next(f for f in FILES if f != rel)
        before = self.head()
        reply = self.memory.move("memory", rel, entry["line"], entry["hash"], "memory", to, WHO)
        if self.wrote(before, reply, allow_conflict=bool(self.pending[rel] or self.pending[to])):
            self.facts[fid] = (to, self.facts[fid][1])

    # ---------------------------------------------------------------- a plain-git agent
    @precondition(lambda self: any(not self.pending[f] for f in FILES))
    @rule(data=st.data(), count=st.integers(1, 3))
    def agent_inserts_above(self, data: st.DataObject, count: int) -> None:
        rel = data.draw(st.sampled_from([f for f in FILES if not self.pending[f]]))
        lines = self.committed(rel).splitlines()
        new = []
        for _ in range(count):
            fid, tag = self.new_id("r"), self.new_tag()
            new.append(f"- Agent {fid} noted {self.words()}, tag {tag}")
            self.facts[fid] = (rel, tag)
        self.agent_commit(rel, "\n".join(lines[:2] + new + lines[2:]) + "\n", "agent: insert above")

    @precondition(lambda self: any(not self.pending[f] for f in FILES))
    @rule(data=st.data())
    def agent_rewords(self, data: st.DataObject) -> None:
        rel = data.draw(st.sampled_from([f for f in FILES if not self.pending[f]]))
        text = self.committed(rel)
        ids = [m.group(1) for m in FID.finditer(text) if self.facts.get(m.group(1), ("", ""))[0] == rel]
        if not ids:
            return
        fid, tag = data.draw(st.sampled_from(ids)), self.new_tag()
        lines = [
            TAG.sub(f"tag {tag}", ln) if FID.search(ln) and FID.search(ln).group(1) == fid else ln
            for ln in text.splitlines()
        ]  # type: ignore[union-attr]
        self.facts[fid] = (rel, tag)
        self.agent_commit(rel, "\n".join(lines) + "\n", "agent: reword")

    @precondition(lambda self: any(not self.pending[f] for f in FILES))
    @rule(data=st.data())
    def agent_appends(self, data: st.DataObject) -> None:
        rel = data.draw(st.sampled_from([f for f in FILES if not self.pending[f]]))
        fid, tag = self.new_id("r"), self.new_tag()
        self.facts[fid] = (rel, tag)
        self.agent_commit(
            rel, self.committed(rel) + f"- Agent {fid} appended {self.words()}, tag {tag}\n", "agent: append"
        )

    # ---------------------------------------------------------------- someone else's work tree edit
    @rule(rel=st.sampled_from(FILES))
    def person_edits_the_work_tree(self, rel: str) -> None:
        fid, tag = self.new_id("u"), self.new_tag()
        line = f"- Draft {fid} by another person {self.words()}, tag {tag}"
        with open(self.root / rel, "a") as f:
            f.write(line + "\n")
        self.pending[rel].append(line)

    @precondition(lambda self: any(self.pending.values()))
    @rule(data=st.data())
    def person_commits(self, data: st.DataObject) -> None:
        rel = data.draw(st.sampled_from([f for f in FILES if self.pending[f]]))
        git(self.root, "commit", "-q", "-m", "person: my drafts", "--", rel, env=USER_ENV)
        self.history.append(self.head())
        for line in self.pending[rel]:
            fid, tag = FID.search(line).group(1), TAG.search(line).group(1)  # type: ignore[union-attr]
            self.facts[fid] = (rel, tag)
        self.pending[rel] = []

    # ---------------------------------------------------------------- invariants
    @invariant()
    def head_holds_the_model(self) -> None:
        tree = {rel: self.committed(rel).splitlines() for rel in FILES}
        found: dict[str, list[tuple[str, str]]] = {}
        for rel, lines in tree.items():
            for ln in lines:
                m = FID.search(ln)
                if m:
                    t = TAG.search(ln)
                    found.setdefault(m.group(1), []).append((rel, t.group(1) if t else ""))
        for fid, where in self.facts.items():
            assert found.get(fid) == [where], (fid, where, found.get(fid))
        for fid in self.gone:
            assert fid not in found, fid
        pending_ids = {FID.search(ln).group(1) for ls in self.pending.values() for ln in ls}  # type: ignore[union-attr]
        assert set(found) <= set(self.facts) | pending_ids
        assert not (set(found) & pending_ids), "someone's uncommitted line was committed"

    @invariant()
    def uncommitted_lines_stay_in_the_work_tree(self) -> None:
        for rel, lines in self.pending.items():
            on_disk = (self.root / rel).read_text().splitlines()
            for line in lines:
                assert on_disk.count(line) == 1, (rel, line)

    @invariant()
    def the_branch_only_grows(self) -> None:
        head = self.head()
        assert head == self.history[-1]
        for oid in self.history[-3:]:
            subprocess.run(["git", "merge-base", "--is-ancestor", oid, head], cwd=self.root, check=True)


AgentVersusGit.TestCase.settings = settings(  # AMR_STATEFUL_EXAMPLES=200 for a long local run
    max_examples=int(os.environ.get("AMR_STATEFUL_EXAMPLES", "6")),
    stateful_step_count=int(os.environ.get("AMR_STATEFUL_STEPS", "14")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)

TestAgentVersusGit = AgentVersusGit.TestCase
