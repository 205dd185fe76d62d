"""Audit amr's pinned dependency set for known vulnerabilities (issue 7, part 9).

    python scripts/audit_deps.py [--offline] [--json]

1. Resolves amr's dependency closure from the installed metadata (runtime dependencies, the
   ``test`` extra and extras such as ``textual[syntax]``), with the installed versions.
2. Runs ``pip-audit`` on exactly that set when it is installed and its advisory service answers
   (``--offline`` skips it). On this project's build machines it does not: PyPI's JSON API and
   OSV are not reachable, and pip-audit reports every package as "not found".
3. Either way, checks the installed versions against the checked list below (field notes 23-24
   plus a few long-known advisories of packages in the closure), checks that the minimum
   versions in pyproject.toml exclude every vulnerable GitPython, and reports git's version
   against git's advisories with the mitigations amr relies on.

Exit 0 when nothing in the closure is known-vulnerable, 1 otherwise, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent

#: (package, advisory, first fixed version, what it is). Checked against public advisories by
#: hand; re-check when adding a dependency or when a release is older than these.
ADVISORIES: list[tuple[str, str, str, str]] = [
    ("gitpython", "CVE-2022-24439", "3.1.30", "ext:: clone URLs run commands"),
    ("gitpython", "CVE-2023-40267", "3.1.32", "unsafe clone options"),
    ("gitpython", "CVE-2023-40590", "3.1.33", "Windows: runs git.exe from the repo"),
    ("gitpython", "CVE-2023-41040", "3.1.37", "ref path traversal"),
    ("gitpython", "CVE-2024-22190", "3.1.41", "Windows: runs bash.exe/git.exe from the repo"),
    ("gitpython", "CVE-2026-42215", "3.1.47", "option injection through refs"),
    ("gitpython", "CVE-2026-42284", "3.1.47", "paired with CVE-2026-42215"),
    ("gitpython", "CVE-2026-44243", "3.1.48", "path traversal in checkout"),
    ("gitpython", "CVE-2026-44244", "3.1.49", "bypass of the CVE-2026-42215 fix"),
    ("gitpython", "CVE-2026-67324", "3.1.51", "2026 series (3.1.50 affected)"),
    ("gitpython", "CVE-2026-78676", "3.1.59", "config injection"),
    # Named in the field notes; no fixed version confirmed here. Every release up to the last
    # fix seen for the series (3.1.62) is treated as affected.
    ("gitpython", "CVE-2026-67326", "3.1.62", "2026 series (fixed version not confirmed)"),
    ("gitpython", "CVE-2026-67322", "3.1.62", "2026 series (fixed version not confirmed)"),
    ("gitpython", "CVE-2026-69097", "3.1.62", "2026 series (fixed version not confirmed)"),
    ("gitpython", "CVE-2026-73621", "3.1.62", "2026 series (fixed version not confirmed)"),
    ("markdown-it-py", "CVE-2023-26302", "2.2.0", "crash on crafted input"),
    ("markdown-it-py", "CVE-2023-26303", "2.2.0", "crash on crafted input"),
    ("pygments", "CVE-2021-27291", "2.7.4", "ReDoS in lexers"),
    ("pygments", "CVE-2022-40896", "2.15.0", "ReDoS in lexers"),
    ("jinja2", "CVE-2024-22195", "3.1.3", "xmlattr injection"),
    ("jinja2", "CVE-2024-34064", "3.1.4", "xmlattr injection"),
    ("jinja2", "CVE-2024-56201", "3.1.5", "sandbox escape"),
    ("jinja2", "CVE-2024-56326", "3.1.5", "sandbox escape"),
    ("jinja2", "CVE-2025-27516", "3.1.6", "sandbox escape via |attr"),
    ("setuptools", "CVE-2022-40897", "65.5.1", "ReDoS in package_index"),
    ("setuptools", "CVE-2024-6345", "70.0.0", "code injection in package_index"),
    ("setuptools", "CVE-2025-47273", "78.1.1", "path traversal in PackageIndex"),
    ("pip", "CVE-2023-5752", "23.3", "Mercurial config injection"),
]

#: git's own advisories (field note 24), and what amr does about each.
GIT_ADVISORIES = [
    (
        "CVE-2022-24765",
        {"2.30": "2.30.3", "2.31": "2.31.2", "2.32": "2.32.1", "2.33": "2.33.2", "2.34": "2.34.2", "*": "2.35.2"},
        "safe.directory; amr never adds safe.directory and says why git refuses",
    ),
    (
        "CVE-2024-32002",
        {
            "2.39": "2.39.4",
            "2.40": "2.40.2",
            "2.41": "2.41.1",
            "2.42": "2.42.2",
            "2.43": "2.43.4",
            "2.44": "2.44.1",
            "*": "2.45.1",
        },
        "recursive clone with symlinked hooks; amr clones with --no-recurse-submodules and runs no hooks",
    ),
    (
        "CVE-2025-48384",
        {
            "2.43": "2.43.7",
            "2.44": "2.44.4",
            "2.45": "2.45.4",
            "2.46": "2.46.4",
            "2.47": "2.47.3",
            "2.48": "2.48.2",
            "2.49": "2.49.1",
            "*": "2.50.1",
        },
        "CR in a submodule path; older lines depend on the distribution's backport. amr never "
        "clones or updates submodules (submodule.recurse=false, --no-recurse-submodules)",
    ),
]


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(root: str = "amr-tui", extras: tuple[str, ...] = ("test",)) -> dict[str, str]:
    """name -> installed version for amr and everything it needs (with the given extras)."""
    seen: dict[str, str] = {}
    todo: list[tuple[str, tuple[str, ...]]] = [(root, extras)]
    while todo:
        name, want = todo.pop()
        key = _key(name)
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            continue
        if key in seen and not want:
            continue
        seen[key] = dist.version
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in (*want, "")):
                continue
            if _key(req.name) not in seen or req.extras:
                todo.append((req.name, tuple(req.extras)))
    return dict(sorted(seen.items()))


def venv_packages() -> dict[str, str]:
    from importlib.metadata import distributions

    return {_key(d.metadata["Name"]): d.version for d in distributions() if d.metadata["Name"]}


def check_versions(installed: dict[str, str]) -> list[dict]:
    found = []
    for pkg, cve, fixed, what in ADVISORIES:
        version = installed.get(pkg)
        if version is not None and Version(version) < Version(fixed):
            found.append({"package": pkg, "version": version, "advisory": cve, "fixed": fixed, "what": what})
    return found


def check_minimums(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """Problems with pyproject's declared minimum versions (each dependency line read alone)."""
    problems = []
    text = pyproject.read_text()
    for pkg in sorted({a[0] for a in ADVISORIES}):
        needed = max(Version(a[2]) for a in ADVISORIES if a[0] == pkg)
        for m in re.finditer(r'"([^"]+)"', text):
            try:
                req = Requirement(m.group(1))
            except Exception:
                continue
            if _key(req.name) != pkg:
                continue
            lows = [Version(s.version) for s in req.specifier if s.operator in (">=", "==", "~=", ">")]
            if not lows or max(lows) < needed:
                problems.append(f"{m.group(1)!r} allows {pkg} versions with known advisories (needs >= {needed})")
    return problems


def check_git() -> dict:
    exe = shutil.which("git")
    if not exe:
        return {"git": None, "notes": ["git not found"]}
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    version = Version(m.group(0)) if m else Version("0")
    line = f"{version.major}.{version.minor}"
    notes = []
    for cve, fixed_by_line, mitigation in GIT_ADVISORIES:
        fixed = fixed_by_line.get(line)
        if fixed is None:
            newest = Version(fixed_by_line["*"])
            status = "fixed" if version >= newest else "no fix in this release line upstream"
        else:
            status = "fixed" if version >= Version(fixed) else f"affected (fixed in {fixed})"
        notes.append(f"{cve}: {status}; {mitigation}")
    return {"git": str(version), "notes": notes}


def pip_audit(installed: dict[str, str], timeout: float = 180) -> dict:
    """Run pip-audit on exactly these pins; {"ran": bool, "why": ..., "vulns": [...]}."""
    cmd = None
    if shutil.which("pip-audit"):
        cmd = [shutil.which("pip-audit")]
    else:
        probe = subprocess.run([sys.executable, "-m", "pip_audit", "--version"], capture_output=True)
        if probe.returncode == 0:
            cmd = [sys.executable, "-m", "pip_audit"]
    if cmd is None:
        return {"ran": False, "why": "pip-audit is not installed", "vulns": []}
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("".join(f"{k}=={v}\n" for k, v in installed.items() if k != "amr-tui"))
    try:
        res = subprocess.run(
            [*cmd, "-r", f.name, "--no-deps", "-f", "json", "--progress-spinner", "off"],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"ran": False, "why": f"pip-audit took longer than {timeout:g} s", "vulns": []}
    finally:
        Path(f.name).unlink(missing_ok=True)
    try:
        data = json.loads(res.stdout)
    except json.JSONDecodeError:
        return {
            "ran": False,
            "why": "advisory service not reachable: " + (res.stderr.strip().splitlines() or ["?"])[-1][:200],
            "vulns": [],
        }
    deps = data.get("dependencies", [])
    if deps and all(d.get("skip_reason") for d in deps):
        return {
            "ran": False,
            "why": "advisory service not reachable: every package was skipped (" + deps[0]["skip_reason"][:120] + ")",
            "vulns": [],
        }
    vulns = [
        {
            "package": d["name"],
            "version": d["version"],
            "advisory": v["id"],
            "fixed": ",".join(v.get("fix_versions", [])),
        }
        for d in deps
        for v in d.get("vulns", [])
    ]
    return {"ran": True, "why": "", "vulns": vulns}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offline", action="store_true", help="do not try pip-audit's advisory service")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    deps = closure()
    audit = {"ran": False, "why": "--offline", "vulns": []} if args.offline else pip_audit(deps)
    known = check_versions(deps)
    others = [v for v in check_versions(venv_packages()) if v["package"] not in deps]
    report = {
        "dependencies": deps,
        "pip_audit": audit,
        "known_vulnerable": known + audit["vulns"],
        "pyproject_minimums": check_minimums(),
        "git": check_git(),
        "outside_amr_dependencies": others,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"amr's dependency set ({len(deps)} packages):")
        for name, version in deps.items():
            print(f"  {name}=={version}")
        print("pip-audit: " + ("ran" if audit["ran"] else f"not used ({audit['why']})"))
        print(f"Checked list: {len(ADVISORIES)} advisories over {len({a[0] for a in ADVISORIES})} packages.")
        for v in report["known_vulnerable"]:
            print(f"  VULNERABLE {v['package']} {v['version']}: {v['advisory']} (fixed in {v['fixed']})")
        for p in report["pyproject_minimums"]:
            print(f"  pyproject.toml: {p}")
        print(f"git {report['git']['git']}:")
        for note in report["git"]["notes"]:
            print(f"  {note}")
        for v in others:
            print(
                f"  in this environment but not an amr dependency: {v['package']} {v['version']} "
                f"{v['advisory']} (fixed in {v['fixed']}; upgrade the environment's tooling)"
            )
        print(
            "OK: no known-vulnerable version in amr's dependency set."
            if not report["known_vulnerable"] and not report["pyproject_minimums"]
            else "FOUND known-vulnerable versions or minimums."
        )
    return 1 if report["known_vulnerable"] or report["pyproject_minimums"] else 0


if __name__ == "__main__":
    sys.exit(main())
