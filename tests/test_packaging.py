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
    assert "amr_tui/styles/app.tcss" in names and "amr_tui/styles/screens.tcss" in names
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


@pytest.mark.slow
def test_a_wheel_built_from_the_sdist_ships_styles_and_a_working_amr(tmp_path):
    """What ``pipx install`` and ``uv tool install`` do with a source release: build the sdist,
    build the wheel from it (not from the tree), install it; its ``amr`` script runs and its app
    finds the styles inside the package."""
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from hatchling.build import build_sdist; print(build_sdist(sys.argv[1]))",
            dist,
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    sdist = next(dist.glob("amr_tui-*.tar.gz"))
    unpacked = tmp_path / "src"
    unpacked.mkdir()
    subprocess.run(["tar", "-xzf", str(sdist), "-C", str(unpacked)], check=True)
    (source,) = list(unpacked.iterdir())
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(source),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next(wheels.glob("amr_tui-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "amr_tui/styles/app.tcss" in names and "amr_tui/styles/screens.tcss" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "amr = amr_tui.cli.main:console_main" in zipfile.ZipFile(wheel).read(entry_points).decode()
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    script = target / "bin" / "amr"
    assert script.is_file()
    env = {
        "PYTHONPATH": f"{target}:{':'.join(p for p in sys.path if p.endswith('site-packages'))}",
        "PATH": "/usr/bin:/bin",
    }
    res = subprocess.run(
        [sys.executable, str(script), "--version"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert res.returncode == 0 and "amr" in res.stdout, res.stderr
    code = "import amr_tui.app as a; print(a.styles_dir())"
    res = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, check=True, capture_output=True, text=True
    )
    assert Path(res.stdout.strip()).is_relative_to(target) and (Path(res.stdout.strip()) / "app.tcss").is_file()
