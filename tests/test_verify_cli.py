"""``amr verify`` and ``amr usage`` as a user runs them: the command line's own entry point
(in this process, for speed) and one real process, against real repos."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from amr_tui.cli.main import main
from tests.verifyscenario import build_code_repo, build_memory, claude_folder


def process(*args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    if home is not None:
        env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local/share"))
    return subprocess.run(
        [sys.executable, "-m", "amr_tui", *args], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def amr(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """``amr ARGS...`` through the command line's entry point: (exit code, stdout, stderr)."""

    def run(*args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
        if home is not None:
            monkeypatch.setenv("HOME", str(home))
            monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
            monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local/share"))
        monkeypatch.setenv("NO_COLOR", "1")
        capsys.readouterr()
        code = main(list(args))
        out = capsys.readouterr()
        return subprocess.CompletedProcess(list(args), code, out.out, out.err)

    return run


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("scenario")
    code = build_code_repo(root / "payments")
    return code, build_memory(root / "memory-payments", code)


@pytest.mark.slow
def test_verify_lists_what_no_longer_holds_and_exits_1(scenario) -> None:
    code, memory = scenario
    res = process("verify", str(memory), "--code", str(code))
    assert res.returncode == 1, res.stderr
    assert "MEMORY.md:6: gone: Rate limiting is `rateLimitMiddleware` in middleware/rateLimit.ts" in res.stdout
    assert "    path middleware/rateLimit.ts: gone: deleted in 125ef9c on 2026-08-03" in res.stdout
    assert (
        "MEMORY.md:4: moved:" in res.stdout and "renamed to lib/cache/redis.ts in 8f1296c on 2026-07-10" in res.stdout
    )
    assert "backend.md:8" not in res.stdout  # it holds
    assert "8 of 11 facts with evidence no longer hold (against payments at ce1b27c)" in res.stderr


def test_verify_json_fields(amr, scenario) -> None:
    code, memory = scenario
    res = amr("verify", str(memory), "--code", str(code), "--json")
    assert res.returncode == 1, res.stderr
    data = json.loads(res.stdout)
    rows = {(e["path"], e["line"]): e for e in data["entries"]}
    rate = rows[("MEMORY.md", 6)]
    assert rate["text"] == "Rate limiting is `rateLimitMiddleware` in middleware/rateLimit.ts"
    assert rate["status"] == "gone"
    path = next(ev for ev in rate["evidence"] if ev["kind"] == "path")
    assert path["value"] == "middleware/rateLimit.ts" and path["status"] == "gone"
    assert path["commit"].startswith("125ef9c") and path["date"] == "2026-08-03"
    moved = next(ev for ev in rows[("MEMORY.md", 4)]["evidence"] if ev["kind"] == "path")
    assert moved["status"] == "moved" and moved["to"] == "lib/cache/redis.ts"
    assert data["repos"][0]["heads"]["payments"].startswith("ce1b27c")
    every = json.loads(amr("verify", str(memory), "--code", str(code), "--json", "--all").stdout)
    assert {e["status"] for e in every["entries"]} == {"gone", "moved", "holds"}


def test_verify_exits_0_when_everything_holds_and_2_without_a_code_repo(amr, scenario, tmp_path: Path) -> None:
    code, _ = scenario
    memory = tmp_path / "ok"
    memory.mkdir()
    (memory / "MEMORY.md").write_text("# M\n\n- The cache is `lib/cache/redis.ts` and `npm test` runs vitest\n")
    res = amr("verify", str(memory), "--code", str(code))
    assert res.returncode == 0 and res.stdout == "", res.stderr
    nowhere = amr("verify", str(memory), home=tmp_path / "home")
    assert nowhere.returncode == 2 and "no code repo to check against" in nowhere.stderr
    plain = tmp_path / "plain"
    plain.mkdir()
    bad = amr("verify", str(memory), "--code", str(plain))
    assert bad.returncode == 2 and "plain" in bad.stderr


def test_a_claude_code_memory_folder_is_verified_against_its_project_by_itself(amr, scenario, tmp_path: Path) -> None:
    code, _ = scenario
    home = tmp_path / "home"
    folder = claude_folder(home, code)
    res = amr("verify", str(folder), "--json", home=home)
    assert res.returncode == 1, res.stderr
    data = json.loads(res.stdout)
    assert data["repos"][0]["code"] == [{"path": str(code.resolve()), "why": "Claude Code project folder"}]
    assert {(e["path"], e["status"]) for e in data["entries"]} == {
        ("reference_redis.md", "moved"),
        ("feedback_testing.md", "moved"),
    }


def test_the_config_names_the_code_repo(amr, scenario, tmp_path: Path) -> None:
    code, memory = scenario
    home = tmp_path / "home"
    (home / ".config" / "amr").mkdir(parents=True)
    (home / ".config" / "amr" / "config.toml").write_text(f'[repo."memory-payments"]\ncode = ["{code}"]\n')
    res = amr("verify", str(memory), home=home)
    assert res.returncode == 1 and "MEMORY.md:6: gone" in res.stdout, res.stderr


def test_verify_writes_nothing_in_either_repo(amr, scenario) -> None:
    code, memory = scenario

    def state(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    before = (state(code), state(memory))
    assert amr("verify", str(memory), "--code", str(code)).returncode == 1
    assert (state(code), state(memory)) == before


def test_usage_says_unknown_for_a_repo_amr_mcp_never_served(amr, scenario, tmp_path: Path) -> None:
    _code, memory = scenario
    res = amr("usage", str(memory), "--json", home=tmp_path / "home")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["known"] is False and data["since"] is None
    assert data["entries"] and all(e["reads"] is None for e in data["entries"])
    text = amr("usage", str(memory), home=tmp_path / "home")
    assert "is unknown" in text.stderr and ": unknown, last never:" in text.stdout


def test_due_lists_what_holds_but_was_not_verified_lately(amr, scenario, tmp_path: Path) -> None:
    code, _ = scenario
    memory = tmp_path / "m"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(
        "# M\n\n- The cache is `lib/cache/redis.ts` [added: 2026-01-01]\n"
        "- Deploys run `make deploy` [added: 2026-01-01; verified: 2026-10-30]\n"
    )
    res = amr("verify", str(memory), "--code", str(code), "--due", "--today", "2026-11-02")
    assert res.returncode == 0, res.stderr  # all hold
    assert "MEMORY.md:3: due: The cache is `lib/cache/redis.ts`" in res.stdout and "    added 2026-01-01" in res.stdout
    assert "MEMORY.md:4" not in res.stdout
    assert "0 of 2 facts with evidence no longer hold; 1 due for a check" in res.stderr


def test_usage_lists_the_least_recently_read_first(amr, scenario, tmp_path: Path) -> None:
    from amr_tui.services.usage import record

    _code, memory = scenario
    home = tmp_path / "home"
    data = home / ".local" / "share" / "amr" / "usage.sqlite3"
    record(
        memory, [("backend.md", "Lint with `npm run lint` before pushing")], at="2026-10-01T10:00:00+00:00", path=data
    )
    record(
        memory,
        [("MEMORY.md", "Use bun, not npm, for everything in this repo")],
        at="2026-10-20T10:00:00+00:00",
        path=data,
    )
    res = amr("usage", str(memory), "--json", home=home)
    rows = json.loads(res.stdout)
    assert rows["known"] is True and rows["since"].startswith("2026-10-01")
    read = [(e["text"], e["reads"]) for e in rows["entries"] if e["reads"]]
    assert read == [
        ("Lint with `npm run lint` before pushing", 1),
        ("Use bun, not npm, for everything in this repo", 1),
    ]
    assert rows["entries"][0]["reads"] == 0  # never read comes first
