"""Dead code (issue 43): vulture over amr_tui/ finds nothing unused.

The settings are pyproject.toml's [tool.vulture] (the confidence, Textual's handler names) and
vulture_allowlist.py (what is used where vulture cannot see it, each with why); .ci/run runs the
same check. A new function nothing in amr_tui/ calls fails here: delete it, or, when something
outside Python's view calls it (Textual, an MCP client, GitPython), add it to the allow-list.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _vulture(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vulture", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_nothing_in_amr_tui_is_unused():
    done = _vulture(cwd=ROOT)  # the paths and settings come from pyproject.toml
    assert done.returncode == 0, (
        "unused code in amr_tui/ (delete it, or add it to vulture_allowlist.py with the reason it is used):\n"
        + done.stdout
        + done.stderr
    )


def test_the_confidence_set_reports_a_new_unused_function(tmp_path):
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["vulture"]
    (tmp_path / "module.py").write_text(
        "def called():\n    return 1\n\n\ndef forgotten():\n    return 2\n\n\ncalled()\n"
    )
    done = _vulture("module.py", "--min-confidence", str(settings["min_confidence"]), cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr  # 3: vulture found dead code
    assert "unused function 'forgotten'" in done.stdout and "'called'" not in done.stdout


def test_ci_runs_the_static_checks_the_readme_names() -> None:
    """README: "Before them CI runs mypy (strict), ruff, lint-imports and vulture"."""
    root = Path(__file__).resolve().parent.parent
    ci = (root / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line.strip() for line in ci.splitlines() if line.strip().startswith(".venv/bin/")]
    for tool in ("mypy", "ruff check", "ruff format --check", "lint-imports", "vulture"):
        assert any(c.startswith(f".venv/bin/{tool}") for c in commands), tool
    assert "vulture" in (root / "README.md").read_text(encoding="utf-8")
