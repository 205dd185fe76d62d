"""Issue 38 point 9 (part): possible contradictions are said where the user looks.

"Approvals expire after 12 hours" and "... 48 hours" made `amr lint` say "All clean." (AMR033 is
info, shown only at --severity info), and sync's "Both" wrote such a pair without a word. Now
lint counts what it did not show, and keeping both sides of a conflict that differ in a value
names the pair and the two values before the resolution is committed (the CLI prints it; the
app says it when "both" is chosen and asks before it commits); the side panel shows AMR033."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git

PAIR = "# Auth\n\n- Approvals expire after 12 hours [source: https://e.com/s/1]\n- Approvals expire after 48 hours\n"
MEMORY = "# Memory\n\n## Index\n- [[auth]]\n"


def lint(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "amr_tui", "lint", *args, str(root)], capture_output=True, text=True, timeout=120
    )


def test_lint_never_says_all_clean_over_a_possible_contradiction(make_repo):
    root = make_repo("memory", {"MEMORY.md": MEMORY, "auth.md": PAIR})
    for _run in ("fresh", "from the cache"):
        res = lint(root)
        assert res.returncode == 0 and res.stdout == "", res
        assert res.stderr.strip() == (
            "No errors or warnings. 1 possible contradiction (AMR033): --severity info lists it."
        ), res.stderr
    res = lint(root, "--severity", "info")
    assert "auth.md:4:1: AMR033 possible contradiction: contradicts line 3 (48 vs 12)?" in res.stdout
    # a warning shown, the contradiction counted below it
    (root / "auth.md").write_text(PAIR + "- See [[nowhere]]\n")
    res = lint(root)
    assert res.returncode == 1 and "Found 1 warning." in res.stderr
    assert "Also 1 possible contradiction (AMR033): --severity info lists it." in res.stderr


def test_lint_says_when_a_repo_is_too_large_to_look_for_them(make_repo):
    """Past CONTRADICTIONS_MAX_ENTRIES, AMR033 costs seconds: lint says it did not look, not "All clean."."""
    from amr_tui.core.lint.facts import CONTRADICTIONS_MAX_ENTRIES

    body = "".join(
        f"- Note {k} is about topic t{k} [source: https://e.com/s/{k}]\n" for k in range(CONTRADICTIONS_MAX_ENTRIES + 1)
    )
    root = make_repo("memory", {"MEMORY.md": MEMORY.replace("auth", "notes"), "notes.md": "# Notes\n\n" + body})
    res = lint(root)
    assert res.returncode == 0 and "All clean." not in res.stderr, res.stderr
    assert "Possible contradictions (AMR033) were not looked for in " in res.stderr
    assert "--severity info looks for them." in res.stderr


def _two_clones(tmp_path: Path) -> Path:
    """An origin; an agent's clone pushed "24 hours"; mine committed "48 hours" on the same entry."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    seed = tmp_path / "seed"
    git(tmp_path, "init", "-q", "-b", "main", str(seed))
    (seed / "MEMORY.md").write_text(MEMORY)
    (seed / "auth.md").write_text("# Auth\n\n- Approvals expire after 12 hours [source: https://e.com/s/1]\n")
    git(seed, "add", "-A")
    git(seed, "commit", "-qm", "auth")
    git(seed, "push", "-q", str(origin), "main")
    agent, mine = tmp_path / "agent", tmp_path / "mine"
    for clone in (agent, mine):
        git(tmp_path, "clone", "-q", str(origin), str(clone))
    for clone, hours in ((agent, "24"), (mine, "48")):
        (clone / "auth.md").write_text((clone / "auth.md").read_text().replace("12 hours", f"{hours} hours"))
        git(clone, "commit", "-qam", f"Approvals: {hours}h")
    git(agent, "push", "-q", "origin", "main")
    return mine


def test_amr_sync_resolve_both_names_the_pair_and_values_before_it_commits(tmp_path):
    mine = _two_clones(tmp_path)

    def amr(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "amr_tui", *args], cwd=mine, capture_output=True, text=True)

    assert amr("sync").returncode == 1  # stopped on the conflict
    res = amr("sync", "--resolve", "both")
    assert res.returncode == 0, res
    lines = res.stdout.splitlines()
    assert lines[0] == (
        '  warning: auth.md: keeping both makes a possible contradiction (AMR033, 48 vs 24): "Approvals expire '
        'after 48 hours" (mine) and "Approvals expire after 24 hours" (theirs)'
    ), lines
    assert "synced" in lines[1]  # said before the resolution's outcome
    text = (mine / "auth.md").read_text()
    assert "48 hours" in text and "24 hours" in text


def test_amr_sync_resolve_both_json_carries_the_pair(tmp_path):
    mine = _two_clones(tmp_path)
    run = [sys.executable, "-m", "amr_tui", "sync"]
    subprocess.run(run, cwd=mine, capture_output=True, text=True)
    res = subprocess.run([*run, "--resolve", "both", "--json"], cwd=mine, capture_output=True, text=True)
    ((data,),) = [json.loads(res.stdout)]
    ((pair,),) = [data["kept_both"]]
    assert (pair["path"], pair["ours_values"], pair["theirs_values"]) == ("auth.md", ["48"], ["24"])


@pytest.mark.slow
async def test_the_sync_view_says_it_on_both_asks_before_committing_and_the_side_panel_shows_it(tmp_path):
    from amr_tui.screens.dialogs import ConfirmScreen
    from amr_tui.screens.sync_conflict import SyncConflictScreen
    from amr_tui.widgets.side_panel import SidePanel
    from tests.driver import WIDE_SIZE, app_for, notes, running, wait_for

    mine = _two_clones(tmp_path)
    app = app_for([mine], poll_interval=60)
    async with running(app, WIDE_SIZE) as drive:
        pilot = drive.pilot
        await pilot.press("S")
        await wait_for(pilot, lambda: isinstance(app.screen, SyncConflictScreen), timeout=30, what="conflict view")
        head = git(mine, "rev-parse", "HEAD")
        await pilot.press("b")
        await wait_for(
            pilot, lambda: any(n.title == "Possible contradiction" for n in notes(app)), what="said on choosing both"
        )
        note = next(n for n in notes(app) if n.title == "Possible contradiction")
        assert "48 vs 24" in note.message and "Approvals expire after 24 hours" in note.message
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="asked before committing")
        assert git(mine, "rev-parse", "HEAD") == head  # nothing committed yet
        await pilot.press("n")  # choose again: still in the view, nothing written
        await wait_for(pilot, lambda: isinstance(app.screen, SyncConflictScreen), what="back to the view")
        assert git(mine, "rev-parse", "HEAD") == head
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="asked again")
        await pilot.press("y")
        await wait_for(pilot, lambda: not isinstance(app.screen, SyncConflictScreen), timeout=30, what="resolved")
        await drive.open(mine.name, "auth.md")
        await wait_for(
            pilot,
            lambda: "24 hours"
            in (drive.current.doc.lines[3].text if drive.current.doc and len(drive.current.doc.lines) > 3 else ""),
            what="both lines shown",
        )
        await drive.to_line(4)
        side = drive.screen.query_one(SidePanel).query_one("#entry-details")
        await wait_for(pilot, lambda: "AMR033" in str(side.render()), what="the side panel's possible contradiction")
        assert "(24 vs 48)" in str(side.render())
