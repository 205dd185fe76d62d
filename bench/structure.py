"""The shape of the code, before and after: figures a reviewer asks about (issue 26).

    .venv/bin/python bench/structure.py                     # this tree
    .venv/bin/python bench/structure.py --before 1d50942    # and a commit beside it
    .venv/bin/python bench/structure.py --before 1d50942 --tests   # and time the fast tier

Every figure is read from the source with ``ast`` (nothing is imported but Textual, to know
its private names). ``--tests`` runs ``pytest -m "not slow" -n 2`` on this tree and prints its
wall time; the duplicate pairs come from the ``duplicates`` command when it is on PATH.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _textual_private() -> set[str]:
    """Underscored names (not dunders) of the Textual classes amr subclasses or calls."""
    import textual.app
    import textual.dom
    import textual.message_pump
    import textual.screen
    import textual.scroll_view
    import textual.widget
    import textual.widgets

    classes = [
        textual.app.App,
        textual.screen.Screen,
        textual.widget.Widget,
        textual.dom.DOMNode,
        textual.message_pump.MessagePump,
        textual.scroll_view.ScrollView,
        textual.widgets.Input,
        textual.widgets.Static,
        textual.widgets.Tree,
        textual.widgets.OptionList,
        textual.widgets.TextArea,
        textual.widgets.DataTable,
    ]
    out: set[str] = set()
    for cls in classes:
        for name in dir(cls):
            if name.startswith("_") and not name.startswith("__"):
                out.add(name)
    return out


def _modules(tree: Path) -> list[tuple[Path, ast.Module]]:
    out = []
    for path in sorted((tree / "amr_tui").rglob("*.py")):
        out.append((path, ast.parse(path.read_text(encoding="utf-8"), str(path))))
    return out


def _local_imports(mods: list[tuple[Path, ast.Module]]) -> int:
    """Functions with an import statement in their own body (nested functions counted apart)."""
    count = 0
    for _path, mod in mods:
        for node in ast.walk(mod):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                stack = list(node.body)
                found = False
                while stack and not found:
                    sub = stack.pop()
                    if isinstance(sub, (ast.Import, ast.ImportFrom)):
                        found = True
                    elif not isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        stack.extend(ast.iter_child_nodes(sub))
                count += found
    return count


def _imports_textual(mod: ast.Module) -> bool:
    return any(
        (isinstance(n, ast.ImportFrom) and (n.module or "").startswith("textual"))
        or (isinstance(n, ast.Import) and any(a.name.startswith("textual") for a in n.names))
        for n in ast.walk(mod)
    )


#: The one module allowed to touch Textual's private API (its uses are counted on their own).
ADAPTER = "textual_private.py"


def _private_api(mods: list[tuple[Path, ast.Module]], private: set[str]) -> int:
    """In the modules that import Textual, the adapter module aside: reads of a Textual private
    name that amr does not define itself, and methods that override (or collide with) one
    (``def _size_updated``)."""
    mods = [(p, m) for p, m in mods if _imports_textual(m) and p.name != ADAPTER]
    own: set[str] = set()
    overrides = 0
    for _path, mod in mods:
        for node in ast.walk(mod):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        if item.name in private:
                            overrides += 1
                        else:
                            own.add(item.name)
                    elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                        for t in item.targets if isinstance(item, ast.Assign) else [item.target]:
                            if isinstance(t, ast.Name):
                                own.add(t.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                own.add(node.attr)
    reads = 0
    for _path, mod in mods:
        for node in ast.walk(mod):
            if isinstance(node, ast.Attribute) and node.attr in private and node.attr not in own:
                reads += 1
    return reads + overrides


def _adapter_uses(tree: Path, private: set[str]) -> str:
    """Private names the adapter module reads or overrides (0 before it existed)."""
    path = tree / "amr_tui" / "widgets" / ADAPTER
    if not path.exists():
        return "0"
    mod = ast.parse(path.read_text(encoding="utf-8"))
    names = {n.attr for n in ast.walk(mod) if isinstance(n, ast.Attribute) and n.attr in private}
    names |= {n.name for n in ast.walk(mod) if isinstance(n, ast.FunctionDef) and n.name in private}
    return str(len(names))


def _faces(tree: Path) -> int:
    return sum("face(" in p.read_text() for p in (tree / "amr_tui").rglob("__init__.py"))


def _app(tree: Path) -> tuple[int, int, int]:
    """app.py's lines and AmrApp's methods; ``getattr(self.app`` calls anywhere."""
    app = tree / "amr_tui" / "app.py"
    text = app.read_text()
    mod = ast.parse(text)
    methods = 0
    for node in mod.body:
        if isinstance(node, ast.ClassDef) and node.name == "AmrApp":
            methods = sum(isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef)) for i in node.body)
    getattrs = sum(p.read_text().count("getattr(self.app") for p in (tree / "amr_tui").rglob("*.py"))
    return len(text.splitlines()), methods, getattrs


def _mixins(mods: list[tuple[Path, ast.Module]]) -> int:
    return sum(
        1
        for _p, mod in mods
        for node in ast.walk(mod)
        if isinstance(node, ast.ClassDef) and node.name.endswith(("Mixin", "Keys"))
    )


def _tests(tree: Path) -> tuple[int, int, int]:
    """Hand-built ``AppDriver(`` calls outside the driver and conftest, files that define their
    own SIZE, and tests marked slow."""
    by_hand = sizes = slow = 0
    for path in (tree / "tests").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.name not in ("driver.py", "conftest.py"):
            by_hand += text.count("AppDriver(")
        sizes += bool(re.search(r"^SIZE\s*=", text, re.MULTILINE))
        slow += text.count("pytest.mark.slow") + (
            text.count("def test_") if re.search(r"^pytestmark\s*=.*slow", text, re.MULTILINE) else 0
        )
    return by_hand, sizes, slow


def _duplicates(tree: Path) -> str:
    if shutil.which("duplicates") is None:
        return "n/a"
    run = subprocess.run(
        ["duplicates", "--repo", str(tree / "amr_tui"), "--seconds", "120"], capture_output=True, text=True
    )
    first = run.stdout.splitlines()[0] if run.stdout else ""
    m = re.search(r"(\d[\d,]*) pairs?", first)
    return m.group(1) if m else first or "n/a"


def _fast_tier(tree: Path) -> str:
    start = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "-m", "not slow", "-p", "no:randomly"],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    took = time.monotonic() - start
    tail = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    return f"{took:.0f} s ({tail})"


def _bench_lines(tree: Path) -> int:
    """The scripts and notes of bench/ (its .py and .md files; not bench/out/, the corpora cache)."""
    bench = tree / "bench"
    files = [p for p in bench.rglob("*") if p.suffix in (".py", ".md") and "out" not in p.relative_to(bench).parts]
    return sum(len(p.read_text().splitlines()) for p in files)


def figures(tree: Path, private: set[str], *, tests: bool) -> dict[str, str]:
    mods = _modules(tree)
    lines, methods, getattrs = _app(tree)
    by_hand, sizes, slow = _tests(tree)
    out = {
        "lazy package faces": str(_faces(tree) + (tree / "amr_tui" / "core" / "lazy.py").exists()),
        "app.py lines": str(lines),
        "AmrApp methods": str(methods),
        "getattr(self.app, ...) calls": str(getattrs),
        "Textual private API uses (outside widgets/textual_private.py)": str(_private_api(mods, private)),
        "  ... inside the adapter module": str(_adapter_uses(tree, private)),
        "functions importing in their body": str(_local_imports(mods)),
        "mixins (and ListKeys)": str(_mixins(mods)),
        "AppDriver built by hand in tests": str(by_hand),
        "test files with their own SIZE": str(sizes),
        "tests marked slow": str(slow),
        "duplicate pairs (duplicates, amr_tui/)": _duplicates(tree),
        "lines in amr_tui/": str(sum(len(p.read_text().splitlines()) for p in (tree / "amr_tui").rglob("*.py"))),
        "lines in bench/": str(_bench_lines(tree)),
    }
    if tests:
        out["fast tier (-m 'not slow', -n 2)"] = _fast_tier(tree)
    return out


def _checkout(rev: str, into: Path) -> Path:
    data = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", metavar="REV", help="a commit to set beside this tree")
    ap.add_argument("--tests", action="store_true", help="time the fast test tier of this tree")
    args = ap.parse_args(argv)
    private = _textual_private()
    now = figures(ROOT, private, tests=args.tests)
    if not args.before:
        for key, value in now.items():
            print(f"{key:40} {value}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        before = figures(_checkout(args.before, Path(tmp)), private, tests=False)
    print(f"| figure | {args.before} | now |")
    print("|---|---|---|")
    for key, value in now.items():
        print(f"| {key} | {before.get(key, '-')} | {value} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
