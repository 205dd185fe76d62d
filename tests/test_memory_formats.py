"""Issue 25: the memory people already have opens, its links resolve, and its findings are ones a
reader would agree with. ``tests/fixtures/formats/`` holds one folder per format, written in
the shapes other agents write (docs/format.md, "Other agents' memory"): Claude Code auto memory,
Letta memfs, basic-memory, an Obsidian vault, Cline and Cursor memory banks, OpenClaw daily
journals, Hermes, Devin files without MEMORY.md, notes beside scripts and lock files, and
credentials of every shape. Each is linted, searched and opened as a user would."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from amr_tui.services.lint.run import lint_targets, resolve_targets
from amr_tui.services.workspace import discover, repo_style
from tests.driver import TMUX_SIZE, app_for, running

FORMATS = Path(__file__).parent / "fixtures" / "formats"

#: folder -> (the mount it opens as, its format, the findings expected as (code, path, line))
EXPECTED: dict[str, tuple[str, str, list[tuple[str, str, int]]]] = {
    "claude-code": ("memory", "claude-code", []),
    "letta-memfs": ("letta-memfs", "letta", []),
    "basic-memory": ("basic-memory", "basic-memory", []),
    "obsidian-vault": ("obsidian-vault", "obsidian", []),
    # hard-wrapped bullets are the memory bank's own shape: an entry is its whole list item
    "cline-memory-bank": ("cline-memory-bank", "memory-bank", []),
    "cursor-memory-bank": ("cursor-memory-bank", "memory-bank", []),
    # the daily status lines are no duplicates; MEMORY.md beside memory/ logs is OpenClaw's, no index
    "openclaw-daily": ("openclaw-daily", "openclaw", []),
    "hermes-agent": ("hermes-agent", "hermes", []),
    # AMR entries ([source: ...]) without their MEMORY.md: the nested answers are ordinary Markdown
    "devin-findings": ("devin-findings", "amr", [("AMR001", "MEMORY.md", 0)]),
    "notes-with-scripts": ("notes-with-scripts", "amr", []),  # scripts and lock files are no notes
    "secrets-mixed": ("secrets-mixed", "amr", [("AMR016", "credentials.md", 6)]),  # the real one only
}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    dest = tmp_path / "formats"
    shutil.copytree(FORMATS, dest)
    return dest


@pytest.mark.parametrize("folder", sorted(EXPECTED))
def test_each_format_opens_and_reads_as_its_agent_wrote_it(corpus: Path, folder: str) -> None:
    name, style, expected = EXPECTED[folder]
    (mount,) = discover([corpus / folder])
    assert mount.name == name
    assert repo_style(mount.root) == style
    results = lint_targets(resolve_targets([corpus / folder]), use_cache=False)
    got = sorted((r.finding.diagnostic.code, r.finding.path, r.finding.diagnostic.line) for r in results)
    assert got == sorted(expected), [str(r.finding) for r in results]


@pytest.mark.slow
def test_opening_searching_and_linting_write_nothing(corpus: Path) -> None:
    before = {p: p.read_bytes() for p in corpus.rglob("*") if p.is_file()}
    for folder in EXPECTED:
        for argv in (["lint", "--no-cache"], ["search", "the"]):
            subprocess.run(
                [sys.executable, "-m", "amr_tui", *argv, str(corpus / folder)], capture_output=True, check=False
            )
    after = {p: p.read_bytes() for p in corpus.rglob("*") if p.is_file() and ".cache" not in p.parts}
    assert after == before


def test_the_links_each_format_writes_resolve(corpus: Path) -> None:
    """Markdown links relative to their file (Claude Code), [[path.md]] (Letta), [[Note Title]]
    (basic-memory), [[name]] anywhere in the vault, ![[attachment]] and [[note#Heading]]
    (Obsidian): every one names its file."""
    from amr_tui.services.workspace import load_snapshot

    wanted = {
        "claude-code": {("memory/MEMORY.md", "user_role.md"), ("reference_linear.md", "feedback_testing.md")},
        "letta-memfs": {("system/human.md", "system/projects.md")},
        "basic-memory": {("coffee-brewing-methods.md", "techniques/proper-grinding-technique.md")},
        "obsidian-vault": {
            ("Home.md", "attachments/atlas-diagram.png"),
            ("Reading list.md", "People/Dana.md"),
            ("Home.md", "Daily/2026-03-05.md"),
            ("Projects/Atlas.md", "Projects/API design.md"),
        },
    }
    for folder, pairs in wanted.items():
        (mount,) = discover([corpus / folder])
        snap = load_snapshot(mount)
        resolved = set()
        for path, doc in snap.documents.items():
            for link in doc.links:
                res = snap.resolve(link.target)
                assert res.path is not None, (folder, path, link.written)
                resolved.add((path, res.path))
        for src, dst in pairs:
            src = src.removeprefix("memory/")
            assert (src, dst) in resolved, (folder, src, dst, sorted(resolved))


def test_a_folder_outside_git_says_it_has_no_history(corpus: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "amr_tui", "activity", str(corpus / "letta-memfs")], capture_output=True, text=True
    )
    assert run.returncode != 0 and "plain folder, not the top of a git repo" in run.stderr


async def test_the_app_opens_a_claude_code_memory_and_follows_its_markdown_links(corpus: Path) -> None:
    root = corpus / "claude-code" / "memory"
    app = app_for([root], poll_interval=60)
    async with running(app, TMUX_SIZE) as drive:
        assert drive.current.path == "MEMORY.md"
        await drive.to_line(1)
        await drive.press("enter")  # [User role](user_role.md)
        await drive.until(lambda: drive.current.path == "user_role.md", what="user_role.md open")
        backlinks = app.screen.session.backlinks("memory", "feedback_testing.md")
        assert [b.path for b in backlinks] == ["MEMORY.md", "reference_linear.md"]
        # its prose and front matter are searched (the finder's index)
        hits = app.screen.session.index.search("staff engineer ledger", limit=5)
        assert any(h.item.path == "user_role.md" for h in hits), [h.item.path for h in hits]


async def test_the_app_opens_an_obsidian_vault_and_resolves_by_name(corpus: Path) -> None:
    root = corpus / "obsidian-vault"
    app = app_for([root], poll_interval=60)
    async with running(app, TMUX_SIZE) as drive:
        await drive.open("obsidian-vault", "Reading list.md")
        backlinks = app.screen.session.backlinks("obsidian-vault", "People/Dana.md")
        assert {b.path for b in backlinks} == {"Projects/Atlas.md", "Reading list.md", "Daily/2026-03-05.md"}
        await drive.to_line(4)  # - [[Dana]] recommends ...
        await drive.press("enter")
        await drive.until(lambda: drive.current.path == "People/Dana.md", what="People/Dana.md open")


def _fake_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(FORMATS / "claude-code" / "memory", home / ".claude" / "projects" / "-work-shop" / "memory")
    shutil.copytree(FORMATS / "letta-memfs", home / ".letta" / "agents" / "ag-1" / "memfs")
    shutil.copytree(FORMATS / "basic-memory", home / "basic-memory")
    (home / ".claude" / "projects" / "-work-empty").mkdir()  # a project with no memory yet
    return home


def test_discover_finds_the_agent_memory_of_this_machine(tmp_path: Path, monkeypatch) -> None:
    from amr_tui.services.discovery import discover_memory

    home = _fake_home(tmp_path)
    monkeypatch.delenv("BASIC_MEMORY_HOME", raising=False)
    found = discover_memory(home)
    assert [(f.agent, f.style, f.git) for f in found] == [
        ("Claude Code", "claude-code", False),
        ("Letta", "letta", False),
        ("basic-memory", "basic-memory", False),
    ]
    run = subprocess.run(
        [sys.executable, "-m", "amr_tui", "discover", "--json"],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")},
    )
    assert run.returncode == 0, run.stderr
    assert [r["agent"] for r in __import__("json").loads(run.stdout)] == ["Claude Code", "Letta", "basic-memory"]


async def test_the_welcome_screen_lists_what_it_found_and_opens_it_all(tmp_path: Path, monkeypatch) -> None:
    from amr_tui.screens.main.screen import MainScreen
    from amr_tui.screens.welcome import WelcomeScreen
    from tests.driver import wait_for

    home = _fake_home(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("BASIC_MEMORY_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    app = app_for([], poll_interval=60)
    async with running(app, TMUX_SIZE, ready=False) as drive:
        pilot = drive.pilot
        await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen) and app.screen.found, what="found")
        shown = str(app.screen.query_one("#welcome-found").render())
        assert "Claude Code" in shown and "Letta" in shown and "ctrl+o" in shown
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), what="the editor")
        assert set(app.screen.session.names) == {"memory", "memfs", "basic-memory"}


def test_amr_track_says_what_it_creates_and_puts_the_folder_under_git(corpus: Path) -> None:
    folder = corpus / "obsidian-vault"
    env = {
        **__import__("os").environ,
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    ask = subprocess.run(
        [sys.executable, "-m", "amr_tui", "track", str(folder)], capture_output=True, text=True, env=env
    )
    assert ask.returncode == 1 and "Nothing was changed" in ask.stdout
    assert "  Projects/Atlas.md" in ask.stdout and "  attachments/atlas-diagram.png" in ask.stdout
    assert ".obsidian" not in ask.stdout and not (folder / ".git").exists()
    run = subprocess.run(
        [sys.executable, "-m", "amr_tui", "track", str(folder), "--yes"], capture_output=True, text=True, env=env
    )
    assert run.returncode == 0, run.stderr
    tracked = subprocess.run(["git", "ls-files"], cwd=folder, capture_output=True, text=True).stdout.split("\n")
    assert "Home.md" in tracked and not any(p.startswith(".obsidian") for p in tracked)
    assert not (folder / "MEMORY.md").exists()  # the vault keeps its own format


def test_a_rename_rewrites_markdown_links_in_their_form(corpus: Path) -> None:
    """Claude Code's index links its topic files with Markdown links: moving one rewrites them,
    relative to each file, and the moved file's own links still name what they named."""
    from amr_tui.services.session import editing
    from amr_tui.services.session.session import Session

    root = corpus / "claude-code" / "memory"
    env = {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@t"}
    full = {**__import__("os").environ, **env}
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "memory"]):
        subprocess.run(["git", *argv], cwd=root, check=True, env=full, capture_output=True)
    session = Session(discover([root]))
    session.load()
    _saved, count = editing.rename_file(session, "memory", "reference_linear.md", "refs/reference_linear.md")
    assert count == 2  # the index's line, and the moved file's own link to its neighbour
    memory = (root / "MEMORY.md").read_text()
    assert "- [Pipeline bugs](refs/reference_linear.md) — pipeline bugs" in memory
    moved = (root / "refs" / "reference_linear.md").read_text()
    assert "See also [the testing notes](../feedback_testing.md)." in moved


def test_the_config_names_a_format_when_the_folder_guesses_wrong(corpus: Path, tmp_path: Path) -> None:
    """[formats] in the config: read as AMR, the Letta folder's [[x.md]] links are AMR011 again."""
    config = tmp_path / "config" / "amr" / "config.toml"
    config.parent.mkdir(parents=True)
    env = {**__import__("os").environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "AMR_NO_CACHE": "1"}

    def codes() -> list[str]:
        run = subprocess.run(
            [sys.executable, "-m", "amr_tui", "lint", "--no-cache", str(corpus / "letta-memfs")],
            capture_output=True,
            text=True,
            env=env,
        )
        return sorted({line.split()[1] for line in run.stdout.splitlines() if " AMR" in line})

    assert codes() == []
    config.write_text('[formats]\n"letta-memfs" = "amr"\n')
    assert codes() == ["AMR001", "AMR011"]


@pytest.mark.parametrize(
    ("folder", "query", "where"),
    [
        ("hermes-agent", "hugo gh-pages", "MEMORY.md:1"),  # a § paragraph
        ("claude-code", "staff engineer prefers terse", "user_role.md:7"),  # a topic file's prose
        ("claude-code", "integration tests real database", "feedback_testing.md:3"),  # front matter
    ],
)
def test_amr_search_finds_the_prose_and_front_matter_of_other_formats(
    corpus: Path, folder: str, query: str, where: str
) -> None:
    target = corpus / folder / ("memory" if folder == "claude-code" else "")
    run = subprocess.run(
        [sys.executable, "-m", "amr_tui", "search", query, str(target)],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "AMR_NO_CACHE": "1"},
    )
    assert run.returncode == 0, run.stderr
    assert any(line.split()[0].endswith(where) for line in run.stdout.splitlines()[:3]), run.stdout


@pytest.mark.parametrize(
    ("line", "targets"),
    [
        ("- see [the notes](notes.md) and [a diagram](img/a%20b.png)", ["notes.md", "img/a b.png"]),
        ("- docs at [the site](/docs/intro) and [the folder](docs/)", []),  # site paths and folders
        ("- [a route](../page), [mail](mailto:a@b.c), [web](https://e.com/x.md), [top](#top)", []),
        ("- `[not a link](notes.md)` in code", []),
    ],
)
def test_only_markdown_links_to_files_are_links(line: str, targets: list[str]) -> None:
    """No false broken links (AMR010) from the links prose holds to web pages, folders and anchors."""
    from amr_tui.core.format.links import find_links

    assert [lk.target for lk in find_links(line, 1, "")] == targets


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("- password=pa$Sword99x", True),  # a $ inside a password is no template
        ("- password=my_real_pw_123", True),
        ("- password=${DB_PASSWORD}", False),
        ("- clone https://$GITHUB_USER:$TOKEN@github.com/acme/shop.git", False),
        ("- api_key: <your-api-key>", False),
        ("- the key sk-df6bcc... (cut short)", False),
        ("- the key sk-abcdefghijkl... (cut short to 12 characters)", False),
        # most of a key is still the key: 30 of its characters shown are a leak (issue 38)
        ("- the key sk-abcdefghijklmnopqrstuvwxyz0123... (cut short)", True),
    ],
)
def test_a_credential_is_judged_by_its_value(line: str, secret: bool) -> None:
    from amr_tui.core.secrets import find_secrets

    assert bool(find_secrets(line)) is secret
