"""The wheel carries the styles, and an installed copy loads them from inside the package."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_wheel_ships_styles_and_installed_copy_uses_them(tmp_path):
    out = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q", "-w", str(out)],
        check=True,
        capture_output=True,
    )
    wheel = next(out.glob("amr_tui-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "amr_tui/styles/app.tcss" in names
    assert any(n.endswith("entry_points.txt") for n in names)
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    code = "import amr_tui.app as a; print(a.styles_dir()); print(a.AmrApp.CSS_PATH[0])"
    res = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        check=True,
        capture_output=True,
        text=True,
    )
    styles, css = res.stdout.split()
    assert Path(styles).is_relative_to(target), styles
    assert Path(css).is_file()
