"""A short starvation run (about 10 s; the long one is `.venv/bin/python bench/starvation.py
--seconds 60 --agents 3 --interval 0.1`): agents in two clones commit to the same memory file
every ~100 ms with plain git (retrying on index.lock, sometimes leaving a line uncommitted for a
while) while amr saves entries, forgets and restores facts, and syncs both clones.

A correctness check, not a timing benchmark: nothing is lost (every agent commit reachable,
every agent fact and every saved edit present, forgets and restores as last done, fsck clean),
every kind of write lands at least once, the sync of each clone lands at least once (one of them
has to merge), and no call takes longer than 20 s.
"""

from __future__ import annotations

import pytest

from bench.starvation import run_bench, table

pytestmark = pytest.mark.slow  # the slow tier: `pytest -m slow` (README)


def test_no_amr_write_is_starved_and_nothing_is_lost(tmp_path):
    result = run_bench(seconds=10, agents=3, interval=0.1, base=tmp_path)
    print(table(result))
    assert result["bench_errors"] == []
    assert result["converged"]
    assert result["losses"] == {} and result["loss_count"] == 0
    assert all(c["fsck_clean"] for c in result["clones"].values())
    assert result["agents"]["facts"] > 50
    for name, o in result["ops"].items():
        assert o["landed"] >= 1, f"{name} never landed: {o['reasons'] or o['statuses']}"
        assert o["max_ms"] is not None and o["max_ms"] < 20_000, f"{name} took {o['max_ms']} ms"
    # Both clones sync: the one that has to merge too (its merge is pushed before its own branch,
    # where its agents commit, takes it, and that move holds index.lock after a few lost races).
    for c, o in result["sync"].items():
        assert o["landed"] >= 1, f"sync of clone {c} never landed: {o['reasons'] or o['statuses']}"
        assert o["max_ms"] is not None and o["max_ms"] < 20_000, f"sync of clone {c} took {o['max_ms']} ms"
    assert sum(o.get("merges", 0) for o in result["sync"].values()) >= 1, result["sync"]
