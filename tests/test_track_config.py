"""`amr track FOLDER` offers to add the folder to the config's repos (so `amr` opens it with no
argument): it asks at a terminal, `--yes` does it, and the rest of the TOML stays as written."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from amr_tui.services.config import load_config, save_settings

USER_CONFIG = """# my amr config
repos = [
  "~/agent-memory",   # mine
  "~/team/memory-team",
]
read_only = ["memory-team"]
theme = "textual-dark"

[keys]
"main.find" = "slash,ctrl+f"
"""


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "todo.md").write_text("- call the vendor\n")
    (folder / "sub" / "more.md").write_text("- more\n")
    return folder


def _config(home: Path) -> Path:
    return home / ".config" / "amr" / "config.toml"


def _track(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "amr_tui", "track", *args], capture_output=True, text=True, env=dict(os.environ)
    )


def test_without_yes_it_says_it_would_add_the_folder_to_the_config_and_changes_nothing(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    config = _config(Path(os.environ["HOME"]))
    config.parent.mkdir(parents=True)
    config.write_text(USER_CONFIG)
    res = _track(str(folder))
    assert res.returncode == 1 and "Nothing was changed" in res.stdout
    assert f"add {folder} to repos in {config}" in res.stdout, res.stdout
    assert config.read_text() == USER_CONFIG and not (folder / ".git").exists()


def test_yes_tracks_and_adds_the_folder_keeping_the_rest_of_the_toml(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    config = _config(Path(os.environ["HOME"]))
    config.parent.mkdir(parents=True)
    config.write_text(USER_CONFIG)
    res = _track(str(folder), "--yes")
    assert res.returncode == 0, res.stderr
    assert (folder / ".git").is_dir()
    assert f"Added {folder} to repos in {config}" in res.stdout, res.stdout
    text = config.read_text()
    assert text.startswith("# my amr config\n") and '"main.find" = "slash,ctrl+f"' in text
    assert tomllib.loads(text) == {
        "repos": ["~/agent-memory", "~/team/memory-team", str(folder)],
        "read_only": ["memory-team"],
        "theme": "textual-dark",
        "keys": {"main.find": "slash,ctrl+f"},
    }
    assert folder in load_config(config).repos


def test_no_config_yet_is_made_with_the_folder(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    config = _config(Path(os.environ["HOME"]))
    assert _track(str(folder), "--yes").returncode == 0
    assert tomllib.loads(config.read_text()) == {"repos": [str(folder)]}


def _run_at_a_terminal(args: list[str], answer: bytes, timeout: float = 60.0) -> tuple[int, str]:
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "amr_tui", *args], stdin=child, stdout=child, stderr=child, env=dict(os.environ)
    )
    os.close(child)
    out = b""
    deadline = time.monotonic() + timeout
    answered = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(main, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
            if not answered and b"[y/N]" in out:
                os.write(main, answer)
                answered = True
        elif proc.poll() is not None:
            break
    proc.wait(timeout=10)
    os.close(main)
    return proc.returncode, out.decode("utf-8", "replace")


@pytest.mark.slow
def test_at_a_terminal_it_asks_and_yes_does_both(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    config = _config(Path(os.environ["HOME"]))
    code, out = _run_at_a_terminal(["track", str(folder)], b"y\n")
    assert code == 0, out
    assert (folder / ".git").is_dir() and folder in load_config(config).repos


@pytest.mark.slow
def test_at_a_terminal_no_changes_nothing(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    config = _config(Path(os.environ["HOME"]))
    code, out = _run_at_a_terminal(["track", str(folder)], b"\n")
    assert code == 1 and "Nothing was changed" in out, out
    assert not (folder / ".git").exists() and not config.exists()


def test_save_settings_replaces_a_list_written_over_several_lines(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(USER_CONFIG)
    assert save_settings(path, repos=["~/agent-memory", "/x"]) is None
    text = path.read_text()
    assert tomllib.loads(text)["repos"] == ["~/agent-memory", "/x"] and text.count("repos") == 1
    assert text.startswith("# my amr config\n") and "[keys]" in text
