"""The app's session starts from the caches `amr search` and `amr lint` keep (and it writes).

A warm start must hold exactly what a cold one would: the same index items, lint facts,
findings and metadata, whatever changed on disk between the runs (files edited, added,
deleted, a same-size rewrite), and must read only the files that changed. Real repos and
real cache files in the test's own home; mtimes are set in the past so the racy window
(``diskcache.RACY_NS``) does not make every file look changed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amr_tui.core.lint.facts import pack
from amr_tui.services.lint import cache as lintcache
from amr_tui.services.search import cache as searchcache
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import Mount

FILES = {
    "MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n- [[people/bob]]\n",
    "notes.md": "# Notes\n\n- The staging deploy runs on Fridays [source: chat; added: 2026-10-01]\n"
    "- Alice likes green tea [[people/bob]]\n",
    "people/bob.md": "# Bob\n\n- Bob reviews the quarterly budget [owner: bob]\n- Bob links [[nowhere]]\n",
    "image.png": "not markdown",
}


def age(root: Path, seconds: float = 600) -> None:
    """Every file's mtime ``seconds`` in the past (older than any cache written from now on)."""
    then = time.time() - seconds
    for path in root.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            os.utime(path, (then, then))


def session(root: Path) -> Session:
    s = Session([Mount("memory", root)])
    s.load()
    return s


def picture(s: Session) -> dict[str, object]:
    """What a start gives: the index's items, each file's facts, findings and metadata."""
    idx = s.index
    items = set()
    for slots in idx._files.values():
        for slot in slots:
            it = idx.items[slot]
            assert it is not None
            items.add((it.repo, it.path, it.line, it.text, it.kind))
    state = s.repos["memory"]
    return {
        "items": items,
        "count": len(idx),
        "facts": {p: pack(f) for p, f in state.facts.items()},
        "findings": {p: sorted(map(repr, fs)) for p, fs in state.findings.items() if fs},
        "keys": s.search_context.keys,
        "hits": [(h.item.path, h.item.line) for h in s.search("bob budget", 10)],
        "filtered": [(h.item.path, h.item.line) for h in s.search("owner:bob", 10)],
    }


def parsed_files(s: Session, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Load ``s`` and return the files it parsed."""
    seen: list[str] = []
    parse = Session._parse

    def counting(self: Session, state, rel, st_, dirs):  # type: ignore[no-untyped-def]
        got = parse(self, state, rel, st_, dirs)
        if got is not None:
            seen.append(rel)
        return got

    with monkeypatch.context() as mp:
        mp.setattr(Session, "_parse", counting)
        s.load()
    return sorted(seen)


def cold(root: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    with monkeypatch.context() as mp:
        mp.setenv("AMR_NO_CACHE", "1")
        return picture(session(root))


def test_a_warm_start_reads_only_memory_and_holds_what_a_cold_one_does(make_repo, monkeypatch):
    root = make_repo("memory", FILES)
    age(root)
    first = session(root)
    first.save_caches()
    mounts = [Mount("memory", root)]
    assert searchcache.cache_file(mounts).exists() and lintcache.facts_file(mounts[0]).exists()
    warm = Session(mounts)
    assert parsed_files(warm, monkeypatch) == ["MEMORY.md"]
    assert picture(warm) == picture(first) == cold(root, monkeypatch)
    assert not warm._cache_stale  # nothing to write back
    # A document of a warm file is read when asked for (nothing kept of it but facts).
    doc = warm.document("memory", "notes.md")
    assert doc is not None and doc.entries[0].text == "The staging deploy runs on Fridays"


def test_changes_between_runs_are_read_and_nothing_else(make_repo, monkeypatch):
    root = make_repo("memory", FILES)
    age(root)
    session(root).save_caches()
    (root / "notes.md").write_text("# Notes\n\n- The staging deploy runs on Mondays [source: chat]\n")
    (root / "people" / "bob.md").unlink()
    (root / "people" / "carol.md").write_text("# Carol\n\n- Carol owns the vault [owner: carol]\n")
    age(root, 300)  # older than a cache written now, newer than the stats the cache kept
    warm = Session([Mount("memory", root)])
    assert parsed_files(warm, monkeypatch) == ["MEMORY.md", "notes.md", "people/carol.md"]
    got = picture(warm)
    assert got == cold(root, monkeypatch)
    assert not any(path == "people/bob.md" for _r, path, *_ in got["items"])  # type: ignore[attr-defined]
    assert [h.item.path for h in warm.search("carol vault", 5)][:1] == ["people/carol.md"]
    assert warm._cache_stale
    warm.save_caches()
    again = Session([Mount("memory", root)])
    assert parsed_files(again, monkeypatch) == ["MEMORY.md"]
    assert picture(again) == got


def test_a_same_size_rewrite_in_the_racy_window_is_read_again(make_repo, monkeypatch):
    root = make_repo("memory", FILES)
    age(root)
    first = session(root)
    (root / "notes.md").touch()  # now: within RACY_NS of the cache about to be written
    first.save_caches()
    text = (root / "notes.md").read_text()
    (root / "notes.md").write_text(text.replace("Fridays", "Sundays"))  # same size, same second
    warm = Session([Mount("memory", root)])
    assert "notes.md" in parsed_files(warm, monkeypatch)
    assert [h.item.text for h in warm.search("staging deploy", 3)][:1] == ["The staging deploy runs on Sundays"]


def test_damaged_caches_are_a_cold_start(make_repo, monkeypatch):
    root = make_repo("memory", FILES)
    age(root)
    session(root).save_caches()
    mounts = [Mount("memory", root)]
    searchcache.cache_file(mounts).write_bytes(b"not a pickle")
    lintcache.facts_file(mounts[0]).write_bytes(b"\x80\x05garbage")
    warm = Session(mounts)
    assert parsed_files(warm, monkeypatch) == ["MEMORY.md", "notes.md", "people/bob.md"]
    assert picture(warm) == cold(root, monkeypatch)


def test_amr_search_and_amr_lint_read_what_the_app_wrote(make_repo, monkeypatch):
    root = make_repo("memory", FILES)
    age(root)
    session(root).save_caches()
    mounts = [Mount("memory", root)]
    stamp = searchcache.cache_file(mounts).stat().st_mtime_ns
    out = subprocess.run(
        [sys.executable, "-m", "amr_tui", "search", "bob budget", str(root)],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ,
    ).stdout
    assert "people/bob.md" in out
    assert searchcache.cache_file(mounts).stat().st_mtime_ns == stamp  # warm: nothing to write again
    probe = lintcache.probe(mounts[0], duplicates=True, near=False)
    assert set(lintcache.cached_facts(probe)) == {"MEMORY.md", "notes.md", "people/bob.md"}


def test_a_session_started_from_amr_search_cache_fills_in_the_facts(make_repo, monkeypatch):
    """`amr search` wrote the index, nobody wrote lint facts: every file is read once, then
    the next start is warm."""
    root = make_repo("memory", FILES)
    age(root)
    from amr_tui.services.search.run import build_cache

    build_cache([Mount("memory", root)])
    s = Session([Mount("memory", root)])
    assert parsed_files(s, monkeypatch) == ["MEMORY.md", "notes.md", "people/bob.md"]
    assert picture(s) == cold(root, monkeypatch)
    s.save_caches()
    again = Session([Mount("memory", root)])
    assert parsed_files(again, monkeypatch) == ["MEMORY.md"]


NAMES = st.sampled_from(["notes.md", "a.md", "deep/b.md", "deep/c.txt", "MEMORY.md"])
LINES = st.lists(
    st.sampled_from(
        [
            "- The deploy runs on Fridays",
            "- Alice likes tea [[notes]]",
            "- Bob owns the budget [owner: bob; added: 2026-01-02]",
            "- Bob owns the budget [owner: bob; added: 2026-01-02]",
            "- A link to [[nowhere]]",
            "## Index",
            "- [[a]]",
            "plain prose line",
        ]
    ),
    max_size=5,
)
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("write"), NAMES, LINES),
        st.tuples(st.just("delete"), NAMES, st.just([])),
        st.tuples(st.just("save"), st.just(""), st.just([])),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_any_changes_between_runs_give_what_a_cold_start_gives(make_repo, monkeypatch, tmp_path_factory, ops):
    root = make_repo(f"m{time.perf_counter_ns()}", {"MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n"})
    (root / "notes.md").write_text("# Notes\n\n- Alice likes green tea\n")
    with monkeypatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        when = 1000.0
        age(root, when)
        session(root).save_caches()
        for op, name, lines in ops:
            when -= 10  # each change newer than the last cache, all outside the racy window
            path = root / name
            if op == "write":
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("# T\n\n" + "\n".join(lines) + "\n")
                os.utime(path, (time.time() - when, time.time() - when))
            elif op == "delete":
                path.unlink(missing_ok=True)
            else:
                s = Session([Mount("memory", root)])
                s.load()
                s.save_caches()
                age(root, when)
        warm = Session([Mount("memory", root)])
        warm.load()
        got = picture(warm)
        mp.setenv("AMR_NO_CACHE", "1")
        assert got == picture(session(root))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    at=st.integers(min_value=0, max_value=2),
    name=st.sampled_from(["notes.md", "people/bob.md", "MEMORY.md", "new.md"]),
    same_size=st.booleans(),
)
def test_an_agent_writing_while_the_session_starts_warm_is_seen_by_the_next_poll(
    make_repo, monkeypatch, tmp_path_factory, at, name, same_size
):
    """The write lands after the files were listed: before the caches are read (the first
    progress call), after the index is built, or never; the next poll brings it in."""
    root = make_repo(f"r{time.perf_counter_ns()}", FILES)
    with monkeypatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        age(root)
        session(root).save_caches()
        calls = []

        def agent(done: int, total: int) -> None:
            calls.append(done)
            if len(calls) == at + 1:
                path = root / name
                old = path.read_text() if path.exists() else ""
                text = old.replace("Bob", "Rob").replace("Fridays", "Sundays") if same_size and old else old
                path.write_text(text if text != old else old + "- Carol joined the vault team\n")

        warm = Session([Mount("memory", root)])
        warm.load(progress=agent)
        warm.watch.poll()
        for state in warm.repos.values():
            warm.relint(state)
        got = picture(warm)
        mp.setenv("AMR_NO_CACHE", "1")
        assert got == picture(session(root))
