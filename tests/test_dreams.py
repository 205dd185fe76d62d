"""Pending dreaming runs on real repos: review, full and partial acceptance, reject, undo, viewed
marks, and an external agent run in a temporary work tree."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from amr_tui.core.diff.entries import ChangeKind
from amr_tui.services.dreams.make import agent_dream
from amr_tui.services.dreams.service import DreamError, DreamService
from tests.historyhelpers import (
    DEVIN,
    DEVIN_BRANCH,
    branch_commit,
    commit,
    devin_repo,
    git,
    new_repo,
    snapshot,
    tree_at,
)

RUN = "devin-launch"


@pytest.fixture
def devin(tmp_path: Path) -> Path:
    return devin_repo(tmp_path / "memory")


def kinds(review) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in review.diff.changes:
        if not c.links_only:
            out[c.kind.value] = out.get(c.kind.value, 0) + 1
    return out


def test_pending_run_card_and_review(devin: Path) -> None:
    service = DreamService(devin)
    (run,) = service.runs()
    assert (run.id, run.branch, run.state, len(run.commits)) == (RUN, DEVIN_BRANCH, "pending", 3)
    assert run.summary == (
        "merge landing-page and styling into frontend/stack; drop dev-port; "
        "regroup under tooling/, frontend/ and backend/; infer conventions"
    )
    assert run.based_on_main and run.main_moved == 0 and run.files_changed == 14
    assert (run.entries_added, run.entries_removed) == (10, 13)
    assert service.run(DEVIN_BRANCH).tip == service.run(RUN).tip
    review = service.review(RUN)
    # duplicates merged, the transient entry dropped, notes regrouped into folders, a new inferred entry
    assert kinds(review) == {"merged": 2, "moved": 8, "dropped": 1, "new": 1}
    assert not review.applied and all(not f.viewed for f in review.files)
    with pytest.raises(DreamError):
        service.run("no-such-run")


def test_full_accept_fast_forwards_and_undo_reverts_and_reopens(devin: Path) -> None:
    service = DreamService(devin)
    tip = service.run(RUN).tip
    result = service.accept(RUN)
    assert (result.how, result.commit, result.closed) == ("fast-forward", tip, True)
    assert git(devin, "rev-parse", "main").strip() == tip
    assert snapshot(devin) == snapshot(DEVIN / "after")
    assert git(devin, "status", "--porcelain") == ""
    assert service.runs() == [] and [r.state for r in service.runs(closed=True)] == ["accepted"]
    record = git(devin, "log", "-1", "--format=%B", f"refs/amr/dreams/accepted/{RUN}")
    assert "Dream-Decision: accepted" in record and f"Dream-Main-After: {tip}" in record

    note = service.undo(RUN)
    assert "reopened" in note
    assert tree_at(devin, "main") == snapshot(DEVIN / "before")
    assert git(devin, "log", "-1", "--format=%s", "main").strip() == f"Undo dreaming run {RUN}"
    assert git(devin, "status", "--porcelain") == ""
    again = service.run(RUN)
    assert again.state == "pending" and again.based_on_main and again.summary.endswith("(reopened)")
    assert kinds(service.review(RUN, history=False)) == {"merged": 2, "moved": 8, "dropped": 1, "new": 1}


def test_run_behind_main_becomes_one_commit_with_trailers(devin: Path) -> None:
    service = DreamService(devin)
    memory = (devin / "MEMORY.md").read_text().replace("short bullet lists", "short bullet lists, no tables")
    agent = commit(
        devin,
        {
            "rate-limits.md": "# Rate limits\n\n- 100 requests per minute per key [source: https://x/s9]\n",
            "MEMORY.md": memory,
        },
        "Remember rate limits",
        name="Agent",
    )
    run = service.run(RUN)
    assert not run.based_on_main and run.main_moved == 1
    result = service.accept(RUN)
    assert result.how == "commit" and result.closed
    body = git(devin, "log", "-1", "--format=%B", "main")
    assert f"Dream-Run: {RUN}" in body and "Dream-Accepted: all" in body
    assert [ln.split(": ")[1] for ln in body.splitlines() if ln.startswith("Dream-Commit:")] == git(
        devin, "rev-list", "--reverse", f"{agent}~1..{run.tip}"
    ).split()
    assert git(devin, "log", "--format=%s", "-2", "main").splitlines()[1] == "Remember rate limits"
    tree = tree_at(devin, "main")
    want = snapshot(DEVIN / "after")
    assert set(tree) == set(want) | {"rate-limits.md"}
    assert tree["MEMORY.md"] == want["MEMORY.md"].replace("short bullet lists", "short bullet lists, no tables")
    assert {p: tree[p] for p in want if p != "MEMORY.md"} == {p: t for p, t in want.items() if p != "MEMORY.md"}
    assert git(devin, "status", "--porcelain") == "" and snapshot(devin) == tree


def test_a_file_main_edited_and_the_run_deleted_is_refused_as_a_whole(devin: Path) -> None:
    service = DreamService(devin)
    commit(
        devin,
        {"bun.md": (devin / "bun.md").read_text() + "- Pin bun to 1.1 in CI [source: https://x/s9]\n"},
        "Remember bun pin",
        name="Agent",
    )
    before = git(devin, "rev-parse", "main").strip()
    with pytest.raises(DreamError, match="bun.md"):
        service.accept(RUN)
    assert git(devin, "rev-parse", "main").strip() == before
    service.accept(RUN, files=["tooling/bun.md", "dev-port.md"])  # the rest can still be taken in parts
    tree = tree_at(devin, "main")
    assert "Pin bun" in tree["bun.md"] and "tooling/bun.md" in tree and "dev-port.md" not in tree


def test_partial_acceptance_then_reject_then_undo_twice(devin: Path) -> None:
    service = DreamService(devin)
    base = git(devin, "rev-parse", "main").strip()
    review = service.review(RUN)
    stack = next(c for c in review.diff.changes if c.kind is ChangeKind.MERGED and c.new.path == "frontend/stack.md")
    edited = (
        "- The website and its landing page use Next.js and Tailwind CSS with the `brand` preset "
        "[source: https://app.devin.ai/sessions/s3; source: https://app.devin.ai/sessions/s4]"
    )
    service.accept(RUN, files=["dev-port.md"])
    service.accept(RUN, entries=[stack.id], edits={stack.id: edited})
    tree = tree_at(devin, "main")
    assert "dev-port.md" not in tree
    assert tree["frontend/stack.md"] == "# Frontend stack\n\n" + edited + "\n"
    assert "built with Next.js" not in tree["landing-page.md"] and "Hero images" in tree["landing-page.md"]
    assert "brand" not in tree["styling.md"] and "bun install" in tree["styling.md"]
    run = service.run(RUN)
    assert run.state == "pending" and len(run.accept_commits) == 2
    dropped = next(c for c in review.diff.changes if c.kind is ChangeKind.DROPPED and not c.links_only)
    assert dropped.id in service.review(RUN, history=False).applied
    assert f"Dream-Accepted: entry {stack.id}" in git(devin, "log", "-1", "--format=%B", "main")

    ref = service.reject(RUN)
    assert ref == f"refs/amr/dreams/rejected/{RUN}" and service.runs() == []
    record = git(devin, "log", "-1", "--format=%B", ref)
    assert "Dream-Decision: rejected" in record and record.count("Dream-Accept-Commit:") == 2
    assert git(devin, "rev-parse", f"{ref}^").strip() == run.tip  # the run's commits stay reachable

    assert "reopened" in service.undo(RUN)
    assert service.run(RUN).state == "pending" and git(devin, "rev-parse", DEVIN_BRANCH).strip() == run.tip
    assert "still pending" in service.undo(RUN)
    assert tree_at(devin, "main") == tree_at(devin, base)
    assert service.run(RUN).accept_commits == []
    with pytest.raises(DreamError):
        service.undo(RUN)


def test_conflicting_file_is_refused_and_nothing_moves(make_repo) -> None:
    repo = make_repo("m", {"MEMORY.md": "# M\n\n## Index\n- [[n]]\n", "n.md": "- alpha\n- beta\n"})
    branch_commit(repo, "dreams/r1", {"n.md": "- alpha, reworded by the dream\n- beta\n"}, "dream: reword alpha")
    commit(repo, {"n.md": "- alpha, edited by an agent\n- beta\n"}, "Agent edit")
    before = git(repo, "rev-parse", "main").strip()
    service = DreamService(repo)
    with pytest.raises(DreamError, match="n.md"):
        service.accept("r1")
    with pytest.raises(DreamError, match="no entry change"):
        service.accept("r1", entries=["e00000000"])
    assert git(repo, "rev-parse", "main").strip() == before and service.run("r1").state == "pending"


def test_fast_forward_keeps_an_uncommitted_edit_out_of_main_and_in_the_work_tree(devin: Path) -> None:
    """A whole run accepted goes through the write gate (issue 38 point 1): each file is brought
    forward by merging, so a hand edit nobody committed stays in the work tree (here the run
    deletes the file: the edit stays as an untracked file) and never reaches main."""
    (devin / "dev-port.md").write_text("# Dev port\n\n- edited by hand, not committed\n")
    service = DreamService(devin)
    done = service.accept(RUN)
    assert done.how == "fast-forward" and git(devin, "rev-parse", "main").strip() == service.run(RUN).tip
    assert "edited by hand" in (devin / "dev-port.md").read_text()
    assert "edited by hand" not in git(devin, "log", "-p", "main")
    assert git(devin, "diff", "--cached", "--name-only").strip() == ""


def test_viewed_marks_clear_when_the_file_changes_again(devin: Path) -> None:
    service = DreamService(devin)
    service.mark_viewed(RUN, "frontend/stack.md")
    service.mark_viewed(RUN, "MEMORY.md")
    assert service.viewed(service.run(RUN)) == {"frontend/stack.md": True, "MEMORY.md": True}
    assert (devin / ".git" / "amr" / "viewed.json").is_file() and git(devin, "status", "--porcelain") == ""
    after = (DEVIN / "after" / "frontend" / "stack.md").read_text()
    branch_commit(
        devin, DEVIN_BRANCH, {"frontend/stack.md": after + "- One more [source: https://x/1]\n"}, "dream: more"
    )
    marks = {f.path: f.viewed for f in service.review(RUN, history=False).files}
    assert marks["frontend/stack.md"] is False and marks["MEMORY.md"] is True
    service.mark_viewed(RUN, "MEMORY.md", viewed=False)
    assert service.viewed(service.run(RUN)) == {"frontend/stack.md": False}


AGENT = """
import os, subprocess, sys
mode = sys.argv[1]
assert os.environ["AMR_DREAM_BRANCH"] == "dreams/" + os.environ["AMR_DREAM_RUN"]
if mode in ("commit", "leftover"):
    with open("notes.md", "a") as f:
        f.write("- Ship in small PRs: schema first, then API, then UI [source: https://x/s/9]\\n")
    subprocess.run(["git", "add", "notes.md"], check=True)
    subprocess.run(["git", "commit", "-q", "-m", "dream: infer the PR order"], check=True)
if mode == "leftover":
    with open("scratch.md", "w") as f:
        f.write("- not committed\\n")
"""


def test_agent_dream_runs_in_a_temporary_worktree(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "m", {"MEMORY.md": "# M\n\n## Index\n- [[notes]]\n", "notes.md": "# Notes\n\n"})
    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    service = DreamService(repo)
    main = git(repo, "rev-parse", "main").strip()
    outcome = agent_dream(service, [sys.executable, str(script), "commit"], run_id="nightly", capture=True)
    assert outcome.result.returncode == 0 and not outcome.leftovers
    assert outcome.run is not None and outcome.run.summary == "infer the PR order" and outcome.run.base == main
    assert git(repo, "rev-parse", "main").strip() == main and git(repo, "status", "--porcelain") == ""
    assert len(git(repo, "worktree", "list").splitlines()) == 1
    (change,) = [c for c in service.review("nightly", history=False).diff.changes]
    assert change.kind is ChangeKind.NEW
    none = agent_dream(service, [sys.executable, str(script), "nothing"], run_id="idle")
    assert none.run is None and "dreams/idle" not in service.repo.branches("dreams/")
    left = agent_dream(service, [sys.executable, str(script), "leftover"], run_id="messy")
    assert left.leftovers and left.run is not None and not (repo / "scratch.md").exists()
    failed = agent_dream(service, [sys.executable, "-c", "import sys; sys.exit(3)"], run_id="broken")
    assert failed.result.returncode == 3 and failed.run is None


def test_rejected_parts_stay_out_when_the_rest_is_accepted(devin: Path) -> None:
    service = DreamService(devin)
    review = service.review(RUN, history=False)
    conv = next(c for c in review.diff.changes if c.kind is ChangeKind.NEW and not c.links_only)
    service.reject_parts(RUN, files=["dev-port.md"], changes=[conv.id])
    again = service.review(RUN, history=False)
    assert conv.id in again.rejected and {f.path for f in again.files if f.rejected} == {"dev-port.md"}
    dropped = next(c for c in again.diff.changes if c.kind is ChangeKind.DROPPED and not c.links_only)
    assert dropped.id in again.rejected  # its file was rejected
    result = service.accept(RUN)
    assert result.how == "commit" and result.closed
    tree = tree_at(devin, "main")
    want = snapshot(DEVIN / "after")
    assert "dev-port.md" in tree and "Dev server was on port 3001" in tree["dev-port.md"]
    assert "Ship in small PRs" not in tree.get("workflow/conventions.md", "")
    assert tree["frontend/stack.md"] == want["frontend/stack.md"] and tree["tooling/bun.md"] == want["tooling/bun.md"]
    assert "rejected file dev-port.md" in git(devin, "log", "-1", "--format=%B", "main")


def test_the_accept_message_names_only_the_changes_it_applied(make_repo) -> None:
    """Issue 28 point 5: an accepted drop that main had already made was listed as applied."""
    repo = make_repo("m", {"MEMORY.md": "# M\n\n## Index\n- [[n]]\n", "n.md": "- alpha\n- beta\n- gamma\n"})
    branch_commit(repo, "dreams/r1", {"n.md": "- alpha\n- gamma\n- delta, inferred\n"}, "dream: drop beta, infer delta")
    commit(repo, {"n.md": "- alpha\n- gamma\n"}, "Agent removes beta too")
    service = DreamService(repo)
    review = service.review("r1", history=False)
    drop = next(c for c in review.diff.changes if c.kind is ChangeKind.DROPPED)
    new = next(c for c in review.diff.changes if c.kind is ChangeKind.NEW)
    service.accept("r1", entries=[drop.id, new.id])
    body = git(repo, "log", "-1", "--format=%B", "main")
    lines = [ln for ln in body.splitlines() if ln.startswith("- ")]
    assert any("delta" in ln and "nothing to apply" not in ln for ln in lines), body
    assert any("beta" in ln and ln.startswith("- nothing to apply, main already reads so") for ln in lines), body
    assert git(repo, "show", "main:n.md") == "- alpha\n- gamma\n- delta, inferred\n"
