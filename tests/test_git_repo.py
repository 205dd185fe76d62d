"""GitRepo against real git: reads, the compare-and-swap commit, write_files, locks, hostile config."""

from __future__ import annotations

import ast
import os
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest

from amr_tui.git import (
    ConflictError,
    DetachedHeadError,
    DirtyFileError,
    GitError,
    GitRepo,
    LockedError,
    NoIdentityError,
    OperationInProgressError,
    RefMovedError,
    history,
    is_memory_repo,
    merging,
)
from amr_tui.git.gate import Change
from amr_tui.git.models import parse_status_v2


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Plain git for set-up and for playing the agent (amr code uses its own runner)."""
    result = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **(env or {})}, check=True, capture_output=True, text=True
    )
    return result.stdout


LINES = "".join(f"- fact {i} [added: 2026-09-{i % 28 + 1:02d}]\n" for i in range(60))


def head_of(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def is_ancestor(repo: Path, a: str, b: str = "main") -> bool:
    return subprocess.run(["git", "merge-base", "--is-ancestor", a, b], cwd=repo).returncode == 0


def agent_commit(repo: Path, rel: str, text: str, message: str, *, only: bool = False) -> str:
    """An agent using plain git in the same work tree."""
    (repo / rel).write_text(text)
    if only:
        git(repo, "commit", "-q", "-m", message, "--", rel)
    else:
        git(repo, "add", "--", rel)
        git(repo, "commit", "-q", "-m", message)
    return head_of(repo)


# --- reads ----------------------------------------------------------------------------------


def test_is_memory_repo(make_repo, tmp_path: Path) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", "sub/a.md": "x\n"})
    assert is_memory_repo(repo)
    assert not is_memory_repo(repo / "sub")
    assert not is_memory_repo(tmp_path / "nope")
    other = make_repo("other", files={"README.md": "x\n"})
    assert not is_memory_repo(other)


def test_toplevel_discovery_from_subfolder(make_repo) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", "sub/a.md": "x\n"})
    r = GitRepo(repo / "sub")
    assert r.root == repo.resolve()


def test_empty_repo_status(tmp_path: Path) -> None:
    r = GitRepo.init(tmp_path / "empty")
    st = r.status()
    assert st.head is None and st.is_empty_repo
    assert st.branch == "main" and not st.detached
    assert r.head() is None and r.current_branch() == "main"
    assert history.log_entries(r, paths=("MEMORY.md",)) == [] and r.log() == []
    assert r.read_blob_or_none("HEAD", "MEMORY.md") is None


def test_status_changes_and_detached(make_repo) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", "a.md": "a\n", "b.md": "b\n"})
    (repo / "a.md").write_text("changed\n")
    (repo / "b.md").write_text("staged\n")
    git(repo, "add", "b.md")
    (repo / "new dir").mkdir()
    (repo / "new dir" / "n.md").write_text("n\n")
    r = GitRepo(repo)
    st = r.status()
    assert st.branch == "main" and st.head == head_of(repo) and not st.detached
    codes = {c.path: c.xy for c in st.changes}
    assert codes == {"a.md": ".M", "b.md": "M."}
    assert st.untracked == ("new dir/n.md",)
    assert not st.is_clean
    git(repo, "checkout", "-q", "--detach")
    st = r.status()
    assert st.detached and st.branch is None and st.head == head_of(repo)
    assert r.current_branch() is None


def test_status_parser_handles_renames_and_conflicts() -> None:
    raw = (
        b"# branch.oid " + b"a" * 40 + b"\0# branch.head main\0# branch.upstream origin/main\0"
        b"# branch.ab +2 -3\0"
        b"2 R. N... 100644 100644 100644 " + b"1" * 40 + b" " + b"2" * 40 + b" R100 new name.md\0old.md\0"
        b"u UU N... 100644 100644 100644 100644 "
        + b"3" * 40
        + b" "
        + b"4" * 40
        + b" "
        + b"5" * 40
        + b" c.md\0? caf\xc3\xa9.md\0"
    )
    st = parse_status_v2(raw)
    assert (st.upstream, st.ahead, st.behind) == ("origin/main", 2, 3)
    assert st.changes[0].kind == "renamed" and st.changes[0].path == "new name.md"
    assert st.changes[0].orig_path == "old.md"
    assert st.conflicted == ("c.md",)
    assert st.untracked == ("café.md",)


def test_read_blob_ls_files_and_log_entries(make_repo) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", "notes/a b:c.md": "one\n"})
    for i in range(3):
        (repo / "notes" / "a b:c.md").write_text(f"v{i}\n")
        git(
            repo,
            "commit",
            "-qam",
            f"Edit {i} — ünïcode",
            env={"GIT_AUTHOR_NAME": f"Devin session {i}", "GIT_AUTHOR_EMAIL": f"d{i}@x.test"},
        )
    r = GitRepo(repo)
    assert r.read_blob_or_none("HEAD", "notes/a b:c.md") == b"v2\n"
    assert r.read_blob_or_none("HEAD~3", "notes/a b:c.md") == b"one\n"
    assert r.read_blob_or_none("HEAD", "missing.md") is None
    assert r.ls_files() == ["MEMORY.md", "notes/a b:c.md"]
    log = [e.info for e in history.log_entries(r, paths=("notes/a b:c.md",), limit=2)]
    assert [c.subject for c in log] == ["Edit 2 — ünïcode", "Edit 1 — ünïcode"]
    assert log[0].author_name == "Devin session 2" and log[0].author_email == "d2@x.test"
    assert log[0].oid == head_of(repo)
    assert log[0].author_date.year == 2026
    assert [e.info.subject for e in history.log_entries(r, paths=("notes/a b:c.md",), limit=5, skip=2)] == [
        "Edit 0 — ünïcode",
        "Create memory repo",
    ]
    assert history.log_entries(r, paths=("MEMORY.md",))[0].info.subject == "Create memory repo"


def test_identity_and_local_identity(make_repo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo()
    r = GitRepo(repo)
    assert r.identity().name == "Test Committer"
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(var)
    assert r.identity() is None
    with pytest.raises(NoIdentityError):
        r.write_files([Change("MEMORY.md", b"# Memory\n\n## Index\n", b"# x\n", head_of(repo))], "m")
    r.set_local_identity("Alice Example", "alice@example.com")
    assert r.identity().email == "alice@example.com"
    assert git(repo, "config", "--local", "user.name").strip() == "Alice Example"
    assert not (Path(os.environ["HOME"]) / ".gitconfig").exists()
    with pytest.raises(ValueError):
        r.set_local_identity("Evil\nName", "e@x")


def test_operation_in_progress_refuses(make_repo) -> None:
    repo = make_repo()
    r = GitRepo(repo)
    assert r.operation_in_progress() is None
    (repo / ".git" / "MERGE_HEAD").write_text(head_of(repo) + "\n")
    assert r.operation_in_progress() == "merge"
    with pytest.raises(OperationInProgressError):
        r.write_files([Change("MEMORY.md", b"# Memory\n\n## Index\n", b"x\n", head_of(repo))], "m")
    (repo / ".git" / "MERGE_HEAD").unlink()
    (repo / ".git" / "rebase-merge").mkdir()
    assert r.operation_in_progress() == "rebase"


def test_detached_head_refuses(make_repo) -> None:
    repo = make_repo()
    git(repo, "checkout", "-q", "--detach")
    r = GitRepo(repo)
    with pytest.raises(DetachedHeadError) as info:
        r.write_files([Change("MEMORY.md", b"# Memory\n\n## Index\n", b"x\n", head_of(repo))], "m")
    assert "git switch" in str(info.value)


def test_diff_helpers(make_repo) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", "a.md": "a\r\n"})
    r = GitRepo(repo)
    first = r.head()
    r.commit_changes({"a.md": b"b\r\n", "new.md": b"n\n", "MEMORY.md": None}, "edit", first)
    assert r.diff(first, "HEAD", "a.md").endswith(b"-a\r\n+b\r\n")
    assert sorted(r.changed_paths(first, "HEAD")) == [("A", "new.md"), ("D", "MEMORY.md"), ("M", "a.md")]
    (repo / "a.md").write_bytes(b"c\r\n")
    assert b"+c\r\n" in r.diff("HEAD")
    assert r.merge_base(first, "HEAD") == first
    with pytest.raises(GitError):
        r.diff("--output=x.txt")
    assert not (repo / "x.txt").exists()


def test_one_merge_base_and_changed_paths_api(make_repo) -> None:
    """GitRepo, history and merging share one merge-base call and one changed-files call (diff-tree)."""
    repo = make_repo(files={"MEMORY.md": "# M\n", "a.md": "a\n"})
    r = GitRepo(repo)
    base = r.head()
    assert base is not None
    git(repo, "checkout", "-q", "-b", "side")
    side = r.commit_changes({"b.md": b"b\n"}, "side", base)
    git(repo, "checkout", "-q", "main")
    main = r.commit_changes({"a.md": b"a2\n"}, "main", base)
    assert merging.merge_bases is history.merge_bases
    assert history.merge_bases(r, main, side) == [base] == [r.merge_base(main, side)]
    assert history.merge_bases(r, main, side, every=False) == [base]
    assert history.merge_bases(r, main, "no-such-branch") == [] and r.merge_base("no-such-branch", main) is None
    assert r.changed_paths(base, "side") == history.changed_paths(r, base, side) == [("A", "b.md")]
    from_empty = history.tree_changes(r, None, base)  # None: the empty tree
    assert [(c.status, c.path, c.old_mode, c.new_mode, c.old_oid) for c in from_empty] == [
        ("A", "MEMORY.md", "000000", "100644", None),
        ("A", "a.md", "000000", "100644", None),
    ]
    with pytest.raises(ValueError):
        history.tree_changes(r, "no-such-branch", main)


def test_no_git_module_imports_repo() -> None:
    """GitRepo sits on top of amr_tui.git: the modules it is built from take a RepoHandle."""
    package = Path(__file__).parent.parent / "amr_tui" / "git"
    for module in package.glob("*.py"):
        if module.name in ("__init__.py", "repo.py"):
            continue
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            imported = [*names, *(f"{n}.{a.name}" for n in names for a in getattr(node, "names", []))]
            assert "amr_tui.git.repo" not in imported and "amr_tui.git.GitRepo" not in imported, module.name


def test_merge_file(make_repo) -> None:
    r = GitRepo(make_repo())
    merged, conflicted = r.merge_file(b"A\nb\nc\nd\n", b"a\nb\nc\nd\n", b"a\nb\nc\nD\n")
    assert (merged, conflicted) == (b"A\nb\nc\nD\n", False)
    merged, conflicted = r.merge_file(b"x\r\nours\r\n", b"x\r\nbase\r\n", b"x\r\ntheirs\r\n")
    assert conflicted and b"<<<<<<< yours" in merged and b"||||||| base" in merged
    assert b"ours\r\n" in merged and b"theirs\r\n" in merged


# --- commit_changes -------------------------------------------------------------------------


def test_commit_changes_adds_edits_deletes_and_keeps_status_clean(make_repo) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", "old.md": "old\n", "tool.sh": "#!/bin/sh\n"})
    git(repo, "update-index", "--chmod=+x", "tool.sh")
    os.chmod(repo / "tool.sh", 0o755)
    git(repo, "commit", "-qm", "exec")
    (repo / "untouched.md").write_text("someone's untracked notes\n")
    r = GitRepo(repo)
    base = r.head()
    new = r.commit_changes(
        {"projects/new.md": b"- a\r\n- b\r\n", "old.md": None, "tool.sh": b"#!/bin/sh\necho hi\n"},
        "Remember things",
        base,
    )
    assert r.head() == new != base
    assert git(repo, "rev-parse", "HEAD^").strip() == base
    assert r.read_blob_or_none("HEAD", "projects/new.md") == b"- a\r\n- b\r\n"
    assert (repo / "projects" / "new.md").read_bytes() == b"- a\r\n- b\r\n"
    assert not (repo / "old.md").exists()
    assert r.tree_entry("HEAD", "tool.sh")[0] == "100755"
    assert os.stat(repo / "tool.sh").st_mode & stat.S_IXUSR
    st = r.status()
    assert st.changes == () and st.untracked == ("untouched.md",)
    assert git(repo, "log", "-1", "--format=%s").strip() == "Remember things"


def test_commit_changes_no_op_returns_head(make_repo) -> None:
    repo = make_repo()
    r = GitRepo(repo)
    h = r.head()
    assert r.commit_changes({"MEMORY.md": (repo / "MEMORY.md").read_bytes()}, "same", h) == h


def test_commit_changes_on_other_branch_leaves_worktree(make_repo) -> None:
    repo = make_repo()
    r = GitRepo(repo)
    h = r.head()
    r.create_branch("dreams/2026-10-07-nightly", h)
    new = r.commit_changes({"dream.md": b"x\n"}, "dream", h, branch="dreams/2026-10-07-nightly")
    assert r.branches("dreams/") == {"dreams/2026-10-07-nightly": new}
    assert r.head() == h and not (repo / "dream.md").exists() and r.status().is_clean
    with pytest.raises(ValueError):
        r.create_branch("bad..name", h)


def test_empty_repo_first_commit(tmp_path: Path) -> None:
    r = GitRepo.init(tmp_path / "fresh")
    first = r.commit_changes({"MEMORY.md": b"# Memory\n\n## Index\n"}, "Create memory repo", None)
    assert r.head() == first
    assert git(r.root, "rev-list", "--count", "HEAD").strip() == "1"
    with pytest.raises(RefMovedError):
        r.commit_changes({"x.md": b"x\n"}, "stale", None)


def test_cas_refuses_stale_head_then_save_merges(make_repo) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", "notes.md": LINES})
    r = GitRepo(repo)
    base_head = r.head()
    base = r.read_blob_or_none(base_head, "notes.md")
    agent = agent_commit(repo, "notes.md", LINES.replace("fact 15", "fact fifteen (agent)"), "agent edit")
    mine = base.replace(b"fact 2 ", b"fact two (user) ")
    with pytest.raises(RefMovedError) as info:
        r.commit_changes({"notes.md": mine}, "user edit", base_head)
    assert info.value.current == agent and info.value.expected == base_head
    assert (repo / "notes.md").read_text() == LINES.replace("fact 15", "fact fifteen (agent)")
    new = r.write_files([Change("notes.md", base, mine, base_head)], "user edit").head
    assert is_ancestor(repo, agent, new) and r.head() == new
    final = r.read_blob_or_none("HEAD", "notes.md")
    assert b"fact two (user)" in final and b"fact fifteen (agent)" in final
    assert (repo / "notes.md").read_bytes() == final
    assert r.status().is_clean


def test_agent_commit_landing_during_the_ref_update(make_repo) -> None:
    """An agent's `git commit` that was already past its index step when amr took index.lock
    moves the branch while amr holds the lock: the CAS fails, amr puts the file back and retries."""
    repo = make_repo(files={"MEMORY.md": "# M\n", "notes.md": LINES, "agent.md": "start\n"})
    r = GitRepo(repo)
    base_head = r.head()
    (repo / "agent.md").write_text("start\nagent line\n")
    git(repo, "add", "agent.md")
    tree = git(repo, "write-tree").strip()
    pending = git(repo, "commit-tree", tree, "-p", base_head, "-m", "agent").strip()
    fired: list[str] = []
    seen: list[bytes] = []
    real_run = r.runner.run

    def run(args, **kwargs):
        if args[0] == "update-ref" and not fired:
            seen.append((repo / "notes.md").read_bytes())
            git(repo, "update-ref", "refs/heads/main", pending, base_head)  # the agent's commit lands
            fired.append(pending)
        return real_run(args, **kwargs)

    r.runner.run = run  # real git underneath; this only decides *when* the agent's commit lands
    mine = LINES.replace("fact 3 ", "fact three (user) ").encode()
    new = r.write_files([Change("notes.md", LINES.encode(), mine, base_head)], "user edit").head
    assert seen == [mine]  # the user's text was on disk before the compare-and-swap
    assert fired and is_ancestor(repo, pending, new) and git(repo, "rev-parse", "HEAD^").strip() == pending
    assert r.read_blob_or_none("HEAD", "notes.md") == mine
    assert r.read_blob_or_none("HEAD", "agent.md") == b"start\nagent line\n"
    assert (repo / "notes.md").read_bytes() == mine
    assert r.status().is_clean


def test_lost_cas_puts_the_file_back(make_repo) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", "notes.md": LINES, "other.md": "x\n"})
    r = GitRepo(repo)
    base_head = r.head()
    tree = git(repo, "write-tree").strip()
    pending = git(repo, "commit-tree", tree, "-p", base_head, "-m", "empty agent commit").strip()
    real_run = r.runner.run

    def run(args, **kwargs):
        if args[0] == "update-ref":
            git(repo, "update-ref", "refs/heads/main", pending, base_head)
            r.runner.run = real_run
        return real_run(args, **kwargs)

    r.runner.run = run
    with pytest.raises(RefMovedError) as info:
        r.commit_changes({"notes.md": b"mine\n", "new.md": b"new\n"}, "edit", base_head)
    assert info.value.current == pending
    assert (repo / "notes.md").read_text() == LINES and not (repo / "new.md").exists()
    assert not (repo / ".git" / "index.lock").exists()
    assert r.status().is_clean


def test_real_conflict_raises_and_saves_nothing(make_repo) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", "notes.md": LINES})
    r = GitRepo(repo)
    base_head = r.head()
    theirs_text = LINES.replace("fact 5 ", "fact 5 AGENT ")
    agent = agent_commit(repo, "notes.md", theirs_text, "agent edit")
    mine = LINES.replace("fact 5 ", "fact 5 USER ").encode()
    with pytest.raises(ConflictError) as info:
        r.write_files([Change("notes.md", LINES.encode(), mine, base_head)], "user edit")
    err = info.value
    assert err.ours == mine and err.base == LINES.encode() and err.theirs == theirs_text.encode()
    assert b"<<<<<<<" in err.merged and b"USER" in err.merged and b"AGENT" in err.merged
    assert err.head == agent == r.head()
    assert (repo / "notes.md").read_text() == theirs_text
    assert r.status().is_clean


def test_delete_versus_edit_conflict(make_repo) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", "notes.md": LINES})
    r = GitRepo(repo)
    base_head = r.head()
    git(repo, "rm", "-q", "notes.md")
    git(repo, "commit", "-qm", "dream: drop notes")
    with pytest.raises(ConflictError) as info:
        r.write_files([Change("notes.md", LINES.encode(), b"edited\n", base_head)], "edit")
    assert info.value.theirs is None and info.value.merged is None


def test_someone_elses_uncommitted_edit_is_refused(make_repo) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", "notes.md": LINES})
    r = GitRepo(repo)
    base_head = r.head()
    (repo / "notes.md").write_text(LINES + "- half-written agent line\n")
    with pytest.raises(DirtyFileError):
        r.write_files([Change("notes.md", LINES.encode(), b"mine\n", base_head)], "edit")
    assert (repo / "notes.md").read_text().endswith("half-written agent line\n")
    # Staged-only changes by someone else are refused too.
    (repo / "notes.md").write_text("staged by agent\n")
    git(repo, "add", "notes.md")
    (repo / "notes.md").write_text(LINES)
    with pytest.raises(DirtyFileError):
        r.write_files([Change("notes.md", LINES.encode(), b"mine\n", base_head)], "edit")
    with pytest.raises(DirtyFileError):
        r.commit_changes({"notes.md": b"mine\n"}, "edit", base_head)


def test_save_new_file_and_delete(make_repo) -> None:
    repo = make_repo()
    r = GitRepo(repo)
    h1 = r.write_files([Change("topics/new.md", None, b"- new\n", r.head())], "add").head
    assert r.read_blob_or_none(h1, "topics/new.md") == b"- new\n"
    h2 = r.write_files([Change("topics/new.md", b"- new\n", None, h1)], "delete").head
    assert r.read_blob_or_none(h2, "topics/new.md") is None
    assert not (repo / "topics" / "new.md").exists() and r.status().is_clean


def test_crlf_round_trip_through_save(make_repo) -> None:
    data = b"# M\r\n\r\n- one\r\n- two \xe2\x80\x94 dash\r\n"
    repo = make_repo(files={"MEMORY.md": data})
    r = GitRepo(repo)
    new = data.replace(b"- two", b"- TWO")
    r.write_files([Change("MEMORY.md", data, new, r.head())], "edit")
    assert r.read_blob_or_none("HEAD", "MEMORY.md") == new
    assert (repo / "MEMORY.md").read_bytes() == new
    assert r.status().is_clean


# --- locks ----------------------------------------------------------------------------------


def test_index_lock_held_briefly_is_waited_for(make_repo) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", "notes.md": LINES})
    r = GitRepo(repo, lock_timeout=15)
    lock = repo / ".git" / "index.lock"
    fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    os.close(fd)
    release = threading.Timer(1.0, lock.unlink)
    release.start()
    try:
        mine = LINES.replace("fact 1 ", "fact one ").encode()
        new = r.write_files([Change("notes.md", LINES.encode(), mine, r.head())], "edit").head
    finally:
        release.join()
    assert r.read_blob_or_none(new, "notes.md") == mine and r.status().is_clean


def test_stale_index_lock_raises_and_is_never_deleted(make_repo) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", "notes.md": LINES})
    r = GitRepo(repo, lock_timeout=0.3)
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    before = r.head()
    mine = LINES.replace("fact 1 ", "fact one ").encode()
    with pytest.raises(LockedError) as info:
        r.write_files([Change("notes.md", LINES.encode(), mine, before)], "edit")
    assert "never deletes lock files" in str(info.value)
    assert lock.exists()
    assert r.head() == before
    assert (repo / "notes.md").read_text() == LINES  # nothing half-done: the text is still the editor's
    assert not list((repo / ".git").glob("amr-index-*"))
    lock.unlink()
    new = r.write_files([Change("notes.md", LINES.encode(), mine, before)], "edit").head
    assert r.read_blob_or_none(new, "notes.md") == mine and r.status().is_clean


# --- concurrency ----------------------------------------------------------------------------


@pytest.mark.slow
def test_agent_committing_constantly_while_user_saves(make_repo) -> None:
    repo = make_repo(files={"MEMORY.md": "# M\n", "notes.md": LINES, "agent.md": ""})
    r = GitRepo(repo, lock_timeout=10)
    stop = threading.Event()
    agent_oids: list[str] = []
    agent_lines: list[str] = []
    agent_errors: list[str] = []

    def agent() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            with open(repo / "agent.md", "a") as f:
                f.write(f"- agent note {n}\n")
            for _ in range(200):
                # Like an agent: stage, then commit; either can lose a race (index.lock, moved HEAD).
                add = subprocess.run(["git", "add", "agent.md"], cwd=repo, capture_output=True)
                if add.returncode == 0:
                    res = subprocess.run(
                        ["git", "commit", "-m", f"agent {n}"], cwd=repo, capture_output=True, text=True
                    )
                    if res.returncode == 0:
                        # "[main 1a2b3c4] agent 7": resolve the abbreviated id git printed.
                        abbrev = res.stdout.split("]", 1)[0].split()[-1]
                        agent_oids.append(git(repo, "rev-parse", abbrev).strip())
                        agent_lines.append(f"- agent note {n}\n")
                        break
                time.sleep(0.01)
            else:
                agent_errors.append(f"agent {n} never committed")
            stop.wait(0.05 + (n % 5) * 0.01)

    thread = threading.Thread(target=agent)
    thread.start()
    try:
        stale_base, stale_head = LINES.encode(), r.head()
        for i in range(20):
            if i % 2 == 0:
                base_head = r.head()
                base = r.read_blob_or_none(base_head, "notes.md")
            else:  # an editor buffer opened a while ago: forces the three-way merge path
                base, base_head = stale_base, stale_head
            line = 3 * i  # lines two apart, so merges with a stale base stay clean
            mine = base.replace(f"- fact {line} ".encode(), f"- fact {line} EDITED ".encode())
            r.write_files([Change("notes.md", base, mine, base_head)], f"user edit {i}")
            if i % 2 == 0:
                stale_base, stale_head = base, base_head
    finally:
        stop.set()
        thread.join()
    assert not agent_errors
    assert len(agent_oids) >= 3
    final = r.read_blob_or_none("HEAD", "notes.md").decode()
    for i in range(20):
        assert f"- fact {3 * i} EDITED " in final, i
    for oid in agent_oids:
        assert is_ancestor(repo, oid), oid
    agent_text = r.read_blob_or_none("HEAD", "agent.md").decode()
    assert all(line in agent_text for line in agent_lines)
    assert (repo / "notes.md").read_text() == final
    assert r.status().is_clean


# --- a repository whose config tries to run programs ----------------------------------------

EVIL_HOOKS = (
    "pre-commit",
    "commit-msg",
    "post-commit",
    "prepare-commit-msg",
    "reference-transaction",
    "post-index-change",
    "post-checkout",
    "pre-auto-gc",
    "post-merge",
    "pre-merge-commit",
)


def make_evil_repo(root: Path, canaries: Path) -> Path:
    """A repo whose .git/config (and an include) wires a canary-writing script into every hook,
    filter, textconv, external diff, signature check, merge driver, pager and editor."""
    canaries.mkdir(parents=True, exist_ok=True)
    tools = root.parent / f"{root.name}-tools"
    tools.mkdir()
    evil = tools / "evil"
    evil.write_text(
        "#!/bin/sh\n"
        f'kind="$1"; shift\ntouch "{canaries}/$kind"\n'
        'case "$kind" in\n'
        "  clean|smudge|inc-clean|inc-smudge) cat ;;\n"
        '  textconv) cat "$1" ;;\n'
        "  merge) exit 0 ;;\n"
        "  *) exit 1 ;;\n"
        "esac\n"
    )
    evil.chmod(0o755)
    gpg = tools / "gpg"  # gpg.program is run directly, not through a shell
    gpg.write_text(f'#!/bin/sh\nexec "{evil}" gpg "$@"\n')
    gpg.chmod(0o755)
    hooks = tools / "hooks"
    hooks.mkdir()
    for name in EVIL_HOOKS:
        h = hooks / name
        h.write_text(f'#!/bin/sh\ntouch "{canaries}/hook-{name}"\nexit 0\n')
        h.chmod(0o755)
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    files = {
        "MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n",
        "notes.md": LINES,
        "a.txt": "plain text\n",
        "q.sql": "SELECT 1;\n",
        "plain.csv": "a,b\n",
        ".gitattributes": "*.md filter=evil diff=evil merge=evil\n*.txt filter=inc diff=evil\n*.sql filter=evilp\n",
    }
    for rel, text in files.items():
        (root / rel).write_text(text)
    git(root, "add", "--", *files)
    git(root, "commit", "-q", "-m", "Create memory repo")
    (root / "notes.md").write_text(LINES.replace("fact 0 ", "fact zero "))
    git(root, "commit", "-q", "-am", "Edit notes")
    # A commit carrying a (bogus) signature, so log.showSignature has something to verify.
    tree = git(root, "rev-parse", "HEAD^{tree}").strip()
    parent = head_of(root)
    obj = (
        f"tree {tree}\nparent {parent}\n"
        "author Mallory <m@example.test> 1790000000 +0000\n"
        "committer Mallory <m@example.test> 1790000000 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEaaaa\n -----END PGP SIGNATURE-----\n"
        "\nsigned commit\n"
    )
    signed = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=root,
        input=obj,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    git(root, "update-ref", "refs/heads/main", signed)
    include = tools / "include.cfg"
    include.write_text(f'[filter "inc"]\n\tclean = {evil} inc-clean\n\tsmudge = {evil} inc-smudge\n')
    for key, value in [
        ("core.fsmonitor", f"{evil} fsmonitor"),
        ("core.hooksPath", str(hooks)),
        ("core.pager", f"{evil} pager"),
        ("core.editor", f"{evil} editor"),
        ("sequence.editor", f"{evil} seqeditor"),
        ("diff.external", f"{evil} diffext"),
        ("diff.evil.textconv", f"{evil} textconv"),
        ("diff.evil.command", f"{evil} diffcmd"),
        ("filter.evil.clean", f"{evil} clean"),
        ("filter.evil.smudge", f"{evil} smudge"),
        ("filter.evil.required", "true"),
        ("filter.evilp.process", f"{evil} process"),
        ("gpg.program", str(gpg)),
        ("log.showSignature", "true"),
        ("commit.gpgSign", "true"),
        ("merge.evil.driver", f"{evil} merge %O %A %B"),
        ("include.path", str(include)),
    ]:
        git(root, "config", key, value)
    return root


def canaries_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_evil_repo_really_runs_programs_under_plain_git(tmp_path: Path) -> None:
    """Control: the same set-up does fire under plain git, so the amr test below means something."""
    canaries = tmp_path / "canaries"
    repo = make_evil_repo(tmp_path / "evil", canaries)

    def plain(*args: str, process_filter: bool = False) -> None:
        # The failing long-running filter aborts most commands; keep it to one call.
        quiet = [] if process_filter else ["-c", "filter.evilp.process=", "-c", "filter.evilp.required=false"]
        subprocess.run(["git", *quiet, *args], cwd=repo, capture_output=True)

    plain("status")
    plain("log", "-1")
    plain("diff", "HEAD~2", "HEAD")
    plain("log", "-p", "--no-ext-diff", "-2")
    (repo / "plain.csv").write_text("changed\n")
    plain("diff", "--", "plain.csv")
    (repo / "q.sql").write_text("SELECT 2;\n")
    plain("add", "--", "q.sql", process_filter=True)
    for rel in ("notes.md", "a.txt"):
        (repo / rel).write_text("changed\n")
        plain("add", "--", rel)
    plain("-c", "commit.gpgSign=false", "commit", "-m", "plain commit")
    (repo / "MEMORY.md").unlink()
    plain("checkout", "--", "MEMORY.md")
    fired = set(canaries_in(canaries))
    expected = {
        "fsmonitor",
        "gpg",
        "diffext",
        "diffcmd",
        "textconv",
        "clean",
        "smudge",
        "process",
        "inc-clean",
        "hook-pre-commit",
        "hook-commit-msg",
        "hook-post-commit",
        "hook-reference-transaction",
    }
    assert expected <= fired, expected - fired


def test_amr_runs_nothing_from_an_evil_repo(tmp_path: Path) -> None:
    canaries = tmp_path / "canaries"
    repo = make_evil_repo(tmp_path / "evil", canaries)
    os.utime(repo / "notes.md", None)  # racily clean: git must look at the content
    r = GitRepo(repo)
    st = r.status()
    assert st.branch == "main" and st.changes == ()
    assert r.log()[0].subject == "signed commit"
    assert history.log_entries(r, paths=("notes.md",))[0].info.subject == "Edit notes"
    assert r.read_blob_or_none("HEAD", "notes.md").startswith(b"- fact zero")
    assert r.read_blob_or_none("HEAD", "a.txt") == b"plain text\n"
    assert set(r.ls_files()) >= {"MEMORY.md", "notes.md", "a.txt", "q.sql"}
    assert r.identity() is not None and r.operation_in_progress() is None
    assert r.index_entry("notes.md") and r.tree_entry("HEAD", "q.sql")
    assert b"+- fact zero" in r.diff("HEAD~2", "HEAD", "notes.md")
    assert r.diff("HEAD") == b""  # work tree vs HEAD, filters disarmed
    assert ("M", "notes.md") in r.changed_paths("HEAD~2", "HEAD")
    for args in (
        ["log", "-p", "--no-ext-diff", "--no-textconv", "-3"],
        ["show", "--no-ext-diff", "--no-textconv", "HEAD~1"],
    ):
        r.runner.run(args)
    # Writes: a direct save, a plumbing commit by "an agent", a save that has to merge,
    # commits to filtered file types, a branch.
    base_head = r.head()
    base = r.read_blob_or_none(base_head, "notes.md")
    h1 = r.write_files([Change("notes.md", base, base.replace(b"fact 1 ", b"fact one "), base_head)], "user edit").head
    agent = r.commit_changes(
        {"notes.md": r.read_blob_or_none(h1, "notes.md").replace(b"fact 50 ", b"fact fifty ")},
        "agent edit",
        h1,
        env={"GIT_AUTHOR_NAME": "Devin session 9"},
    )
    mine = base.replace(b"fact 1 ", b"fact one ").replace(b"fact 20 ", b"fact twenty ")
    h3 = r.write_files([Change("notes.md", base, mine, base_head)], "user edit 2").head
    assert r.is_ancestor(agent, h3)
    assert b"fact fifty" in r.read_blob_or_none(h3, "notes.md") and b"fact twenty" in r.read_blob_or_none(
        h3, "notes.md"
    )
    h4 = r.commit_changes({"a.txt": b"new text\n", "q.sql": b"SELECT 3;\n"}, "filtered types", h3)
    r.create_branch("dreams/evil", h4)
    r.commit_changes({"notes.md": b"dream\n"}, "dream", h4, branch="dreams/evil")
    merged, _ = r.merge_file(b"a\n", b"b\n", b"c\n")
    assert r.status().changes == ()
    assert canaries_in(canaries) == []
