"""Noticing change without running git every second: poll, reload after a save, repo badges."""

from __future__ import annotations

import os

from amr_tui.git import GitRepo
from amr_tui.git.watch import head_signature, state_signature
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import discover, list_files, scan_files
from tests.conftest import git

MEMORY = "# Memory\n\n## Index\n- [[infra]]\n"
INFRA = "# Infra\n\n- Redis listens on 6380 [source: https://example.com/a]\n"


def _session(make_repo):
    root = make_repo("memory", {"MEMORY.md": MEMORY, "infra.md": INFRA})
    session = Session(discover([root]))
    session.load()
    return root, session


def _agent_writes(root, rel: str, text: str, *, commit: bool) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, ns=(path.stat().st_mtime_ns, path.stat().st_mtime_ns + 10_000_000))
    if commit:
        git(root, "add", "--", rel)
        git(root, "commit", "-qm", f"agent: {rel}")


def test_quiet_poll_reports_nothing_and_leaves_badges_alone(make_repo):
    root, session = _session(make_repo)
    assert session.watch.poll() == []
    assert session.watch.refresh_stale_info() == []  # nothing changed: no badge reads differently
    assert session.info("memory").dirty is False


def test_agent_write_is_reindexed_then_badge_turns_dirty(make_repo):
    root, session = _session(make_repo)
    _agent_writes(root, "infra.md", INFRA + "- Postgres max connections is 300\n", commit=False)
    changes = session.watch.poll()
    assert [c.changed for c in changes] == [("infra.md",)]
    assert session.search("postgres max", 5), "the new entry is searchable right after the poll"
    assert session.info("memory").dirty is False  # the badge is read after the re-index is shown
    assert session.watch.refresh_stale_info() == ["memory"]
    assert session.info("memory").dirty is True


def test_agent_commit_of_another_file_moves_head(make_repo):
    root, session = _session(make_repo)
    before = session.info("memory").head
    git(root, "commit", "-q", "--allow-empty", "-m", "agent: nothing on disk changed")
    changes = session.watch.poll()
    assert len(changes) == 1 and changes[0].head_moved and not changes[0].changed
    assert changes[0].describe() == "memory: new commit"
    session.watch.refresh_stale_info()
    assert session.info("memory").head not in (None, before)
    assert session.watch.poll() == []  # seen once, not again


def test_badges_are_reread_when_old_even_if_nothing_changed(make_repo):
    root, session = _session(make_repo)
    git(root, "checkout", "-q", "-b", "other")  # HEAD's signature changes: noticed without a file change
    changes = session.watch.poll()
    assert changes and changes[0].head_moved
    assert session.watch.refresh_stale_info() == ["memory"]
    assert session.info("memory").branch == "other"
    assert session.watch.refresh_stale_info(max_age=0) == []  # re-read, reads the same


def test_reload_files_after_a_rename_drops_the_old_path_without_walking(make_repo):
    root, session = _session(make_repo)
    (root / "infra.md").rename(root / "ops.md")
    session.watch.reload_files("memory", ["infra.md", "ops.md"])
    assert "ops.md" in session.files("memory") and "infra.md" not in session.files("memory")
    assert session.files("memory") == sorted(session.files("memory"))
    hits = session.search("redis listens", 5)
    assert [h.item.path for h in hits] == ["ops.md"]
    assert session.repos["memory"].info_stale  # the badge waits for the poller


def test_scan_files_stats_match_lstat_and_list_files(make_repo):
    root = make_repo("memory", {"MEMORY.md": MEMORY, "a/b/c.md": "- x\n", "node_modules/skip.md": "- y\n"})
    (root / "out.md").symlink_to("/etc/hostname")
    files, escaping, stats = scan_files(root)
    assert (files, escaping) == list_files(root)
    assert "a/b/c.md" in files and "node_modules/skip.md" not in files
    assert escaping == {"out.md"}
    for rel in files:
        st = os.lstat(root / rel)
        assert stats[rel] == (st.st_mtime_ns, st.st_size)


def test_signatures_follow_commits_index_and_operations(make_repo):
    root = make_repo("memory", {"MEMORY.md": MEMORY})
    repo = GitRepo(root)
    head, state = head_signature(repo), state_signature(repo)
    assert head_signature(repo) == head and state_signature(repo) == state  # stable when nothing happens
    (root / "MEMORY.md").write_text(MEMORY + "- new\n")
    git(root, "add", "MEMORY.md")
    assert head_signature(repo) == head and state_signature(repo) != state  # the index changed, HEAD did not
    git(root, "commit", "-qm", "x")
    assert head_signature(repo) != head
    git(root, "pack-refs", "--all")
    packed = state_signature(repo)
    git(root, "commit", "-q", "--allow-empty", "-m", "y")  # a loose ref again, after packing
    assert state_signature(repo) != packed


def test_amrs_own_commit_is_not_news_but_an_agent_commit_on_top_is(make_repo):
    """A save is committed by amr: the next poll does not report HEAD moving to it as someone
    else's change (the app said "Memory changed: new commit" after every save). An agent's
    commit right after it still moves HEAD to another commit, and is reported."""
    from amr_tui.services.session import editing

    root, session = _session(make_repo)
    of = session.open("memory", "infra.md")
    saved = editing.replace_entry_line(session, of, 3, "- Redis listens on 6381 [source: https://example.com/a]")
    assert saved.committed and saved.head == git(root, "rev-parse", "HEAD").strip()
    assert session.watch.poll() == []
    saved = editing.replace_entry_line(
        session, session.open("memory", "infra.md"), 3, "- Redis listens on 6382 [source: https://example.com/a]"
    )
    git(root, "commit", "-q", "--allow-empty", "-m", "agent: right after the save")
    changes = session.watch.poll()
    assert len(changes) == 1 and changes[0].head_moved, changes


def test_a_commit_while_the_session_loads_is_news_at_the_first_poll(make_repo):
    """The app shows MEMORY.md at the HEAD it read when the session was made; an agent's commit
    before the load's last step (the badges) leaves the files as they were, and the first poll
    must still report HEAD moving (the view showed the old head for good: a stale view)."""
    root = make_repo("memory", {"MEMORY.md": MEMORY, "infra.md": INFRA})
    session = Session(discover([root]))
    shown = session.open("memory", "MEMORY.md").head
    git(root, "commit", "-q", "--allow-empty", "-m", "agent: while amr starts")
    session.load()
    changes = session.watch.poll()
    assert len(changes) == 1 and changes[0].head_moved, changes
    assert session.open("memory", "MEMORY.md").head != shown
    assert session.watch.poll() == []


def test_a_commit_between_a_poll_and_the_badge_read_is_news_at_the_next_poll(make_repo):
    """The poll worker polls, then re-reads stale badges (which look at HEAD too): a commit
    landing between the two is reported by the next poll, not swallowed by the badge read."""
    root, session = _session(make_repo)
    assert session.watch.poll() == []
    git(root, "commit", "-q", "--allow-empty", "-m", "agent: between the poll and the badges")
    session.watch.mark_info_stale("memory")
    session.watch.refresh_stale_info()
    changes = session.watch.poll()
    assert len(changes) == 1 and changes[0].head_moved, changes
    assert session.watch.poll() == []
