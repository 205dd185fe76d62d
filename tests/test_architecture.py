"""The layer boundaries hold, no package has an import cycle, and every exception to a contract says why."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_kept():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.split("Contracts:")[-1] or " 0 broken" in result.stdout


def test_core_imports_nothing_outside_the_standard_pure_set():
    banned = (
        "import textual",
        "from textual",
        "import rich",
        "from rich",
        "import git\n",
        "from git ",
        "subprocess",
        "open(",
    )
    for path in (ROOT / "amr_tui" / "core").rglob("*.py"):
        text = path.read_text()
        for word in banned:
            assert word not in text, f"{path.name} uses {word!r}"


def test_every_package_is_checked_for_cycles():
    """The acyclic_siblings contract covers amr_tui at every depth, so a new sub-package is covered too."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    acyclic = [c for c in contracts if c["type"] == "acyclic_siblings"]
    assert acyclic and "amr_tui" in acyclic[0]["ancestors"] and acyclic[0].get("depth", 10) >= 10


def test_every_ignored_import_says_why():
    """An ``ignore_imports`` entry is an exception to a contract: each has a comment on its line."""
    lines = (ROOT / "pyproject.toml").read_text().splitlines()
    inside, missing = False, []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("ignore_imports"):
            inside = "[" in stripped and "]" not in stripped.split("#")[0]
            entries = stripped.split("=", 1)[1]
            if '"' in entries.split("#")[0] and "#" not in entries:
                missing.append(stripped)
            continue
        if inside:
            if stripped.startswith("]"):
                inside = False
            elif stripped.startswith('"') and "#" not in stripped:
                missing.append(stripped)
    assert not missing, f"ignore_imports entries without a reason: {missing}"


def test_styles_are_tcss_files_not_inline():
    for path in (ROOT / "amr_tui").rglob("*.py"):
        assert "DEFAULT_CSS" not in path.read_text(), f"{path.name}: put styles in styles/*.tcss"
