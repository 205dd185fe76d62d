"""The command line for dreams and history: amr dream, amr dreams ..., amr history, amr forgotten, amr forget."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from amr_tui.cli.main import main
from tests.historyhelpers import DEVIN, branch_commit, commit, devin_repo, git, new_repo, snapshot, tree_at


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def devin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = devin_repo(tmp_path / "memory")
    monkeypatch.chdir(repo)
    return repo


@pytest.mark.parametrize(
    "argv",
    [
        ["dream"],
        ["dreams"],
        ["dreams", "list"],
        ["dreams", "show"],
        ["dreams", "accept"],
        ["dreams", "reject"],
        ["dreams", "undo"],
        ["history"],
        ["forgotten"],
        ["forget"],
    ],
)
def test_every_command_has_help(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--help"])
    assert exc.value.code == 0 and "usage: amr" in capsys.readouterr().out


def test_dreams_list_and_show_for_the_devin_example(devin: Path, capsys) -> None:
    code, out, _ = run(capsys, "dreams", "list", "--json")
    (card,) = json.loads(out)
    assert code == 0 and card["id"] == "devin-launch" and card["based_on_main"] and card["files_changed"] == 14
    code, out, _ = run(capsys, "dreams", "show", "dreams/devin-launch")
    assert code == 0
    assert "Entries: 2 merged, 8 moved, 1 dropped, 1 new, 13 index link changes" in out
    assert "merged      landing-page.md:3 + styling.md:3 -> frontend/stack.md:3" in out
    assert 'dropped     dev-port.md:3  "Dev server was on port 3001 this afternoon"' in out
    assert "(inferred from backend/migrations.md:3, backend/api.md:3)" in out
    code, out, _ = run(capsys, "dreams", "show", "devin-launch", "--json", "--no-history")
    data = json.loads(out)
    assert data["counts"] == {"merged": 2, "moved": 8, "dropped": 1, "new": 1}
    assert {c["kind"] for c in data["changes"]} >= {"merged", "moved", "dropped", "new"}
    code, out, _ = run(capsys, "dreams", "show", "devin-launch", "--file", "MEMORY.md", "--no-history")
    assert "dropped     - [[dev-port]]" in out
    assert run(capsys, "dreams", "show", "nope")[0] == 2


@pytest.mark.slow
def test_accept_parts_reject_and_undo_from_the_command_line(devin: Path, capsys) -> None:
    _, out, _ = run(capsys, "dreams", "show", "devin-launch", "--json", "--no-history")
    changes = json.loads(out)["changes"]
    conv = next(c for c in changes if c["kind"] == "new" and not c["index_link"])
    code, out, _ = run(
        capsys,
        "dreams",
        "accept",
        "devin-launch",
        "--file",
        "dev-port.md",
        "--edit",
        f"{conv['id']}=Ship small PRs: schema, then API, then UI [source: https://x/s/9]",
    )
    assert code == 0 and "Accepted file dev-port.md, entry " in out
    tree = tree_at(devin, "main")
    assert "dev-port.md" not in tree
    assert (
        tree["workflow/conventions.md"]
        == "# Conventions\n\n- Ship small PRs: schema, then API, then UI [source: https://x/s/9]\n"
    )
    code, out, err = run(capsys, "dreams", "accept", "devin-launch", "--edit", f"{conv['id']}=bad\nline")
    assert code == 2 and "line break" in err
    code, out, _ = run(capsys, "dreams", "reject", "devin-launch")
    assert code == 0 and "refs/amr/dreams/rejected/devin-launch" in out
    code, out, _ = run(capsys, "dreams", "list", "--all", "--json")
    assert [r["state"] for r in json.loads(out)] == ["rejected"]
    assert run(capsys, "dreams", "undo", "devin-launch")[0] == 0
    code, out, _ = run(capsys, "dreams", "undo", "devin-launch")
    assert code == 0 and "still pending" in out
    assert tree_at(devin, "main") == snapshot(DEVIN / "before")
    code, out, _ = run(capsys, "dreams", "accept", "devin-launch")
    assert code == 0 and "main fast-forwarded" not in out and "Accepted all" in out  # main moved: one commit
    assert tree_at(devin, "main") == snapshot(DEVIN / "after")


def test_amr_dream_builtin_and_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    repo = new_repo(
        tmp_path / "m",
        {
            "MEMORY.md": "# M\n\n## Index\n",
            "n.md": "- Ship on Tuesdays [source: https://x/1]\n- Ship on Tuesdays [source: https://x/2]\n",
        },
    )
    monkeypatch.chdir(repo)
    code, out, _ = run(capsys, "dream", "--today", "2026-10-08", "--json")
    data = json.loads(out)
    assert (
        code == 0
        and data["id"] == "2026-10-08-amr"
        and data["summary"] == "merge 1 duplicate entry; rebuild the MEMORY.md index"
    )
    assert git(repo, "status", "--porcelain") == ""
    script = tmp_path / "agent.py"
    script.write_text(
        "import subprocess\nopen('n.md','a').write('- Learned at night [source: https://x/3]\\n')\n"
        "subprocess.run(['git','commit','-qam','dream: one lesson'], check=True)\n"
    )
    code, out, _ = run(capsys, "dream", str(repo), "--agent", f"{sys.executable} {script}", "--run-id", "night")
    assert code == 0 and "dreams/night" in out and "one lesson" in out
    code, out, err = run(capsys, "dream", "--agent", f"{sys.executable} -c pass", "--run-id", "idle")
    assert code == 1 and "no commits" in err
    assert run(capsys, "dream", "--today", "yesterday")[0] == 2


def test_history_forgotten_and_forget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    repo = new_repo(tmp_path / "m", {"MEMORY.md": "# M\n\n## Index\n- [[n]]\n", "n.md": "# N\n\n"})
    commit(
        repo,
        {
            "n.md": "# N\n\n- Staging lives at old.example.com [source: https://x/s/1]\n- Keep me [source: https://x/s/2]\n"
        },
        "Remember staging",
        name="Devin 1",
        date="2026-09-02T10:00:00+00:00",
    )
    commit(
        repo, {"n.md": "# N\n\n- Keep me [source: https://x/s/2]\n"}, "Forget staging", date="2026-09-03T10:00:00+00:00"
    )
    monkeypatch.chdir(repo)
    code, out, _ = run(capsys, "history", "n.md")
    assert code == 0 and "Remember staging" in out and "    source: https://x/s/1" in out
    code, out, _ = run(capsys, "history", "n.md:3", "--blame", "--json")
    data = json.loads(out)
    assert [e["kind"] for e in data["events"]] == ["added"] and data["blame"][0]["summary"] == "Remember staging"
    code, out, _ = run(capsys, "forgotten", "--json")
    (fact,) = json.loads(out)
    assert fact["text"] == "Staging lives at old.example.com" and fact["commit"]["subject"] == "Forget staging"
    code, out, _ = run(capsys, "forget", "n.md:3", "--reason", "obsolete", "--by", "Alice")
    assert code == 0 and ".amr/forgotten.md" in out
    assert "Keep me [forgotten: " in (repo / ".amr" / "forgotten.md").read_text()
    code, out, _ = run(capsys, "forgotten")
    assert "forgotten on purpose by Alice, obsolete" in out
    code, out, _ = run(capsys, "forgotten", "--restore", fact["id"])
    assert code == 0 and "Restored" in out and "Staging lives at" in (repo / "n.md").read_text()
    assert run(capsys, "forget", "n.md")[0] == 2
    assert run(capsys, "history", "n.md:99")[0] == 2


def test_untrusted_text_is_printed_safely(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    repo = new_repo(tmp_path / "m", {"MEMORY.md": "# M\n\n## Index\n- [[n]]\n", "n.md": "- plain\n"})
    branch_commit(
        repo,
        "dreams/evil",
        {"n.md": "- plain\n- \x1b]52;c;cHduZWQ=\x07 clipboard \x1b[2J [source: https://x/1]\n"},
        "dream: \x1b[31mred\x1b[0m",
    )
    monkeypatch.chdir(repo)
    for argv in (("dreams", "list"), ("dreams", "show", "evil"), ("history", "n.md")):
        code, out, err = run(capsys, *argv)
        assert code == 0 and "\x1b" not in out and "\x07" not in out, argv
    assert "\u241b" in run(capsys, "dreams", "show", "evil")[1]
