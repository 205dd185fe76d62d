"""A short soak (about 20 s): three agents committing with plain git every ~100 ms and running
`amr sync`, plus amr's save path with a concurrent in-process sync, all through a git server on
127.0.0.1. Ends with zero losses: every fact added and not deliberately deleted is on main exactly
once (with its last edit), nothing deleted came back, every commit is reachable from main.

The long version: `.venv/bin/python bench/soak_sync.py --seconds 180 --agents 4`.
"""

from __future__ import annotations

import pytest

from bench.soak_sync import BASE_FILES, run_soak
from tests.synchelpers import git_server  # noqa: F401

pytestmark = pytest.mark.slow  # the slow tier: `pytest -m slow` (README)


def test_soak_many_writers_one_memory(git_server, tmp_path):  # noqa: F811
    url = git_server.create("memory", BASE_FILES, work=tmp_path)
    report = run_soak(tmp_path, url, git_server.base / "memory.git", agents=3, seconds=20, sync_every=1.0)
    print(report.summary())
    assert report.converged
    assert (report.missing, report.duplicated, report.resurrected, report.stale_edits) == ([], [], [], [])
    assert report.unreachable_commits == 0 and report.losses == 0
    assert report.writers == 4 and report.saves > 20 and report.agent_commits > 60
    assert report.facts_deleted > 0 and report.merges_on_server > 0
