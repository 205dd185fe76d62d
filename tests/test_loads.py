"""Issue 41, point 2: what an agent loads at session start, per agent, and every entry past its
budget by name (``core.budget``, ``services.loads``, ``amr loads``). Real folders and git repos;
the CLI as a real process."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

import pytest

from amr_tui.core.budget import (
    CLAUDE_CODE,
    HERMES,
    LETTA,
    OPENCLAW,
    PROFILES,
    Limits,
    custom,
    estimate_tokens,
    gauge,
    measure,
    plan,
    profile_named,
)
from amr_tui.core.format.parser import parse
from amr_tui.core.lint.repo import RepoSnapshot, lint_repo
from tests.claudecode import build, index_line
from tests.test_cli import amr

TODAY = _dt.date(2026, 12, 4)


def _parse(path: str, data: bytes):
    return parse(data, path, check=False)


# ------------------------------------------------------------------------------ measuring


def test_measure_cuts_at_the_first_line_past_the_line_limit() -> None:
    data = b"".join(b"- fact %d\n" % n for n in range(1, 241))
    cut = measure(data, Limits(lines=200, bytes=25 * 1024))
    assert (cut.lines, cut.loaded_lines, cut.cut_line, cut.cut_by) == (240, 200, 201, "lines")
    assert cut.loaded_bytes == len(b"".join(b"- fact %d\n" % n for n in range(1, 201)))


def test_measure_cuts_where_the_bytes_run_out_first() -> None:
    line = b"- " + b"x" * 148 + b"\n"  # 151 bytes: 25,600 // 151 = 169 lines fit
    cut = measure(line * 240, Limits(lines=200, bytes=25 * 1024))
    assert (cut.loaded_lines, cut.cut_line, cut.cut_by) == (169, 170, "bytes")
    assert cut.loaded_bytes == 169 * 151 <= 25 * 1024 < 170 * 151


def test_measure_characters_count_code_points_not_bytes() -> None:
    data = ("é" * 10 + "\n").encode() * 3  # 11 characters and 21 bytes a line
    assert measure(data, Limits(chars=33)).cut_line is None
    assert measure(data, Limits(chars=22)).cut_line == 3
    assert measure(data, Limits(chars=21)).cut_line == 2
    assert measure(data, Limits(bytes=42)).cut_line == 3


def test_a_total_counts_across_files() -> None:
    from amr_tui.core.budget import Used

    used = Used()
    first = measure(b"a" * 99 + b"\n", Limits(), total=Limits(bytes=150), used=used)
    second = measure(b"b\n" * 40, Limits(), total=Limits(bytes=150), used=used)
    assert first.cut_line is None
    assert (second.loaded_lines, second.cut_line, second.cut_by) == (25, 26, "total bytes")


def test_token_estimate_is_a_quarter_per_ascii_and_one_per_cjk_character() -> None:
    assert estimate_tokens("abcd" * 25) == 25
    assert estimate_tokens("abc") == 1
    assert estimate_tokens("記憶の予算") == 5
    assert estimate_tokens("café") == 2  # 3 quarters + 2 quarters, rounded up


def test_gauge_says_each_limit() -> None:
    data = b"".join(b"- fact number %03d about the deploy freeze window\n" % n for n in range(1, 188))
    cut = measure(data, CLAUDE_CODE.reads[0].limits)
    assert gauge("MEMORY.md", cut, CLAUDE_CODE.reads[0].limits) == "MEMORY.md 187/200 lines \u00b7 8.9/25 KB"
    assert gauge("MEMORY.md", measure(b"x\n" * 10, HERMES.reads[0].limits), HERMES.reads[0].limits) == (
        "MEMORY.md 20/2,200 chars"
    )


# ------------------------------------------------------------------------------ profiles


def test_every_profile_names_its_source() -> None:
    for p in PROFILES.values():
        assert p.source and p.says, p.name
    assert profile_named("claude") is CLAUDE_CODE and profile_named("cursor") is PROFILES["memory-bank"]


def test_letta_block_limit_comes_from_its_front_matter() -> None:
    block = "---\ndescription: who the user is\nlimit: 30\n---\n" + "The user writes Rust every day.\n"
    files = ["system/human.md", "system/persona.md", "notes/other.md"]
    contents = {"system/human.md": block.encode(), "system/persona.md": b"Helpful.\n"}
    got = plan(LETTA, files, contents, today=TODAY, parsed=_parse)
    assert [f.path for f in got.files] == ["system/human.md", "system/persona.md"]
    human, persona = got.files
    assert human.limits.chars == 30 and human.cut is not None and human.cut.cut_line == 5
    assert persona.limits.chars == 20_000 and persona.cut is not None and persona.cut.cut_line is None


def test_openclaw_reads_today_and_yesterday_under_a_total() -> None:
    files = ["MEMORY.md", "memory/2026-12-02.md", "memory/2026-12-03.md", "memory/2026-12-04.md"]
    contents = {p: b"- status line\n" * 10 for p in files}
    got = plan(OPENCLAW, files, contents, today=TODAY, parsed=_parse)
    assert [f.path for f in got.files] == ["MEMORY.md", "memory/2026-12-04.md", "memory/2026-12-03.md"]


def test_a_named_file_that_is_missing_is_said() -> None:
    got = plan(HERMES, ["MEMORY.md"], {"MEMORY.md": b"x\n"}, today=TODAY, parsed=_parse)
    assert [(f.path, f.cut is None, f.note) for f in got.files] == [
        ("MEMORY.md", False, ""),
        ("USER.md", True, "not there"),
    ]


def test_custom_budgets_change_a_builtin_or_add_an_agent() -> None:
    tighter = custom("claude-code", {"lines": 150}, CLAUDE_CODE)
    assert not isinstance(tighter, str)
    assert tighter.reads[0].limits == Limits(lines=150) and tighter.custom
    mine = custom("mine", {"files": ["MEMORY.md", "USER.md"], "tokens": 5000})
    assert not isinstance(mine, str)
    assert [r.patterns for r in mine.reads] == [("MEMORY.md",), ("USER.md",)]
    assert custom("x", {"lines": -3}) == "[budgets.x] lines takes a positive whole number, not -3"
    assert "does not know colour" in str(custom("x", {"colour": 1}))


def test_lint_amr003_names_the_agent_and_its_cut() -> None:
    body = "".join(index_line(n) + "\n" for n in range(1, 241))
    snap = RepoSnapshot("m", {"MEMORY.md"}, {"MEMORY.md": parse(body.encode(), "MEMORY.md")}, style="claude-code")
    found = [f for f in lint_repo(snap) if f.diagnostic.code == "AMR003"]
    assert len(found) == 1 and found[0].diagnostic.line == 201
    assert "Claude Code loads only the first 200 lines or 25 KB: line 201 on" in found[0].diagnostic.message
    hermes = "x" * 2300 + "\n"
    snap = RepoSnapshot("h", {"MEMORY.md"}, {"MEMORY.md": parse(hermes.encode(), "MEMORY.md")}, style="hermes")
    assert [f.diagnostic.line for f in lint_repo(snap) if f.diagnostic.code == "AMR003"] == [1]


# ------------------------------------------------------------------------------ amr loads, as a user


@pytest.fixture
def cc_home(tmp_path: Path) -> Path:
    home = Path(os.environ["HOME"])
    (tmp_path / "proj").mkdir()
    return home


def _loads(*args: str, cwd: Path | None = None) -> tuple[int, dict]:
    res = amr("loads", *args, "--json", cwd=cwd)
    assert res.returncode in (0, 1), res.stderr
    return res.returncode, json.loads(res.stdout)


@pytest.mark.parametrize("git", [False, True], ids=["plain-folder", "git-repo"])
def test_loads_names_exactly_the_entries_past_line_200(tmp_path: Path, cc_home: Path, git: bool) -> None:
    project = str((tmp_path / "proj").resolve())
    folder = build(cc_home, project, lines=240, git=git)
    code, out = _loads("--cwd", project)
    assert code == 1  # something is past the cut
    [repo] = out["repos"]
    assert Path(repo["root"]) == folder.resolve() and repo["agent"] == "claude-code" and repo["git"] is git
    [memory] = repo["files"]
    assert (memory["lines"], memory["cut_line"], memory["cut_by"]) == (240, 201, "lines")
    assert memory["loaded"]["lines"] == 200
    lines = (folder / "MEMORY.md").read_text().splitlines()
    assert [p["line"] for p in memory["past"]] == list(range(201, 241))
    assert [p["name"] for p in memory["past"]] == [ln[3 : ln.index("](")] for ln in lines[200:]]
    assert all(p["index"] and not p["partial"] for p in memory["past"])
    assert 0 < memory["loaded"]["tokens"] < memory["tokens"]


def test_loads_names_the_entries_past_25_kb_when_the_bytes_bind_first(tmp_path: Path, cc_home: Path) -> None:
    project = str((tmp_path / "proj").resolve())
    folder = build(cc_home, project, lines=240, wide=True)
    data = (folder / "MEMORY.md").read_bytes()
    total, first_out = 0, None
    for n, line in enumerate(data.split(b"\n")[:-1], 1):
        total += len(line) + 1
        if total > 25 * 1024:
            first_out = n
            break
    assert first_out is not None and first_out < 200
    _code, out = _loads(str(folder), "--agent", "claude-code")
    [memory] = out["repos"][0]["files"]
    assert (memory["cut_line"], memory["cut_by"]) == (first_out, "bytes")
    assert [p["line"] for p in memory["past"]] == list(range(first_out, 241))
    assert memory["past"][0]["partial"] and not memory["past"][1]["partial"]


def test_loads_says_scopes_that_leak_and_scopes_that_are_cut(tmp_path: Path, cc_home: Path) -> None:
    project = str((tmp_path / "proj").resolve())
    build(cc_home, project, lines=240)
    res = amr("loads", "--cwd", project)
    assert res.returncode == 1
    assert "loaded but not for here (project:other-app): MEMORY.md:17" in res.stdout
    assert "holds here but past the cut (global): MEMORY.md:207" in res.stdout
    assert "a plain folder, not a git repo" in res.stdout


def test_loads_of_a_repo_that_fits(make_repo) -> None:
    root = make_repo(files={"MEMORY.md": "# Memory\n\n- Short [added: 2026-10-01]\n\n## Index\n"})
    code, out = _loads(str(root))
    assert code == 0
    [memory] = out["repos"][0]["files"]
    assert memory["cut_line"] is None and memory["past"] == [] and out["repos"][0]["agent"] == "amr"


def test_loads_takes_a_budget_from_the_config(make_repo) -> None:
    body = "# Memory\n\n" + "".join(f"- Fact {n}\n" for n in range(1, 60)) + "\n## Index\n"
    root = make_repo(files={"MEMORY.md": body})
    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "amr"
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "config.toml").write_text('[budgets.mine]\nfiles = ["MEMORY.md"]\nlines = 50\n[loads]\n"memory" = "mine"\n')
    code, out = _loads(str(root))
    assert code == 1
    [memory] = out["repos"][0]["files"]
    assert out["repos"][0]["agent"] == "mine" and memory["cut_line"] == 51
    assert memory["past"][0]["name"] == "Fact 49"
    bad = amr("loads", str(root), "--agent", "nobody")
    assert bad.returncode == 2 and "--agent 'nobody': amr knows" in bad.stderr


def test_claude_code_memory_folder_of_a_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from amr_tui.services.loads import claude_memory_folder, here_of, project_root

    proj = tmp_path / "my.proj"
    (proj / "src" / "api").mkdir(parents=True)
    (proj / ".git").mkdir()
    key = str(proj.resolve()).replace("/", "-").replace(".", "-").replace("_", "-")
    assert claude_memory_folder(proj, tmp_path) == tmp_path / ".claude" / "projects" / key / "memory"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    assert claude_memory_folder(proj).parent.parent == tmp_path / "cc" / "projects"
    assert project_root(proj / "src" / "api") == proj.resolve()
    here = here_of(proj / "src" / "api", claude_memory_folder(proj))
    assert (here.project, here.path, here.own_repo) == ("my.proj", "src/api", True)


def test_loads_finds_the_memory_of_the_git_root_from_a_subfolder(tmp_path: Path, cc_home: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir()
    (project / "pkg").mkdir()
    build(cc_home, str(project.resolve()), lines=12)
    code, out = _loads("--cwd", str(project / "pkg"))
    assert code == 0 and out["repos"][0]["agent"] == "claude-code"
    assert out["repos"][0]["files"][0]["lines"] == 12


def test_codex_reads_an_override_instead_of_agents_md() -> None:
    from amr_tui.core.budget import CODEX

    files = ["AGENTS.md", "AGENTS.override.md"]
    got = plan(CODEX, files, {"AGENTS.override.md": b"x\n" * 40_000, "AGENTS.md": b"y\n"}, today=TODAY, parsed=_parse)
    [only] = got.files
    assert only.path == "AGENTS.override.md" and only.cut is not None
    assert (only.cut.cut_line, only.cut.cut_by) == (16385, "total bytes")  # 32 KiB together


def test_lint_cache_is_kept_apart_per_set_of_budgets(make_repo) -> None:
    from amr_tui.services.budgets import budgets_of, set_budgets
    from amr_tui.services.config import Config
    from amr_tui.services.lint import cache as lintcache
    from amr_tui.services.workspace import discover

    [mount] = discover([make_repo()])
    try:
        plain = lintcache.probe(mount, duplicates=True, near=False).path
        set_budgets(budgets_of(Config(budgets={"amr": {"lines": 50}}))[0])
        tighter = lintcache.probe(mount, duplicates=True, near=False).path
    finally:
        set_budgets(None)
    assert plain != tighter
