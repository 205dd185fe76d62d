"""Every entry-level write names the entry it writes, however plain-git agents race it (issue 24
point 1, issue 28 points 1 and 2).

A Hypothesis state machine over a real git repo and the real write paths: the agent interface
(``memory_edit``, ``memory_forget``, ``memory_move``) and the app's (``d`` delete, ``e`` edit,
``t`` date, ``m`` move, ``x`` forget: the session's editing functions and the history service the
app calls). Each write is made from a read taken earlier (the agent's ``memory_read``, the app's
open file), and a plain-git agent commits at random points: between the read and the write, and
inside the write, at one of the gate's steps before it takes ``index.lock``
(``gate.observe_steps``; a plain ``git commit`` cannot run while amr holds the lock). Another
process also leaves appended lines uncommitted in the same files.

Each fact holds a unique id. The model knows which facts HEAD must hold, in which file, with which
wording. After every write the entry changed is the one named (its id), or nothing was written;
every other fact is where the model says, once. Real git, no mocks.

The long run (2,000 steps): ``AMR_RACE_EXAMPLES=100 AMR_RACE_STEPS=20 pytest -m slow
tests/test_entry_writes_race.py -p no:randomly -s``.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from amr_tui.core.format.edit import set_metadata
from amr_tui.core.format.parser import parse
from amr_tui.git.gate import observe_steps
from amr_tui.services.agent.memory import AgentMemory, Writer
from amr_tui.services.history.forgotten import forget
from amr_tui.services.session import editing
from amr_tui.services.workspace import discover
from tests.test_agent_stateful import AGENT_ENV, git

FILES = ("c1.md", "c2.md")
FID = re.compile(r"\b(f\d+q)\b")
WHO = Writer("race-agent", "s1")
UNLOCKED_STEPS = ("head", "merged", "built")  # the gate's steps before it holds index.lock
OPS = ("mcp_edit", "mcp_forget", "mcp_move", "app_delete", "app_edit", "app_date", "app_move", "app_forget")
COUNTS: dict[str, int] = {}  # what the runs did, printed with -s


class EntryWritesRace(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="amr-race-"))
        self.root = self.tmp / "memory"
        self.root.mkdir()
        git(self.root, "init", "-q", "-b", "main")
        self.n = 0
        self.facts: dict[str, tuple[str, str]] = {}  # id -> (file, wording) HEAD must hold
        self.pending: dict[str, str] = {}  # id -> file: appended by another process, uncommitted
        self.pending_text: dict[str, str] = {}  # id -> its wording
        files = {"MEMORY.md": "# Memory\n\n## Index\n\n- [[c1]]: one\n- [[c2]]: two\n"}
        for rel in FILES:
            lines = [self.new_fact(rel) for _ in range(5)]
            files[rel] = f"# {rel}\n\n" + "".join(f"- {t}\n" for t in lines)
        for rel, text in files.items():
            (self.root / rel).write_text(text)
        git(self.root, "add", "--", *files)
        git(self.root, "commit", "-q", "-m", "Create memory repo")
        self.memory = AgentMemory(discover([self.root]))
        self.rng = random.Random(0)
        self.reads: dict[str, Any] = {}  # path -> (what the agent read, what the app opened)

    def teardown(self) -> None:
        self.memory.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # ------------------------------------------------------------------ helpers
    def new_fact(self, rel: str) -> str:
        self.n += 1
        fid = f"f{self.n}q"
        text = f"Fact {fid} says {random.Random(self.n).choice(['amber', 'basil', 'cedar'])} v0"
        self.facts[fid] = (rel, text)
        return text

    def head(self) -> str:
        return git(self.root, "rev-parse", "HEAD").strip()

    def committed(self, rel: str) -> str:
        return git(self.root, "show", f"HEAD:{rel}")

    def ids_in(self, text: str) -> list[str]:
        return [m.group(1) for ln in text.splitlines() if ln.startswith("- ") and (m := FID.search(ln))]

    def read_now(self, rel: str) -> None:
        self.memory.session.watch.poll()
        self.reads[rel] = (self.memory.read("memory", rel), self.memory.session.open("memory", rel))

    def agent_commit(self, rng: random.Random, avoid: str | None = None) -> None:
        """A plain-git agent changes one file in the work tree and commits it (``git add`` takes the
        other process's uncommitted lines in that file along: they are committed from then on)."""
        rel = rng.choice(FILES)
        path = self.root / rel
        lines = path.read_text().splitlines()
        bullets = [
            i
            for i, ln in enumerate(lines)
            if ln.startswith("- ") and (m := FID.search(ln)) and m.group(1) in self.facts
        ]
        kind = rng.choice(("insert", "insert", "delete", "reword"))
        if kind != "insert" and len(bullets) < 2:
            kind = "insert"
        if kind == "insert":
            at = rng.choice(bullets) if bullets else len(lines)
            lines.insert(at, "- " + self.new_fact(rel))
        else:
            i = rng.choice(bullets)
            fid = FID.search(lines[i]).group(1)  # type: ignore[union-attr]
            if kind == "delete":
                del lines[i]
                self.facts.pop(fid, None)
            else:
                old = self.facts.get(fid, (rel, lines[i][2:]))[1]
                n = int(old.rsplit(" v", 1)[1]) + 1 if " v" in old else 1
                new = f"{old.rsplit(' v', 1)[0]} v{n}"
                lines[i] = "- " + new
                self.facts[fid] = (rel, new)
            self.pending.pop(fid, None)
        path.write_text("\n".join(lines) + "\n")
        for fid, p in list(self.pending.items()):
            if p == rel:
                self.facts[fid] = (rel, self.pending_text[fid])
                del self.pending[fid]
        git(self.root, "add", "--", rel)
        git(self.root, "commit", "-q", "-m", f"agent {kind} in {rel}", env=AGENT_ENV)

    # ------------------------------------------------------------------ rules
    @rule(data=st.data())
    def read(self, data: st.DataObject) -> None:
        self.read_now(data.draw(st.sampled_from(FILES)))

    @rule(seed=st.integers(0, 10**6))
    def plain_agent_commits(self, seed: int) -> None:
        self.agent_commit(random.Random(seed))

    @rule(data=st.data())
    def other_process_appends_uncommitted(self, data: st.DataObject) -> None:
        rel = data.draw(st.sampled_from(FILES))
        self.n += 1
        fid = f"f{self.n}q"
        text = f"Pending {fid} from another process"
        with (self.root / rel).open("a") as f:
            f.write(f"- {text}\n")
        self.pending_text[fid] = text
        self.pending[fid] = rel

    @rule(
        data=st.data(),
        op=st.sampled_from(OPS),
        race=st.sampled_from((None, *UNLOCKED_STEPS)),
        before=st.booleans(),
        seed=st.integers(0, 10**6),
    )
    def write(self, data: st.DataObject, op: str, race: str | None, before: bool, seed: int) -> None:
        rel = data.draw(st.sampled_from(FILES))
        if rel not in self.reads:
            self.read_now(rel)
        read, of = self.reads.pop(rel)
        entries = [e for e in read.entries if FID.search(e.raw) and FID.search(e.raw).group(1) in self.facts]  # type: ignore[union-attr]
        if not entries:
            return
        target = data.draw(st.sampled_from(entries))
        fid = FID.search(target.raw).group(1)  # type: ignore[union-attr]
        named = target.text  # the wording the writer saw
        rng = random.Random(seed)
        if before:
            self.agent_commit(rng)  # between the read and the write
        fired = {"done": False}

        def hook(step: str) -> None:
            if step == race and not fired["done"]:
                fired["done"] = True
                self.agent_commit(rng)

        other = FILES[1 - FILES.index(rel)]
        new_text = f"Fact {fid} edited by amr {seed}"
        head0 = self.head()
        expect_same = self.facts.get(fid, ("", ""))[1] == named.removeprefix("- ")
        with observe_steps(hook):
            ok = self.run_op(op, rel, other, target, of, new_text)
        COUNTS[op] = COUNTS.get(op, 0) + 1
        COUNTS["written" if ok else "refused"] = COUNTS.get("written" if ok else "refused", 0) + 1
        now_same = self.facts.get(fid, ("", ""))[1] == named.removeprefix("- ")
        if not ok:
            # Nothing of amr's was committed: HEAD holds only what the agent committed meanwhile.
            assert git(self.root, "log", "--format=%ae", f"{head0}..HEAD").split() == ["plain@agent.test"] * len(
                git(self.root, "log", "--format=%H", f"{head0}..HEAD").split()
            )
            return
        # The entry written is the entry named, as named: had the agent changed it, amr refuses.
        assert expect_same and now_same, (op, fid, named, self.facts.get(fid))
        if op in ("mcp_edit", "app_edit", "app_date"):
            wording = new_text if op != "app_date" else None
            text = self.committed(rel)
            mine = [ln for ln in text.splitlines() if FID.search(ln) and FID.search(ln).group(1) == fid]  # type: ignore[union-attr]
            assert len(mine) == 1, (op, fid, text)
            if wording is not None:
                assert mine[0].startswith(f"- {wording}"), (mine, wording)
                self.facts[fid] = (rel, parse((mine[0] + "\n").encode(), rel).entries[0].text)
            else:
                assert "added:" in mine[0] and mine[0].startswith(target.raw.split(" [")[0]), (mine, target.raw)
                self.facts[fid] = (rel, parse((mine[0] + "\n").encode(), rel).entries[0].text)
        elif op in ("mcp_forget", "app_forget", "app_delete"):
            assert fid not in self.ids_in(self.committed(rel)), (op, fid)
            del self.facts[fid]
        else:  # a move
            assert fid not in self.ids_in(self.committed(rel)), (op, fid)
            assert self.ids_in(self.committed(other)).count(fid) == 1, (op, fid)
            self.facts[fid] = (other, self.facts[fid][1])
            assert head0 != self.head()
            if op == "app_move":  # one commit within one repo (issue 24 point 6)
                assert git(self.root, "log", "-1", "--format=%s").startswith("Move entry from")

    def run_op(self, op: str, rel: str, other: str, target: Any, of: Any, new_text: str) -> bool:
        session = self.memory.session
        if op == "mcp_edit":
            return self.memory.edit("memory", rel, target.line, target.hash, new_text, WHO).status == "written"
        if op == "mcp_forget":
            reply = self.memory.forget("memory", rel, target.line, target.hash, "race", WHO)
            return reply.status == "written"
        if op == "mcp_move":
            return self.memory.move("memory", rel, target.line, target.hash, "memory", other, WHO).status == "written"
        try:
            if op == "app_delete":
                return editing.delete_entry(session, of, target.line).committed
            if op == "app_edit":
                return editing.replace_entry_line(session, of, target.line, f"- {new_text}").committed
            if op == "app_date":
                entry = of.doc.entry_at(target.line)
                new = set_metadata(target.raw, entry, "added", "2026-12-02")
                if new == target.raw:
                    return False
                return editing.replace_entry_line(session, of, target.line, new).committed
            if op == "app_move":
                return editing.move_entry(session, of, target.line, "memory", other)[-1].committed
            if op == "app_forget":
                forget(session.history("memory"), rel, target.line, raw=target.raw, reason="race")
                return True
        except (editing.EditRefused, editing.AmrGitError, LookupError):
            return False
        raise AssertionError(op)

    # ------------------------------------------------------------------ invariants
    @invariant()
    def head_holds_each_fact_once_where_the_model_says(self) -> None:
        seen: dict[str, str] = {}
        for rel in FILES:
            for fid in self.ids_in(self.committed(rel)):
                assert fid not in seen, f"{fid} twice in HEAD ({seen[fid]} and {rel})"
                seen[fid] = rel
        for fid, (rel, _text) in self.facts.items():
            assert seen.get(fid) == rel, (fid, rel, seen.get(fid))
        for fid in seen:
            assert fid in self.facts, f"{fid} is in HEAD but was removed"

    @invariant()
    def uncommitted_lines_stay_uncommitted_in_the_work_tree(self) -> None:
        for fid, rel in self.pending.items():
            assert fid not in self.ids_in(self.committed(rel)), f"amr committed {fid}, another process's line"
            assert fid in self.ids_in((self.root / rel).read_text()), f"{fid} was lost from the work tree"


def _settings(examples: int, steps: int) -> settings:
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=os.environ.get("AMR_RACE_SEED") is None,
    )


@pytest.mark.slow
def test_entry_writes_name_their_entry_under_races() -> None:
    EntryWritesRace.TestCase.settings = _settings(6, 12)
    EntryWritesRace.TestCase().runTest()


@pytest.mark.slow
def test_entry_writes_name_their_entry_under_races_long() -> None:
    examples = int(os.environ.get("AMR_RACE_EXAMPLES", "25"))
    steps = int(os.environ.get("AMR_RACE_STEPS", "20"))
    COUNTS.clear()
    EntryWritesRace.TestCase.settings = _settings(examples, steps)
    EntryWritesRace.TestCase().runTest()
    print("entry-write race:", examples, "examples x", steps, "steps;", dict(sorted(COUNTS.items())))
