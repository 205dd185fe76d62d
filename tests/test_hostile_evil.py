"""Evil repos: repo config that makes git run programs runs nothing under amr.

The repo from ``hostilehelpers.make_evil_repo`` wires a canary-writing program into fsmonitor,
hooks (both core.hooksPath and .git/hooks), the pager, editors, external diff, textconv,
clean/smudge/process filters, gpg (log.showSignature), a merge driver named in .gitattributes,
ssh/askpass/git-proxy/alternate-refs commands, the remote's upload-pack and receive-pack, and a
credential helper. Every app operation and every CLI command runs against it; no canary appears.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from amr_tui.git import ConflictError, GitRepo, history
from amr_tui.services.lint.fix import fix_repo
from amr_tui.services.session import editing
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import discover
from tests.driver import app_for, notes, wait_for
from tests.hostilehelpers import (
    FORBIDDEN,
    EvilRepo,
    check_cli_run,
    cli_invocations,
    make_evil_repo,
    run_amr,
    subcommands,
)

R = "evil"


@pytest.fixture
def evil(tmp_path: Path) -> EvilRepo:
    repo = make_evil_repo(tmp_path)
    assert repo.fired() == [], "set-up itself must not leave canaries"
    return repo


def test_control_the_evil_repo_fires_under_plain_git(evil: EvilRepo) -> None:
    """The same repo does run programs under plain git, so the tests below mean something."""

    def plain(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "filter.evilp.process=", "-c", "filter.evilp.required=false", *args],
            cwd=evil.root,
            capture_output=True,
            timeout=60,
        )

    plain("status")
    plain("log", "-1")
    plain("log", "-p", "-1", "--", "notes.md")
    plain("fetch", "origin")
    plain("fetch", "sshremote")
    (evil.root / "notes.md").write_text("changed\n")
    plain("add", "--", "notes.md")
    plain("-c", "commit.gpgSign=false", "commit", "-m", "plain")
    fired = set(evil.fired())
    assert {"fsmonitor", "clean", "textconv", "uploadpack", "ssh", "hook-pre-commit"} <= fired, fired


# ---------------------------------------------------------------------------------------------
# App operations, through the same services the app calls. Add a new one with one line.


def _session(evil: EvilRepo) -> Session:
    s = Session(discover([evil.root]))
    s.load()
    return s


def _agent_edit(evil: EvilRepo, old: bytes, new: bytes) -> None:
    """An agent's commit between the user's open and save (made with amr's hardened plumbing:
    plain git in this repo would itself fire the canaries)."""
    g = GitRepo(evil.root)
    head = g.head()
    data = g.read_blob_or_none(head, "notes.md")
    g.commit_changes({"notes.md": data.replace(old, new)}, "agent edit", head)


def op_open_and_read(s: Session, evil: EvilRepo) -> None:
    of = s.open(R, "notes.md")
    assert of.data and of.read_only is None
    assert s.backlinks(R, "notes.md") and s.diagnostics(R, "MEMORY.md") is not None
    assert s.open(R, "a.txt").data == b"plain text\n"


def op_search(s: Session, evil: EvilRepo) -> None:
    assert s.search("fact 3")
    assert s.search_session()("joe leads")


def op_edit_and_save(s: Session, evil: EvilRepo) -> None:
    of = s.open(R, "notes.md")
    editing.replace_entry_line(s, of, 2, "- fact one edited [source: https://example.com/f/1]")


def op_save_that_merges(s: Session, evil: EvilRepo) -> None:
    of = s.open(R, "notes.md")
    _agent_edit(evil, b"- fact 30 ", b"- fact thirty ")
    saved = editing.replace_entry_line(s, of, 6, "- fact five by the user [source: https://example.com/f/5]")
    data = (evil.root / "notes.md").read_bytes()
    assert b"fact thirty" in data and b"fact five by the user" in data and saved.head


def op_conflict(s: Session, evil: EvilRepo) -> None:
    of = s.open(R, "notes.md")
    _agent_edit(evil, b"- fact 8 ", b"- fact eight (agent) ")
    with pytest.raises(ConflictError):
        editing.replace_entry_line(s, of, 9, "- fact eight (user)")


def op_insert_delete_move(s: Session, evil: EvilRepo) -> None:
    editing.insert_entry(s, s.open(R, "notes.md"), 3, "- inserted [source: https://example.com/i]")
    editing.delete_entry(s, s.open(R, "notes.md"), 4)
    editing.move_entry(s, s.open(R, "notes.md"), 12, R, "other.md")


def op_files(s: Session, evil: EvilRepo) -> None:
    editing.create_file(s, R, "topics/new-topic")
    editing.rename_file(s, R, "other.md", "renamed.md")
    assert b"[[renamed]]" in (evil.root / "MEMORY.md").read_bytes()
    editing.delete_file(s, R, "topics/new-topic.md")


def op_filtered_types(s: Session, evil: EvilRepo) -> None:
    editing.write(s, s.open(R, "a.txt"), b"new text\n", "Edit a.txt")
    editing.write(s, s.open(R, "q.sql"), b"SELECT 2;\n", "Edit q.sql")
    editing.write(s, s.open(R, "MEMORY.md"), (evil.root / "MEMORY.md").read_bytes() + b"- whole file\n", "Edit")


def op_poll_and_lint_fix(s: Session, evil: EvilRepo) -> None:
    (evil.root / "untracked.md").write_text("- dropped in by an agent\n")
    s.watch.poll()
    fix_repo(s.mount(R))
    s.watch.poll()


def op_git_reads(s: Session, evil: EvilRepo) -> None:
    g = GitRepo(evil.root)
    assert g.status().branch == "main" and g.log(5) and history.log_entries(g, paths=("notes.md",))
    assert g.identity() is not None and g.operation_in_progress() is None
    g.merge_file(b"a\nb\n", b"a\n", b"a\nc\n")
    for args in (
        ["diff", "--no-ext-diff", "--no-textconv", "HEAD~1", "HEAD"],
        ["log", "-p", "-2"],
        ["show", "HEAD"],
        ["diff", "HEAD"],
        ["log", "--format=%s%n%b", "-3"],
    ):
        out = g.runner.run(args).text
        assert not FORBIDDEN.search(out), args  # color.ui=always in the repo: no colour codes either


def op_history(s: Session, evil: EvilRepo) -> None:
    """What the history pane, the fact timeline, blame and the forgotten list do."""
    service = s.history(R)
    assert service.file_history("notes.md")
    service.entry_timeline("notes.md", 3)
    service.blame("notes.md", 3)
    service.forgotten(refresh=True)


def op_transport(s: Session, evil: EvilRepo) -> None:
    """What sync does: fetch, ls-remote and push to the repo's remotes through the runner."""
    g = GitRepo(evil.root)
    g.runner.run(["fetch", "origin"], write=True)
    g.runner.run(["ls-remote", "origin"])
    g.runner.run(["push", "origin", "main"], write=True)
    g.runner.run(["fetch", "sshremote"], write=True, check=False, timeout=30)
    g.runner.run(["pull", "--ff-only", "origin", "main"], write=True, check=False)


OPERATIONS: dict[str, Callable[[Session, EvilRepo], None]] = {
    "open": op_open_and_read,
    "search": op_search,
    "edit-and-save": op_edit_and_save,
    "save-that-merges": op_save_that_merges,
    "conflict": op_conflict,
    "insert-delete-move": op_insert_delete_move,
    "new-rename-delete-file": op_files,
    "filtered-file-types": op_filtered_types,
    "poll-and-lint-fix": op_poll_and_lint_fix,
    "git-reads": op_git_reads,
    "history": op_history,
    "sync-transport": op_transport,
}


@pytest.mark.slow
def test_every_app_operation_runs_nothing(evil: EvilRepo) -> None:
    s = _session(evil)
    for name, op in OPERATIONS.items():
        op(s, evil)
        assert evil.fired() == [], f"{name} ran {evil.fired()}"
    assert GitRepo(evil.root).status().branch == "main"
    assert not list(evil.root.parent.rglob("branch-out.txt")) and not list(evil.root.parent.rglob("x.txt"))


# ---------------------------------------------------------------------------------------------
# Every CLI command (new ones are picked up from `amr --help`)


@pytest.mark.slow
@pytest.mark.parametrize("command", subcommands())
def test_every_cli_command_runs_nothing(evil: EvilRepo, tmp_path: Path, command: str) -> None:
    problems: list[str] = []
    for argv in cli_invocations(command, evil.root, tmp_path):
        run = run_amr(argv, cwd=evil.root)
        problems += check_cli_run(run)
        assert evil.fired() == [], f"amr {argv} ran {evil.fired()}"
    assert not problems, "\n".join(problems)
    assert not list(tmp_path.rglob("x.txt")), "an option-looking argument wrote a file"


# ---------------------------------------------------------------------------------------------
# The app itself (Pilot): open, find, palette, edit and save, new file


@pytest.mark.slow
async def test_app_on_the_evil_repo_runs_nothing(evil: EvilRepo) -> None:
    app = app_for([evil.root], poll_interval=0.2)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        await pilot.press("slash", *"fact 3")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: getattr(app.screen, "current", None) and app.screen.current.path == "notes.md",
            what="finder opens notes.md",
        )
        await pilot.press("e")
        inp = app.screen.query_one("#editor-input")
        await wait_for(pilot, lambda: inp.has_focus, what="editor")
        inp.value = inp.value.replace("fact", "fact (edited in the app)", 1)
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.title == "Committed" for n in notes(app)), what="commit")
        await pilot.press("ctrl+p", *"new file")
        await pilot.pause(0.5)
        await pilot.press("escape")
        await pilot.pause(0.5)  # at least two polls
        assert app.is_running
    assert evil.fired() == []
    assert b"fact (edited in the app)" in GitRepo(evil.root).read_blob_or_none("HEAD", "notes.md")
