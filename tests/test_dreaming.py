"""core.dreaming (the built-in pass) and `amr dream` writing a run branch that never touches main."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from amr_tui.core.dreams.clean import dream, follow_renames
from amr_tui.core.tombstones import TOMBSTONE_PATH
from amr_tui.services.dreams.make import builtin_dream
from amr_tui.services.dreams.service import DreamService
from tests.historyhelpers import commit, git, new_repo, tree_at

TODAY = dt.date(2026, 10, 8)
S = "https://example.com/sessions"


def files() -> dict[str, bytes | None]:
    return {
        "MEMORY.md": (
            f"# Memory\n\n- Prefers short answers [source: {S}/1]\n\n## Index\n- [[notes]]\n- [[gone]]\n- [[notes]]\n"
        ).encode(),
        "notes.md": (
            "# Notes\n\n"
            f"- Use bun install and bun run in the web repo, never npm [source: {S}/2]\n"
            f"- Dev server was on port 3001 this afternoon [source: {S}/3; expires: 2026-10-07]\n"
            f"- Staging is frozen until the launch [source: {S}/4; expires: 2026-10-08]\n"
            f"- use bun install and bun run in the web repo; never npm [source: {S}/5]\n"
            f"- Runbooks: see [[old/place#Rollback|rollback steps]] [source: {S}/6]\n"
        ).encode(),
        "other.md": f"# Other\n\n- Use bun install and bun run in the web repo, never npm! [source: {S}/7]\n".encode(),
        "new/place.md": b"# Place\n",
        "billing/q.sql": None,
        TOMBSTONE_PATH: b"# Forgotten facts\n\n- Use bun install and bun run in the web repo, never npm [forgotten: 2026-10-01]\n",
    }


def test_steps_expire_merge_links_index() -> None:
    result = dream(files(), today=TODAY, renames={"old/place.md": "mid.md", "mid.md": "new/place.md"})
    assert [s.name for s in result.steps] == ["expire", "merge", "links", "index"]
    out = {p: (d or b"").decode() for p, d in result.changes.items()}
    notes = out["notes.md"]
    assert "port 3001" not in notes  # expired yesterday: dropped
    assert "Staging is frozen" in notes  # expires today: kept
    # three spellings of one fact merged into the first, every source kept
    assert notes.count("bun install") == 1 and "bun install" not in out["other.md"]
    assert f"[source: {S}/2; source: {S}/5; source: {S}/7]" in notes
    assert "[[new/place#Rollback|rollback steps]]" in notes
    memory = out["MEMORY.md"]
    assert memory.endswith("## Index\n- [[notes]]\n- [[billing/q.sql]]\n- [[new/place]]\n- [[other]]\n")
    assert TOMBSTONE_PATH not in result.changes  # tombstones are never touched or indexed
    assert "forgotten" not in memory
    assert result.steps[1].message.startswith(
        "dream: merge 2 duplicate entries\n\n- merged notes.md:5, other.md:3 into notes.md:3"
    )
    assert result.summary == (
        "drop 1 expired entry; merge 2 duplicate entries; repair 1 link to renamed files; rebuild the MEMORY.md index"
    )


def test_deterministic_and_idempotent() -> None:
    first = dream(files(), today=TODAY, renames={"old/place.md": "new/place.md"})
    again = dream(files(), today=TODAY, renames={"old/place.md": "new/place.md"})
    assert first.changes == again.changes
    after = {**files(), **first.changes}
    assert dream(after, today=TODAY, renames={"old/place.md": "new/place.md"}).steps == []


def test_keeps_bytes_it_does_not_edit() -> None:
    crlf = {
        "MEMORY.md": b"# Memory\r\n\r\n## Index\r\n- [[a]]\r\n",
        "a.md": b"- x [source: https://x/1]\r\n- x [source: https://x/2]\r\n",
        "b.md": b"- y",
    }
    result = dream(crlf, today=TODAY)
    assert result.changes["a.md"] == b"- x [source: https://x/1; source: https://x/2]\r\n"
    assert result.changes["MEMORY.md"] == b"# Memory\r\n\r\n## Index\r\n- [[a]]\r\n- [[b]]\r\n"


def test_memory_without_index_gets_one() -> None:
    result = dream({"MEMORY.md": b"# Memory\n- a fact", "t.md": b"- b\n"}, today=TODAY)
    assert result.changes["MEMORY.md"] == b"# Memory\n- a fact\n\n## Index\n- [[t]]\n"


def test_follow_renames_stops_on_cycles() -> None:
    assert follow_renames("a.md", {"a.md": "b.md", "b.md": "c.md"}) == "c.md"
    assert follow_renames("a.md", {"a.md": "b.md", "b.md": "a.md"}) is None
    assert follow_renames("x.md", {}) is None


def test_amr_dream_writes_a_run_branch_and_never_touches_main(tmp_path: Path) -> None:
    repo = new_repo(
        tmp_path / "memory",
        {
            "MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n",
            "notes.md": f"# Notes\n\n- Ship on Tuesdays [source: {S}/1]\n- Ship on Tuesdays [source: {S}/2]\n"
            f"- Freeze ends soon [source: {S}/3; expires: 2026-10-01]\n- See [[guide]] [source: {S}/4]\n",
            "guide.md": "# Guide\n",
        },
    )
    git(repo, "mv", "guide.md", "docs-guide.md")
    git(repo, "commit", "-q", "-m", "Rename the guide")
    (repo / "scratch.md").write_text("uncommitted work in progress\n")
    main_before = git(repo, "rev-parse", "main").strip()
    status_before = git(repo, "status", "--porcelain")
    service = DreamService(repo)
    run = builtin_dream(service, today=TODAY)
    assert run is not None and run.id == "2026-10-08-amr" and run.branch == "dreams/2026-10-08-amr"
    assert run.based_on_main and run.base == main_before
    assert git(repo, "rev-parse", "main").strip() == main_before
    assert git(repo, "status", "--porcelain") == status_before
    subjects = git(repo, "log", "--format=%s", "main..dreams/2026-10-08-amr").splitlines()
    assert subjects == [
        "dream: rebuild the MEMORY.md index",
        "dream: repair 1 link to renamed files",
        "dream: merge 1 duplicate entry",
        "dream: drop 1 expired entry",
    ]
    tip = tree_at(repo, "dreams/2026-10-08-amr")
    assert tip["notes.md"] == (
        f"# Notes\n\n- Ship on Tuesdays [source: {S}/1; source: {S}/2]\n- See [[docs-guide]] [source: {S}/4]\n"
    )
    assert tip["MEMORY.md"] == "# Memory\n\n## Index\n- [[notes]]\n- [[docs-guide]]\n"
    assert "Dreamed-by: amr (built-in pass)" in git(repo, "log", "-1", "--format=%B", "dreams/2026-10-08-amr")
    # a second pass on the same main gets a numbered id; with nothing to do, no branch
    assert builtin_dream(service, today=TODAY).id == "2026-10-08-amr-2"
    commit(repo, {"notes.md": tip["notes.md"], "MEMORY.md": tip["MEMORY.md"]}, "Apply by hand")
    assert builtin_dream(service, today=TODAY) is None
    assert sorted(service.repo.branches("dreams/")) == ["dreams/2026-10-08-amr", "dreams/2026-10-08-amr-2"]
