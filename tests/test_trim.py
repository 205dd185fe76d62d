"""Issue 41, point 3: a trim plan. When MEMORY.md is over (or near) its agent's load budget,
``amr dream --trim`` and "Trim to budget" (T) make a reviewable run that brings it under: merge
near-duplicates keeping every source, move entries to topic files and link them, shorten the
Index by folder; no fact is deleted, and the review shows the budget before and after."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from amr_tui.core.budget import AMR, CLAUDE_CODE, measure
from amr_tui.core.dreams.trim import Budget, trim
from amr_tui.core.format.parser import parse
from amr_tui.core.lint.repo import RepoSnapshot, lint_repo
from amr_tui.core.paths import is_markdown
from tests.claudecode import build
from tests.conftest import git
from tests.driver import app_for, notes, running
from tests.test_cli import amr

AMR_LIMITS = AMR.reads[0].limits
CC = Budget(CLAUDE_CODE.reads[0].limits, "Claude Code", markdown_links=True)


def _amr_memory(deploys: int, billing: int) -> str:
    return (
        "# Memory\n\n- The user prefers short answers\n\n## Deploys\n\n"
        + "".join(f"- Deploy rule {n}: ship service {n} on its own day\n" for n in range(1, deploys + 1))
        + "\n## Billing\n\n"
        + "".join(f"- Billing rule {n}: invoice batch {n} runs at night\n" for n in range(1, billing + 1))
        + "\n## Index\n\n- [[projects/payments]]\n"
    )


def _entries(files: dict[str, bytes | None]) -> Counter[str]:
    out: Counter[str] = Counter()
    for path, data in files.items():
        if data is not None and is_markdown(path):
            out.update(e.text for e in parse(data, path, check=False).entries)
    return out


def _lint(files: dict[str, bytes | None], style: str) -> list[str]:
    docs = {p: parse(d, p) for p, d in files.items() if d is not None and is_markdown(p)}
    snap = RepoSnapshot("m", set(files), docs, style=style)
    return [f"{f.path}:{f.diagnostic.line} {f.diagnostic.code}" for f in lint_repo(snap, near_duplicates=False)]


def test_trim_moves_entries_to_topic_files_and_links_them() -> None:
    files: dict[str, bytes | None] = {
        "MEMORY.md": _amr_memory(120, 110).encode(),
        "projects/payments.md": b"# Payments\n\n- Payments ship on Tuesdays\n",
    }
    before = _entries(files)
    result = trim(files, Budget(AMR_LIMITS))
    assert [s.name for s in result.steps] == ["move"]
    after = {**files, **result.changes}
    memory = after["MEMORY.md"] or b""
    assert measure(memory, AMR_LIMITS).cut_line is None  # it fits now
    assert set(result.changes) == {"MEMORY.md", "billing.md"}  # the bottom section was enough
    grown = _entries(after)
    assert all(grown[t] >= n for t, n in before.items()), "no fact is deleted"
    assert "- [[billing]]: 64 entries moved from MEMORY.md" in memory.decode()  # the bottom 64: 90% of the budget
    assert not [f for f in _lint(after, "amr") if "AMR010" in f or "AMR013" in f or "AMR003" in f]
    assert (
        "Budget (agents): MEMORY.md 243/200 lines \u00b7 11.2/25 KB \u2192 MEMORY.md 180/200 lines"
        in result.steps[0].message
    )


def test_trim_shortens_a_claude_code_index_by_kind(tmp_path: Path) -> None:
    folder = build(tmp_path / "home", "/tmp/proj", lines=240)
    files: dict[str, bytes | None] = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    before = _entries(files)
    result = trim(files, CC)
    assert [s.name for s in result.steps] == ["index"]
    after = {**files, **result.changes}
    memory = (after["MEMORY.md"] or b"").decode()
    assert measure(memory.encode(), CC.limits).cut_line is None
    assert len(memory.splitlines()) == 122  # two kinds folded: 90% of the budget, room to grow
    assert "- [Feedback notes](feedback-index.md) \u2014 60 links, one per file" in memory
    assert "- [Project notes](project-index.md) \u2014 60 links, one per file" in memory
    grown = _entries(after)
    assert all(grown[t] >= n for t, n in before.items()), "every Index line is kept, in MEMORY.md or an index file"
    assert not [f for f in _lint(after, "claude-code") if "AMR010" in f or "AMR013" in f or "AMR003" in f]
    assert (
        "Budget (Claude Code): MEMORY.md 240/200 lines \u00b7 27.1/25 KB \u2192 MEMORY.md 122/200"
        in result.steps[0].message
    )


def test_trim_merges_near_duplicates_keeping_sources() -> None:
    dup = "".join(
        f"- Deploy rule {n}: ship service {n} on its own day [source: https://s.example/{n}]\n"
        f"- Deploy rule {n}: ship service {n} on its own day. [source: https://t.example/{n}]\n"
        for n in range(1, 101)
    )
    files: dict[str, bytes | None] = {"MEMORY.md": ("# Memory\n\n" + dup + "\n## Index\n").encode()}
    result = trim(files, Budget(AMR_LIMITS))
    assert [s.name for s in result.steps] == ["merge"]
    memory = (result.changes["MEMORY.md"] or b"").decode()
    assert measure(memory.encode(), AMR_LIMITS).cut_line is None
    assert "https://s.example/7" in memory and "https://t.example/7" in memory  # both sources kept


def test_nothing_to_trim_far_from_the_budget_but_near_it_trims_to_ninety_percent() -> None:
    assert trim({"MEMORY.md": _amr_memory(10, 10).encode()}, Budget(AMR_LIMITS)).steps == []
    near = _amr_memory(95, 92).encode()  # 197 lines: inside, but over 90% of 200
    assert measure(near, AMR_LIMITS).cut_line is None
    result = trim({"MEMORY.md": near, "projects/payments.md": b"# P\n"}, Budget(AMR_LIMITS))
    memory = result.changes["MEMORY.md"] or b""
    assert measure(memory, AMR_LIMITS).lines <= 180


@pytest.mark.slow  # six amr processes end to end (dream, loads, accept): over 2 s
def test_amr_dream_trim_makes_a_run_that_brings_memory_under_budget(tmp_path: Path) -> None:
    folder = build(Path(os.environ["HOME"]), str(tmp_path / "proj"), lines=240, git=True)
    res = amr("dream", str(folder), "--trim")
    assert res.returncode == 0, res.stderr
    assert (
        "Budget (Claude Code): MEMORY.md 240/200 lines \u00b7 27.1/25 KB \u2192 MEMORY.md 122/200 lines" in res.stdout
    )
    branch = git(folder, "branch", "--list", "dreams/*").strip()
    assert branch.endswith("-trim") and git(folder, "rev-parse", "HEAD") == git(folder, "rev-parse", "main")
    before = json.loads(amr("loads", str(folder), "--json").stdout)
    assert before["repos"][0]["files"][0]["cut_line"] == 201  # main is not touched until accepted
    assert amr("dreams", "accept", branch.removeprefix("dreams/"), "-C", str(folder)).returncode == 0
    after = json.loads(amr("loads", str(folder), "--json").stdout)
    assert after["repos"][0]["files"][0]["cut_line"] is None
    again = amr("dream", str(folder), "--trim")
    assert again.returncode == 1 and "within its load budget: nothing to trim" in again.stderr


@pytest.mark.slow
async def test_trim_to_budget_in_the_app_makes_a_run_to_review(tmp_path: Path) -> None:
    folder = build(tmp_path / "home", "/tmp/proj", lines=240, git=True)
    app = app_for([folder], poll_interval=3600)
    async with running(app) as drive:
        await drive.press("T")
        await drive.until(lambda: type(app.screen).__name__ == "DreamListScreen", what="the runs to review")
        assert any("a trim run waits for review" in n.message for n in notes(app))
        assert git(folder, "branch", "--list", "dreams/*").strip().endswith("-trim")


def test_trim_folds_amr_index_lines_by_folder() -> None:
    links = "".join(f"- [[projects/p{n:03d}]]\n" for n in range(1, 151)) + "".join(
        f"- [[ops/o{n:03d}]]\n" for n in range(1, 81)
    )
    files: dict[str, bytes | None] = {"MEMORY.md": ("# Memory\n\n## Index\n\n" + links).encode()}
    files.update({f"projects/p{n:03d}.md": b"# P\n" for n in range(1, 151)})
    files.update({f"ops/o{n:03d}.md": b"# O\n" for n in range(1, 81)})
    result = trim(files, Budget(AMR_LIMITS))
    assert [s.name for s in result.steps] == ["index"]
    after = {**files, **result.changes}
    memory = (after["MEMORY.md"] or b"").decode()
    assert "- [[projects/index]]: 150 links, one per file" in memory and "[[projects/p001]]" not in memory
    assert (after["projects/index.md"] or b"").decode().count("- [[projects/p") == 150
    assert not [f for f in _lint(after, "amr") if "AMR010" in f or "AMR013" in f or "AMR003" in f]
