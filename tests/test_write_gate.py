"""The write gate (amr_tui.git.gate): merges onto what is committed, never sweeps someone else's
uncommitted change into amr's commit, and never loses a byte written to the file while it works.

Every test runs real git in a temp repo; the "agent" is plain file writes and plain git.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amr_tui.git import GitRepo
from amr_tui.git.errors import ConflictError
from amr_tui.git.gate import STEPS, Change, commit_files
from tests.conftest import git

BASE = b"# Memory\n\n- Use npm for the website [added: 2026-09-01]\n- Deploy with fly\n\n## Index\n"


def _show(root: Path, rev: str, path: str) -> bytes:
    return git(root, "show", f"{rev}:{path}").encode()


def _status(root: Path) -> str:
    return git(root, "status", "--porcelain")


def test_a_change_based_on_an_old_version_keeps_the_agents_commit(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    (root / "MEMORY.md").write_bytes(BASE + b"- Agent fact\n")
    git(root, "commit", "-qam", "agent")
    want = BASE.replace(b"Deploy with fly", b"Deploy with fly.io")
    res = commit_files(repo, [Change("MEMORY.md", BASE, want)], "Edit")
    final = _show(root, "HEAD", "MEMORY.md")
    assert b"fly.io" in final and b"Agent fact" in final
    assert res.merged == ("MEMORY.md",)
    assert _status(root) == ""


def test_the_same_entry_changed_on_both_sides_is_a_conflict_not_a_revert(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    head = git(root, "rev-parse", "HEAD").strip()
    (root / "MEMORY.md").write_bytes(BASE.replace(b"npm", b"npm and yarn"))
    git(root, "commit", "-qam", "agent: yarn too")
    want = BASE.replace(b"- Use npm", b"- Always use npm")
    with pytest.raises(ConflictError):
        commit_files(repo, [Change("MEMORY.md", BASE, want)], "Edit")
    assert git(root, "rev-parse", "HEAD~1").strip() == head
    assert b"npm and yarn" in (root / "MEMORY.md").read_bytes()


def test_someone_elses_uncommitted_line_stays_out_of_the_commit_and_in_the_file(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    dirty = BASE.replace(b"## Index\n", b"## Index\n") + b"- Uncommitted agent line\n"
    (root / "MEMORY.md").write_bytes(dirty)
    want = dirty.replace(b"Deploy with fly", b"Deploy with fly [added: 2026-12-01]")  # the user saw the dirty file
    res = commit_files(repo, [Change("MEMORY.md", dirty, want)], "Date an entry")
    committed = _show(root, "HEAD", "MEMORY.md")
    assert b"added: 2026-12-01" in committed
    assert b"Uncommitted agent line" not in committed
    on_disk = (root / "MEMORY.md").read_bytes()
    assert b"Uncommitted agent line" in on_disk and b"added: 2026-12-01" in on_disk
    assert res.foreign == ("MEMORY.md",)
    assert _status(root).strip() == "M MEMORY.md"  # only the agent's line is left uncommitted


def test_a_foreign_staged_change_stays_staged(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    (root / "MEMORY.md").write_bytes(BASE + b"- Staged by an agent\n")
    git(root, "add", "MEMORY.md")
    want = BASE.replace(b"fly", b"fly.io")
    commit_files(repo, [Change("MEMORY.md", BASE, want)], "Edit")
    assert b"Staged by an agent" not in _show(root, "HEAD", "MEMORY.md")
    staged = git(root, "show", ":MEMORY.md").encode()
    assert b"Staged by an agent" in staged and b"fly.io" in staged


def _outside_writer(root: Path, how: str, counter: list[int]):
    """A write from outside the gate, by path, the way agents write files."""

    def write(step: str) -> None:
        counter[0] += 1
        line = f"- outside write {counter[0]} at {step}\n".encode()
        path = root / "MEMORY.md"
        if how == "append":
            with open(path, "ab") as f:
                f.write(line)
        else:  # read, write a temp file, rename it over (editors and many agents)
            data = path.read_bytes()
            tmp = root / f".agent-tmp-{counter[0]}"
            tmp.write_bytes(data + line)
            os.replace(tmp, path)

    return write


@pytest.mark.parametrize("how", ["append", "rename"])
@pytest.mark.parametrize("at", STEPS)
def test_no_write_from_outside_is_lost_at_any_step(make_repo, at: str, how: str) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    counter = [0]
    writer = _outside_writer(root, how, counter)
    fired: list[str] = []

    def probe(step: str) -> None:
        if step == at and not fired:
            fired.append(step)
            writer(step)

    want = BASE.replace(b"Deploy with fly", b"Deploy with fly.io")
    commit_files(repo, [Change("MEMORY.md", BASE, want)], "Edit", probe=probe)
    assert fired == [at]
    on_disk = (root / "MEMORY.md").read_bytes()
    committed = _show(root, "HEAD", "MEMORY.md")
    assert f"outside write 1 at {at}".encode() in on_disk, on_disk
    assert b"fly.io" in on_disk and b"fly.io" in committed
    assert b"outside write" not in committed


@pytest.mark.parametrize("at", ["head", "merged", "built"])
def test_an_agent_commit_at_any_step_before_the_lock_is_kept(make_repo, at: str) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    fired: list[str] = []

    def probe(step: str) -> None:
        if step == at and not fired:
            fired.append(step)
            with open(root / "MEMORY.md", "ab") as f:
                f.write(b"- agent committed this\n")
            git(root, "commit", "-qam", "agent")

    want = BASE.replace(b"Deploy with fly", b"Deploy with fly.io")
    commit_files(repo, [Change("MEMORY.md", BASE, want)], "Edit", probe=probe)
    committed = _show(root, "HEAD", "MEMORY.md")
    assert b"agent committed this" in committed and b"fly.io" in committed
    assert _status(root) == ""
    assert "agent" in git(root, "log", "--format=%s", "-3")


def test_deleting_a_file_someone_is_editing_keeps_their_text(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode(), "notes.md": "# Notes\n\n- one\n"})
    repo = GitRepo(root)
    (root / "notes.md").write_bytes(b"# Notes\n\n- one\n- uncommitted two\n")
    commit_files(repo, [Change("notes.md", b"# Notes\n\n- one\n", None)], "Delete notes.md")
    assert "notes.md" not in git(root, "ls-files")
    assert b"uncommitted two" in (root / "notes.md").read_bytes()


def test_a_branch_that_is_not_checked_out_moves_without_touching_the_work_tree(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    git(root, "branch", "side")
    (root / "MEMORY.md").write_bytes(BASE + b"- dirty\n")
    res = commit_files(repo, [Change("MEMORY.md", BASE, BASE + b"- on side\n")], "Side", branch="side")
    assert b"on side" in _show(root, "side", "MEMORY.md")
    assert (root / "MEMORY.md").read_bytes() == BASE + b"- dirty\n"
    assert res.committed


def test_editing_a_line_someone_left_uncommitted_commits_the_users_line(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    read_at = git(root, "rev-parse", "HEAD").strip()
    dirty = BASE + b"- Uncommitted agent fact\n"
    (root / "MEMORY.md").write_bytes(dirty)
    want = dirty.replace(b"Uncommitted agent fact", b"Agent fact, corrected by the user")
    commit_files(repo, [Change("MEMORY.md", dirty, want, read_at)], "Edit")
    committed = _show(root, "HEAD", "MEMORY.md")
    assert b"corrected by the user" in committed and b"Uncommitted agent fact" not in committed
    assert _status(root) == ""


def test_deleting_a_line_the_agent_committed_after_the_user_read_it_deletes_it(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": BASE.decode()})
    repo = GitRepo(root)
    read_at = git(root, "rev-parse", "HEAD").strip()
    dirty = BASE + b"- Agent fact\n"
    (root / "MEMORY.md").write_bytes(dirty)
    git(root, "commit", "-qam", "agent")  # committed after the user opened the file
    want = BASE  # the user deleted the agent's line
    commit_files(repo, [Change("MEMORY.md", dirty, want, read_at)], "Remove entry")
    assert b"Agent fact" not in _show(root, "HEAD", "MEMORY.md")
    assert _status(root) == ""


def _facts(ids_values) -> bytes:
    return (
        "# Memory\n\n" + "".join(f"- fact {i} {v}\n" for i, v in ids_values) + "\n## Index\n- [[notes/a]]\n"
    ).encode()


def test_editing_an_uncommitted_line_keeps_a_committed_fact_an_uncommitted_move_displaced(make_repo) -> None:
    # HEAD holds facts 0..5. An agent's uncommitted edit moved fact 5 above fact 4 and added
    # fact 60; the user edits fact 60. The merge pairs the moved fact 5 with the edited line:
    # resolving that as the user's side deleted committed fact 5 from HEAD.
    committed = _facts((i, "s0") for i in range(6))
    root = make_repo(files={"MEMORY.md": committed})
    repo = GitRepo(root)
    read_at = git(root, "rev-parse", "HEAD").strip()
    dirty = _facts([*((i, "s0") for i in (0, 1, 2, 3, 5, 4)), (60, "draft")])
    (root / "MEMORY.md").write_bytes(dirty)
    want = dirty.replace(b"- fact 60 draft", b"- fact 60 u1")
    commit_files(repo, [Change("MEMORY.md", dirty, want, read_at)], "Edit")
    head = _show(root, "HEAD", "MEMORY.md")
    for i in range(6):
        assert f"- fact {i} s0\n".encode() in head, head
    assert b"- fact 60 u1\n" in head and b"draft" not in head
    on_disk = (root / "MEMORY.md").read_bytes()
    assert b"- fact 60 u1\n" in on_disk
    for i in range(6):
        assert on_disk.count(f"- fact {i} s0\n".encode()) == 1, on_disk


# ---------------------------------------------------------------- merge_change, as a property

_EDITS = st.lists(
    st.tuples(st.sampled_from(["edit", "delete", "insert", "move"]), st.integers(0, 7), st.integers(0, 7)), max_size=3
)


def _mutate(lines: list[str], edits, tag: str, fresh: list[int]) -> list[str]:
    out = list(lines)
    for n, (op, a, b) in enumerate(edits):
        if op == "insert" or not out:
            fresh[0] += 1
            out.insert(a % (len(out) + 1), f"- fact {fresh[0]} {tag}{n}")
            continue
        i = a % len(out)
        if op == "edit":
            out[i] = out[i].rsplit(" ", 1)[0] + f" {tag}{n}"
        elif op == "delete":
            del out[i]
        else:
            line = out.pop(i)
            out.insert(b % (len(out) + 1), line)
    return out


def _doc(lines: list[str]) -> bytes:
    return ("# Memory\n\n" + "".join(ln + "\n" for ln in lines) + "\n## Index\n").encode()


@pytest.fixture(scope="module")
def property_repo(tmp_path_factory) -> tuple[GitRepo, Path]:
    root = tmp_path_factory.mktemp("gate-property") / "memory"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "MEMORY.md").write_bytes(_doc([]))
    git(root, "add", "MEMORY.md")
    git(root, "commit", "-qm", "start")
    return GitRepo(root), root


@settings(
    max_examples=int(os.environ.get("AMR_GATE_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@pytest.mark.slow
@given(n=st.integers(0, 7), agent_uncommitted=_EDITS, user=_EDITS, agent_committed=_EDITS)
def test_merge_change_never_drops_a_committed_line_the_user_kept(
    property_repo, n, agent_uncommitted, user, agent_committed
) -> None:
    """For any committed version when the file was read, any uncommitted agent edit on top (what
    the user saw), any user change, and any agent commit since: the result (unless a conflict)
    holds every committed line the user saw and kept, every line the user wrote, and no line of
    the agent's uncommitted edit the user left as it was. (AMR_GATE_EXAMPLES=3000 for a long run.)"""
    from amr_tui.git.gate import merge_change

    repo, root = property_repo
    fresh = [100]
    read_lines = [f"- fact {i} s0" for i in range(n)]
    base_lines = _mutate(read_lines, agent_uncommitted, "u", fresh)
    want_lines = _mutate(base_lines, user, "w", fresh)
    now_lines = _mutate(read_lines, agent_committed, "c", fresh)
    read_at, base, want, committed = _doc(read_lines), _doc(base_lines), _doc(want_lines), _doc(now_lines)
    (root / "MEMORY.md").write_bytes(read_at)
    git(root, "commit", "-qam", "read at", "--allow-empty")
    read_commit = git(root, "rev-parse", "HEAD").strip()
    try:
        result = merge_change(repo, "MEMORY.md", Change("MEMORY.md", base, want, read_commit), committed, read_commit)
    except ConflictError:
        return
    assert result is not None
    got = result.decode().splitlines()
    for line in now_lines:
        if line in base_lines and line in want_lines:
            assert line in got, f"committed line {line!r} the user kept was dropped:\n{result.decode()}"
    for line in want_lines:
        if line not in base_lines:
            assert line in got, f"the user's line {line!r} is missing:\n{result.decode()}"
    moved = any(op == "move" for op, _a, _b in user)  # a move is a delete and an insert: the line is the user's
    for line in base_lines:
        if not moved and line not in read_lines and line not in now_lines and line in want_lines:
            assert line not in got, f"the agent's uncommitted line {line!r} was committed:\n{result.decode()}"
    assert not [ln for ln in got if ln.startswith(("<<<<<<<", ">>>>>>>"))]


def test_cas_attempts_is_the_only_compare_and_swap_retry_loop() -> None:
    """No loop in amr_tui catches RefMovedError to go round again except one over gate.cas_attempts.

    The sync's rounds (``_sync_locked``) are the one other loop: a round fetches again and backs
    off before its next merge, because the remote moved, not only the local branch."""
    root = Path(__file__).parent.parent / "amr_tui"
    found = []
    for module in root.rglob("*.py"):
        text = module.read_text(encoding="utf-8")
        if "RefMovedError" not in text:  # no handler in it can name the error
            continue
        for fn in ast.walk(ast.parse(text)):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for loop in ast.walk(fn):
                if not isinstance(loop, (ast.For, ast.While)):
                    continue
                over_cas = (
                    isinstance(loop, ast.For)
                    and isinstance(loop.iter, ast.Call)
                    and ast.unparse(loop.iter.func).endswith("cas_attempts")
                )
                catches = any(
                    isinstance(h, ast.ExceptHandler) and h.type is not None and "RefMovedError" in ast.unparse(h.type)
                    for node in loop.body
                    for h in ast.walk(node)
                )
                if catches and not over_cas:
                    found.append(f"{module.relative_to(root).as_posix()}:{fn.name}")
    assert found == ["services/sync/run.py:_sync_locked"]
