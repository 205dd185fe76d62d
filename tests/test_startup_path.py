"""The first frame does not wait for git, the parser's heavy parts, the search index or dialogs.

Start-up time is measured by bench/; what these tests pin is the structure that
makes it fast: which modules the main screen needs before it can paint, that actions wait
for the session instead of failing, and that the collector paused for start-up comes back.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys

from amr_tui.services.workspace import discover
from tests.driver import SMALL_SIZE, app_for, running, wait_for

# Loaded by the session worker or by the first use of a feature, never before the first frame.
NOT_BEFORE_FIRST_FRAME = (
    "git",
    "amr_tui.git",
    "amr_tui.services.session.session",
    "amr_tui.services.session.editing",
    "amr_tui.core.search.index",
    "amr_tui.core.lint.repo",
    "amr_tui.core.format.rules",
    "amr_tui.screens.finder",
    "amr_tui.screens.dialogs",
    "amr_tui.screens.help",
    "amr_tui.screens.palette",
    "textual.widgets._text_area",
    "tree_sitter",
    "markdown_it",
    "amr_tui.core.format.parser",
    "amr_tui.core.format.metadata",
    "mcp",
    "pydantic",
    "amr_tui.services.agent.memory",
)


def test_main_screen_imports_nothing_heavy():
    code = "import sys, json; import amr_tui.app, amr_tui.screens.main; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = set(json.loads(out))
    early = sorted(m for m in NOT_BEFORE_FIRST_FRAME if m in loaded)
    assert early == [], f"imported before the first frame: {early}"


def test_the_first_look_imports_no_session():
    """The tree's rows and MEMORY.md are painted from screens/main/peek.py before the session
    exists: it walks and parses with the workspace and the parser only (no git, index, lint)."""
    code = (
        "import sys, json; import amr_tui.app, amr_tui.screens.main; import amr_tui.screens.main.peek; "
        "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = set(json.loads(out))
    assert "amr_tui.screens.main.peek" in loaded
    heavy = (
        "git",
        "amr_tui.git",
        "amr_tui.services.session.session",
        "amr_tui.core.search.index",
        "amr_tui.core.lint.repo",
    )
    early = sorted(m for m in heavy if m in loaded)
    assert early == [], f"the first look imports: {early}"


async def test_actions_wait_for_the_session_then_work(make_repo):
    root = make_repo("memory", {"MEMORY.md": "# Memory\n\n## Index\n- Alice likes tea\n"})
    app = app_for([root])
    async with running(app, SMALL_SIZE, ready=False) as drive:
        pilot = drive.pilot
        from amr_tui.screens.main.screen import MainScreen

        screen = MainScreen(discover([root]))  # not mounted: no worker has built its session yet
        assert screen.check_action("edit_entry", ()) is None  # shown greyed, not run
        assert screen.check_action("toggle_side", ()) is True
        await drive.ready()
        assert app.session is app.screen.session is not None
        assert app.screen.check_action("edit_entry", ()) is True
        await pilot.press("slash")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "FinderScreen", what="finder")


async def test_collector_paused_for_start_up_comes_back(make_repo):
    root = make_repo("memory", {"MEMORY.md": "# Memory\n\n## Index\n"})
    app = app_for([root])
    app.gc_paused = True  # as `amr` does (cli/app_cmd.py)
    gc.disable()
    try:
        async with running(app, SMALL_SIZE):
            assert gc.isenabled(), "the collector stays off after the first frame"
            assert app.gc_paused is False
    finally:
        gc.enable()
        gc.unfreeze()


async def test_first_file_gets_its_lint_marks_once_the_lint_is_done(make_repo):
    """The first file opens as soon as search is ready; its marks come with the lint after."""
    memory = "# Memory\n\n## Index\n- [[notes]]\n- Deploys happen on 2026-13-45 [added: 2026-13-45]\n"
    root = make_repo("memory", {"MEMORY.md": memory, "notes.md": "- a note\n"})
    app = app_for([root])
    async with running(app, SMALL_SIZE) as drive:
        pilot = drive.pilot
        view = app.screen.view
        await wait_for(pilot, lambda: 5 in view.marks, what="the bad date marked on line 5")
        assert "AMR008" in {d.code for d in app.session.diagnostics("memory", "MEMORY.md")}
