"""amr sync against a real git server on 127.0.0.1: retries, offline, refusals, state, CLI."""

from __future__ import annotations

import json

import pytest

from amr_tui.git.gate import Change
from amr_tui.services.sync.resolve import pending_merge, preview, resolve
from amr_tui.services.sync.run import sync, sync_state
from tests.synchelpers import amr, append, clone, commit_all, git, git_server  # noqa: F401

BASE = {
    "MEMORY.md": "# Memory\n\n## Index\n- [[findings]]\n",
    "findings.md": "# Findings\n\n- Database: queries are fast [source: s/1]\n",
    ".gitattributes": "*.md merge=amr\n",
}


def _pair(server, tmp_path):
    url = server.create("memory", BASE, work=tmp_path)
    return clone(url, tmp_path / "a", name="A", driver=True), clone(url, tmp_path / "b", name="B", driver=True)


def test_someone_pushing_first_is_merged_and_retried(git_server, tmp_path):  # noqa: F811
    a, b = _pair(git_server, tmp_path)
    append(b, "findings.md", "- from B [source: s/b]")
    mine = commit_all(b, "B")
    events = []

    def progress(ev):
        events.append((ev.stage, ev.attempt))
        if ev.stage == "push" and ev.attempt == 1:  # A pushes between B's fetch and B's push
            append(a, "findings.md", "- from A [source: s/a]")
            commit_all(a, "A")
            git(a, "push", "-q", "origin", "main")

    res = sync(b, progress=progress, backoff=0.01)
    assert res.status == "synced" and res.pushed and res.attempts == 2 and res.merges == 1, res
    assert ("retry", 1) in events and events[-1][0] == "done"
    served = git_server.read("memory", "findings.md")
    assert "- from A" in served and "- from B" in served
    assert git_server.reachable("memory", mine)
    state = json.loads((b / ".git" / "amr" / "sync.json").read_text())
    assert state["last_status"] == "synced" and state["last_sync"] and state["offline_since"] is None
    st = sync_state(b)
    assert (st.ahead, st.behind, st.last_sync) == (0, 0, state["last_sync"])


def test_offline_is_a_result_and_is_recorded(git_server, tmp_path):  # noqa: F811
    a, b = _pair(git_server, tmp_path)
    append(b, "findings.md", "- written offline")
    commit_all(b, "B")
    git_server.stop()
    res = sync(b, attempts=2, backoff=0.01)
    assert res.status == "offline" and res.exit_code == 3 and "offline" in res.message
    first = sync_state(b).offline_since
    assert first and sync_state(b).last_sync is None
    cli = amr(b, "sync")
    assert cli.returncode == 3 and "offline" in cli.stdout
    assert sync_state(b).offline_since == first  # since the first failure
    git_server.start()
    git(b, "remote", "set-url", "origin", git_server.url("memory"))
    assert sync(b).status == "synced"
    st = sync_state(b)
    assert st.offline_since is None and st.last_sync


def test_remote_refusal_and_no_remote(git_server, tmp_path, make_repo):  # noqa: F811
    a, b = _pair(git_server, tmp_path)
    hook = git_server.base / "memory.git" / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho protected >&2\nexit 1\n")
    hook.chmod(0o755)
    append(b, "findings.md", "- refused")
    commit_all(b, "B")
    res = sync(b, backoff=0.01)
    assert res.status == "rejected" and res.attempts == 1 and res.exit_code == 2
    lonely = make_repo("lonely")
    res = sync(lonely)
    assert res.status == "no-remote" and "no remote" in res.message


def test_an_uncommitted_agent_edit_stays_uncommitted_and_sync_still_lands(git_server, tmp_path):  # noqa: F811
    a, b = _pair(git_server, tmp_path)
    append(a, "findings.md", "- from A")
    commit_all(a, "A")
    git(a, "push", "-q", "origin", "main")
    append(b, "findings.md", "- uncommitted agent edit")
    res = sync(b, attempts=2, backoff=0.01)
    assert res.status == "synced"  # was "busy": an agent's uncommitted edit no longer blocks a sync
    text = (b / "findings.md").read_text()
    assert "- from A" in text and "uncommitted agent edit" in text
    assert "uncommitted agent edit" not in git(b, "show", "HEAD:findings.md").stdout  # never swept into a commit
    assert "uncommitted agent edit" in git(b, "diff").stdout
    git(b, "commit", "-q", "-am", "agent commits")
    assert sync(b).status == "synced"
    text = (b / "findings.md").read_text()
    assert "- from A" in text and "- uncommitted agent edit" in text


@pytest.mark.slow
def test_conflict_cli_status_preview_and_resolve_both(git_server, tmp_path):  # noqa: F811
    a, b = _pair(git_server, tmp_path)
    for root, word in ((a, "slow"), (b, "very fast")):
        (root / "findings.md").write_text(
            f"# Findings\n\n- Database: queries are {word} [source: s/1]\n- more from {root.name}\n"
        )
        commit_all(root, root.name)
    git(a, "push", "-q", "origin", "main")
    out = amr(b, "sync", "--json")
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)[0]
    (f,) = data["pending"]["files"]
    assert f["path"] == "findings.md" and [c["kind"] for c in f["conflicts"]] == ["entry"]
    status = amr(b, "sync", "--status")
    assert status.returncode == 1 and "conflict 0" in status.stdout
    pending = pending_merge(b)
    shown = preview(pending, "findings.md", {0: "theirs"}).decode()
    assert (
        "queries are slow" in shown
        and "very fast" not in shown
        and "- more from a" in shown
        and "- more from b" in shown
    )
    done = amr(b, "sync", "--resolve", "both")
    assert done.returncode == 0, done.stdout + done.stderr
    served = git_server.read("memory", "findings.md")
    assert "queries are slow" in served and "queries are very fast" in served and "<<<" not in served
    assert pending_merge(b) is None
    assert resolve is not None


def test_sync_right_after_an_amr_save_in_the_same_clone(git_server, tmp_path):  # noqa: F811
    from amr_tui.git import GitRepo

    a, b = _pair(git_server, tmp_path)
    append(a, "findings.md", "- from A")
    commit_all(a, "A")
    git(a, "push", "-q", "origin", "main")
    repo = GitRepo(b)
    head = repo.head()
    base = repo.read_blob_or_none(head, "findings.md")
    # the index entry is left without stat data:
    repo.write_files([Change("findings.md", base, base + b"- saved by amr\n", head)], "save")
    res = sync(b)
    assert res.status == "synced", res.message
    assert git(b, "status", "--porcelain").stdout == ""
    text = (b / "findings.md").read_text()
    assert "- from A" in text and "- saved by amr" in text


def test_network_calls_use_global_credential_helpers_only(make_repo, tmp_path):
    import os
    from pathlib import Path

    from amr_tui.git import GitRepo
    from amr_tui.git.remote import network_runner

    marker = tmp_path / "repo-helper-ran"
    home = Path(os.environ["HOME"])
    (home / ".gitconfig").write_text(
        '[credential]\n\thelper = "!f() { echo username=from-global; echo password=pw; }; f"\n'
    )
    root = make_repo("memory")
    git(root, "config", "credential.helper", f"!touch {marker}; echo username=from-repo")
    git(root, "config", "credential.https://example.com.helper", f"!touch {marker}")
    repo = GitRepo(root)
    out = network_runner(repo).run(["credential", "fill"], input=b"protocol=https\nhost=example.com\n\n").text
    assert "username=from-global" in out and not marker.exists()
    plain = repo.runner.run(["credential", "fill"], input=b"protocol=https\nhost=example.com\n\n", check=False)
    assert "from-global" not in plain.text and not marker.exists()  # other calls: no helper at all
