"""The scale bench's corpus and table (bench/gen.py million_repo, bench/scale.py; issue 14 points 3-4).

The real corpus is 1,000,000 facts; here the same builder makes a small one, so these checks
stay fast: the facts at HEAD, the commits, the same bytes on a rebuild, and the growth words.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import gen  # noqa: E402
import scale  # noqa: E402


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def _facts(root: Path) -> int:
    """Bullet lines of the topic files (the hubs and MEMORY.md hold links, not facts)."""
    count = 0
    for p in root.rglob("*.md"):
        if ".git" in p.parts or p.parent == root:
            continue
        count += sum(1 for line in p.read_text().splitlines() if line.startswith("- "))
    return count


def test_million_repo_builder_small(tmp_path: Path) -> None:
    a = gen.million_repo(tmp_path / "a", n=3000, commits=40)
    assert a.name == "repo-3000"
    assert _facts(a) == 3000  # n facts at HEAD: n - commits + 1 first, one appended per later commit
    assert _git(a, "rev-list", "--count", "main").strip() == "40"
    assert _git(a, "status", "--porcelain") == ""
    reworded = _git(a, "log", "--format=%s", "main").count("reworded a fact")
    assert 0 < reworded < 40
    b = gen.million_repo(tmp_path / "b", n=3000, commits=40)
    assert _git(a, "rev-parse", "main") == _git(b, "rev-parse", "main")  # seeded: the same commits
    stamp = (a / ".git" / "bench-stamp").read_text()
    assert stamp == f"{gen.VERSION}:3000:40:million"
    head = _git(a, "rev-parse", "main")
    (a / "MEMORY.md").write_text("changed\n")  # a stamped corpus is reused as it is, not rebuilt
    assert gen.million_repo(tmp_path / "a", n=3000, commits=40) == a
    assert (a / "MEMORY.md").read_text() == "changed\n" and _git(a, "rev-parse", "main") == head


def test_growth_words_and_table() -> None:
    m = gen.MILLION
    assert scale.grows({100_000: 10.0, m: 11.0}).startswith("flat")
    assert scale.grows({100_000: 10.0, m: 95.0}).startswith("linear")
    assert scale.grows({100_000: 10.0, m: 400.0}).startswith("worse")
    assert scale.grows({100_000: 10.0, m: 2.0}).startswith("falls")
    assert scale.grows({100_000: 10.0}) == "?"
    figures = {"keystroke_p95_ms": {100_000: 5.0, m: 40.0}, "index_s": {100_000: 0.9, m: 8.0}}
    text = scale.table(figures, [100_000, m])
    lines = {line.split(" | ")[0]: line for line in text.splitlines()}
    assert "<= 30 ms: **not met**" in lines["| Finder keystroke p95 (search_session over the typed scripts)"]
    assert "<= 10 s: met" in lines["| Full index: parse + search index (Session.load without repo lint / git)"]
    rss = scale.target_cell("rss_mb", {100_000: 300.0, m: 900.0})
    assert "not met" in rss  # 1M under 1 GB, but 100k over its 250 MB
