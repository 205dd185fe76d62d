"""Each sub-package's ``__init__`` in core and services is its face: the names others use, loaded on first use."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FACES = [("core", p) for p in ("format", "lint", "search", "merge", "diff", "dreams")] + [
    ("services", p) for p in ("session", "dreams", "sync", "share", "history", "batch", "agent", "activity")
]


def _type_checking_imports(layer: str, package: str) -> dict[str, set[str]]:
    """module -> names, from the face's ``if TYPE_CHECKING:`` block."""
    tree = ast.parse((ROOT / "amr_tui" / layer / package / "__init__.py").read_text())
    found: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module is not None
                module = imp.module.removeprefix(f"amr_tui.{layer}.{package}.")
                found.setdefault(module, set()).update(a.name for a in imp.names)
    return found


@pytest.mark.parametrize(("layer", "package"), FACES)
def test_a_face_names_each_thing_once_and_where_it_is_defined(layer, package):
    face = importlib.import_module(f"amr_tui.{layer}.{package}")
    if layer == "services":
        assert face.__doc__ and "import" in face.__doc__, "the docstring says what the package may import"
    typed = _type_checking_imports(layer, package)
    assert sorted(face.__all__) == sorted(n for names in typed.values() for n in names)
    for module, names in typed.items():
        defined_in = importlib.import_module(f"amr_tui.{layer}.{package}.{module}")
        for name in names:
            assert getattr(face, name) is getattr(defined_in, name), f"{package}.{name}"
    if layer == "core":
        assert set(face.__all__) <= set(dir(face))
    with pytest.raises(AttributeError):
        face.no_such_name  # noqa: B018


def _loaded_by(code: str) -> set[str]:
    code = f"import sys, json; {code}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return set(json.loads(out))


def test_importing_one_module_loads_no_other_module_of_its_package():
    loaded = _loaded_by("import amr_tui.core.lint.facts, amr_tui.core.format.links, amr_tui.core.search.text")
    for heavy in (
        "amr_tui.core.format.parser",
        "amr_tui.core.format.rules",
        "amr_tui.core.lint.repo",
        "amr_tui.core.search.index",
    ):
        assert heavy not in loaded


def test_a_name_from_the_face_is_the_name_in_its_module():
    from amr_tui.core.format import parse
    from amr_tui.core.format.parser import parse as parse_in_module
    from amr_tui.core.search import SearchIndex
    from amr_tui.core.search.index import SearchIndex as index_in_module

    assert parse is parse_in_module and SearchIndex is index_in_module


def test_amr_lint_loads_neither_search_nor_the_session_nor_the_parser():
    """What ``amr lint`` answered from its cache needs: the parser and git load where a repo is linted."""
    loaded = _loaded_by("import amr_tui.services.batch.lintrun")
    for heavy in (
        "amr_tui.services.batch.searchrun",
        "amr_tui.services.session.state",
        "amr_tui.core.format.parser",
        "amr_tui.core.lint.repo",
        "amr_tui.git",
        "git",
    ):
        assert heavy not in loaded


def test_one_module_of_the_session_does_not_load_the_session():
    loaded = _loaded_by("import amr_tui.services.session.external")
    assert "amr_tui.services.session.state" not in loaded and "git" not in loaded


def test_the_mcp_sdk_loads_only_for_amr_mcp():
    """pydantic and the SDK cost every other command start-up time: the agent interface and the
    command line's parser do not load them; the server module does."""
    loaded = _loaded_by(
        "import amr_tui.services.agent.memory, amr_tui.cli.main as m; m.build_parser(); m.build_parser('mcp')"
    )
    assert not {"mcp", "pydantic"} & loaded
    assert "mcp" in _loaded_by("import amr_tui.cli.mcp_server")
