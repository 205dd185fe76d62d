"""Progressive start: the tree's rows and MEMORY.md are shown before the session is loaded.

The load is held with a real ``threading.Event`` (``app.load_hold``: the main screen's load
worker waits on it once the tree and the first file are painted, before the badges, the
parse of every file, the search index and the repo-wide lint). While it is held, what does not
need the whole index works: moving in the tree, opening files (parsed on demand), following
links, the finder (from what is indexed so far, saying how much) and saving.
"""

from __future__ import annotations

import threading

from tests.driver import START_SIZE, app_for, git, running, screen_text, shown, tree_files, wait_for

MEMORY = "# Memory\n\n## Index\n- Alice likes green tea; see [[notes]]\n- People are in [[people/bob]]\n"
NOTES = "# Notes\n\n- The staging deploy runs on Fridays\n- Redis listens on port 6380\n"
BOB = "# Bob\n\n- Bob reviews the quarterly budget\n"
FILES = {"MEMORY.md": MEMORY, "notes.md": NOTES, "people/bob.md": BOB}


async def opened(pilot, drive) -> None:
    """Until the session exists and has opened MEMORY.md (the first look showed it before that)."""
    await wait_for(pilot, lambda: drive.current is not None, what="MEMORY.md opened by the session")


def held_app(root):
    app = app_for([root], poll_interval=60)
    app.load_hold = threading.Event()
    return app


async def test_tree_and_memory_are_shown_and_usable_before_the_load(make_repo):
    root = make_repo("memory", FILES)
    app = held_app(root)
    async with running(app, START_SIZE, ready=False) as drive:
        pilot = drive.pilot
        try:
            text = await shown(pilot, app, "MEMORY.md", "notes.md", "Alice likes green tea", "Listed 3 files")
            await opened(pilot, drive)
            screen = app.screen
            assert screen.loader.peeked == (
                "memory",
                "MEMORY.md",
            )  # shown by the first look, before the session existed
            session = screen.session
            # Held: nothing was indexed by the loader, no repo-wide lint, no git status read.
            assert screen.indexing and session.coverage() is not None
            assert session.coverage() == (1, 3)  # MEMORY.md, parsed and indexed as it was opened
            assert session.repos["memory"].info is None and "main" not in text.splitlines()[1]
            held = session.repos["memory"]
            assert "notes.md" not in held.facts and "notes.md" not in held.docs  # not parsed yet
            # Moving in the tree: down from MEMORY.md to the next row, and opening it with enter.
            tree = screen.query_one("#tree")
            await pilot.press("1")
            assert tree.has_focus
            at = tree.cursor_line
            await pilot.press("j")
            assert tree.cursor_line == at + 1
            # Following a link: [[notes]] on the first entry, parsed on demand.
            screen.view.focus()
            await drive.to_first_entry()
            await pilot.press("enter")
            await wait_for(pilot, lambda: drive.current and drive.current.path == "notes.md", what="notes.md open")
            await shown(pilot, app, "The staging deploy runs on Fridays")
            assert [e.text for e in drive.current.doc.entries][:1] == ["The staging deploy runs on Fridays"]
            # Opening a file no link reaches yet, the way the tree does.
            await drive.open("memory", "people/bob.md")
            await shown(pilot, app, "Bob reviews the quarterly budget")
            assert session.coverage() is not None
        finally:
            app.load_hold.set()
        await drive.ready()
        assert session.coverage() is None
        await wait_for(pilot, lambda: "main" in screen_text(app), what="the branch badge after git status")


async def test_finder_answers_from_what_is_indexed_and_says_how_much(make_repo):
    root = make_repo("memory", FILES)
    app = held_app(root)
    async with running(app, START_SIZE, ready=False) as drive:
        pilot = drive.pilot
        try:
            await shown(pilot, app, "Alice likes green tea")
            await opened(pilot, drive)
            await pilot.press("slash")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "FinderScreen", what="finder")
            await pilot.press(*"tea")
            text = await shown(pilot, app, "1 of 3 files searched")
            assert "Alice likes green tea" in text
            app.screen.query_one("#finder-input").value = "staging deploy"
            await shown(pilot, app, "no matches (1 of 3 files searched")  # notes.md is not indexed yet
        finally:
            app.load_hold.set()
        # The index grows under the open finder: it searches again and stops saying "of".
        text = await shown(pilot, app, "The staging deploy runs on Fridays")
        await wait_for(pilot, lambda: "files searched" not in screen_text(app), what="full coverage")
        await pilot.press("escape")
        await drive.ready()


async def test_saving_works_before_the_load_and_the_load_keeps_the_save(make_repo):
    root = make_repo("memory", FILES)
    before = int(git(root, "rev-list", "--count", "HEAD"))
    app = held_app(root)
    async with running(app, START_SIZE, ready=False) as drive:
        pilot = drive.pilot
        try:
            await shown(pilot, app, "Alice likes green tea")
            await opened(pilot, drive)
            await drive.open("memory", "notes.md")
            await drive.to_first_entry()
            await pilot.press("e")
            inp = app.screen.query_one("#editor-input")
            await wait_for(pilot, lambda: inp.has_focus, what="editor focus")
            inp.value = "The staging deploy runs on Thursdays now"
            await pilot.press("enter")
            await wait_for(pilot, lambda: "Thursdays" in (root / "notes.md").read_text(), what="saved")
            await wait_for(pilot, lambda: int(git(root, "rev-list", "--count", "HEAD")) == before + 1, what="committed")
            await shown(pilot, app, "The staging deploy runs on Thursdays now")
            assert app.screen.session.coverage() is not None  # all of it while the load was held
        finally:
            app.load_hold.set()
        await drive.ready()
        session = app.screen.session
        texts = [h.item.text for h in session.search("staging deploy")]
        assert "The staging deploy runs on Thursdays now" in texts  # the loader did not put back the old text
        assert "The staging deploy runs on Fridays" not in texts
        assert [h.item.path for h in session.search("quarterly budget")] == ["people/bob.md"]
    assert git(root, "status", "--porcelain") == ""


async def test_a_large_tree_gets_every_row_while_the_load_is_held(make_repo):
    """The first frame lays out a screenful of rows (MemoryTree.set_repo(rows=...)); every row follows."""
    files = dict(FILES)
    files.update({f"area{k % 5}/topic-{k:03}.md": f"- Fact number {k}\n" for k in range(150)})
    root = make_repo("memory", files)
    app = held_app(root)
    async with running(app, START_SIZE, ready=False) as drive:
        pilot = drive.pilot
        try:
            await shown(pilot, app, "Alice likes green tea")
            tree = app.screen.query_one("#tree")
            await wait_for(pilot, lambda: len(tree_files(tree)) == len(files), what="every file in the tree")
            assert ("memory", "area4/topic-149.md") in tree_files(tree)
            assert not (app.screen.session and app.screen.session.coverage() is None)
        finally:
            app.load_hold.set()
        await drive.ready()
        assert len(tree_files(tree)) == len(files)
