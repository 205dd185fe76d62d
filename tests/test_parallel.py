"""Cold `amr lint` and `amr search` read many files on every core (services.parallel): the
answers are exactly those of one process, file for file, finding for finding."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from amr_tui.services.batch import parallel
from amr_tui.services.lint.run import lint_targets, resolve_targets
from amr_tui.services.search.run import build_index
from amr_tui.services.workspace import discover
from tests.conftest import git

FILES = 240  # above parallel.MIN_FILES


def _topic(k: int) -> str:
    """Files alike enough to share facts across files, with a little of every kind of trouble."""
    lines = [f"# Topic {k}", "", "## Notes"]
    lines.append(
        f"- Service {k % 17} listens on port {6000 + k % 17} [source: https://example.com/{k}; added: 2026-0{1 + k % 9}-1{k % 10}]"
    )
    lines.append(f"- Fact number {k} about [[topics/t{(k * 7) % (FILES + 5)}]] and [[missing-{k % 3}]]")
    if k % 5 == 0:
        lines.append("- Deploys need a green build [added: 2026-13-45]")  # a bad date, and a duplicate
    if k % 11 == 0:
        lines.append("* a star bullet\n  with a second line")
    if k % 13 == 0:
        lines.append("- token AKIAABCDEFGHIJKLMNOP found in a log")
    if k % 29 == 0:
        lines.append("- [source: https://example.com/only-meta]")
    return "\n".join(lines) + "\n"


@pytest.fixture
def big_repo(make_repo) -> Path:
    root = make_repo("memory", {"MEMORY.md": "# Memory\n\n## Index\n- [[topics/t1]]\n- [[nowhere]]\n"})
    topics = root / "topics"
    topics.mkdir()
    for k in range(FILES):
        (topics / f"t{k}.md").write_text(_topic(k), encoding="utf-8")
    (topics / "latin1.md").write_bytes("- caf\xe9 au lait\n".encode("latin-1"))
    (topics / "notes.txt").write_text("not markdown\n")
    git(root, "add", "--", "topics")
    git(root, "commit", "-q", "-m", "Many topics")
    os.symlink("/etc/hostname", root / "topics" / "escape.md")
    return root


def _lint(root: Path) -> list[tuple]:
    out = []
    for r in lint_targets(resolve_targets([root]), near_duplicates=True, use_cache=False):
        d = r.finding.diagnostic
        fix = None if d.fix is None else (d.fix.description, d.fix.edits, d.fix.path)
        out.append((r.finding.path, d.code, d.severity, d.message, d.line, d.column, d.end_column, fix))
    return out


def test_the_pool_runs_only_where_it_pays(big_repo: Path, monkeypatch) -> None:
    rels = sorted(p.relative_to(big_repo).as_posix() for p in (big_repo / "topics").glob("t*.md"))
    monkeypatch.setenv("AMR_JOBS", "2")
    found = parallel.map_files(parallel.entry_texts, big_repo, rels)
    assert found is not None and set(found) == set(rels)
    assert found["topics/t5.md"] == parallel.entry_texts(big_repo, "topics/t5.md")
    assert parallel.map_files(parallel.entry_texts, big_repo, rels[: parallel.MIN_FILES - 1]) is None
    monkeypatch.setenv("AMR_JOBS", "1")
    assert parallel.map_files(parallel.entry_texts, big_repo, rels) is None


def test_lint_on_every_core_equals_lint_in_one(big_repo: Path, monkeypatch) -> None:
    monkeypatch.setenv("AMR_JOBS", "1")
    serial = _lint(big_repo)
    monkeypatch.setenv("AMR_JOBS", "2")
    pooled = _lint(big_repo)
    assert pooled == serial
    codes = {f[1] for f in serial}
    # duplicates across files, broken links, bad dates, multi-line and star bullets, secrets,
    # undecodable bytes, a symlink out of the root: all found by both
    assert {"AMR014", "AMR013", "AMR008", "AMR004"} <= codes, codes
    assert any(f[0] == "topics/latin1.md" for f in serial)


def test_search_on_every_core_equals_search_in_one(big_repo: Path, monkeypatch) -> None:
    mounts = discover([big_repo])
    monkeypatch.setenv("AMR_JOBS", "1")
    serial = build_index(mounts, use_cache=False)
    monkeypatch.setenv("AMR_JOBS", "2")
    pooled = build_index(mounts, use_cache=False)
    assert len(pooled) == len(serial) > FILES * 2
    for query in ("port 6011", "fact 123", "green build", "akia", "cafe", "star bullet"):
        assert pooled.search(query, 30) == serial.search(query, 30), query
