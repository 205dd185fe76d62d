"""Every kind of write amr makes, raced by agents at random points (issue 38 point 1).

A Hypothesis state machine over one real git repo and the real services. Its steps are amr's
writes, one kind each (``KINDS``: an entry save, new/rename/delete file, forget, restore, undo,
a dreaming run accepted and its accept undone, a conflict resolved, ``.gitattributes``, a whole-file
save (``E``, ``$EDITOR``), an entry moved to another file (``m``),
``lint --fix``, ``U`` (commit others' changes), and the agent interface's remember, edit, forget
and move). Before a write, other writers may move: a plain-git agent commits a new fact, another
process appends a line it leaves uncommitted. During each write a hook on the write gate's steps
(``gate.observe_steps``) lets one of them act at a random step: a plain-git commit before the
gate takes ``index.lock`` (``git commit`` cannot run while it is held), an appended line at any
step, under the lock too.

After every step, whatever the write answered (written, or refused):

* every commit an agent made is in HEAD's history (nothing is dropped);
* no line another process left uncommitted is in HEAD (amr never sweeps one into its commit),
  unless a plain-git agent or ``U`` committed it; each one is still in its file on disk, once;
* the work tree is HEAD plus those uncommitted lines, and the index is HEAD: no write is left
  half done (a file changed and not committed, or staged), and no file is left behind except one
  that keeps someone's uncommitted lines;
* a refused write committed nothing: the commits since are the agents'.

(Sharing's write-back, another kind in issue 38, had no caller and was removed.)

Steps: ``AMR_GATE_RACE_EXAMPLES`` x ``AMR_GATE_RACE_STEPS`` (the slow tier: 6 x 20). The long
run of the issue: ``AMR_GATE_RACE_EXAMPLES=100 AMR_GATE_RACE_STEPS=25 pytest -m slow
tests/test_gate_race.py -p no:randomly -s`` (2,500 steps).
"""

from __future__ import annotations

import os
import random
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from amr_tui.core.merge.parts import OURS, THEIRS
from amr_tui.core.merge.resolution import ConflictChoice
from amr_tui.git import GitRepo
from amr_tui.git.errors import AmrGitError, ConflictError
from amr_tui.git.gate import STEPS, observe_steps
from amr_tui.services import writegate
from amr_tui.services.agent.memory import AgentMemory, Writer
from amr_tui.services.dreams.model import DreamError
from amr_tui.services.history.forgotten import forget, restore
from amr_tui.services.lint.fix import FixRefusedError, fix_repo
from amr_tui.services.session import editing
from amr_tui.services.session.session import OpenFile, Session
from amr_tui.services.sync.gitattrs import install_merge_driver
from amr_tui.services.undo import last_amr_write, undo
from amr_tui.services.workspace import discover
from tests.test_agent_stateful import AGENT_ENV, git

REPO = "memory"
FILES = ("c1.md", "c2.md")  # the files agents commit to and amr edits entries of
FID = re.compile(r"\b([fp]\d+q)\b")
PENDING = "- Pending {} from another process"
UNLOCKED = ("head", "merged", "built")  # the gate's steps before index.lock
WHO = Writer("race-agent", "s1")
KINDS = (
    "entry_save",
    "new_file",
    "rename_file",
    "delete_file",
    "forget",
    "restore",
    "undo",
    "dream_accept",
    "dream_undo",
    "conflict",
    "gitattributes",
    "lint_fix",
    "commit_foreign",
    "mcp_remember",
    "mcp_edit",
    "mcp_forget",
    "mcp_move",
    "whole_file",
    "move_entry",
)
DREAM_ENV = {"GIT_AUTHOR_NAME": "Dreamer", "GIT_AUTHOR_EMAIL": "dream@agent.test"}
COUNTS: dict[str, int] = {}
REFUSED = (
    editing.EditRefused,
    AmrGitError,
    LookupError,
    ValueError,
    DreamError,
    FixRefusedError,
)


def _count(key: str) -> None:
    COUNTS[key] = COUNTS.get(key, 0) + 1


class GateRace(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="amr-gate-race-"))
        self.root = self.tmp / REPO
        self.root.mkdir()
        git(self.root, "init", "-q", "-b", "main")
        self.n = 0
        files = {"MEMORY.md": "# Memory\n\n- The team ships on Fridays\n\n## Index\n\n- [[c1]]\n- [[c2]]\n"}
        for rel in FILES:
            files[rel] = f"# {rel}\n\n" + "".join(f"- {self.fact()}\n" for _ in range(4))
        for rel, text in files.items():
            (self.root / rel).write_text(text)
        git(self.root, "add", "--", *files)
        git(self.root, "commit", "-q", "-m", "Create memory repo")
        self.session = Session(discover([self.root]))
        self.session.scan()
        self.memory = AgentMemory(discover([self.root]))
        self.repo = GitRepo(self.root)
        self.agent_commits: set[str] = set()
        self.pending: dict[str, str] = {}  # id -> the file it was appended to (uncommitted)
        self.new_files = 0
        self.runs = 0
        self.accepted: list[str] = []
        self.rng = random.Random(0)

    def teardown(self) -> None:
        self.memory.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # ------------------------------------------------------------------ the other writers
    def fact(self) -> str:
        self.n += 1
        return f"Fact f{self.n}q says {random.Random(self.n).choice(['amber', 'basil', 'cedar'])}"

    def head(self) -> str:
        return git(self.root, "rev-parse", "HEAD").strip()

    def committed(self, rel: str) -> str | None:
        data = self.repo.read_blob_or_none(self.head(), rel)
        return data.decode() if data is not None else None

    def tracked(self) -> list[str]:
        return git(self.root, "ls-tree", "-r", "--name-only", "HEAD").split()

    def agent_commit(self, rng: random.Random, rel: str | None = None, line: str | None = None) -> None:
        """A plain-git agent adds a line to a file and commits that file (``git add`` takes
        another process's uncommitted lines in it along: committed from then on)."""
        rel = rel or rng.choice(FILES)
        path = self.root / rel
        if not path.exists() or rel not in self.tracked():
            return
        lines = path.read_text().splitlines()
        at = rng.randrange(2, len(lines) + 1) if len(lines) > 2 else len(lines)
        lines.insert(at, line or f"- {self.fact()}")
        path.write_text("\n".join(lines) + "\n")
        for pid, where in list(self.pending.items()):
            if where == rel:
                del self.pending[pid]
        git(self.root, "add", "--", rel)
        git(self.root, "commit", "-q", "-m", f"agent: a line in {rel}", env=AGENT_ENV)
        self.agent_commits.add(self.head())
        _count("agent_commits")

    def append_uncommitted(self, rng: random.Random) -> None:
        """Another process appends a line to a file and leaves it uncommitted."""
        choices = [p for p in (*FILES, "MEMORY.md", *self.n_files()) if (self.root / p).is_file()]
        rel = rng.choice(choices)
        self.n += 1
        pid = f"p{self.n}q"
        with open(self.root / rel, "a") as f:
            f.write(PENDING.format(pid) + "\n")
        self.pending[pid] = rel
        _count("appended")

    def n_files(self) -> list[str]:
        return sorted(p for p in self.tracked() if re.fullmatch(r"n\d+\.md", p))

    def committed_facts(self, rel: str) -> list[str]:
        text = self.committed(rel) or ""
        return [
            m.group(1)
            for ln in text.splitlines()
            if ln.startswith("- ") and (m := FID.search(ln)) and m.group(1)[0] == "f"
        ]

    # ------------------------------------------------------------------ rules
    @rule(
        kind=st.sampled_from(KINDS),
        race=st.sampled_from((None, *STEPS)),
        before=st.sampled_from(("none", "commit", "append", "both")),
        seed=st.integers(0, 10**6),
    )
    def amr_writes(self, kind: str, race: str | None, before: str, seed: int) -> None:
        """One write of amr's, after other writers moved (``before``) and raced at ``race``."""
        rng = random.Random(seed)
        if before in ("commit", "both"):
            self.agent_commit(rng)
        if before in ("append", "both"):
            self.append_uncommitted(rng)
        fired = {"done": False}

        def hook(step: str) -> None:
            if step != race or fired["done"]:
                return
            fired["done"] = True
            if step in UNLOCKED and rng.random() < 0.6:
                self.agent_commit(rng)
            else:
                self.append_uncommitted(rng)

        head0 = self.head()
        self.session.watch.poll()
        before = dict(self.pending)
        try:
            with observe_steps(hook):
                written = getattr(self, f"do_{kind}")(rng)
        except REFUSED as exc:
            written = False
            _count(f"{kind}:refused:{type(exc).__name__}")
            if os.environ.get("AMR_GATE_RACE_VERBOSE"):
                print(f"{kind} refused: {exc}")
        _count("steps")
        _count(f"{kind}:{'written' if written else 'refused'}")
        if fired["done"]:
            _count("raced")
        self.settle(kind, written, head0, before)

    # ------------------------------------------------------------------ the kinds
    def pick_entry(self, rng: random.Random) -> tuple[OpenFile, int, str] | None:
        """One of the files, as the app shows it, and a committed fact's line in it: (file, line, raw)."""
        rel = rng.choice(FILES)
        of = self.session.open(REPO, rel)
        if of.doc is None:
            return None
        ids = set(self.committed_facts(rel))
        found = [
            (e.line, of.doc.lines[e.line - 1].text)
            for e in of.doc.entries
            if (m := FID.search(e.text)) and m.group(1) in ids
        ]
        if not found:
            return None
        line, raw = rng.choice(found)
        return of, line, raw

    def do_entry_save(self, rng: random.Random) -> bool:
        picked = self.pick_entry(rng)
        if picked is None:
            return False
        of, line, raw = picked
        fid = FID.search(raw).group(1)  # type: ignore[union-attr]
        return editing.replace_entry_line(self.session, of, line, f"- Fact {fid} saved by amr").committed

    def do_whole_file(self, rng: random.Random) -> bool:
        """The whole-file editor (``E``) and ``$EDITOR``: the file as amr read it, one entry
        reworded anywhere in it, saved whole."""
        picked = self.pick_entry(rng)
        if picked is None:
            return False
        of, line, raw = picked
        rel = of.path
        fid = FID.search(raw).group(1)  # type: ignore[union-attr]
        lines = (of.data or b"").decode().split("\n")
        lines[line - 1] = f"- Fact {fid} edited whole by amr"
        return editing.write(self.session, of, "\n".join(lines).encode(), f"Edit {rel}").committed

    def do_move_entry(self, rng: random.Random) -> bool:
        """The app's ``m``: an entry moved to the other file, one commit."""
        picked = self.pick_entry(rng)
        if picked is None:
            return False
        of, line, raw = picked
        rel = of.path
        saved = editing.move_entry(self.session, of, line, REPO, FILES[1 - FILES.index(rel)])
        return any(s.committed for s in saved)

    def do_new_file(self, rng: random.Random) -> bool:
        self.new_files += 1
        return editing.create_file(self.session, REPO, f"n{self.new_files}.md").committed

    def do_rename_file(self, rng: random.Random) -> bool:
        files = self.n_files()
        if not files:
            return False
        self.new_files += 1
        return editing.rename_file(self.session, REPO, rng.choice(files), f"n{self.new_files}.md")[0].committed

    def do_delete_file(self, rng: random.Random) -> bool:
        files = self.n_files()
        if not files:
            return False
        rel = rng.choice(files)
        seen = {pid for pid, where in self.pending.items() if where == rel}
        done = editing.delete_file(self.session, REPO, rel).committed
        if done:
            for pid in seen:  # the user deleted the file as shown, those lines with it
                self.pending.pop(pid, None)
        return done

    def do_forget(self, rng: random.Random) -> bool:
        picked = self.pick_entry(rng)
        if picked is None:
            return False
        of, line, raw = picked
        rel = of.path
        forget(self.session.history(REPO), rel, line, raw=raw, reason="race", target=self.session)
        return True

    def do_restore(self, rng: random.Random) -> bool:
        service = self.session.history(REPO)
        facts = [f for f in service.forgotten() if f.line is not None and f.path in FILES]
        if not facts:
            return False
        restore(service, rng.choice(facts), target=self.session)
        return True

    def do_undo(self, rng: random.Random) -> bool:
        return undo(self.session, REPO, last_amr_write(self.session, REPO).oid).committed

    def do_dream_accept(self, rng: random.Random) -> bool:
        self.runs += 1
        rid = f"r{self.runs}"
        head = self.head()
        rel = rng.choice(FILES)
        text = self.committed(rel) or ""
        git(self.root, "branch", f"dreams/{rid}", head)
        lines = text.splitlines(keepends=True)
        lines.insert(min(2, len(lines)), f"- {self.fact()} (dreamed)\n")  # first in the file: far from appends
        self.repo.commit_changes(
            {rel: "".join(lines).encode()},
            "dream: one more fact",
            head,
            f"dreams/{rid}",
            env={**AGENT_ENV, **DREAM_ENV},
        )
        if rng.random() < 0.5:
            self.agent_commit(rng)  # main moves on before the review: the accept is a commit
        self.session.dreams(REPO).accept(rid)
        self.accepted.append(rid)
        return True

    def do_dream_undo(self, rng: random.Random) -> bool:
        if not self.accepted:
            return False
        self.session.dreams(REPO).undo(self.accepted.pop())
        return True

    def do_conflict(self, rng: random.Random) -> bool:
        picked = self.pick_entry(rng)
        if picked is None:
            return False
        of, line, raw = picked
        rel = of.path
        fid = FID.search(raw).group(1)  # type: ignore[union-attr]
        path = self.root / rel  # a plain-git agent rewords that entry meanwhile
        path.write_text(path.read_text().replace(raw + "\n", f"- Fact {fid} reworded by an agent\n", 1))
        for pid, where in list(self.pending.items()):
            if where == rel:
                del self.pending[pid]
        git(self.root, "add", "--", rel)
        git(self.root, "commit", "-q", "-m", "agent: reword", env=AGENT_ENV)
        self.agent_commits.add(self.head())
        try:
            editing.replace_entry_line(self.session, of, line, f"- Fact {fid} saved by amr over it")
            return True  # merged (the gate found no overlap)
        except ConflictError as err:
            choice = ConflictChoice(rng.choice((OURS, THEIRS)))
            return editing.resolve_conflict(self.session, REPO, err, choice).committed

    def do_gitattributes(self, rng: random.Random) -> bool:
        attrs = self.committed(".gitattributes")
        if attrs:  # an agent takes amr's line out again, so there is something to write
            (self.root / ".gitattributes").write_text("")
            git(self.root, "add", "--", ".gitattributes")
            git(self.root, "commit", "-q", "-m", "agent: no attributes", env=AGENT_ENV)
            self.agent_commits.add(self.head())
        return install_merge_driver(self.root).commit is not None

    def do_lint_fix(self, rng: random.Random) -> bool:
        self.agent_commit(rng, line=f"* {self.fact()} (a star bullet)")  # something to fix
        (mount,) = discover([self.root])
        return fix_repo(mount).commit is not None

    def do_commit_foreign(self, rng: random.Random) -> bool:
        if not writegate.foreign_changes(self.session, REPO):
            return False
        return writegate.commit_foreign(self.session, REPO).committed

    def mcp_entry(self, rng: random.Random) -> tuple[str, object] | None:
        rel = rng.choice(FILES)
        ids = set(self.committed_facts(rel))
        read = self.memory.read(REPO, rel)
        found = [e for e in read.entries if (m := FID.search(e.raw)) and m.group(1) in ids]
        return (rel, rng.choice(found)) if found else None

    def do_mcp_remember(self, rng: random.Random) -> bool:
        reply = self.memory.remember(f"{self.fact()} (remembered)", WHO, repo=REPO, path=rng.choice(FILES))
        return reply.status == "written"

    def do_mcp_edit(self, rng: random.Random) -> bool:
        got = self.mcp_entry(rng)
        if got is None:
            return False
        rel, e = got
        fid = FID.search(e.raw).group(1)  # type: ignore[attr-defined,union-attr]
        reply = self.memory.edit(REPO, rel, e.line, e.hash, f"Fact {fid} edited by an agent", WHO)  # type: ignore[attr-defined]
        return reply.status == "written"

    def do_mcp_forget(self, rng: random.Random) -> bool:
        got = self.mcp_entry(rng)
        if got is None:
            return False
        rel, e = got
        return self.memory.forget(REPO, rel, e.line, e.hash, "race", WHO).status == "written"  # type: ignore[attr-defined]

    def do_mcp_move(self, rng: random.Random) -> bool:
        got = self.mcp_entry(rng)
        if got is None:
            return False
        rel, e = got
        other = FILES[1 - FILES.index(rel)]
        return self.memory.move(REPO, rel, e.line, e.hash, REPO, other, WHO).status == "written"  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ after each write
    def settle(self, kind: str, written: bool, head0: str, before: dict[str, str]) -> None:
        """Lines ``U`` committed leave the pending set; a refused write committed nothing."""
        committed_text = {rel: self.committed(rel) or "" for rel in set(self.pending.values())}
        for pid, rel in list(self.pending.items()):
            if pid in committed_text.get(rel, "") and kind == "commit_foreign":
                del self.pending[pid]  # U committed it, as asked
        if not written:
            authors = git(self.root, "log", "--first-parent", "--format=%ae", f"{head0}..HEAD").split()
            assert set(authors) <= {"plain@agent.test"}, (kind, authors)

    @invariant()
    def no_agent_commit_is_lost(self) -> None:
        history = set(git(self.root, "rev-list", "HEAD").split())
        lost = self.agent_commits - history
        assert not lost, f"agent commits dropped: {sorted(lost)}"

    @invariant()
    def the_work_tree_is_head_plus_the_uncommitted_lines(self) -> None:
        tracked = set(self.tracked())
        pending_lines = {PENDING.format(pid): rel for pid, rel in self.pending.items()}
        head_text = "".join(self.committed(rel) or "" for rel in tracked)
        for pid, rel in self.pending.items():
            assert pid not in head_text, f"{pid}, left uncommitted in {rel} by another process, is in HEAD"
            on_disk = (self.root / rel).read_text().splitlines() if (self.root / rel).is_file() else []
            assert on_disk.count(PENDING.format(pid)) == 1, f"{pid} lost from {rel} (or doubled)"
        for rel in tracked:
            path = self.root / rel
            assert path.is_file(), f"{rel} is committed but missing from the work tree"
            kept = [ln for ln in path.read_text().splitlines(keepends=True) if ln.rstrip("\n") not in pending_lines]
            assert "".join(kept) == self.committed(rel), f"{rel}: the work tree is not HEAD plus the pending lines"
        assert git(self.root, "diff", "--cached", "--name-only") == "", "the index stages something HEAD lacks"
        for rel in git(self.root, "ls-files", "--others", "--exclude-standard").split():
            text = (self.root / rel).read_text()
            assert any(line in text for line in pending_lines), f"{rel} left behind, untracked"


def _settings(examples: int, steps: int) -> settings:
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=os.environ.get("AMR_RACE_SEED") is None,
    )


@pytest.mark.slow
def test_every_write_kind_keeps_the_gates_promises_under_races() -> None:
    examples = int(os.environ.get("AMR_GATE_RACE_EXAMPLES", "6"))
    steps = int(os.environ.get("AMR_GATE_RACE_STEPS", "20"))
    COUNTS.clear()
    GateRace.TestCase.settings = _settings(examples, steps)
    GateRace.TestCase().runTest()
    print("gate race:", examples, "examples x", steps, "steps;", dict(sorted(COUNTS.items())))
    if examples * steps >= 1000:  # a long run reaches every kind, written, at least once
        missing = [k for k in KINDS if not COUNTS.get(f"{k}:written")]
        assert not missing, f"kinds never written: {missing}"
