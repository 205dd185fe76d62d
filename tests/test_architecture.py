"""The layer boundaries hold, and every source file stays readable in one sitting."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 700  # a cap on reading effort; the planned split of the main screen replaces it with no-cycle contracts


def test_import_contracts_kept():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" not in result.stdout.split("Contracts:")[-1] or " 0 broken" in result.stdout


def test_core_imports_nothing_outside_the_standard_pure_set():
    banned = ("import textual", "from textual", "import rich", "from rich", "import git\n", "from git ", "subprocess", "open(")
    for path in (ROOT / "amr_tui" / "core").rglob("*.py"):
        text = path.read_text()
        for word in banned:
            assert word not in text, f"{path.name} uses {word!r}"


def test_files_stay_small():
    too_long = []
    for path in (ROOT / "amr_tui").rglob("*.py"):
        n = len(path.read_text().splitlines())
        if n > MAX_LINES:
            too_long.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not too_long, too_long


def test_styles_are_tcss_files_not_inline():
    for path in (ROOT / "amr_tui").rglob("*.py"):
        assert "DEFAULT_CSS" not in path.read_text(), f"{path.name}: put styles in styles/*.tcss"
