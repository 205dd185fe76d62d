"""Locks and odd states, through the services and the app.

index.lock held for 2 s (the save waits and succeeds), a stale lock (reported, never deleted),
polling that never creates the lock; an empty repo, a detached HEAD, a merge or a rebase in
progress, no git identity; files that are not UTF-8, binary, 50 MB, CRLF, with a BOM, without a
final newline. Nothing is lost, nothing is rewritten that was not edited.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amr_tui.core.format.edit import delete_lines, insert_lines, replace_line
from amr_tui.core.format.parser import parse
from amr_tui.git import DetachedHeadError, GitRepo, LockedError, NoIdentityError, OperationInProgressError
from amr_tui.services.session import editing
from amr_tui.services.session.session import Session
from amr_tui.services.workspace import discover
from tests.driver import app_for, notes, screen_text, wait_for
from tests.examples import examples
from tests.hostilehelpers import detach, git, init_repo, start_merge, start_rebase

MEMORY = "# Memory\n\n- Joe leads the team [source: https://example.com/1]\n\n## Index\n- [[odd]]\n"
ODD = {
    "odd/latin1.md": b"- caf\xe9 cr\xe8me [source: https://example.com/l]\n",
    "odd/binary.md": b"- looks like text\x00\x01\x02 but is not\n",
    "odd/image.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
    "odd/crlf.md": b"\xef\xbb\xbf# CRLF with BOM\r\n\r\n- one [source: https://example.com/1]\r\n- two\r\n- three",
    "odd/mixed.md": b"- lf line\n- crlf line\r\n- lone \r cr\n- last",
}


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def session(root: Path) -> Session:
    s = Session(discover([root]))
    s.load()
    return s


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "memory", {"MEMORY.md": MEMORY, **ODD})


# ---------------------------------------------------------------------------------------------
# Locks


@pytest.mark.slow
def test_index_lock_held_for_two_seconds_then_the_save_succeeds(repo: Path) -> None:
    s = session(repo)
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")  # another git process is busy
    threading.Timer(2.0, lock.unlink).start()
    saved = editing.replace_entry_line(s, s.open("memory", "MEMORY.md"), 3, "- Joe leads the platform team")
    assert saved.head and b"platform team" in GitRepo(repo).read_blob_or_none("HEAD", "MEMORY.md")
    assert GitRepo(repo).status().is_clean


@pytest.mark.slow
def test_a_stale_lock_is_reported_and_never_deleted(repo: Path) -> None:
    s = session(repo)
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    before = sha(repo / "MEMORY.md"), GitRepo(repo).head()
    with pytest.raises(LockedError) as info:
        editing.replace_entry_line(s, s.open("memory", "MEMORY.md"), 3, "- changed")
    assert "never deletes lock files" in str(info.value) and "index.lock" in str(info.value)
    assert lock.exists() and (sha(repo / "MEMORY.md"), GitRepo(repo).head()) == before


def test_polling_never_creates_the_lock(repo: Path) -> None:
    s = session(repo)
    seen: list[str] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            if (repo / ".git" / "index.lock").exists():
                seen.append("index.lock")
            time.sleep(0.0005)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for i in range(40):
            (repo / "MEMORY.md").write_text(MEMORY + f"- agent fact {i}\n")
            s.watch.poll()
    finally:
        stop.set()
        watcher.join()
    assert seen == []


@pytest.mark.slow
async def test_app_save_waits_out_a_two_second_lock_and_reports_a_stale_one(repo: Path) -> None:
    app = app_for([repo], poll_interval=0.1)
    lock = repo / ".git" / "index.lock"
    async with app.run_test(size=(140, 36)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        lock.write_bytes(b"")
        threading.Timer(2.0, lock.unlink).start()
        await pilot.press("e")
        inp = app.screen.query_one("#editor-input")
        await wait_for(pilot, lambda: inp.has_focus, what="editor")
        inp.value = "Joe leads the platform team [source: https://example.com/1]"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.title == "Committed" for n in notes(app)), what="saved")
        lock.write_bytes(b"")  # and now one that stays
        # Right after "Committed" the saved file may still be reloading: the key waits for it.
        await pilot.press("e")
        await wait_for(pilot, lambda: inp.has_focus, what="editor again")
        inp.value = "Joe leads nothing [source: https://example.com/1]"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.title == "Not saved" for n in notes(app)), what="refusal")
        note = next(str(n.message) for n in notes(app) if n.title == "Not saved")
        assert "never deletes lock files" in note
        assert app.is_running and lock.exists()
    assert b"platform team" in (repo / "MEMORY.md").read_bytes() and b"nothing" not in (repo / "MEMORY.md").read_bytes()
    lock.unlink()


# ---------------------------------------------------------------------------------------------
# Repo states


def _state_repo(tmp_path: Path, state: str) -> Path:
    if state == "empty":
        root = tmp_path / state
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        (root / "MEMORY.md").write_text(MEMORY)
        return root
    root = init_repo(tmp_path / state, {"MEMORY.md": MEMORY})
    {"detached": detach, "merging": start_merge, "rebasing": start_rebase}[state](root)
    return root


@pytest.mark.parametrize(
    "state,error",
    [("detached", DetachedHeadError), ("merging", OperationInProgressError), ("rebasing", OperationInProgressError)],
)
def test_saves_are_refused_in_odd_states_and_change_nothing(tmp_path: Path, state: str, error) -> None:
    root = _state_repo(tmp_path, state)
    s = session(root)
    assert s.info(state).note in ("detached", "merging", "rebasing")
    before = sha(root / "MEMORY.md"), git(root, "rev-parse", "HEAD"), git(root, "status", "--porcelain")
    with pytest.raises(error) as info:
        editing.insert_entry(s, s.open(state, "MEMORY.md"), 3, "- new fact")
    assert state.rstrip("ing") in str(info.value).lower() or "detached" in str(info.value).lower()
    assert (sha(root / "MEMORY.md"), git(root, "rev-parse", "HEAD"), git(root, "status", "--porcelain")) == before


def test_empty_repo_first_save_is_the_first_commit(tmp_path: Path) -> None:
    root = _state_repo(tmp_path, "empty")
    s = session(root)
    assert s.info("empty").note == "empty"
    saved = editing.insert_entry(s, s.open("empty", "MEMORY.md"), 3, "- first fact [source: https://example.com/f]")
    assert saved.head and GitRepo(root).log()[0].oid == saved.head
    assert b"first fact" in GitRepo(root).read_blob_or_none("HEAD", "MEMORY.md")


def test_no_identity_refuses_and_writes_nothing(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(key, raising=False)
    s = session(repo)
    before = sha(repo / "MEMORY.md"), GitRepo(repo).head()
    with pytest.raises(NoIdentityError):
        editing.replace_entry_line(s, s.open("memory", "MEMORY.md"), 3, "- changed")
    assert (sha(repo / "MEMORY.md"), GitRepo(repo).head()) == before


@pytest.mark.slow
async def test_app_with_every_odd_state_mounted(tmp_path: Path) -> None:
    roots = [_state_repo(tmp_path, state) for state in ("empty", "detached", "merging", "rebasing")]
    before = {r: (sha(r / "MEMORY.md"), git(r, "status", "--porcelain")) for r in roots}
    app = app_for(roots, poll_interval=0.2)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        await wait_for(
            pilot,
            lambda: all(w in screen_text(app) for w in ("(empty)", "(detached)", "(merging)", "(rebasing)")),
            what="badges",
        )
        from amr_tui.screens.main.screen import Place

        for name in ("detached", "merging", "rebasing"):
            app.screen.open_place(Place(name, "MEMORY.md", 0))
            await wait_for(pilot, lambda: app.screen.current.repo == name, what=name)
            count = sum(1 for n in notes(app) if n.title == "Not saved")
            await pilot.press("o")
            inp = app.screen.query_one("#editor-input")
            await wait_for(pilot, lambda: inp.has_focus, what="editor")
            inp.value = "a new fact"
            await pilot.press("enter")
            await wait_for(
                pilot, lambda: sum(1 for n in notes(app) if n.title == "Not saved") > count, what=f"{name} refused"
            )
            await pilot.press("escape")  # the text is still in the editor: discard it
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", what="discard?")
            await pilot.press("y")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "MainScreen", what="back")
        assert app.is_running
    for r in roots:
        assert (sha(r / "MEMORY.md"), git(r, "status", "--porcelain")) == before[r]


# ---------------------------------------------------------------------------------------------
# Odd files


def test_odd_files_open_read_only_and_keep_their_bytes(repo: Path) -> None:
    big = repo / "odd" / "huge.md"
    big.write_bytes(b"- a fact about size [source: https://example.com/h]\n" * (50 * 1024 * 1024 // 52 + 1))
    hashes = {p: sha(p) for p in [*(repo / "odd").iterdir()]}
    s = session(repo)
    latin, binary, image, huge = (
        s.open("memory", f"odd/{n}") for n in ("latin1.md", "binary.md", "image.png", "huge.md")
    )
    assert latin.read_only and "UTF-8" in latin.read_only and latin.data == ODD["odd/latin1.md"]
    assert binary.read_only == "the file is binary" and image.read_only and image.data == ODD["odd/image.png"]
    assert huge.data is None and huge.read_only == "too large" and "too large to load" in huge.message
    assert "MB" in huge.message and "$EDITOR" in huge.message
    for of in (latin, binary, image):
        with pytest.raises(editing.EditRefused):
            editing.write(s, of, b"- replaced\n", "edit")
    from amr_tui.services.lint.fix import fix_repo

    fix_repo(s.mount("memory"))
    s.watch.poll()
    assert {p: sha(p) for p in hashes} == hashes


def test_crlf_bom_and_no_final_newline_round_trip_through_edits(repo: Path) -> None:
    s = session(repo)
    raw = ODD["odd/crlf.md"]
    editing.replace_entry_line(s, s.open("memory", "odd/crlf.md"), 4, "- two, edited")
    after = (repo / "odd" / "crlf.md").read_bytes()
    assert after == raw.replace(b"- two\r\n", b"- two, edited\r\n")
    editing.insert_entry(s, s.open("memory", "odd/crlf.md"), 5, "- four")
    assert (repo / "odd" / "crlf.md").read_bytes() == after + b"\r\n- four"  # still no final newline
    editing.delete_entry(s, s.open("memory", "odd/crlf.md"), 6)
    assert (repo / "odd" / "crlf.md").read_bytes() == after
    editing.replace_entry_line(s, s.open("memory", "odd/mixed.md"), 1, "- lf line, edited")
    assert (repo / "odd" / "mixed.md").read_bytes() == ODD["odd/mixed.md"].replace(
        b"- lf line\n", b"- lf line, edited\n"
    )
    assert GitRepo(repo).read_blob_or_none("HEAD", "odd/mixed.md") == (repo / "odd" / "mixed.md").read_bytes()


@pytest.mark.slow
async def test_app_odd_files_whole_file_edit_keeps_crlf_bom_and_no_final_newline(repo: Path) -> None:
    app = app_for([repo], poll_interval=60)
    big = repo / "odd" / "huge.md"
    big.write_bytes(b"- x\n" * (50 * 1024 * 1024 // 4))
    async with app.run_test(size=(140, 36)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "current", None) is not None, what="open")
        from amr_tui.screens.main.screen import Place

        for rel, shown in (
            ("odd/huge.md", "too large to load"),
            ("odd/latin1.md", "not UTF-8"),
            ("odd/binary.md", "binary"),
            ("odd/image.png", "binary"),
        ):
            app.screen.open_place(Place("memory", rel, 0))
            await wait_for(pilot, lambda: app.screen.current.path == rel and shown in screen_text(app), what=rel)
        app.screen.open_place(Place("memory", "odd/crlf.md", 0))
        await wait_for(pilot, lambda: app.screen.current.path == "odd/crlf.md", what="crlf")
        await pilot.press("E")
        area = app.screen.query_one("#file-edit-area")
        await wait_for(pilot, lambda: area.has_focus, what="file editor")
        area.text = area.text.replace("- three", "- three, edited")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any(n.title == "Committed" for n in notes(app)), what="saved")
    assert (repo / "odd" / "crlf.md").read_bytes() == ODD["odd/crlf.md"].replace(b"- three", b"- three, edited")
    assert (repo / "odd" / "latin1.md").read_bytes() == ODD["odd/latin1.md"]


_eols = st.sampled_from(["\n", "\r\n", ""])
_texts = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=20)


@settings(max_examples=examples(200), deadline=None)
@given(
    lines=st.lists(st.tuples(_texts, _eols), min_size=1, max_size=8),
    bom=st.booleans(),
    where=st.integers(0, 7),
    new=_texts,
)
def test_edits_change_only_the_lines_they_name(lines, bom, where, new) -> None:
    """Byte for byte: every line but the edited one keeps its text and its own end of line."""
    body = "".join(t + (e or "\n") for t, e in lines[:-1]) + lines[-1][0] + lines[-1][1]
    data = (("\ufeff" if bom else "") + body).encode()
    doc = parse(data, "x.md")
    assert doc.to_bytes() == data
    if not doc.lines:
        return
    pre = b"\xef\xbb\xbf" if doc.bom else b""
    segs = [(ln.text + ln.eol).encode() for ln in doc.lines]
    line = where % len(doc.lines) + 1
    i = line - 1
    assert replace_line(doc, line, new) == pre + b"".join(segs[:i]) + (new + doc.lines[i].eol).encode() + b"".join(
        segs[line:]
    )
    deleted = delete_lines(doc, line, line)
    assert deleted.startswith(pre + b"".join(segs[: max(0, i - 1)])) and deleted.endswith(b"".join(segs[line:]))
    inserted = insert_lines(doc, line, [new])
    assert inserted.startswith(pre + b"".join(segs[:i])) and inserted.endswith(b"".join(segs[line:]))
    assert new.encode() in inserted


def test_repo_state_helpers_left_the_repos_as_promised(tmp_path: Path) -> None:
    assert (_state_repo(tmp_path, "merging") / ".git" / "MERGE_HEAD").exists()
    assert os.path.isdir(_state_repo(tmp_path, "rebasing") / ".git" / "rebase-merge")
