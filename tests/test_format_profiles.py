"""Issue 39: each memory format's profile (``core.formats``) decides what lint says, what an agent
loads, what the searches find and where the app opens. The rules one by one, on small folders in
each format's shape; ``tests/test_findings_corpus.py`` measures them on the whole corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from amr_tui.core.format.parser import parse
from amr_tui.core.formats import profile_of, start_files
from amr_tui.core.lint.repo import RepoSnapshot, lint_repo
from amr_tui.core.paths import entry_file
from amr_tui.services.workspace import discover, repo_style
from tests.conftest import git
from tests.mcp_client import amr_mcp


def lint(files: dict[str, str], style: str = "amr", *, near: bool = True) -> list[tuple[str, str, int, str]]:
    docs = {p: parse(b.encode(), p) for p, b in files.items() if p.endswith(".md")}
    snap = RepoSnapshot("r", set(files), docs, set(), {}, style=style)
    return [
        (f.diagnostic.code, f.path, f.diagnostic.line, f.diagnostic.message)
        for f in lint_repo(snap, near_duplicates=near)
    ]


def codes(files: dict[str, str], style: str = "amr") -> list[tuple[str, str, int]]:
    return [(c, p, n) for c, p, n, _m in lint(files, style)]


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body, encoding="utf-8")
    return root


# ------------------------------------------------------------------------- conventions


STAR_NESTED_WRAPPED = (
    "---\ntags: [x]\n---\n\n* a star bullet\n  * nested under it\n* a bullet the editor wrapped onto\n  a second line\n"
)


@pytest.mark.parametrize(
    "style", ["claude-code", "openclaw", "letta", "memory-bank", "obsidian", "basic-memory", "folder"]
)
def test_a_formats_own_conventions_raise_nothing(style: str) -> None:
    files = {
        "MEMORY.md": "- [Note](note.md) — a note\n",
        "note.md": STAR_NESTED_WRAPPED + "- see [[other.md]]\n",
        "other.md": "- x\n",
    }
    if style in ("letta", "memory-bank", "obsidian", "basic-memory", "folder"):
        del files["MEMORY.md"]
    assert codes(files, style) == []


def test_in_the_amr_format_its_rules_still_speak() -> None:
    files = {"MEMORY.md": "# M\n\n## Index\n\n- [[note]]\n", "note.md": STAR_NESTED_WRAPPED}
    found = {c for c, _p, _n in codes(files)}
    assert found == {"AMR024", "AMR028", "AMR004"}  # a nested bullet is no finding in any format


# ------------------------------------------------------------------------- duplicates


def test_labels_template_fields_and_pointers_are_no_facts() -> None:
    label = (
        "- **特点**:\n  - {0}\n- **Status:** In progress\n- **Owner:** Lu\n- See [[b]].\n- relates_to [[Some Note]]\n"
    )
    files = {"a.md": label.format("编译快"), "b.md": label.format("没有垃圾回收")}
    assert codes(files, "basic-memory") == []
    files["b.md"] += "- **Status:** In progress since the 2026-11-02 planning, blocked on the art review\n"
    files["a.md"] += "- **Status:** In progress since the 2026-11-02 planning, blocked on the art review\n"
    assert codes(files, "basic-memory") == [("AMR014", "b.md", 7)]  # a field with a long value is a fact


def test_a_fact_written_four_times_is_said_once() -> None:
    fact = "- Production deploys need two approvals in the release channel\n"
    files = {
        "MEMORY.md": "# M\n\n## Index\n\n- [[a]]\n- [[b]]\n- [[c]]\n" + fact,
        "a.md": fact,
        "b.md": fact,
        "c.md": fact,
    }
    found = lint(files)
    assert [(c, p, n) for c, p, n, _m in found] == [("AMR014", "a.md", 1)]
    assert found[0][3] == "same fact as line 8 in MEMORY.md; written 4 times (also at b.md:1, c.md:1)"


def test_wrapped_bullets_are_compared_whole() -> None:
    a = "- The nightly export job writes the orders file to the bucket and the file is\n  created at 02:00\n"
    b = "- The nightly export job writes the orders file to the bucket and the file is\n  modified at 02:00\n"
    assert codes({"memory-bank/a.md": a, "memory-bank/b.md": b}, "memory-bank") == []
    assert codes({"memory-bank/a.md": a, "memory-bank/b.md": a}, "memory-bank") == [("AMR014", "memory-bank/b.md", 1)]


def test_mirrored_memory_bank_files_and_summaries_are_no_duplicates() -> None:
    step = "- Finish swap approvals from the notification\n"
    rule = "- The API rate limit is 100 requests per minute per API key\n"
    files = {
        "memory-bank/activeContext.md": "## Next Steps\n" + step,
        "memory-bank/progress.md": "## What's Left\n" + step,
        "memory-bank/techContext.md": rule,
        "memory-bank/systemPatterns.md": rule,
    }
    assert codes(files, "memory-bank") == [("AMR014", "memory-bank/techContext.md", 1)]
    summary = "- The staging cluster restores production snapshots every Saturday at 03:00"
    files = {"MEMORY.md": f"# M\n\n## Index\n\n{summary} [[staging]]\n", "staging.md": summary + "\n"}
    assert codes(files) == []  # MEMORY.md sums up the note it links
    files["MEMORY.md"] = f"# M\n\n## Index\n\n- [[staging]]\n{summary} (weekly)\n"
    assert codes(files) == [("AMR015", "staging.md", 1)]


def test_opposites_are_no_near_duplicates() -> None:
    direct = "Indirizzamento diretto: il pacchetto IP è consegnato dal mittente a un host della stessa rete locale"
    left = "Join esterno sinistro: tiene anche tutte le tuple della relazione che non hanno una corrispondenza"
    files = {"reti.md": f"- {direct}\n- {direct.replace('diretto', 'indiretto')}\n- {left}\n"}
    files["basi.md"] = f"- {left.replace('sinistro', 'destro')}\n"
    assert codes(files, "obsidian") == []
    files["basi.md"] = f"- {left.replace('sinistro', 'a sinistra')}\n"  # no opposite: nearly the same fact
    assert codes(files, "obsidian") == [("AMR015", "reti.md", 3)]


def test_only_the_agents_memory_speaks_beyond_errors() -> None:
    """An OpenClaw workspace's research and skills are its agent's work, not its memory (a Hermes
    home's installed skills, a project's docs beside its memory bank): only an error is said there."""
    fact = "- The PostNord API allows 60 requests a minute per key\n"
    files = {
        "SOUL.md": "- be brief\n",
        "MEMORY.md": "# MEMORY\n\n" + fact,
        "memory/parcels.md": fact,
        "research/apis.md": fact + "- test\n",
        "skills/track/SKILL.md": fact + "- token: ghp_Tq8ZmW3nR5vL2xK9pB7dF4hJ6sA1cE0yU3iO\n",
    }
    assert codes(files, "openclaw") == [("AMR014", "memory/parcels.md", 1), ("AMR016", "skills/track/SKILL.md", 2)]


def test_a_file_that_copies_another_is_one_finding() -> None:
    facts = [
        "- Compound interest works on skills as much as on money\n",
        "- Most people overestimate a year and underestimate a decade\n",
        "- Write down the decisions you make and why, then review them\n",
    ]
    files = {"How to Be Successful.md": "".join(facts), "How to Be Successful-2.md": "# Copy\n\n" + "".join(facts)}
    found = lint(files, "obsidian")
    assert [(c, p, n) for c, p, n, _m in found] == [("AMR014", "How to Be Successful.md", 1)]
    assert found[0][3].startswith("3 facts of this file are also in How to Be Successful-2.md (lines 1, 2, 3 here)")


def test_a_lists_vocabulary_and_a_dated_journal_are_no_duplicates() -> None:
    files = {
        "topics.md": "- inheritance\n- 内存管理\n- 周五下午不发版\n",
        "more.md": "- inheritance\n- 内存管理\n- 周五下午不发版\n",
        "memory-bank/activeContext.md": "- Implement caching logic with freshness policies\n",
        "memory-bank/journal/2025_05_12_agent_strategy.md": "- Implement caching logic with freshness policies\n",
    }
    assert codes(files, "folder") == [("AMR014", "topics.md", 3)]  # a short sentence in CJK is a fact
    assert codes(files, "memory-bank") == []


def test_a_planned_note_is_no_typo() -> None:
    vault = {"Protocollo TCP.md": "# TCP\n", "IP.md": "- via il [[protocollo DHCP]] e il [[Protocolo TCP]]\n"}
    found = lint(vault, "obsidian")
    assert [(c, n, m.split(";")[-1].strip()) for c, _p, n, m in found] == [
        ("AMR010", 1, "did you mean [[Protocollo TCP]]?")
    ]


# ------------------------------------------------------------------------- links


def test_links_in_each_formats_own_style_resolve() -> None:
    claude = {
        "MEMORY.md": "- [Testing](feedback_testing.md) — real database\n- [User](user_role.md) — Priya\n",
        "feedback_testing.md": "---\nname: Testing feedback\ntype: feedback\n---\n\nSee [[user_role]] and [[Gone memory]].\n",
        "user_role.md": "---\nname: User role\n---\n\nRelated: [[Testing feedback]]\n",
    }
    assert codes(claude, "claude-code") == [("AMR010", "feedback_testing.md", 6)]
    basic = {
        "decisions/use-postgres.md": "---\ntitle: 'Decision: Use Postgres for the event store'\npermalink: decisions/use-postgres\n---\n",
        "billing.md": "---\ntitle: Billing\n---\n\n## Relations\n- depends_on [[Decision: Use Postgres for the event store]]\n"
        "- relates_to [[Refund Policy]]\n",
    }
    assert codes(basic, "basic-memory") == []  # a title link; a note not written yet is basic-memory's plan
    vault = {
        "KV cache.md": "# KV cache\n\n## Why it grows: memory per token\n",
        "Attention.md": "- see [[KV cache#Why it grows memory per token]]\n- and [[Atention]] and [[Hyena]]\n\n"
        "| paper | note |\n| --- | --- |\n| FA | [[KV cache\\|cache notes]] |\n",
    }
    found = lint(vault, "obsidian")
    assert [(c, p, n) for c, p, n, _m in found] == [("AMR010", "Attention.md", 2)]
    assert "did you mean [[Attention]]?" in found[0][3]  # a typo; [[Hyena]] is a note to write


# ------------------------------------------------------------------------- what each format loads


def test_files_each_format_loads_at_start_are_reached() -> None:
    workspace = {
        "AGENTS.md": "# AGENTS\n",
        "SOUL.md": "- be brief\n",
        "USER.md": "- Kai\n",
        "MEMORY.md": "# MEMORY\n\n- a fact\n",
        "memory/2026-11-01.md": "- log\n",
        "memory/redis.md": "- plan\n",
    }
    assert codes(workspace, "openclaw") == []
    assert start_files(profile_of("openclaw"), workspace) == [
        "AGENTS.md",
        "SOUL.md",
        "USER.md",
        "MEMORY.md",
        "memory/2026-11-01.md",
    ]
    claude = {"MEMORY.md": "- [A](a.md) — a\n", "a.md": "x\n", "project_old.md": "y\n"}
    assert codes(claude, "claude-code") == [("AMR013", "project_old.md", 0)]  # Claude Code never finds it


def test_hermes_paragraphs_after_a_list_are_entries() -> None:
    user = "Name is Ines.\n§\nPreferences:\n- short answers\n- no emoji\n§\nWorks Monday to Thursday.\n§\nUses Helix.\n§\nWorks Monday to Thursday.\n"
    doc = parse(user.encode(), "USER.md")
    assert [e.line for e in doc.entries] == [1, 4, 5, 7, 9, 11]
    assert codes({"USER.md": user, "MEMORY.md": "Fact one.\n§\nFact two.\n"}, "hermes") == [("AMR014", "USER.md", 11)]


def test_each_layout_is_read_as_its_format(tmp_path: Path) -> None:
    openclaw = write(tmp_path / "ws", {"SOUL.md": "x\n", "AGENTS.md": "x\n", "MEMORY.md": "- a\n"})
    hermes = write(tmp_path / "home", {"SOUL.md": "x\n", "memories/MEMORY.md": "a\n§\nb\n"})
    claude = write(
        tmp_path / "cc", {"MEMORY.md": "- see [[design-notes]]\n", "feedback_a.md": "x\n", "project_b.md": "y\n"}
    )
    amr_no_index = write(tmp_path / "devin", {"findings.md": "- a fact [source: https://app.example/s/1]\n"})
    plain = write(tmp_path / "plain", {"notes.md": "- a fact\n"})
    assert [repo_style(p) for p in (openclaw, hermes, claude, amr_no_index, plain)] == [
        "openclaw",
        "hermes",
        "claude-code",
        "amr",
        "folder",
    ]


def test_a_folder_opens_on_what_its_agent_loads_first() -> None:
    assert entry_file(["agents/README.md", "notes/a.md", "system/human.md", "system/persona.md"]) == "system/human.md"
    assert entry_file(["SOUL.md", "config.yaml", "memories/MEMORY.md", "memories/USER.md"]) == "memories/MEMORY.md"
    assert entry_file(["Daily/2026-01-01.md", "Home.md", "Projects/README.md"]) == "Home.md"


# ------------------------------------------------------------------------- a Hermes home in git


@pytest.mark.slow
def test_a_hermes_home_in_git_is_one_repo_with_its_soul_and_history(tmp_path: Path) -> None:
    home = write(
        tmp_path / "hermes-home",
        {
            "SOUL.md": "You are terse.\n",
            "memories/MEMORY.md": "Fact one.\n§\nFact two.\n",
            "memories/USER.md": "Ines.\n",
        },
    )
    git(home, "init", "-q", "-b", "main")
    git(home, "add", "-A")
    git(home, "commit", "-q", "-m", "memory")
    for opened in (home, home / "memories", home / "memories" / "MEMORY.md"):
        (mount,) = discover([opened])
        assert (mount.name, mount.root) == ("hermes-home", home.resolve())
    assert repo_style(home) == "hermes"
    run = subprocess.run(
        [sys.executable, "-m", "amr_tui", "activity", str(home / "memories")], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    lint_run = subprocess.run(
        [sys.executable, "-m", "amr_tui", "lint", "--json", "--no-cache", "--severity", "info", str(home / "memories")],
        capture_output=True,
        text=True,
    )
    assert json.loads(lint_run.stdout) == {"diagnostics": []}, lint_run.stderr


# ------------------------------------------------------------------------- MCP and the searches

FORMATS = {
    "letta": {
        "agents/README.md": "# Agents\n",
        "system/human.md": "---\ndescription: the user\nlimit: 4000\n---\n\n- Dana prefers strict TypeScript\n",
        "system/persona.md": "---\ndescription: who I am\n---\n\n- I am a coding agent\n",
        "notes/deploy.md": "- Fly deploys from main\n",
    },
    "bank": {
        "memory-bank/projectbrief.md": "# Project Brief\n\n- Shiftly schedules restaurant staff\n",
        "memory-bank/activeContext.md": "# Active Context\n\n## Current Focus\n- swap approvals\n",
    },
    "vault": {".obsidian/app.json": "{}\n", "Home.md": "# Home\n\n- [[Attention]]\n", "Attention.md": "# Attention\n"},
    "hermes": {
        "SOUL.md": "You are terse.\n",
        "memories/MEMORY.md": "Fact one.\n§\nFact two.\n",
        "memories/USER.md": "Ines.\n",
    },
    "kb": {"notes/coffee.md": "---\ntitle: Coffee\npermalink: notes/coffee\n---\n\n- [tip] grind fresh\n"},
    "devin": {  # Devin's AMR files, no MEMORY.md (issue 39, 6)
        "findings.md": "- The API allows 100 requests a minute [source: https://app.devin.ai/sessions/ab12]\n",
        "questions.md": "- Should billing shard by tenant?\n  - yes, once past 10k tenants\n",
    },
}


@pytest.mark.slow
async def test_memory_load_gives_what_each_format_loads_at_start(tmp_path: Path) -> None:
    roots = [write(tmp_path / name, files) for name, files in FORMATS.items()]
    async with amr_mcp(*roots, home=tmp_path / "home-dir") as client:
        load = await client.ok("memory_load")
    repos = {r["repo"]: r for r in load["repos"]}
    assert {n: r["format"] for n, r in repos.items()} == {
        "letta": "letta",
        "bank": "memory-bank",
        "vault": "obsidian",
        "hermes": "hermes",
        "kb": "basic-memory",
        "devin": "amr",
    }
    files = {n: [f["path"] for f in r["files"]] for n, r in repos.items()}
    assert files == {
        "letta": ["system/human.md", "system/persona.md"],
        "bank": ["memory-bank/projectbrief.md", "memory-bank/activeContext.md"],
        "vault": ["Home.md"],
        "hermes": ["SOUL.md", "memories/MEMORY.md", "memories/USER.md"],
        "kb": [],  # basic-memory loads nothing at start, and this one has no home note
        "devin": ["findings.md", "questions.md"],  # no MEMORY.md: its top-level notes
    }
    assert [e["text"] for e in repos["devin"]["files"][0]["entries"]] == ["The API allows 100 requests a minute"]
    hermes = repos["hermes"]["files"]
    assert [e["text"] for e in hermes[1]["entries"]] == ["Fact one.", "Fact two."]
    assert hermes[0]["text"] == "You are terse.\n"


@pytest.mark.slow
async def test_every_search_finds_headings_and_front_matter(tmp_path: Path) -> None:
    root = write(
        tmp_path / "memory",
        {**FORMATS["letta"], "system/project.md": "# Carbon ledger\n\n## Rounding rules\n\n- only at display time\n"},
    )
    env = {**os.environ, "AMR_NO_CACHE": "1"}
    for query, where in (("rounding rules", "system/project.md:3"), ("description the user", "system/human.md:2")):
        run = subprocess.run(
            [sys.executable, "-m", "amr_tui", "search", query, str(root)], capture_output=True, text=True, env=env
        )
        assert any(line.split()[0].endswith(where) for line in run.stdout.splitlines()[:3]), (query, run.stdout)
    async with amr_mcp(root, home=tmp_path / "home-dir") as client:
        heading = await client.ok("memory_search", {"query": "rounding rules"})
        field = await client.ok("memory_search", {"query": "description the user"})
    assert (heading["results"][0]["path"], heading["results"][0]["line"], heading["results"][0]["kind"]) == (
        "system/project.md",
        3,
        "heading",
    )
    assert (field["results"][0]["path"], field["results"][0]["kind"]) == ("system/human.md", "front matter")


@pytest.mark.slow
async def test_the_app_resolves_a_memory_name_link_in_the_file_it_opened_first(tmp_path: Path) -> None:
    """A Claude Code topic file opened at start links other memories by name: once the folder is
    read, the app resolves them as lint does (the names come with the files' front matter)."""
    from amr_tui.core.format.links import LinkState
    from tests.driver import TMUX_SIZE, app_for, running

    root = write(
        tmp_path / "memory",
        {
            "MEMORY.md": "- [Testing](feedback_testing.md) — real database\n- [Freeze](project_freeze.md) — freeze\n",
            "feedback_testing.md": "---\nname: Testing feedback\ntype: feedback\n---\n\nNever mock the database.\n",
            "project_freeze.md": "---\nname: Release freeze\ntype: project\n---\n\nSee [[Testing feedback]].\n",
        },
    )
    app = app_for([root], poll_interval=60, open_at=(root / "project_freeze.md", 0))
    async with running(app, TMUX_SIZE) as drive:
        assert drive.current.path == "project_freeze.md"
        session = app.screen.session
        doc = session.document("memory", "project_freeze.md")
        assert doc is not None
        (link,) = doc.links
        assert session.resolve_link("memory", link, "project_freeze.md")[:2] == (LinkState.OK, "feedback_testing.md")


def test_a_note_of_a_vault_opens_the_vault(tmp_path: Path) -> None:
    vault = write(
        tmp_path / "vault", {".obsidian/app.json": "{}\n", "Home.md": "# Home\n", "Papers/Mamba.md": "- [[Home]]\n"}
    )
    (mount,) = discover([vault / "Papers" / "Mamba.md"])
    assert (mount.name, mount.root) == ("vault", vault.resolve())
    (mount,) = discover([vault / "Papers"])  # a folder named is the folder named
    assert mount.root == (vault / "Papers").resolve()
