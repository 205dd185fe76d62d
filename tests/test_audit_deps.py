"""The dependency audit: ``python scripts/audit_deps.py`` (pip-audit when its
advisory service answers, else the checked list of advisories kept in the script)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("audit_deps", ROOT / "scripts" / "audit_deps.py")
audit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(audit)


def test_the_installed_dependency_set_has_no_known_advisory() -> None:
    deps = audit.closure()
    assert {"gitpython", "textual", "rich", "markdown-it-py", "rapidfuzz", "pygments"} <= set(deps)
    assert audit.check_versions(deps) == []
    assert audit.check_minimums() == []


def test_old_versions_and_loose_minimums_are_caught(tmp_path: Path) -> None:
    found = audit.check_versions({"gitpython": "3.1.40", "markdown-it-py": "2.1.0", "jinja2": "3.1.6"})
    assert {f["advisory"] for f in found} >= {"CVE-2024-22190", "CVE-2026-42215", "CVE-2023-26302"}
    assert all(f["package"] != "jinja2" for f in found)
    loose = tmp_path / "pyproject.toml"
    loose.write_text('dependencies = [\n    "GitPython>=3.1.41",\n    "markdown-it-py>=3.0",\n]\n')
    problems = audit.check_minimums(loose)
    assert len(problems) == 1 and "GitPython>=3.1.41" in problems[0]


def test_the_documented_command_runs_offline() -> None:
    res = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "audit_deps.py"), "--offline"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert "no known-vulnerable version in amr's dependency set" in res.stdout
    assert "CVE-2025-48384" in res.stdout  # git's advisories are reported with amr's mitigations
