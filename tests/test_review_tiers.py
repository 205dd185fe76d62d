"""Issue 41, point 4: a tiered review policy for ``amr mcp --review``: with ``[review] auto =
["add"]`` (or ``--review-auto add``) an agent's new entry lands at once, while rewording, removal
and moves still wait on ``dreams/inbox-<date>``. The real server over stdio, real git."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from tests.mcp_client import amr_mcp, git, memory_repo
from tests.test_cli import amr

NOTES = "# Notes\n\n- The nightly backup runs at 02:00 UTC\n"


def _head(repo: Path, rev: str = "main") -> str:
    return git(repo, "rev-parse", rev).strip()


@pytest.mark.slow
@pytest.mark.parametrize("how", ["flag", "config"])
async def test_new_entries_land_at_once_while_rewording_and_removal_wait(tmp_path: Path, how: str) -> None:
    repo = memory_repo(tmp_path / "memory", {"MEMORY.md": "# Memory\n\n## Index\n\n- [[notes]]\n", "notes.md": NOTES})
    home = tmp_path / "home"
    args: list[str | Path] = [repo, "--review", "memory"]
    if how == "flag":
        args += ["--review-auto", "add"]
    else:
        (home / ".config" / "amr").mkdir(parents=True)
        (home / ".config" / "amr" / "config.toml").write_text('[review]\nauto = ["add"]\n')
    before = _head(repo)
    async with amr_mcp(*args, home=home) as client:
        added = await client.ok("memory_remember", {"text": "Restores are tested monthly", "path": "notes.md"})
        assert added["status"] == "written", added
        assert "review mode lets new entries land at once" in added["message"]
        assert _head(repo) != before and "- Restores are tested monthly" in (repo / "notes.md").read_text()
        assert git(repo, "branch", "--list", "dreams/*") == ""  # nothing waits
        read = await client.ok("memory_read", {"repo": "memory", "path": "notes.md"})
        e = next(x for x in read["entries"] if x["text"].startswith("The nightly backup"))
        where = {"repo": "memory", "path": "notes.md", "line": e["line"], "hash": e["hash"]}
        tip = _head(repo)
        edited = await client.ok("memory_edit", {**where, "text": "The nightly backup runs at 03:00 UTC"})
        assert edited["status"] == "pending_review", edited
        branch = f"dreams/inbox-{dt.date.today().isoformat()}"
        assert edited["branch"] == branch and _head(repo) == tip
        new = added["entry"]
        gone = {"repo": "memory", "path": "notes.md", "line": new["line"], "hash": new["hash"]}
        forgot = await client.ok("memory_forget", {**gone, "reason": "moved to the runbook"})
        assert forgot["status"] == "pending_review" and forgot["branch"] == branch, forgot
        assert _head(repo) == tip and "02:00 UTC" in (repo / "notes.md").read_text()
        assert "Restores are tested monthly" in (repo / "notes.md").read_text()


@pytest.mark.slow
async def test_without_the_tier_every_write_waits(tmp_path: Path) -> None:
    repo = memory_repo(tmp_path / "memory", {"MEMORY.md": "# Memory\n\n## Index\n\n- [[notes]]\n", "notes.md": NOTES})
    before = _head(repo)
    async with amr_mcp(repo, "--review", "memory", home=tmp_path / "home") as client:
        added = await client.ok("memory_remember", {"text": "Restores are tested monthly", "path": "notes.md"})
        assert added["status"] == "pending_review" and _head(repo) == before


def test_only_additions_may_skip_review(tmp_path: Path) -> None:
    repo = memory_repo(tmp_path / "memory")
    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "amr"
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "config.toml").write_text('[review]\nrepos = ["memory"]\nauto = ["add", "remove"]\n')
    res = amr("mcp", str(repo))
    assert res.returncode == 2
    assert "takes add only (new entries land at once), not remove" in res.stderr
    assert amr("mcp", str(repo), "--review-auto", "edit").returncode == 2
