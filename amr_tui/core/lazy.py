"""The faces of core's sub-packages load their modules on first use.

A sub-package's ``__init__`` names what other packages use, but importing one of its
modules must not load the others: the lint cache reads ``lint.facts`` without the parser
and the rules, and ``amr search`` answers from its cache without the Markdown parser. So a
face lists where each of its names lives and resolves a name when it is first read
(PEP 562 ``__getattr__``, as ``textual.widgets`` does); type checkers read the same names
from the face's ``if TYPE_CHECKING:`` imports. ``tests/test_faces.py`` checks that
both lists agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def face(package: str, names: Mapping[str, tuple[str, ...]]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, whose module ``m`` defines each of ``names[m]``."""
    where = {name: module for module, found in names.items() for name in found}
    namespace = import_module(package).__dict__

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{module}"), name)
        namespace[name] = value  # found once: the next read does not come here
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__
