"""History and provenance: paged file history, entry timelines, blame, forgotten facts, tombstones,
restoring, and resurrection detection (seed article case 6), on real git repos."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from amr_tui.core.tombstones import TOMBSTONE_PATH, parse_tombstones
from amr_tui.git import GitRepo
from amr_tui.git import history as gh
from amr_tui.git.catfile import BlobReader
from amr_tui.git.gate import observe_steps
from amr_tui.services.history.forgotten import forget, restore
from amr_tui.services.history.service import HistoryService, resurrections
from tests.historyhelpers import commit, git, new_repo

S = "https://example.com/sessions"


@pytest.fixture
def repo(make_repo) -> Path:
    root = make_repo(
        "memory",
        {
            "MEMORY.md": "# Memory\n\n## Index\n- [[team]]\n- [[notes]]\n",
            "team.md": "# Team\n\n",
            "notes.md": "# Notes\n\n",
        },
    )
    commit(
        root,
        {
            "team.md": f"# Team\n\n- Marco runs the website rewrite with one contractor [source: {S}/101]\n"
            f"- Priya owns pricing [source: {S}/101]\n"
        },
        "Remember team",
        name="Devin 101",
        date="2026-09-02T10:00:00+00:00",
    )
    commit(
        root,
        {
            "team.md": "# Team\n\n- Marco runs the website rewrite with two contractors since mid-September "
            f"[source: {S}/110]\n- Priya owns pricing [source: {S}/101]\n"
        },
        "Update team size",
        name="Devin 110",
        date="2026-09-15T10:00:00+00:00",
    )
    commit(
        root,
        {
            "team.md": f"# Team\n\n- Priya owns pricing [source: {S}/101]\n",
            "notes.md": "# Notes\n\n- Marco runs the website rewrite with two contractors since mid-September "
            f"[source: {S}/110; added: 2026-09-20]\n",
        },
        "Move Marco to notes",
        name="Claude Code",
        date="2026-09-20T10:00:00+00:00",
    )
    return root


def test_file_history_pages_and_sources(repo: Path) -> None:
    service = HistoryService(repo)
    first = service.file_history("team.md", limit=2)
    assert [i.commit.subject for i in first.items] == ["Move Marco to notes", "Update team size"]
    assert first.items[1].sources_added == (f"{S}/110",)
    assert (first.items[0].entries_added, first.items[0].entries_removed) == (0, 1)
    commit(repo, {"team.md": f"# Team\n\n- Priya owns pricing and discounts [source: {S}/130]\n"}, "Later")
    second = service.file_history("team.md", limit=2, cursor=first.next)  # pinned: "Later" does not shift it
    assert [i.commit.subject for i in second.items] == ["Remember team", "Create memory repo"]
    assert second.next is None and second.items[0].sources_added == (f"{S}/101",)
    assert service.file_history("team.md", limit=1).items[0].commit.subject == "Later"


def test_file_change_aligns_entries(repo: Path) -> None:
    service = HistoryService(repo)
    head = git(repo, "rev-parse", "HEAD~1").strip()
    version = service.file_change("team.md", head)
    assert version.old is not None and b"one contractor" in version.old and b"two contractors" in version.new
    assert [r.kind for r in version.rows if r.change] == ["reworded", "unchanged"]
    assert "-- a/team.md" in version.patch or "--- a/team.md" in version.patch


def test_entry_timeline_follows_rewording_and_moves(repo: Path) -> None:
    service = HistoryService(repo)
    timeline = service.entry_timeline("notes.md", 3)
    assert [(e.kind, e.commit.subject) for e in timeline.events] == [
        ("moved", "Move Marco to notes"),
        ("reworded", "Update team size"),
        ("added", "Remember team"),
    ]
    assert timeline.events[0].from_path == "team.md" and timeline.complete
    assert timeline.added.commit.author_name == "Devin 101"
    assert "one contractor" in timeline.events[1].before


def test_blame_and_reblame_at_the_parent(repo: Path) -> None:
    service = HistoryService(repo)
    commit(
        repo,
        {"team.md": f"# Team\n\n- Priya owns pricing [source: {S}/101; added: 2026-09-02]\n"},
        "Date it",
        name="Alice",
        date="2026-09-25T10:00:00+00:00",
    )
    blamed = service.blame("team.md", 3)
    assert blamed.summary == "Date it" and blamed.author_name == "Alice" and blamed.previous is not None
    earlier = service.reblame(blamed)
    assert earlier.summary == "Remember team" and earlier.orig_line == 4
    assert service.reblame(earlier) is None or service.reblame(earlier).summary == "Create memory repo"


def test_forgotten_lists_deletions_not_moves_rewordings_or_index_lines(repo: Path) -> None:
    commit(
        repo,
        {"team.md": "# Team\n\n", "MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n"},
        "Forget Priya",
        name="Devin 120",
        date="2026-09-30T10:00:00+00:00",
    )
    service = HistoryService(repo)
    facts = service.forgotten()
    assert [(f.text, f.path, f.commit.subject, f.date) for f in facts] == [
        ("Priya owns pricing", "team.md", "Forget Priya", "2026-09-30")
    ]
    # restore writes it back as a new commit
    new = restore(service, facts[0])
    assert (repo / "team.md").read_text().endswith(f"- Priya owns pricing [source: {S}/101]\n")
    assert f"Restored-from: {facts[0].commit.oid}" in git(repo, "log", "-1", "--format=%B", new)
    assert git(repo, "status", "--porcelain") == ""
    assert service.forgotten() == []
    assert resurrections(repo) == []  # put back by amr on purpose: not a resurrection


def test_forget_writes_a_tombstone_in_one_commit(repo: Path) -> None:
    service = HistoryService(repo)
    forget(service, "team.md", 3, reason="moved on", by="Alice Chen", today=__import__("datetime").date(2026, 10, 8))
    assert "Priya" not in (repo / "team.md").read_text()
    (t,) = parse_tombstones((repo / TOMBSTONE_PATH).read_bytes())
    assert (t.text, t.forgotten, t.reason, t.by, t.sources, t.file) == (
        "Priya owns pricing",
        "2026-10-08",
        "moved on",
        "Alice Chen",
        (f"{S}/101",),
        "team.md",
    )
    assert (
        git(repo, "log", "-1", "--format=%s", "--", TOMBSTONE_PATH).strip()
        == "Forget entry in team.md: Priya owns pricing"
    )
    (fact,) = service.forgotten()
    assert fact.tombstone is not None and fact.tombstone.reason == "moved on"
    forget(service, "notes.md", 3, redact=True)
    body = git(repo, "log", "-1", "--format=%B")
    assert "Marco" not in body and "redacted" in body
    stones = parse_tombstones((repo / TOMBSTONE_PATH).read_bytes())
    assert stones[1].redacted and "Marco" not in (repo / TOMBSTONE_PATH).read_text()
    redacted = [f for f in service.forgotten() if f.redacted]
    assert len(redacted) == 1 and redacted[0].text == "(redacted)"
    with pytest.raises(ValueError):
        restore(service, redacted[0])
    with pytest.raises(ValueError):
        forget(service, "team.md", 1)  # a heading, not an entry


def test_a_commit_that_races_a_restore_is_kept(repo: Path) -> None:
    """Restore goes through the write gate: an agent's commit landing after it read HEAD is
    merged with it, never dropped (the gate's retry, not a loop of restore's own)."""
    service = HistoryService(repo)
    lines = (repo / "team.md").read_text().splitlines()
    line = next(i for i, t in enumerate(lines, 1) if t.startswith("- "))
    forget(service, "team.md", line)
    fact = next(f for f in service.forgotten(refresh=True) if f.line is not None)
    fired: list[str] = []

    def agent(step: str) -> None:
        if step == "head" and not fired:  # between amr reading the branch and moving it
            fired.append(step)
            commit(repo, {"agent.md": "- agent fact\n"}, "Agent was here", name="Agent")

    with observe_steps(agent):
        new = restore(service, fact)
    assert fired == ["head"]
    assert git(repo, "log", "--format=%s", "-2", new).splitlines()[1] == "Agent was here"
    assert git(repo, "log", "-1", "--format=%s", new).startswith("Restore forgotten entry")
    assert (repo / "agent.md").exists() and git(repo, "status", "--porcelain") == ""


def test_seed_case_6_a_stale_session_brings_a_deleted_fact_back(tmp_path: Path) -> None:
    """The seed article's case 6: A deletes an entry; B, from an older clone, writes the same fact
    into a new file; git merges cleanly and the fact is back. amr lint --history (AMR030) says so."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    seed = new_repo(
        tmp_path / "seed",
        {
            "MEMORY.md": "# Memory\n\n## Index\n- [[findings]]\n",
            "findings.md": "# Findings\n\n- Database: queries are fast [source: https://x/s/301]\n"
            "- Cache hit rate is 93% [source: https://x/s/300]\n",
        },
    )
    git(seed, "push", "-q", str(origin), "main")
    a, b = tmp_path / "a", tmp_path / "b"
    git(tmp_path, "clone", "-q", str(origin), str(a))
    git(tmp_path, "clone", "-q", str(origin), str(b))
    commit(
        a,
        {"findings.md": "# Findings\n\n- Cache hit rate is 93% [source: https://x/s/300]\n"},
        "dream: drop the database note",
        name="Dreamer",
        date="2026-10-02T03:00:00+00:00",
    )
    git(a, "push", "-q", "origin", "main")
    commit(
        b,
        {
            "db.md": "# Database\n\n- Database: queries are fast [source: https://x/s/305]\n",
            "MEMORY.md": "# Memory\n\n## Index\n- [[findings]]\n- [[db]]\n",
        },
        "Remember database speed",
        name="Stale session",
        date="2026-10-02T04:00:00+00:00",
    )
    git(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    assert "Database: queries are fast" not in (b / "findings.md").read_text()  # the merge was clean
    findings = resurrections(b)
    assert [(f.path, f.diagnostic.line, f.diagnostic.code) for f in findings] == [("db.md", 3, "AMR030")]
    assert "deleted on 2026-10-02" in findings[0].diagnostic.message
    assert '"dream: drop the database note"' in findings[0].diagnostic.message


def test_resurrection_of_a_tombstoned_fact_and_no_false_alarm_for_merged_duplicates(repo: Path) -> None:
    service = HistoryService(repo)
    forget(service, "team.md", 3, reason="wrong", by="Alice")
    commit(
        repo, {"notes.md": (repo / "notes.md").read_text() + f"- priya owns pricing! [source: {S}/140]\n"}, "Relearn"
    )
    # a duplicate removed while a copy stays is a merge, not a forgetting
    commit(
        repo,
        {
            "MEMORY.md": "# Memory\n\n- Ship on Tuesdays\n\n## Index\n- [[team]]\n- [[notes]]\n",
            "team.md": "# Team\n\n- Ship on Tuesdays\n",
        },
        "Duplicate",
    )
    commit(repo, {"team.md": "# Team\n\n"}, "Dedupe")
    findings = resurrections(repo)
    assert [(f.path, f.diagnostic.line) for f in findings] == [("notes.md", 4)]
    assert "forgotten on purpose" in findings[0].diagnostic.message and "(wrong)" in findings[0].diagnostic.message


def test_git_layer_reads_odd_names_and_refuses_option_like_text(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "m", {"MEMORY.md": "# M\n", "caf\u00e9 notes.md": "- une note\n"})
    commit(root, {"caf\u00e9 notes.md": "- une autre note\n"}, "Edit")
    repo = GitRepo(root)
    (patch,) = gh.log_patches(repo, "HEAD", limit=1)
    assert patch.files[0].path == "caf\u00e9 notes.md" and patch.files[0].removed == ["- une note"]
    assert gh.log_entries(repo, grep="--output=pwned.txt") == []  # the forgotten list greps messages
    assert gh.log_entries(repo, "--output=pwned.txt") == []
    assert not (root / "pwned.txt").exists()
    assert [e.info.subject for e in gh.log_entries(repo, paths=("caf\u00e9 notes.md",))] == [
        "Edit",
        "Create memory repo",
    ]


def test_blob_reader_uses_gitpython_lazily_and_ignores_git_dir(tmp_path: Path, monkeypatch) -> None:
    root = new_repo(tmp_path / "m", {"MEMORY.md": "# M\n- one\n"})
    first = git(root, "rev-parse", "HEAD").strip()
    commit(root, {"MEMORY.md": "# M\n- two\n"}, "Two")
    other = new_repo(tmp_path / "other", {"MEMORY.md": "# Other\n"})
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))  # must not redirect amr's reads
    reader = BlobReader(GitRepo(root))
    assert reader.read(first, "MEMORY.md") == b"# M\n- one\n"
    assert reader.read(first, "missing.md") is None and reader.read(first, "MEMORY.md") == b"# M\n- one\n"
    reader.close()
    code = (
        "import sys; import amr_tui.services.history, amr_tui.services.dreams, amr_tui.cli.main; "
        "print('git' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_hostile_names_and_text_do_not_break_history_or_review(make_repo) -> None:
    from amr_tui.services.dreams.service import DreamService

    root = make_repo(
        "m",
        {
            "MEMORY.md": "# M\n\n## Index\n",
            "evil\nname.md": "- line one [source: https://x/1]\n",
            "ctl\x1b.md": "- \x1b[2J wipe [source: https://x/2]\n",
        },
    )
    commit(root, {"evil\nname.md": "- line two\n", "ctl\x1b.md": "- calm\n"}, "Edit odd files")
    git(root, "branch", "dreams/odd")
    from tests.historyhelpers import branch_commit

    branch_commit(
        root, "dreams/odd", {"evil\nname.md": None, "ctl\x1b.md": "- \x1b]52;c;eA==\x07 back\n"}, "dream: odd"
    )
    service = HistoryService(root)
    assert isinstance(service.forgotten(), list)
    assert resurrections(root) == [] or all(f.diagnostic.code == "AMR030" for f in resurrections(root))
    review = DreamService(root).review("odd")
    assert isinstance(review.diff.changes, list)
    with pytest.raises(ValueError):
        service.file_history("ctl\x1b.md")


def test_the_removals_walk_never_diffs_a_commit_that_only_adds_files(tmp_path: Path) -> None:
    """A first commit of a whole memory (a million entries at once) holds no removal: the walk
    for removed lines (``log_patches(..., removals=True)``, the forgotten facts and AMR030) lists
    it without diffing it, and still diffs a commit that adds a file beside a removal."""
    notes = "# Notes\n\n- The staging deploy runs on Fridays\n- Alice prefers tea\n"
    root = new_repo(tmp_path / "memory", {"MEMORY.md": "# Memory\n\n## Index\n\n- [[notes]]\n", "notes.md": notes})
    commit(root, {"notes.md": notes.replace("- Alice prefers tea\n", ""), "more.md": "# More\n\n- a fact\n"}, "drop")
    handle = GitRepo(root)
    every = gh.log_patches(handle, "HEAD", max_blob=1 << 20)
    removing = gh.log_patches(handle, "HEAD", max_blob=1 << 20, removals=True)
    assert [cd.entry.info.oid for cd in removing] == [cd.entry.info.oid for cd in every]
    first, last = removing[-1], removing[0]
    assert every[-1].files and not first.files  # the first commit: listed, not diffed
    assert [f.path for f in last.files] == [f.path for f in every[0].files]  # a removal beside an added file
