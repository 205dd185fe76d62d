"""The layer boundaries hold, no package has an import cycle, and every exception to a contract says why."""

from __future__ import annotations

import ast
import re
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


# Widgets own their styles (issue 43, 6): styles/*.tcss says where things are and how much room
# they take; how they look is the DEFAULT_CSS of the widget or screen that draws them (the app's own
# DEFAULT_CSS for what every screen shares: side titles, dialogs, modal screens).

#: The properties of the layout: where a widget is and how much room it and its box take.
LAYOUT_PROPERTIES = frozenset(
    {"layout", "dock", "display", "position", "overlay", "constrain", "layer", "layers", "box-sizing"}
    | {"width", "height", "min-width", "max-width", "min-height", "max-height", "scrollbar-gutter"}
    | {f"{box}{side}" for box in ("margin", "padding") for side in ("", "-top", "-right", "-bottom", "-left")}
    | {"align", "align-horizontal", "align-vertical", "overflow", "overflow-x", "overflow-y"}
    | {"offset", "offset-x", "offset-y", "column-span", "row-span"}
    | {"grid-size", "grid-columns", "grid-rows", "grid-gutter"}
)


def _tcss_rules(text: str) -> list[tuple[str, list[str]]]:
    """(selector, [property, ...]) of each rule of a TCSS file with no nested rules."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    rules = []
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", text):
        props = [d.split(":", 1)[0].strip() for d in body.split(";") if d.strip()]
        rules.append((" ".join(selector.split()), props))
    assert text.count("{") == len(rules), "styles/*.tcss: no nested rules"
    return rules


def _layout_types() -> set[str]:
    """Type names a layout rule may select by: screens (Textual's and amr's) and Textual's containers."""
    import importlib
    import pkgutil

    import textual.containers
    from textual.screen import Screen

    import amr_tui.screens as package

    names = {"Screen", "ModalScreen"} | {
        name for name, cls in vars(textual.containers).items() if isinstance(cls, type)
    }
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        names |= {n for n, c in vars(module).items() if isinstance(c, type) and issubclass(c, Screen)}
    return names


def test_the_tcss_files_hold_the_layout_only():
    """Every rule of styles/*.tcss selects by id, class, screen or container, names no component
    class, and sets only LAYOUT_PROPERTIES: colours, borders and text styles are the widgets'."""
    allowed_types = _layout_types()
    wrong = []
    for path in sorted((ROOT / "styles").glob("*.tcss")):
        for selector, props in _tcss_rules(path.read_text()):
            looks = [p for p in props if p not in LAYOUT_PROPERTIES]
            if looks:
                wrong.append(f"{path.name}: {selector} sets {looks} (look: the widget's DEFAULT_CSS)")
            for compound in re.split(r"[\s>,]+", selector):
                kind = re.match(r"[A-Za-z_][\w-]*", compound)
                if kind and kind.group() not in allowed_types:
                    wrong.append(f"{path.name}: {selector} selects the widget type {kind.group()}")
                if "--" in compound:
                    wrong.append(f"{path.name}: {selector} styles a component class")
    assert wrong == []


def test_every_widget_styles_its_own_component_classes():
    """A widget of amr that declares component classes styles each in its own DEFAULT_CSS."""
    import importlib
    import inspect
    import pkgutil

    from textual.dom import DOMNode

    import amr_tui.screens
    import amr_tui.widgets

    unstyled = []
    for package in (amr_tui.widgets, amr_tui.screens):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for _, cls in inspect.getmembers(module, inspect.isclass):
                if not (issubclass(cls, DOMNode) and cls.__module__ == module.__name__):
                    continue
                inherited = set().union(*(getattr(b, "COMPONENT_CLASSES", set()) for b in cls.__mro__[1:]))
                own = set(cls.__dict__.get("COMPONENT_CLASSES", set())) - inherited
                css = cls.__dict__.get("DEFAULT_CSS", "")
                unstyled += [f"{cls.__name__}: .{name}" for name in sorted(own) if f".{name}" not in css]
    assert unstyled == []


def test_default_css_is_in_the_ui_layers_only():
    """DEFAULT_CSS belongs to widgets, screens and the app: nothing else draws."""
    for path in (ROOT / "amr_tui").rglob("*.py"):
        where = path.relative_to(ROOT / "amr_tui").parts
        if "DEFAULT_CSS" in path.read_text():
            assert where[0] in ("widgets", "screens", "app.py"), f"{path}: styles belong to a widget or screen"


def _imports_in_functions() -> tuple[set[str], list[str]]:
    """Functions of amr_tui with an import in their own body (``path:function``), and those
    imports that say nothing of why: no comment on their lines or the line above, and no
    ``# Lazy imports: <why>`` line at the top level of their module (one reason for them all)."""
    functions: set[str] = set()
    silent: list[str] = []
    for path in sorted((ROOT / "amr_tui").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        said_once = any(line.startswith("# Lazy imports: ") for line in lines)
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            stack, found = list(node.body), []
            while stack:  # nested functions and classes are counted on their own
                sub = stack.pop()
                if isinstance(sub, (ast.Import, ast.ImportFrom)):
                    found.append(sub)
                elif not isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    stack.extend(ast.iter_child_nodes(sub))
            where = f"{path.relative_to(ROOT)}:{node.name}"
            if found:
                functions.add(where)
            for imp in found:
                said = lines[imp.lineno - 1 : imp.end_lineno]
                above = lines[imp.lineno - 2].strip() if imp.lineno > 1 else ""
                if not said_once and not any("#" in line for line in said) and not above.startswith("#"):
                    silent.append(f"{where}:{imp.lineno}")
    return functions, silent


#: The ratchet on imports inside functions (issue 26: 153 at its start). They keep modules off the
#: start-up path of `amr` and of each command (tests/test_startup_path.py); lower these figures
#: when you remove one, never raise them: import at the top of the module instead, or say why.
MAX_FUNCTIONS_IMPORTING = 53  # issue 43: -12 rapidfuzz through core/fuzzy.py (one lazy import); -44 cli/ split into parsers and run modules; -17 flows/, lint, search cache;
# -6 imports already loaded moved to the top, describe_size to core, merge install and search --history
MAX_SILENT_IMPORTS = 0


def test_imports_inside_functions_only_go_down():
    functions, silent = _imports_in_functions()
    assert len(functions) <= MAX_FUNCTIONS_IMPORTING, (
        f"{len(functions)} functions import in their body (at most {MAX_FUNCTIONS_IMPORTING}): "
        "import at the top of the module, or lower the figure after removing another"
    )
    assert len(silent) <= MAX_SILENT_IMPORTS, (
        f"{len(silent)} imports inside functions say nothing of why (at most {MAX_SILENT_IMPORTS}); "
        f"comment the new one (which start-up it keeps short): {silent[-5:]}"
    )


def test_screens_reach_the_app_through_typed_hosts():
    """What a screen needs from the app is a Protocol (screens/main/host.py), not ``getattr``."""
    for path in (ROOT / "amr_tui").rglob("*.py"):
        assert "getattr(self.app" not in path.read_text(encoding="utf-8"), path.name


def test_packages_have_plain_init_files():
    """No lazy package faces: an ``__init__.py`` is a docstring and at most a few re-exports."""
    assert not (ROOT / "amr_tui" / "core" / "lazy.py").exists()
    for path in (ROOT / "amr_tui").rglob("__init__.py"):
        text = path.read_text(encoding="utf-8")
        assert "__getattr__" not in text and "face(" not in text, path


def _pilot_shortcuts() -> tuple[list[str], list[str]]:
    """Test modules that build an ``AppDriver`` by hand (``path:line``), and those that define a
    module-level ``SIZE`` of their own (``path``)."""
    built, sized = [], []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        where = str(path.relative_to(ROOT))
        if where in ("tests/driver.py", "tests/conftest.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        built += [
            f"{where}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "AppDriver"
        ]
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            if any(isinstance(t, ast.Name) and t.id == "SIZE" for t in targets):
                sized.append(where)
    return built, sized


def test_every_pilot_test_runs_through_the_driver():
    """The ratchet on hand-built drivers (issue: 99 ``AppDriver(pilot)`` and 18 ``SIZE`` constants
    at its start, now none): a Pilot test runs its app with ``tests.driver.running`` (or the
    ``driver`` fixture, or ``before_snapshot`` under ``snap_compare``) at one of the sizes named in
    tests/driver.py, so the waits and the sizes are said once."""
    built, sized = _pilot_shortcuts()
    assert not built, f"AppDriver built by hand (use tests.driver.running or the driver fixture): {built}"
    assert not sized, f"a SIZE of their own (name the size in tests/driver.py): {sized}"
