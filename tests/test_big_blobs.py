"""Bad input stays cheap and contained: a Markdown file over ``MAX_PARSE_BYTES`` somewhere in git
history is never read by a history walk or a history read. ``amr forgotten``, ``amr history``,
``amr forget``, ``amr dreams show`` and ``amr lint --history`` skip it and name it (a line on stderr
with the path and the commit, a ``skipped`` JSON field where the JSON is an object or per commit).
Real git repos, no mocks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from amr_tui.git import GitRepo
from amr_tui.git import history as gh
from amr_tui.git.catfile import BlobReader
from amr_tui.services.dreams.service import DreamService
from amr_tui.services.history.service import HistoryService, resurrections
from amr_tui.services.workspace import MAX_PARSE_BYTES
from tests.historyhelpers import branch_commit, commit, git, new_repo
from tests.hostilehelpers import run_amr

S = "https://example.com/s"
NOTES = (
    f"# Notes\n\n- The API runs on port 8080 [source: {S}/1; added: 2026-10-01]\n"
    f"- Deploys happen on Fridays [source: {S}/2; added: 2026-10-01]\n"
)


def big_text(size: int = MAX_PARSE_BYTES + 4096, head: str = "# Big\n\n") -> str:
    """Entry lines, each a fact with its own source, a little over ``size`` bytes in all."""
    lines, n, i = [head], len(head), 0
    while n <= size:
        line = f"- Bulk fact number {i} about the service [source: {S}/bulk-{i}; added: 2026-10-01]\n"
        lines.append(line)
        n, i = n + len(line), i + 1
    return "".join(lines)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """notes; an agent dumps big.md (over the limit); more notes; big.md deleted; a fact forgotten."""
    root = new_repo(tmp_path / "memory", {"MEMORY.md": "# Memory\n\n## Index\n\n- [[notes]]\n", "notes.md": NOTES})
    commit(root, {"big.md": big_text()}, "agent dumps a huge file", date="2026-10-01T13:00:00+00:00")
    commit(
        root,
        {"notes.md": NOTES + f"- Staging is at staging.example.com [source: {S}/3]\n"},
        "more notes",
        date="2026-10-01T14:00:00+00:00",
    )
    commit(root, {"big.md": None}, "remove the huge file", date="2026-10-01T15:00:00+00:00")
    commit(
        root,
        {
            "notes.md": NOTES.replace(f"- Deploys happen on Fridays [source: {S}/2; added: 2026-10-01]\n", "")
            + f"- Staging is at staging.example.com [source: {S}/3]\n"
        },
        "forget deploy day",
        date="2026-10-01T16:00:00+00:00",
    )
    return root


def _oid(root: Path, rev: str) -> str:
    return git(root, "rev-parse", rev).strip()


def _notices(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("amr: skipped ")]


def test_forgotten_skips_the_big_file_and_names_it_once_per_commit(repo: Path) -> None:
    added, removed = _oid(repo, "HEAD~3"), _oid(repo, "HEAD~1")
    run = run_amr(["forgotten", str(repo)], cwd=repo)
    assert run.returncode == 0, run.stderr
    assert "Deploys happen on Fridays" in run.stdout
    assert "Bulk fact" not in run.stdout  # its deletion was never read
    notices = _notices(run.stderr)
    assert len(notices) == 2, run.stderr
    assert any(f"big.md in commit {removed[:7]}" in n for n in notices)
    assert any(f"big.md in commit {added[:7]}" in n for n in notices)
    assert all("MiB" in n for n in notices)
    as_json = run_amr(["forgotten", str(repo), "--json"], cwd=repo)
    assert as_json.returncode == 0
    assert [f["text"] for f in json.loads(as_json.stdout)] == ["Deploys happen on Fridays"]
    assert len(_notices(as_json.stderr)) == 2


def test_history_of_the_file_names_the_commits_it_skipped(repo: Path) -> None:
    run = run_amr(["history", str(repo / "big.md"), "--json"], cwd=repo)
    assert run.returncode == 0, run.stderr
    items = json.loads(run.stdout)
    assert [i["subject"] for i in items] == ["remove the huge file", "agent dumps a huge file"]
    for item in items:
        assert [s["path"] for s in item["skipped"]] == ["big.md"] and item["skipped"][0]["commit"] == item["commit"]
        assert item["skipped"][0]["size"] > MAX_PARSE_BYTES
        assert item["sources_added"] == [] and item["entries_added"] == 0
    assert len(_notices(run.stderr)) == 2
    normal = json.loads(run_amr(["history", str(repo / "notes.md"), "--json"], cwd=repo).stdout)
    assert all(i["skipped"] == [] for i in normal)


def test_a_timeline_walks_past_big_versions_and_says_so(tmp_path: Path) -> None:
    root = new_repo(
        tmp_path / "memory",
        {"MEMORY.md": "# Memory\n\n## Index\n\n- [[log]]\n", "log.md": f"# Log\n\n- Cache is redis [source: {S}/9]\n"},
    )
    grown = commit(
        root,
        {"log.md": f"# Log\n\n- Cache is redis [source: {S}/9]\n" + big_text(head="")},
        "grow",
        date="2026-10-02T12:00:00+00:00",
    )
    commit(
        root,
        {"log.md": f"# Log\n\n- Cache is redis [source: {S}/9]\n- Queue is sqs\n"},
        "shrink",
        date="2026-10-03T12:00:00+00:00",
    )
    run = run_amr(["history", f"{root / 'log.md'}:3", "--json"], cwd=root)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert [e["kind"] for e in data["events"]] == ["added"] and data["events"][0]["subject"] == "Create memory repo"
    assert {(s["path"], s["commit"]) for s in data["skipped"]} == {("log.md", grown), ("log.md", _oid(root, "HEAD"))}
    assert len(_notices(run.stderr)) == 2


def test_history_and_forget_refuse_a_line_of_a_big_file_at_head(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "memory", {"MEMORY.md": "# Memory\n\n## Index\n\n- [[big]]\n", "big.md": big_text()})
    head = _oid(root, "HEAD")
    for argv in (["history", f"{root / 'big.md'}:3"], ["forget", f"{root / 'big.md'}:3", "--reason", "x"]):
        run = run_amr(argv, cwd=root)
        assert run.returncode == 2, (argv, run.stdout, run.stderr)
        assert f"big.md in commit {head[:7]} is" in run.stderr and "MiB amr reads from git" in run.stderr
        assert "Traceback" not in run.stderr
    assert _oid(root, "HEAD") == head and not (root / ".amr").exists()


def test_the_walk_never_diffs_a_big_blob_even_when_attributes_force_a_text_diff(repo: Path) -> None:
    # `diff` set in .gitattributes makes git diff any file as text, over core.bigFileThreshold too
    (repo / ".gitattributes").write_text("*.md diff\n")
    commit(repo, {".gitattributes": "*.md diff\n"}, "attributes", date="2026-10-01T17:00:00+00:00")
    r = GitRepo(repo)
    walked = gh.log_patches(r, "HEAD", max_blob=MAX_PARSE_BYTES)
    assert [c.entry.info.subject for c in walked] == [c.entry.info.subject for c in gh.log_patches(r, "HEAD")]
    big = {c.entry.info.subject: f for c in walked for f in c.files if f.path == "big.md"}
    assert set(big) == {"agent dumps a huge file", "remove the huge file"}
    assert all(f.hunks == () and f.too_large and f.too_large > MAX_PARSE_BYTES for f in big.values())
    assert big["remove the huge file"].new_path is None and big["agent dumps a huge file"].old_path is None
    notes = {c.entry.info.subject: [f.path for f in c.files] for c in walked}
    assert notes["forget deploy day"] == ["notes.md"] and notes["more notes"] == ["notes.md"]
    deleted = next(c for c in walked if c.entry.info.subject == "forget deploy day").files[0]
    assert deleted.removed == [f"- Deploys happen on Fridays [source: {S}/2; added: 2026-10-01]"]
    assert [(s.path, s.commit) for s in gh.skipped_blobs(walked)] == [
        ("big.md", _oid(repo, "HEAD~2")),
        ("big.md", _oid(repo, "HEAD~4")),
    ]
    one = gh.commit_patch(r, _oid(repo, "HEAD~2"), max_blob=MAX_PARSE_BYTES)
    assert one is not None and [(f.path, bool(f.too_large)) for f in one.files] == [("big.md", True)]
    page = gh.log_patches(r, "HEAD", paths=("big.md",), limit=1, skip=1, max_blob=MAX_PARSE_BYTES)
    assert [c.entry.info.subject for c in page] == ["agent dumps a huge file"]


def test_blob_reader_refuses_by_size_before_reading(repo: Path) -> None:
    from amr_tui.git.catfile import BlobTooLargeError, blob_sizes

    r = GitRepo(repo)
    added = _oid(repo, "HEAD~3")
    reader = BlobReader(r, max_bytes=MAX_PARSE_BYTES)
    try:
        with pytest.raises(BlobTooLargeError) as err:
            reader.read(added, "big.md")
        assert err.value.path == "big.md" and err.value.commit == added and err.value.size > MAX_PARSE_BYTES
        assert reader.read(added, "notes.md") == NOTES.encode()
        assert reader.read(added, "nothing.md") is None
        assert len(reader.read(added, "big.md", max_bytes=None) or b"") > MAX_PARSE_BYTES
    finally:
        reader.close()
    oid = git(repo, "rev-parse", f"{added}:big.md").strip()
    assert blob_sizes(r, [oid, "0" * 40])[oid] > MAX_PARSE_BYTES


def test_forgotten_and_resurrections_name_a_big_file_at_head(tmp_path: Path) -> None:
    root = new_repo(
        tmp_path / "memory", {"MEMORY.md": "# Memory\n\n## Index\n\n- [[notes]]\n- [[big]]\n", "notes.md": NOTES}
    )
    commit(root, {"big.md": big_text()}, "big", date="2026-10-02T12:00:00+00:00")
    commit(root, {"notes.md": "# Notes\n\n"}, "drop notes", date="2026-10-03T12:00:00+00:00")
    service = HistoryService(root)
    try:
        assert sorted(f.text for f in service.forgotten()) == ["Deploys happen on Fridays", "The API runs on port 8080"]
        skipped = service.history_skipped()
        assert {(s.path, s.commit) for s in skipped} == {
            ("big.md", _oid(root, "HEAD~1")),
            ("big.md", _oid(root, "HEAD")),
        }
    finally:
        service.close()
    found: list = []
    assert resurrections(root, found) == []
    assert {s.path for s in found} == {"big.md"}


def test_lint_history_names_the_big_file_it_skipped(repo: Path) -> None:
    added, removed = _oid(repo, "HEAD~3"), _oid(repo, "HEAD~1")
    (repo / "notes.md").write_text(NOTES)  # brings back the forgotten deploy-day fact: AMR030
    for argv in (["lint", "--history"], ["lint", "--history", "--json"]):
        run = run_amr(argv, cwd=repo)
        assert run.returncode == 1, (argv, run.stdout, run.stderr)
        assert "AMR030" in run.stdout and "Bulk fact" not in run.stdout
        notices = _notices(run.stderr)
        assert len(notices) == 2, run.stderr
        assert any(f"big.md in commit {removed[:7]}" in n for n in notices)
        assert any(f"big.md in commit {added[:7]}" in n for n in notices)
        assert all("MiB amr reads from git" in n for n in notices)
    named = run_amr(["lint", "--history", "memory"], cwd=repo.parent)  # paths shown as lint shows them
    assert all(n.startswith("amr: skipped memory/big.md in commit ") for n in _notices(named.stderr))
    assert len(_notices(named.stderr)) == 2, named.stderr
    plain = run_amr(["lint"], cwd=repo)  # no history walk: nothing skipped, nothing said
    assert _notices(plain.stderr) == []


def test_dream_review_leaves_a_big_file_out_and_names_it(repo: Path) -> None:
    commit(repo, {"huge.md": big_text()}, "a big file on main", date="2026-10-01T18:00:00+00:00")
    notes = (repo / "notes.md").read_text()
    branch_commit(
        repo,
        "dreams/run1",
        {"notes.md": notes.replace("8080", "8081"), "huge.md": big_text().replace("number 7 ", "number seven ")},
        "dream: reword",
    )
    service = DreamService(repo)
    try:
        review = service.review("run1")
        tip = _oid(repo, "dreams/run1")
        assert ("huge.md", tip) in {(s.path, s.commit) for s in review.skipped}
        assert ("big.md", _oid(repo, "HEAD~4")) in {(s.path, s.commit) for s in review.skipped}  # the history walk
        assert review.diff.changed_paths == ["notes.md"]
        assert [c.kind for c in review.diff.changes] == ["reworded"]
        assert service.review("run1", history=False).skipped[0].path == "huge.md"
    finally:
        service.close()
    run = run_amr(["dreams", "show", "run1", "-C", str(repo), "--json"], cwd=repo)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert {"path": "huge.md", "commit": tip} in [{k: s[k] for k in ("path", "commit")} for s in data["skipped"]]
    assert any("huge.md in commit" in n for n in _notices(run.stderr))


def test_a_50_mb_blob_in_history_stays_out_of_memory(tmp_path: Path) -> None:
    """The reported case: one 50 MB line in history. amr forgotten in a child process: its peak
    memory stays far below the blob's size (it was 600+ MB, 15 s, before blobs were measured first)."""
    root = new_repo(tmp_path / "memory", {"MEMORY.md": "# Memory\n\n## Index\n\n- [[notes]]\n", "notes.md": NOTES})
    (root / "big.md").write_bytes(b"# Big\n\n- " + b"x" * (50 * 1024 * 1024) + b"\n")
    git(root, "add", "big.md")
    git(root, "commit", "-q", "-m", "one giant line")
    commit(root, {"big.md": None}, "gone", date="2026-10-02T12:00:00+00:00")
    probe = (
        "import resource, subprocess, sys\n"
        "res = subprocess.run([sys.executable, '-m', 'amr_tui', 'forgotten', '--json'], capture_output=True)\n"
        "print(res.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, timeout=120)
    code, peak_kb = (int(x) for x in out.stdout.split())
    assert code == 0, out.stderr
    assert peak_kb < 50 * 1024, f"peak {peak_kb} KB"  # the probe's own children: amr and its git calls
