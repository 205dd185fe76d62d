"""The amr command line, run as a real process."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def amr(*args: str, cwd: Path | None = None, check: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    res = subprocess.run(
        [sys.executable, "-m", "amr_tui", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    if check and res.returncode != 0:
        raise AssertionError(res.stdout + res.stderr)
    return res


@pytest.mark.parametrize("command", [[], ["parse"], ["lint"], ["search"], ["init"], ["demo"]])
def test_help_on_every_command(command):
    res = amr(*command, "--help")
    assert res.returncode == 0
    assert "usage: amr" in res.stdout


def test_parse_json_shape():
    res = amr("parse", str(FIXTURES / "spec_example" / "projects" / "payments.md"), "--json", check=True)
    rows = json.loads(res.stdout)
    assert rows[0] == {
        "line": 3,
        "text": "Payments and website share a 2026-10-15 launch deadline",
        "metadata": {"source": "https://example.com/sessions/102", "added": "2026-09-03"},
        "links": [],
        "diagnostics": [],
    }
    assert rows[1]["links"] == ["billing/count_paying_customers.sql"]


def test_parse_json_repeated_keys_and_diagnostics(tmp_path):
    f = tmp_path / "x.md"
    f.write_text("- Swarm fact [source: https://a.example/1] [source: https://a.example/2]\n")
    rows = json.loads(amr("parse", str(f), "--json", check=True).stdout)
    assert rows[0]["metadata"] == {"source": ["https://a.example/1", "https://a.example/2"]}
    assert [d["code"] for d in rows[0]["diagnostics"]] == ["AMR006"]
    assert rows[0]["diagnostics"][0]["severity"] == "warning"


def test_lint_spec_example_is_clean():
    res = amr("lint", str(FIXTURES / "spec_example"), "--severity", "info")
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout == ""


def test_lint_broken_fixture_codes_and_exit():
    res = amr("lint", str(FIXTURES / "broken"), "--json")
    assert res.returncode == 1
    found = {(d["path"], d["line"], d["code"]) for d in json.loads(res.stdout)["diagnostics"]}
    expected = {
        ("MEMORY.md", 3, "AMR006"),
        ("MEMORY.md", 4, "AMR007"),
        ("MEMORY.md", 4, "AMR008"),
        ("MEMORY.md", 5, "AMR004"),
        ("MEMORY.md", 7, "AMR022"),
        ("MEMORY.md", 8, "AMR016"),
        ("MEMORY.md", 9, "AMR014"),
        ("MEMORY.md", 12, "AMR010"),
        ("MEMORY.md", 13, "AMR011"),
        ("MEMORY.md", 14, "AMR012"),
        ("MEMORY.md", 15, "AMR010"),
        ("notes/ports.md", 3, "AMR008"),
        ("notes/team.md", 0, "AMR013"),
        ("notes/team.md", 3, "AMR009"),
        ("orphan.md", 0, "AMR013"),
    }
    assert expected <= found, expected - found
    for d in json.loads(res.stdout)["diagnostics"]:
        assert set(d) >= {"path", "line", "column", "code", "severity", "message"}


def test_lint_text_output_is_compiler_style():
    res = amr("lint", str(FIXTURES / "broken"))
    import re

    first = res.stdout.splitlines()[0]
    assert re.match(r"^\S*broken/MEMORY\.md:3:\d+: AMR006 \S", first), first
    whole_file = [ln for ln in res.stdout.splitlines() if "AMR013" in ln]
    assert all(re.match(r"^\S+\.md: AMR013 ", ln) for ln in whole_file), whole_file


def test_lint_single_file_reports_only_that_file():
    res = amr("lint", str(FIXTURES / "broken" / "notes" / "ports.md"), "--json")
    paths = {d["path"] for d in json.loads(res.stdout)["diagnostics"]}
    assert paths == {"notes/ports.md"}


def test_lint_missing_path_is_usage_error(tmp_path):
    res = amr("lint", str(tmp_path / "nope"))
    assert res.returncode == 2
    assert "amr:" in res.stderr


def test_lint_fix_repairs_what_is_safe(tmp_path):
    repo = tmp_path / "broken"
    shutil.copytree(FIXTURES / "broken", repo)
    res = amr("lint", str(repo), "--fix", "--json")
    codes = {d["code"] for d in json.loads(res.stdout)["diagnostics"]}
    assert not codes & {"AMR006", "AMR007", "AMR011", "AMR022"}
    text = (repo / "MEMORY.md").read_text()
    assert "[[notes/team]]" in text and "[[notes/ports]]" in text
    assert "[source: https://example.com/s/1; source: https://example.com/s/2]" in text
    assert "- [[orphan]]" in text
    assert "AMR008" in codes and "AMR016" in codes  # not safely fixable: left for a person


def test_search_json(tmp_path):
    res = amr("search", "launch deadline", str(FIXTURES / "spec_example"), "--json", "--limit", "3", check=True)
    hits = json.loads(res.stdout)
    assert hits[0]["path"] == "projects/payments.md" and hits[0]["line"] == 3
    assert set(hits[0]) == {"repo", "path", "line", "text", "score"}
    assert len(hits) <= 3


def test_search_no_match_exits_1():
    res = amr("search", "zzzzqqqqxxxx", str(FIXTURES / "spec_example"))
    assert res.returncode == 1


def test_init_creates_reuses_and_refuses(tmp_path):
    target = tmp_path / "agent-memory"
    assert amr("init", str(target)).returncode == 0
    assert (target / "MEMORY.md").read_text() == "# Memory\n\n## Index\n"
    log = subprocess.run(["git", "log", "--format=%s"], cwd=target, capture_output=True, text=True).stdout
    assert log.strip() == "Create memory repo"
    assert amr("init", str(target)).returncode == 0  # reused, unchanged
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    res = amr("init", str(busy))
    assert res.returncode == 2
    assert sorted(p.name for p in busy.iterdir()) == ["notes.txt"]


@pytest.mark.slow
def test_demo_builds_two_repos_and_lints(tmp_path):
    res = amr("demo", "--path", str(tmp_path / "vm"), "--no-open")
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "vm" / "memory-alice" / "MEMORY.md").is_file()
    assert (tmp_path / "vm" / "memory-bob" / "MEMORY.md").is_file()
    assert "Lint:" in res.stdout
    branches = subprocess.run(
        ["git", "branch", "--list", "dreams/*"], cwd=tmp_path / "vm" / "memory-alice", capture_output=True, text=True
    ).stdout
    assert "dreams/" in branches


def test_lint_output_never_carries_escapes(tmp_path):
    repo = tmp_path / "evil"
    repo.mkdir()
    (repo / "MEMORY.md").write_text("# M\n\n## Index\n- [[\x1b]52;c;aGk=\x07x]]\n- \x1b[2J wipe\n")
    res = amr("lint", str(repo))
    assert "\x1b" not in res.stdout and "\x07" not in res.stdout
    assert "AMR017" in res.stdout


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_lint_warns_about_unconfigured_merge_driver(make_repo):
    repo = make_repo("mem", {"MEMORY.md": "# Memory\n\n## Index\n", ".gitattributes": "*.md merge=amr\n"})
    res = amr("lint", str(repo), "--json")
    codes = [(d["path"], d["code"]) for d in json.loads(res.stdout)["diagnostics"]]
    assert (".gitattributes", "AMR027") in codes
    _git(repo, "config", "merge.amr.driver", "amr merge-driver %O %A %B %L %P")
    res = amr("lint", str(repo), "--json")
    assert "AMR027" not in res.stdout


def test_lint_history_flags_a_resurrected_fact(make_repo):
    """The seed's case 6: a fact deleted on purpose comes back in a new file, written by someone
    else (a stale agent session); the one who deleted it writing it again is no resurrection."""
    repo = make_repo(
        "mem",
        {
            "MEMORY.md": "# Memory\n\n- Dev server runs on port 3001 [source: https://e.com/s/1]\n\n## Index\n- [[notes]]\n",
            "notes.md": "# Notes\n",
        },
    )
    (repo / "MEMORY.md").write_text("# Memory\n\n## Index\n- [[notes]]\n")
    _git(repo, "commit", "-qam", "dream: drop dev-port")
    (repo / "notes.md").write_text("# Notes\n\n- Dev server runs on port 3001 [source: https://e.com/s/9]\n")
    agent = ("-c", "user.name=stale-session", "-c", "user.email=agent@amr.invalid")
    subprocess.run(
        ["git", *agent, "commit", "-qam", "stale session re-learns the port"],
        cwd=repo,
        check=True,
        capture_output=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("GIT_AUTHOR")},
    )
    plain = json.loads(amr("lint", str(repo), "--json").stdout)["diagnostics"]
    assert not [d for d in plain if d["code"] == "AMR030"]
    res = amr("lint", str(repo), "--history", "--json")
    found = [d for d in json.loads(res.stdout)["diagnostics"] if d["code"] == "AMR030"]
    assert found and found[0]["path"] == "notes.md" and found[0]["line"] == 3
    assert "written again by stale-session <agent@amr.invalid>" in found[0]["message"]
    assert res.returncode == 1


def test_each_command_is_built_from_its_own_module():
    """`amr CMD` builds only CMD's module's parser: the map must name the module that has it."""
    from amr_tui.cli.main import COMMAND_MODULES, build_parser

    full = build_parser()
    full_choices = set(full._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    assert full_choices == set(COMMAND_MODULES)
    for command in COMMAND_MODULES:
        alone = build_parser(command)
        assert command in alone._subparsers._group_actions[0].choices, command  # type: ignore[union-attr]


def test_lint_fix_in_a_repo_git_refuses_does_not_say_all_clean(tmp_path):
    """--fix in another user's repo exited 2 saying it wrote nothing, then printed "All clean."."""
    repo = tmp_path / "theirs"
    repo.mkdir()
    (repo / "MEMORY.md").write_text("# Memory\n\n- A fact [source: https://e.com/1]\n\n## Index\n")
    for argv in (
        ["init", "-q", "-b", "main"],
        ["add", "MEMORY.md"],
        ["-c", "user.name=T", "-c", "user.email=t@e.com", "commit", "-qm", "init"],
    ):
        subprocess.run(["git", *argv], cwd=repo, check=True, capture_output=True)
    assert amr("lint", str(repo)).stderr.strip() == "All clean."
    env = {**os.environ, "NO_COLOR": "1", "GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"}
    res = subprocess.run(
        [sys.executable, "-m", "amr_tui", "lint", "--fix", str(repo)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2
    assert "another user" in res.stderr and "wrote nothing" in res.stderr
    assert "All clean" not in res.stderr
    assert "--fix was refused in 1 repo" in res.stderr


def test_parse_json_prints_one_entry_a_line_and_the_same_data() -> None:
    """`amr parse --json` prints its list one entry a line (each by the C encoder: an indented
    dump of 100,000 entries spent most of its time writing pieces, bench/parse_json.py)."""
    import io
    import json

    from amr_tui.cli.output import emit_json

    rows = [{"line": 3, "text": "caf\u00e9 \udc80", "metadata": {"a": ["1", "2"]}, "links": [], "diagnostics": []}] * 3
    out = io.StringIO()
    emit_json(rows, out, rows=True)
    text = out.getvalue()
    assert json.loads(text) == rows and text.count("\n") == len(rows) + 2 and text.isascii()
    res = amr("parse", str(FIXTURES / "spec_example" / "projects" / "payments.md"), "--json", check=True)
    lines = res.stdout.splitlines()
    assert lines[0] == "[" and lines[-1] == "]" and len(lines) == len(json.loads(res.stdout)) + 2
