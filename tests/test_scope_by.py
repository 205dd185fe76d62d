"""Issue 41, points 1 and 5: where a fact holds (the ``scope`` key: read, shown, filtered, written
by agents, moved to the repo it names) and who wrote it (``by:NAME`` from the ``by`` key, the
commit's author or its Agent trailer; contradictions labelled by their writers). Real git repos;
the CLI as a real process; Pilot for the app."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

import pytest

from amr_tui.core.format.parser import parse
from amr_tui.core.scope import Here, Scope, applies, folder_of, matches, parse_scope, repo_for
from amr_tui.services.agent.memory import AgentMemory, Writer
from amr_tui.services.workspace import discover
from amr_tui.widgets.line_display import build_line
from amr_tui.widgets.side_panel import entry_details
from tests.conftest import git
from tests.driver import app_for, running
from tests.test_cli import amr

SCOPED = (
    "# Memory\n\n"
    "- Answers are short bullet lists [scope: global]\n"
    "- Payments ship on Tuesdays [scope: project:payments]\n"
    "- The web app deploys from main [scope: project:web]\n"
    "- Migrations go in db/migrations [scope: db/**]\n"
    "- The user is on call this week\n"
    "\n## Index\n"
)


# ------------------------------------------------------------------------------ the key


def test_scope_values_read_as_the_format_says() -> None:
    assert parse_scope("global") == Scope("global", "", "global")
    assert parse_scope(" Project:Payments ") == Scope("project", "Payments", " Project:Payments ")
    assert parse_scope("src/payments/**") == Scope("path", "src/payments/**", "src/payments/**")
    assert parse_scope("*.sql").kind == "path"  # type: ignore[union-attr]
    assert "scope takes global, project:NAME" in str(parse_scope("everywhere"))
    assert "project: needs the project's name" in str(parse_scope("project:"))
    assert "a glob from the project's root" in str(parse_scope("/etc/**"))
    assert [folder_of(g) for g in ("src/payments/**", "*.sql", "docs/*.md", "notes.md")] == [
        "src/payments",
        "",
        "docs",
        "",
    ]


def test_a_scope_holds_where_the_session_works() -> None:
    here = Here(project="payments", path="src/api", own_repo=True)
    held = {v: applies(parse_scope(v), here) for v in ("global", "project:payments", "project:web", "repo", "session")}
    assert held == {"global": True, "project:payments": True, "project:web": False, "repo": True, "session": False}
    assert applies(parse_scope("src/**"), here) is True
    assert applies(parse_scope("docs/**"), here) is False
    assert applies(parse_scope("src/api/v2/**"), here) is True  # the session may work on those files
    assert applies(parse_scope("project:web"), Here()) is None  # not known where it works
    assert applies(None, here) is True


def test_finder_scope_matches_and_repo_names() -> None:
    assert matches("global", "global") and matches("project", "project:web") and not matches("project", "global")
    assert matches("project:payments", "project:Payments") and not matches("project:pay", "project:payments")
    assert matches("path", "db/**") and not matches("global", "nonsense")
    scope = parse_scope("project:payments")
    assert isinstance(scope, Scope)
    assert repo_for(scope, ["memory-alice", "memory-payments"], "memory-alice") == "memory-payments"
    assert repo_for(scope, ["payments", "memory-payments"], "x") == "payments"
    assert repo_for(scope, ["memory-payments"], "memory-payments") is None


def test_the_scope_is_a_chip_and_the_side_panel_says_what_it_means() -> None:
    doc = parse(SCOPED.encode(), "MEMORY.md")
    entry = doc.entries[1]
    disp = build_line(doc.lines[3], entry, [], {}, raw=False, today=_dt.date(2026, 12, 1))
    assert ("\u25ce project:payments", "scope") in disp.pieces
    said = str(entry_details(entry, doc.lines[3].text, [], belongs="memory-payments"))
    assert "scope: project:payments  (project payments)" in said
    assert "belongs in memory-payments: m moves it there" in said
    bad = parse(b"- A fact [scope: everywhere]\n", "x.md").entries[0]
    assert "(scope takes global, project:NAME" in str(entry_details(bad, "", []))


# ------------------------------------------------------------------------------ the finder and CLI


def _search(query: str, root: Path) -> tuple[int, list[str]]:
    res = amr("search", query, str(root), "--no-cache")
    return res.returncode, [ln.split("  ", 1)[1] for ln in res.stdout.splitlines() if "  " in ln]


def test_search_filters_by_scope(make_repo) -> None:
    root = make_repo("memory", {"MEMORY.md": SCOPED})
    assert _search("scope:global", root) == (0, ["Answers are short bullet lists"])
    assert _search("scope:project", root)[1] == ["Payments ship on Tuesdays", "The web app deploys from main"]
    assert _search("scope:project:payments", root)[1] == ["Payments ship on Tuesdays"]
    assert _search("scope:path", root)[1] == ["Migrations go in db/migrations"]
    assert _search("deploys scope:project:web", root)[1] == ["The web app deploys from main"]
    bad = amr("search", "scope:everywhere", str(root))
    assert bad.returncode == 2 and "scope takes global, project:NAME, repo, task, session" in bad.stderr


def test_a_files_front_matter_scope_is_its_entries_scope(make_repo) -> None:
    """A Claude Code topic file's ``scope: global`` in its front matter holds for every entry of
    it, in the finder and ``amr search`` alike; an entry's own key wins (issue 41, 1)."""
    topic = (
        "---\nname: Style\ntype: feedback\nscope: global\n---\n\n"
        "- Answers are short bullet lists\n- Payments ship on Tuesdays [scope: project:payments]\n"
    )
    root = make_repo("memory", {"MEMORY.md": "# Memory\n\n## Index\n- [[style]]\n", "style.md": topic})
    assert _search("scope:global", root) == (0, ["Answers are short bullet lists"])
    assert _search("scope:project:payments", root)[1] == ["Payments ship on Tuesdays"]
    from amr_tui.services.session.session import Session

    session = Session(discover([root]))
    session.load()
    assert [h.item.text for h in session.search("scope:global")] == ["Answers are short bullet lists"]


def test_agents_remember_with_a_scope(make_repo) -> None:
    root = make_repo("memory", {"MEMORY.md": "# Memory\n\n## Index\n- [[notes]]\n", "notes.md": "# Notes\n"})
    memory = AgentMemory(discover([root]))
    try:
        ok = memory.remember("Refunds need a ticket", Writer("probe"), path="notes.md", scope="project:payments")
        assert ok.status == "written" and ok.entry is not None
        assert ok.entry.metadata["scope"] == "project:payments"
        assert "[scope: project:payments" in (root / "notes.md").read_text()
        bad = memory.remember("Another fact", Writer("probe"), path="notes.md", scope="everywhere")
        assert bad.status == "refused" and "scope takes global" in bad.message
    finally:
        memory.close()


def _commit(root: Path, rel: str, text: str, name: str, trailer: str = "") -> None:
    (root / rel).write_text(text)
    git(root, "add", "--", rel)
    env = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": f"{name.split()[0].lower()}@agents.example"}
    git(root, "commit", "-q", "-m", f"Remember\n\n{trailer}" if trailer else "Remember", env=env)


@pytest.fixture
def written(make_repo) -> Path:
    """Lines by the user, by claude-code, by an amr mcp client (Agent trailer) and one with a by key."""
    root = make_repo("memory", {"MEMORY.md": "# Memory\n\n- Deploys go out on Tuesdays\n\n## Index\n"})
    body = (root / "MEMORY.md").read_text()
    body = body.replace("\n\n## Index", "\n- Deploy rollbacks need a second reviewer\n\n## Index")
    _commit(root, "MEMORY.md", body, "claude-code")
    body = body.replace("\n\n## Index", "\n- Staging resets nightly\n\n## Index")
    _commit(root, "MEMORY.md", body, "mcp-client 1.0", "Written-with: amr mcp\nAgent: cursor")
    body = body.replace("\n\n## Index", "\n- Hotfixes skip the freeze [by: alice]\n\n## Index")
    _commit(root, "MEMORY.md", body, "claude-code")
    return root


def test_search_filters_by_who_wrote_it(written: Path) -> None:
    assert _search("by:claude", written)[1] == ["Deploy rollbacks need a second reviewer"]
    assert _search("by:cursor", written)[1] == ["Staging resets nightly"]  # the Agent trailer
    assert _search("by:amr", written)[1] == ["Staging resets nightly"]  # Written-with: amr mcp
    assert _search("by:alice", written)[1] == ["Hotfixes skip the freeze"]  # its own by key wins
    assert _search("by:test", written)[1] == ["Deploys go out on Tuesdays"]  # the user (Test Author)
    assert _search("deploy by:claude", written)[1] == ["Deploy rollbacks need a second reviewer"]
    assert _search("by:nobody", written)[1] == []


def test_contradictions_say_whether_one_writer_changed_its_mind(make_repo) -> None:
    root = make_repo("memory", {"MEMORY.md": "# Memory\n\n- Hero images are served as JPEG files\n\n## Index\n"})
    body = (
        (root / "MEMORY.md").read_text().replace("\n\n## Index", "\n- Hero images are served as AVIF files\n\n## Index")
    )
    _commit(root, "MEMORY.md", body, "claude-code")
    res = amr("lint", str(root), "--severity", "info")
    assert "AMR033" in res.stdout and "two writers disagree (Test Author vs claude-code)" in res.stdout, res.stdout
    body = body.replace("\n\n## Index", "\n- The CDN caches hero images for 7 days\n\n## Index")
    _commit(root, "MEMORY.md", body, "claude-code")
    body = body.replace("\n\n## Index", "\n- The CDN caches hero images for 30 days\n\n## Index")
    _commit(root, "MEMORY.md", body, "claude-code")
    res = amr("lint", str(root), "--severity", "info")
    assert "one agent changed its mind (claude-code)" in res.stdout, res.stdout
    from amr_tui.services.session.session import Session  # the app's side panel says the same

    session = Session(discover([root]))
    session.load()
    session.relint(session.repos["memory"])
    said = [d.message for d in session.diagnostics("memory", "MEMORY.md") if d.code == "AMR033"]
    assert any("two writers disagree (Test Author vs claude-code)" in m for m in said), said
    assert any("one agent changed its mind (claude-code)" in m for m in said), said


# ------------------------------------------------------------------------------ the app


@pytest.mark.slow
async def test_a_mis_scoped_entry_moves_to_the_repo_it_names_in_one_action(make_repo, tmp_path: Path) -> None:
    alice = make_repo("memory-alice", {"MEMORY.md": SCOPED})
    payments = make_repo("memory-payments", {"MEMORY.md": "# Memory: payments\n\n## Index\n"})
    app = app_for([alice, payments], poll_interval=3600)
    async with running(app) as drive:
        await drive.to_line(4)  # Payments ship on Tuesdays [scope: project:payments]
        side = str(app.screen.query_one("#entry-details").render())
        assert "belongs in memory-payments: m moves it there" in side
        await drive.press("m")
        await drive.until(lambda: type(app.screen).__name__ == "ChoiceScreen", what="the move question")
        await drive.press("enter")  # the first choice: where its scope belongs
        await drive.until(lambda: "Payments ship" in (payments / "MEMORY.md").read_text(), what="the move")
        await drive.settled()
        assert "Payments ship" not in (alice / "MEMORY.md").read_text()
        assert git(payments, "log", "-1", "--format=%s").strip().startswith("Move entry")
