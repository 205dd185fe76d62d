"""Memory no session reads (``services.usage``): what ``amr mcp`` served is counted in the user
data folder, never in the repo; a repo it never served has unknown reads, not zero."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import pytest

from amr_tui.services.usage import Usage, db_path, record
from tests.mcp_client import amr_mcp, memory_repo

MEMORY = "# Memory\n\n- Use bun, not npm\n- Deploys run `make deploy`\n\n## Index\n\n- [[deploy]]\n"
DEPLOY = "# Deploy\n\n- Rollbacks use helm rollback with the previous revision\n- Canaries run for ten minutes\n"


def test_reads_are_counted_by_the_facts_text_and_unknown_until_served(tmp_path: Path) -> None:
    db = tmp_path / "u.sqlite3"
    repo = tmp_path / "repo"
    repo.mkdir()
    assert Usage(repo, path=db).of("Use bun").reads is None  # never served: unknown
    assert (
        record(
            repo,
            [("MEMORY.md", "Use bun, not npm"), ("MEMORY.md", "Deploys run make deploy")],
            at="2026-10-01T10:00:00+00:00",
            path=db,
        )
        == 2
    )
    record(repo, [("other.md", "use bun not npm!")], at="2026-10-05T10:00:00+00:00", path=db)  # moved, same fact
    usage = Usage(repo, path=db)
    assert usage.known and usage.since == "2026-10-01T10:00:00+00:00"
    bun = usage.of("Use bun, not npm")
    assert (bun.reads, bun.last) == (2, "2026-10-05T10:00:00+00:00")
    assert usage.of("A fact never read").reads == 0  # served repo: zero is known
    assert bun.sentence(dt.date(2026, 10, 8)) == "read by agents 2 times, last 3 days ago"
    assert usage.of("never").sentence(dt.date(2026, 10, 8)) == "read by agents through amr: never since 2026-10-01"
    assert Usage(tmp_path / "other", path=db).of("Use bun, not npm").reads is None  # per repo


@pytest.mark.slow
def test_several_processes_record_side_by_side(tmp_path: Path) -> None:
    db = tmp_path / "u.sqlite3"
    repo = tmp_path / "repo"
    repo.mkdir()
    code = (
        "import sys; from pathlib import Path; from amr_tui.services.usage import record\n"
        "for i in range(60):\n"
        "    assert record(Path(sys.argv[1]), [('a.md', 'shared fact'), ('a.md', f'own {sys.argv[3]} {i}')],"
        " path=Path(sys.argv[2])) == 2\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(repo), str(db), str(n)]) for n in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    assert Usage(repo, path=db).of("shared fact").reads == 180


def _state(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.mark.slow
async def test_amr_mcp_counts_what_it_serves_and_writes_nothing_in_the_repo(tmp_path: Path) -> None:
    repo = memory_repo(tmp_path / "memory", {"MEMORY.md": MEMORY, "deploy.md": DEPLOY})
    home = tmp_path / "home"
    before = _state(repo)
    async with amr_mcp(repo, home=home) as client:
        await client.ok("memory_load")
        await client.ok("memory_search", {"query": "rollback helm"})
        await client.ok("memory_read", {"repo": "memory", "path": "deploy.md"})
    assert _state(repo) == before  # work tree and .git: not a byte, not a timestamp
    db = home / ".local" / "share" / "amr" / "usage.sqlite3"
    assert db.is_file()
    usage = Usage(repo, path=db)
    assert usage.of("Use bun, not npm").reads == 1  # loaded
    assert usage.of("Rollbacks use helm rollback with the previous revision").reads == 2  # found, then read
    assert usage.of("Canaries run for ten minutes").reads == 1  # read with its file
    assert db_path().parent != repo


@pytest.mark.slow
async def test_amr_no_usage_turns_recording_off(tmp_path: Path) -> None:
    repo = memory_repo(tmp_path / "memory", {"MEMORY.md": MEMORY, "deploy.md": DEPLOY})
    home = tmp_path / "home"
    async with amr_mcp(repo, home=home, env={"AMR_NO_USAGE": "1"}) as client:
        await client.ok("memory_load")
    assert not (home / ".local" / "share" / "amr" / "usage.sqlite3").exists()
