"""The scripts and targets a code repo declares, read from its manifests' bytes (pure).

* ``package.json``: its ``scripts`` (what ``npm run``, ``yarn``, ``pnpm`` and ``bun run`` run);
* ``pyproject.toml``: ``[project.scripts]``, ``[project.gui-scripts]``, ``[tool.poetry.scripts]``,
  ``[tool.pdm.scripts]``, ``[tool.poe.tasks]``;
* ``Makefile`` (``makefile``, ``GNUmakefile``): its rule targets;
* ``justfile`` (``Justfile``, ``.justfile``): its recipes.

Each reader takes the file's bytes and returns ``name -> what it runs`` (a target's first recipe
line), or ``{}`` for bytes it cannot read. Nothing is run: the text is only read.
"""

from __future__ import annotations

import json
import re
import tomllib

PACKAGE = "package.json"
PYPROJECT = "pyproject.toml"
MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
JUSTFILES = ("justfile", "Justfile", ".justfile")

# Which manifests a runner reads: a script of npm/yarn/pnpm/bun is a package.json script, a
# target of make a Makefile rule, of just a recipe.
FAMILY_OF_TOOL = {
    "npm": "package",
    "yarn": "package",
    "pnpm": "package",
    "bun": "package",
    "make": "make",
    "just": "just",
}

_MAKE_RULE = re.compile(rb"^([A-Za-z0-9_.%/@-][A-Za-z0-9_.%/@ -]*?)\s*::?(?![=])(.*)$")
_JUST_RECIPE = re.compile(rb"^@?([A-Za-z_][A-Za-z0-9_-]*)(?:\s+[^:]*)?:(?![=])")


def family(path: str) -> str | None:
    """``package``, ``pyproject``, ``make`` or ``just`` for a manifest's path; None for any other."""
    name = path.rsplit("/", 1)[-1]
    if name == PACKAGE:
        return "package"
    if name == PYPROJECT:
        return "pyproject"
    if name in MAKEFILES:
        return "make"
    if name in JUSTFILES:
        return "just"
    return None


def read(path: str, data: bytes) -> dict[str, str]:
    """The scripts or targets of the manifest ``path`` holding ``data``."""
    kind = family(path)
    if kind == "package":
        return package_scripts(data)
    if kind == "pyproject":
        return pyproject_scripts(data)
    if kind == "make":
        return make_targets(data)
    if kind == "just":
        return just_recipes(data)
    return {}


def package_scripts(data: bytes) -> dict[str, str]:
    try:
        doc = json.loads(data.decode("utf-8", "replace"))
    except ValueError:
        return {}
    scripts = doc.get("scripts") if isinstance(doc, dict) else None
    if not isinstance(scripts, dict):
        return {}
    return {str(k): v if isinstance(v, str) else "" for k, v in scripts.items()}


def pyproject_scripts(data: bytes) -> dict[str, str]:
    try:
        doc = tomllib.loads(data.decode("utf-8", "replace"))
    except (tomllib.TOMLDecodeError, ValueError):
        return {}
    out: dict[str, str] = {}
    tables = [
        ("project", "scripts"),
        ("project", "gui-scripts"),
        ("tool", "poetry", "scripts"),
        ("tool", "pdm", "scripts"),
        ("tool", "poe", "tasks"),
    ]
    for keys in tables:
        node: object = doc
        for key in keys:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict):
            for name, value in node.items():
                out.setdefault(str(name), value if isinstance(value, str) else json.dumps(value, default=str))
    return out


def make_targets(data: bytes) -> dict[str, str]:
    """Targets of rules (``name: deps``), not variables (``A := b``, ``A = b: c``), special
    targets (``.PHONY``) or pattern rules (``%.o: %.c``)."""
    out: dict[str, str] = {}
    lines = data.split(b"\n")
    for i, raw in enumerate(lines):
        if not raw or raw[:1] in (b"\t", b" ", b"#"):
            continue
        m = _MAKE_RULE.match(raw)
        if m is None:
            continue
        head = m.group(1)
        if b"=" in head or head.startswith((b"define", b"ifeq", b"ifneq", b"ifdef", b"ifndef", b"include", b"export")):
            continue
        recipe = ""
        for nxt in lines[i + 1 :]:
            if nxt.startswith(b"\t"):
                recipe = nxt.strip().decode("utf-8", "replace")
                break
            if nxt.strip():
                break
        for name in head.split():
            target = name.decode("utf-8", "replace")
            if target.startswith(".") or "%" in target:
                continue
            out.setdefault(target, recipe)
    return out


def just_recipes(data: bytes) -> dict[str, str]:
    out: dict[str, str] = {}
    lines = data.split(b"\n")
    for i, raw in enumerate(lines):
        if not raw or raw[:1] in (b"\t", b" ", b"#", b"["):
            continue
        m = _JUST_RECIPE.match(raw)
        if m is None or raw.lstrip(b"@").startswith((b"set ", b"alias ", b"export ", b"import ", b"mod ")):
            continue
        recipe = ""
        for nxt in lines[i + 1 :]:
            if nxt[:1] in (b" ", b"\t") and nxt.strip():
                recipe = nxt.strip().decode("utf-8", "replace")
                break
            if nxt.strip():
                break
        out.setdefault(m.group(1).decode("utf-8", "replace"), recipe)
    return out


def changes(old: dict[str, str], new: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """What one change to a manifest did: the names it removed, and of those the ones renamed
    (``old name -> new name``: a name added in the same change that runs the same thing)."""
    removed = [n for n in old if n not in new]
    added = {n: cmd for n, cmd in new.items() if n not in old}
    renamed: dict[str, str] = {}
    for name in removed:
        cmd = old[name]
        if not cmd:
            continue
        same = [n for n, c in added.items() if c == cmd and n not in renamed.values()]
        if len(same) == 1:
            renamed[name] = same[0]
    return removed, renamed


__all__ = [
    "FAMILY_OF_TOOL",
    "changes",
    "family",
    "just_recipes",
    "make_targets",
    "package_scripts",
    "pyproject_scripts",
    "read",
]
