"""A short starvation run (about 10 s; the long one is `.venv/bin/python bench/starvation.py
--seconds 60 --agents 3 --interval 0.1`): agents in two clones commit to the same memory file
every ~100 ms with plain git (retrying on index.lock, sometimes leaving a line uncommitted for a
while) while amr saves entries, forgets and restores facts, and syncs both clones.

A correctness check, not a timing benchmark: nothing is lost (every agent commit reachable,
every agent fact and every saved edit present, forgets and restores as last done, fsck clean),
every kind of write lands at least once, and no call takes longer than 20 s.
"""

from __future__ import annotations

from bench.starvation import run_bench, table


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
    # Known gap, not asserted: the clone that has to merge can lose every compare-and-swap to
    # its own agents (a plain `git commit` after `git add` moves the branch without index.lock),
    # so its sync may never land while they commit every ~40 ms. One clone always syncs.
    syncs = result["sync"].values()
    assert any(o["landed"] >= 1 for o in syncs), result["sync"]
    assert all(o["max_ms"] is not None and o["max_ms"] < 20_000 for o in syncs), result["sync"]
