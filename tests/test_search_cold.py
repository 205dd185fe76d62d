"""``amr search`` without its cache (``services/batch/coldsearch.py``) answers exactly as with it.

The cold path indexes only the lines that can match; these tests compare its hits (items,
order, scores, missing words) with the full index's on a generated repo that holds the
awkward cases (camelCase, metadata, fenced code, nested bullets, CRLF, non-ASCII, file names),
for typed words, prefixes, typos, abbreviations, partial recall and operators; and check that
after a cold answer the cache is built in a child process and used by the next search.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from amr_tui.services.batch import coldsearch, searchrun
from amr_tui.services.workspace import discover

WORDS = (
    "redis postgres kafka deploy staging release freeze database config auth token expiry alice priya "
    "timezone migrations api gateway payments service owner rotation password vault kubernetes helm "
    "WorkerPixelFactory rateLimiter dbt conference confidence port report support import"
).split()


def _corpus(root: Path) -> None:
    rnd = random.Random(7)
    (root / "MEMORY.md").write_text("# Memory\n\n- Start here [added: 2026-01-01]\n\n## Index\n\n- [[deploy]]\n")
    for k in range(40):
        lines = [f"# Notes {k}", ""]
        for _ in range(25):
            words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 9)))
            meta = rnd.choice(
                ["", f" [source: https://wiki.test/conf; added: 2026-10-0{rnd.randint(1, 9)}]", " [confidence: high]"]
            )
            lines.append(f"- {words}{meta}")
        (root / f"topic-{k}.md").write_text("\n".join(lines) + "\n")
    (root / "deploy.md").write_text(
        "# Deploy\n\n- deploy via helm to kubernetes\n  - nested redis port note\n\n```\n- redis in a code block\n```\n"
    )
    (root / "crlf.md").write_bytes(b"# CRLF\r\n\r\n- redis crlf entry\r\n- postgres crlf entry\r\n")
    (root / "unicode.md").write_text("# \u0130nfra\n\n- \u0130stanbul redis replica\n- caf\u00e9 config\n")
    (root / "redis-notes.md").write_text("# Redis\n\n- eviction policy is allkeys-lru\n")
    (root / "odd-bullets.md").write_text(
        "- [[deploy]]: redis deploy notes\n- [added: 2026-01-01]\n-\ttabbed redis entry\n- \n"
        "* starred redis port\n+ plus redis\n- [draft] redis draft [source: x]\n"
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cold") / "memory"
    root.mkdir()
    _corpus(root)
    return root


QUERIES = [
    "redis",
    "redis port",
    "postgres config",
    "db config",
    "k8s deploy",
    "kubernets",
    "relase freze",
    "pixel factory",
    "ratelim",
    "who owns the payments service",
    "migrations first then api gateway",
    "conf",
    "redis -kafka",
    '"token expiry"',
    "deploy path:deploy",
    "redis source:wiki",
    "stanbul",
    "cafe",
    "notes",
    "zzzz nothing",
]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("limit", [1, 5, 50])
def test_cold_hits_equal_the_full_index(repo: Path, query: str, limit: int) -> None:
    mounts = discover([repo])
    context = searchrun.DiskSearchContext(mounts)
    full = searchrun.build_index(mounts, use_cache=False).search(query, limit, context=context)
    cold_index = coldsearch.cold_index(mounts, query, limit)
    assert cold_index is not None
    cold = cold_index.search(query, limit, context=context)
    shown = [(h.item, h.score, h.missing) for h in cold]
    assert shown == [(h.item, h.score, h.missing) for h in full]


def test_a_query_of_filters_only_builds_the_full_index(repo: Path) -> None:
    assert coldsearch.cold_index(discover([repo]), "has:source", 10) is None


def test_after_a_cold_answer_the_cache_is_built_for_the_next_search(repo: Path, tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    env.pop("AMR_NO_CACHE", None)

    def search() -> list[dict[str, object]]:
        res = subprocess.run(
            [sys.executable, "-m", "amr_tui", "search", "redis port", str(repo), "--json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert res.returncode == 0, res.stderr
        return list(json.loads(res.stdout))

    first = search()
    deadline = time.monotonic() + 30
    while not list((tmp_path / "cache").rglob("*")) or not any(p.is_file() for p in (tmp_path / "cache").rglob("*")):
        assert time.monotonic() < deadline, "the cache was never written"
        time.sleep(0.1)
    time.sleep(0.5)  # the child writes atomically; give it a moment to finish
    assert search() == first
