"""``amr search`` without its cache (``services/search/cold.py``) answers exactly as with it.

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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amr_tui.services.search import cold as coldsearch
from amr_tui.services.search import run as searchrun
from amr_tui.services.workspace import discover
from tests.examples import examples

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
        "- End-to-end tests run before each deploy\n- open pull requests need one review\n"
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
    "pdb",  # a three-letter word with two letters swapped (dbt)
    "rdis prot",
    "e2e tests",  # a form of several words (abbrev.py): "end-to-end"
    "pr review",
    "e2e kubernetes zebra",  # most of the words, one of them a phrase form
    "redis xylophone quokka",  # one word of three held: the entries holding it (never empty)
    "db zebra quokka llama",  # a two-letter word the only one held
]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("limit", [1, 5, 50])
@pytest.mark.parametrize("jobs", [1, 2])
def test_cold_hits_equal_the_full_index(repo: Path, query: str, limit: int, jobs: int) -> None:
    """One process, or two (a forked child reads and scans every other file)."""
    mounts = discover([repo])
    context = searchrun.disk_context(mounts)
    full = searchrun.build_index(mounts, use_cache=False).search(query, limit, context=context)
    cold_index = coldsearch.cold_index(mounts, query, limit, jobs=jobs)
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


# ------------------------------------------------------------------ any file, any query (Hypothesis)

_LINE = st.one_of(
    st.builds(
        lambda marker, words, meta: f"{marker}{' '.join(words)}{meta}",
        st.sampled_from(["- ", "* ", "+ ", "-\t", "-  ", "- [[deploy]]: ", "- [draft] "]),
        st.lists(st.sampled_from(WORDS + ["Redis", "PORT", "caf\u00e9", "\u0130stanbul", "k8s", "db"]), max_size=6),
        st.sampled_from(["", " [source: wiki; added: 2026-10-01]", " [redis: port]", " [added: 2026-01-0"]),
    ),
    st.sampled_from(["# Heading redis", "", "paragraph about redis port", "- ", "- [added: 2026-01-01]"]),
    st.sampled_from(["  - nested redis", "```", "1. ordered redis", "---", "<div>", "\tindented"]),  # parsed in full
)


@st.composite
def _files(draw: st.DrawFn) -> dict[str, str]:
    names = draw(st.lists(st.sampled_from([f"t{k}.md" for k in range(8)] + ["redis-port.md"]), unique=True, max_size=6))
    crlf = draw(st.booleans())
    out = {}
    for name in names:
        text = "\n".join(draw(st.lists(_LINE, max_size=12)))
        out[name] = text.replace("\n", "\r\n") if crlf and name == names[0] else text
    return out


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    files=_files(),
    query=st.sampled_from(["redis", "redis port", "db config", "k8s", "relase", "caf", "stanbul", "port -kafka"]),
    jobs=st.sampled_from([1, 2]),
    limit=st.sampled_from([1, 3, 20]),
)
@pytest.mark.slow
def test_cold_equals_the_full_index_on_any_files(
    tmp_path_factory: pytest.TempPathFactory, files: dict[str, str], query: str, jobs: int, limit: int
) -> None:
    root = tmp_path_factory.mktemp("cold-any") / "memory"
    root.mkdir()
    (root / "MEMORY.md").write_text("# Memory\n\n- redis start [added: 2026-01-01]\n")
    for name, text in files.items():
        (root / name).write_bytes(text.encode())
    mounts = discover([root])
    full = searchrun.build_index(mounts, use_cache=False).search(query, limit)
    cold_index = coldsearch.cold_index(mounts, query, limit, jobs=jobs)
    assert cold_index is not None
    cold = cold_index.search(query, limit)
    assert [(h.item, h.score, h.missing) for h in cold] == [(h.item, h.score, h.missing) for h in full]


def _running_children() -> list[int]:
    """This process's children that still run (a zombie has ended)."""
    me, out = os.getpid(), []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_file.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != "Z":
            out.append(int(stat_file.parent.name))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_child_is_stopped_when_its_second_stage_is_not_wanted(repo: Path) -> None:
    """A strict answer is enough: the child, already scanning for "any word", is stopped at once
    rather than left to run (and the answer does not wait for it)."""
    before = set(_running_children())
    index = coldsearch.cold_index(discover([repo]), "redis", 1, jobs=2)
    assert index is not None and index.strict_count("redis") >= 1
    deadline = time.monotonic() + 5
    while set(_running_children()) - before:
        assert time.monotonic() < deadline, "the child still runs"
        time.sleep(0.01)


def test_a_big_repo_forks_and_its_output_ends_with_the_answer(tmp_path: Path) -> None:
    """From the command line, past ``FORK_FILES``: the child reads half the files, and the pipe
    reading amr's output closes when amr ends (the child holds none of it)."""
    root = tmp_path / "memory"
    root.mkdir()
    (root / "MEMORY.md").write_text("# Memory\n\n- Start here\n")
    for k in range(coldsearch.FORK_FILES + 10):
        (root / f"f{k:04}.md").write_text(f"# F{k}\n\n- redis node {k} listens on port {6000 + k}\n- filler {k}\n")
    env = {**os.environ, "AMR_NO_CACHE": "1"}
    res = subprocess.run(
        [sys.executable, "-m", "amr_tui", "search", "redis port 6405", str(root), "--json", "--limit", "3"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    hits = json.loads(res.stdout)
    assert hits[0]["path"] == "f0405.md"
    assert hits[0]["text"] == "redis node 405 listens on port 6405"


def test_a_child_that_dies_has_its_share_read_here(repo: Path) -> None:
    """Killed before it answers (the OOM killer, a limit on processes): the same counts and
    candidates come from this process, for the first stage and the second."""
    import signal

    mounts = discover([repo])
    files = [(0, rel) for rel in sorted(p.name for p in repo.glob("*.md"))]
    words = coldsearch._words("redis port")
    here = coldsearch._Local(mounts, files, words, True)
    want_first, want_loose = here.first(), here.loose()
    for stage in ("first", "loose"):
        child = coldsearch._Child(mounts, files, words, True)
        try:
            if stage == "loose":
                assert child.first() == want_first  # answered by the child itself
            os.kill(child.pid, signal.SIGKILL)
            os.waitpid(child.pid, 0)
            got = child.first() if stage == "first" else child.loose()
            assert got == (want_first if stage == "first" else want_loose)
            if stage == "first":  # killed a moment after the fork, long before it read 45 files
                assert child._here is not None, "the child answered before it was killed"
        finally:
            child.close()
