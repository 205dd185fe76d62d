"""A big cold load is parsed by worker processes and holds what a serial one does.

``services/session/parsepool.py``: above ``MIN_FILES`` files to parse, with two or more usable
cores, the session's ``index_files`` hands batches to worker processes started from a
forkserver; ``AMR_JOBS=1`` parses in the process. Both loads must give the same index items,
facts, findings, metadata keys and hits, with the files a worker must not read (a symlink out of
the repo, a file too large) left out as a serial load leaves them out.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from amr_tui.services.session import parsepool
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import MAX_PARSE_BYTES, Mount
from tests.test_session_cache import FILES, picture


def _big_repo(make_repo, outside: Path) -> Path:
    files: dict[str, str | bytes] = dict(FILES)
    for k in range(parsepool.MIN_FILES + 50):
        files[f"area{k % 7}/note-{k}.md"] = (
            f"# Note {k}\n\n- Service {k} listens on port {8000 + k} [source: chat; added: 2026-10-{k % 28 + 1:02d}]\n"
            f"- Bob reviews the budget of service {k} [owner: bob]\n- See [[notes]] and [[area{k % 7}/note-{k + 1}]]\n"
        )
    files["big.md"] = "# Big\n\n" + "- a line that is long enough to count for something\n" * (MAX_PARSE_BYTES // 50)
    root = make_repo("memory", files)
    (outside / "secret.md").write_text("# Outside\n\n- a fact from outside the repo\n")
    os.symlink(outside / "secret.md", root / "escape.md")
    return root


def _load(root: Path, jobs: str, monkeypatch: pytest.MonkeyPatch) -> Session:
    with monkeypatch.context() as mp:
        mp.setenv("AMR_NO_CACHE", "1")
        mp.setenv("AMR_JOBS", jobs)
        s = Session([Mount("memory", root)])
        s.load()
    return s


async def test_the_app_parses_a_big_cold_load_on_worker_processes(make_repo, monkeypatch, tmp_path):
    """Inside the app ``sys.stderr`` is Textual's capture of prints, with no file descriptor for
    multiprocessing to hand its helper processes: the pool must start there too (it fell back to
    the serial parse, silently, until it was given one). First in the file: multiprocessing starts
    its helper once per process, and a pool started outside the app before would hide this."""
    from tests.driver import app_for, running

    outside = tmp_path / "outside"
    outside.mkdir()
    root = _big_repo(make_repo, outside)
    monkeypatch.setenv("AMR_NO_CACHE", "1")
    monkeypatch.setenv("AMR_JOBS", "2")
    app = app_for([root], poll_interval=60)
    async with running(app):
        assert app.session is not None and app.session.parsed_away >= parsepool.MIN_FILES


def test_a_big_cold_load_on_worker_processes_holds_what_a_serial_one_does(make_repo, monkeypatch, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    root = _big_repo(make_repo, outside)
    serial = _load(root, "1", monkeypatch)
    pooled = _load(root, "2", monkeypatch)
    assert serial.parsed_away == 0
    assert pooled.parsed_away >= parsepool.MIN_FILES  # the workers did parse
    got, want = picture(pooled), picture(serial)
    assert got == want
    paths = {path for (_repo, path, *_rest) in got["items"]}  # type: ignore[union-attr]
    assert "area3/note-3.md" in paths and "escape.md" not in {p for p in got["facts"]}  # type: ignore[operator]
    assert "big.md" not in got["facts"]  # type: ignore[operator]
    # MEMORY.md's Document is kept (parsed in the process), the others are read when asked for.
    assert "MEMORY.md" in pooled.repos["memory"].docs
    doc = pooled.document("memory", "area2/note-2.md")
    assert doc is not None and doc.entries[0].text.startswith("Service 2 listens on port 8002")
