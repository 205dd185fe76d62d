"""`amr search`'s on-disk index cache: same answers as a fresh index, kept up to date, never trusted blindly."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time

import pytest

from amr_tui.core.search.index import SearchIndex
from amr_tui.services.search import cache as searchcache
from amr_tui.services.search import load as searchload
from amr_tui.services.search.columns import LazyItems
from amr_tui.services.search.run import build_index
from amr_tui.services.workspace import discover

QUERIES = ("redis port", "postgres", "alice timezone", "kubernets", "deploy", "staging db", "notes/ops")


def _files(n: int) -> dict[str, str]:
    files = {"MEMORY.md": "# Memory\n\n## Index\n- [[notes/ops]]\n- [[people]]\n"}
    files["notes/ops.md"] = "".join(
        f"- Redis port {6300 + k} on staging db {k} [source: https://x.test/{k}]\n" for k in range(n)
    )
    files["people.md"] = "- Alice timezone is CET\n- Bob deploys on Kubernetes every Friday\n"
    return files


def _answers(index) -> list[list[tuple[str, str, int, float]]]:
    return [[(h.item.repo, h.item.path, h.item.line, h.score) for h in index.search(q, 20)] for q in QUERIES]


def _age(root) -> None:
    """Files written an hour ago: past the cache's racy window (files as fresh as the cache are re-read)."""
    then = int((time.time() - 3600) * 1e9)
    for path in root.rglob("*.md"):
        os.utime(path, ns=(then, then))


def _fresh(root):
    return build_index(discover([root]), use_cache=False)


def test_cached_index_answers_like_a_fresh_one_through_edits(make_repo):
    root = make_repo("memory", _files(30))
    _age(root)
    mounts = discover([root])
    first = build_index(mounts)
    assert searchcache.cache_file(mounts).exists()
    assert _answers(first) == _answers(_fresh(root))
    lazy = build_index(mounts)  # nothing changed: items come from the cache's columns
    assert isinstance(lazy._items, LazyItems)
    assert _answers(lazy) == _answers(first)
    # an agent edits a file, adds one, deletes one: the next search sees all of it
    ops = root / "notes" / "ops.md"
    ops.write_text(ops.read_text().replace("Redis port 6305", "Postgres port 5432"))
    (root / "notes" / "new.md").write_text("- Deploy freeze on Friday\n")
    (root / "people.md").unlink()
    _age(root)  # still a different size or mtime than the cache has: re-read
    again = build_index(mounts)
    assert _answers(again) == _answers(_fresh(root))
    assert any(h.item.path == "notes/new.md" for h in again.search("deploy freeze", 5))
    assert not any(h.item.path == "people.md" for h in again.search("alice", 5))
    assert any(it is None for it in again._items)  # freed slots, written as such
    reread = build_index(mounts)
    assert isinstance(reread._items, LazyItems)
    assert _answers(reread) == _answers(_fresh(root))
    assert isinstance(again._items, LazyItems)  # changed in place: what changed is kept beside the columns
    assert [reread._items[i] for i in range(len(reread._items))] == [again._items[i] for i in range(len(again._items))]
    assert [reread._lower[i] for i in range(len(reread._lower))] == [again._lower[i] for i in range(len(again._lower))]


def test_same_size_rewrite_right_after_caching_is_seen(make_repo):
    root = make_repo("memory", _files(3))
    mounts = discover([root])
    build_index(mounts)
    ops = root / "notes" / "ops.md"
    st = ops.stat()
    ops.write_text(ops.read_text().replace("Redis", "Valky"))  # same size, same second
    os.utime(ops, ns=(st.st_atime_ns, st.st_mtime_ns))  # even the same mtime
    hits = build_index(mounts).search("valky", 5)
    assert hits and hits[0].item.path == "notes/ops.md"


def test_a_planted_cache_file_is_rebuilt_not_run(make_repo, tmp_path):
    root = make_repo("memory", _files(3))
    mounts = discover([root])
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    path = searchcache.cache_file(mounts)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        pickle.dumps(
            {"stamp": searchcache.diskcache.stamp(searchcache.FORMAT), "written": 0, "stats": {}, "index": Evil()}
        )
    )
    index = build_index(mounts)
    assert not marker.exists()
    assert _answers(index) == _answers(_fresh(root))
    assert searchload.load(path) is not None  # and the cache was written anew
    path.write_bytes(b"not a pickle at all")
    assert _answers(build_index(mounts)) == _answers(_fresh(root))


def test_cli_no_cache_and_env_leave_no_cache_behind(make_repo, tmp_path):
    root = make_repo("memory", _files(3))
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    run = [sys.executable, "-m", "amr_tui.cli.main", "search", "redis", str(root)]
    out = subprocess.run([*run, "--no-cache"], env=env, capture_output=True, text=True, check=True).stdout
    assert "notes/ops.md" in out and not (tmp_path / "cache").exists()
    subprocess.run(run, env=dict(env, AMR_NO_CACHE="1"), capture_output=True, check=True)
    assert not (tmp_path / "cache").exists()
    assert subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout == out
    # a cold answer leaves the cache to a child process, written once the answer is out
    deadline = time.monotonic() + 30
    while not list((tmp_path / "cache" / "amr" / "search").glob("*.pickle")):
        assert time.monotonic() < deadline, "the child never wrote the cache"
        time.sleep(0.05)
    assert subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout == out  # from the cache


def test_each_cache_folder_keeps_only_its_newest_files(make_repo, tmp_path):
    from amr_tui.services.batch import diskcache

    folder = tmp_path / "kind"
    folder.mkdir()
    (folder / "notes.txt").write_text("not ours")
    for k in range(diskcache.KEEP_FILES + 5):
        path = folder / f"{k:024d}.pickle"
        path.write_bytes(b"x")
        os.utime(path, ns=(k * 10**9, k * 10**9))
    diskcache._trim(folder)
    left = sorted(p.name for p in folder.glob("*.pickle"))
    assert len(left) == diskcache.KEEP_FILES and left[0] == f"{5:024d}.pickle"
    assert (folder / "notes.txt").exists()


def test_lazy_columns_change_like_the_lists_they_stand_for():
    from amr_tui.core.search.items import SearchItem
    from amr_tui.services.search.columns import LazyLower, attach, to_columns

    items = [SearchItem("m", "a.md", 1, "Alpha", "entry"), None, SearchItem("m", "b.md", 0, "b.md", "file")]
    lower = ["alpha", None, "b.md"]
    index = SearchIndex.__new__(SearchIndex)
    attach(index, to_columns(items, lower))
    lazy, low = index._items, index._lower
    assert isinstance(lazy, LazyItems) and isinstance(low, LazyLower)
    assert [lazy[i] for i in range(3)] == items and lazy[-1] == items[-1] and len(lazy) == 3
    assert to_columns(lazy, low) == to_columns(items, lower)  # unchanged: the columns it came from
    fresh = SearchItem("m", "c.md", 2, "Gamma", "entry")
    lazy.append(fresh)
    low.append("gamma")
    lazy[0] = None
    low[0] = None
    assert len(lazy) == 4 and lazy[3] == fresh and lazy[0] is None and low[3] == "gamma"
    with pytest.raises(IndexError):
        lazy[4]
    with pytest.raises(IndexError):
        lazy[4] = fresh
    assert to_columns(lazy, low) == to_columns([None, None, items[2], fresh], [None, None, "b.md", "gamma"])


def test_a_temp_file_a_killed_writer_left_is_swept_by_the_next_write(tmp_path):
    from amr_tui.services.batch import diskcache

    folder = tmp_path / "kind"
    folder.mkdir()
    killed = folder / f"{diskcache.TEMP_PREFIX}0123456789abcdef"
    killed.write_bytes(b"half an index")
    hours_ago = time.time() - 7200
    os.utime(killed, (hours_ago, hours_ago))
    writing = folder / f"{diskcache.TEMP_PREFIX}fedcba9876543210"  # another writer's, now
    writing.write_bytes(b"in progress")
    target = diskcache.cache_path("kind", ["key"]).with_name("a" * 24 + ".pickle")
    target = folder / target.name
    diskcache.save(target, 1, {"x": 1})
    assert not killed.exists() and writing.exists()
    assert diskcache.load(target, 1)["x"] == 1
    assert not [p for p in folder.iterdir() if p.name.startswith(diskcache.TEMP_PREFIX) and p != writing]
