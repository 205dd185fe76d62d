"""`amr lint`'s cache: an unchanged repo is answered from it, any change is linted anew, and
the answer is always what a lint without the cache says."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time

from amr_tui.services.lint import cache as lintcache
from amr_tui.services.lint.run import lint_targets, resolve_targets
from tests.conftest import git

MEMORY = "# Memory\n\n## Index\n- [[notes]]\n- [[gone]]\n"
NOTES = "- Redis listens on 6380 [added: 2026-13-01]\n- Redis listens on 6380\n- Uses * bullets\n* star bullet\n"


def _age(root) -> None:
    then = int((time.time() - 3600) * 1e9)
    for path in root.rglob("*"):
        if ".git" not in path.parts and path.is_file():
            os.utime(path, ns=(then, then))


def _lint(root, *, cache: bool) -> list[tuple]:
    out = []
    for r in lint_targets(resolve_targets([root]), near_duplicates=True, use_cache=cache):
        d = r.finding.diagnostic
        fix = None if d.fix is None else (d.fix.description, d.fix.edits, d.fix.path)
        out.append((r.repo, r.finding.path, d.code, d.severity, d.message, d.line, d.column, fix))
    return out


def test_cached_findings_equal_a_fresh_lint_through_changes(make_repo):
    root = make_repo("memory", {"MEMORY.md": MEMORY, "notes.md": NOTES, "orphan.md": "- lonely\n"})
    _age(root)
    fresh = _lint(root, cache=False)
    assert {"AMR008", "AMR010", "AMR013", "AMR014", "AMR024"} <= {f[2] for f in fresh}
    assert _lint(root, cache=True) == fresh  # written
    path = lintcache.probe(resolve_targets([root])[0].mount, duplicates=True, near=True).path
    assert path.exists()
    before = path.stat().st_mtime_ns
    assert _lint(root, cache=True) == fresh  # answered from the cache...
    assert path.stat().st_mtime_ns == before  # ...and not written again
    # edits, a new file, a deleted file, a merge driver this clone lacks: each is seen
    (root / "notes.md").write_text(NOTES.replace("2026-13-01", "2026-01-13"))
    (root / "gone.md").write_text("- now it exists\n")
    (root / "orphan.md").unlink()
    (root / ".gitattributes").write_text("*.md merge=nowhere\n")
    _age(root)
    changed = _lint(root, cache=False)
    assert "AMR027" in {f[2] for f in changed} and "AMR008" not in {f[2] for f in changed}
    assert _lint(root, cache=True) == changed
    assert _lint(root, cache=True) == changed
    git(root, "config", "merge.nowhere.driver", "true")  # only git config changed: AMR027 goes
    assert _lint(root, cache=True) == _lint(root, cache=False)
    assert "AMR027" not in {f[2] for f in _lint(root, cache=True)}


def test_a_file_written_just_now_is_always_read(make_repo):
    root = make_repo("memory", {"MEMORY.md": MEMORY, "notes.md": NOTES})
    _lint(root, cache=True)
    notes = root / "notes.md"
    st = notes.stat()
    notes.write_text(NOTES.replace("2026-13-01", "2026-01-13"))  # same size...
    os.utime(notes, ns=(st.st_atime_ns, st.st_mtime_ns))  # ...and the same mtime
    assert "AMR008" not in {f[2] for f in _lint(root, cache=True)}


def test_a_planted_cache_is_ignored(make_repo, tmp_path):
    root = make_repo("memory", {"MEMORY.md": MEMORY, "notes.md": NOTES})
    _age(root)
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    path = lintcache.probe(resolve_targets([root])[0].mount, duplicates=True, near=True).path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        pickle.dumps(
            {
                "stamp": lintcache.diskcache.stamp(lintcache.FORMAT),
                "written": 0,
                "stats": {},
                "escaping": [],
                "drivers": [],
                "findings": Evil(),
            }
        )
    )
    assert _lint(root, cache=True) == _lint(root, cache=False)
    assert not marker.exists()


def test_cli_cache_switches(make_repo, tmp_path):
    root = make_repo("memory", {"MEMORY.md": MEMORY, "notes.md": NOTES})
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    run = [sys.executable, "-m", "amr_tui.cli.main", "lint", str(root)]
    first = subprocess.run([*run, "--no-cache"], env=env, capture_output=True, text=True)
    assert first.returncode == 1 and "AMR010" in first.stdout and not (tmp_path / "cache").exists()
    subprocess.run(run, env=dict(env, AMR_NO_CACHE="1"), capture_output=True)
    assert not (tmp_path / "cache").exists()
    for _ in range(2):  # writes the cache, then answers from it
        again = subprocess.run(run, env=env, capture_output=True, text=True)
        assert (again.returncode, again.stdout, again.stderr) == (first.returncode, first.stdout, first.stderr)
    assert list((tmp_path / "cache" / "amr" / "lint").glob("*.pickle"))


def _age_one(path, seconds: int) -> None:
    then = int((time.time() - seconds) * 1e9)
    os.utime(path, ns=(then, then))


def test_after_one_file_changed_only_it_is_parsed_again(make_repo):
    """The findings cache misses (a file changed); the other files' facts come from the facts
    cache. Shown by an unchanged-looking file (same size, same mtime, older than the racy
    window: what a stat cache cannot see, as in git) keeping the findings it had."""
    root = make_repo("memory", {"MEMORY.md": MEMORY, "notes.md": NOTES, "more.md": "- Bad date [added: 2026-13-01]\n"})
    _age(root)
    first = _lint(root, cache=True)
    assert ("memory", "more.md", "AMR008") in {f[:3] for f in first}
    more = root / "more.md"
    st = more.stat()
    more.write_text("- Bad date [added: 2026-01-13]\n")  # same size: fixed, but the stat does not say so
    os.utime(more, ns=(st.st_atime_ns, st.st_mtime_ns))
    notes = root / "notes.md"
    notes.write_text(NOTES + "- Another bad date [added: 2026-02-30]\n")
    _age_one(notes, 1800)
    second = _lint(root, cache=True)
    assert ("memory", "more.md", "AMR008") in {f[:3] for f in second}  # more.md: from its kept facts
    assert ("notes.md", "AMR008", 5) in {(f[1], f[2], f[5]) for f in second}  # notes.md: parsed again
    fresh = _lint(root, cache=False)
    assert ("memory", "more.md", "AMR008") not in {f[:3] for f in fresh}
    assert [f for f in second if f[1] != "more.md"] == [f for f in fresh if f[1] != "more.md"]
