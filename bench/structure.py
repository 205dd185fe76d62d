"""Structure figures for amr_tui: import cycles between siblings, functions with local imports.

    .venv/bin/python bench/structure.py [--package amr_tui]

Cycles are counted the way import-linter's ``acyclic_siblings`` contract finds them (grimp's
cycle breakers between the children of every package, at every depth): a package whose children
import each other in a loop needs at least one import removed, and each such import is counted.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import grimp


def cycle_breakers(package: str) -> dict[str, set[tuple[str, str]]]:
    graph = grimp.build_graph(package)
    out: dict[str, set[tuple[str, str]]] = {}

    def walk(parent: str) -> None:
        children = graph.find_children(parent)
        if len(children) >= 2:
            found = graph.nominate_cycle_breakers(parent)
            if found:
                out[parent] = {(str(a), str(b)) for a, b in found}
        for child in sorted(children):
            walk(child)

    walk(package)
    return out


def local_imports(root: Path) -> list[tuple[str, str]]:
    """(module path, function name) for every function that has an import statement in its body."""
    found: list[tuple[str, str]] = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                own = [
                    n
                    for n in ast.walk(node)
                    if isinstance(n, (ast.Import, ast.ImportFrom))
                    and not (isinstance(n, ast.ImportFrom) and n.module == "__future__")
                ]
                if own:
                    found.append((str(path), node.name))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="amr_tui")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(Path.cwd()))
    breakers = cycle_breakers(args.package)
    total = sum(len(v) for v in breakers.values())
    print(f"packages with a cycle among their children: {len(breakers)}")
    print(f"imports that would have to go to break every cycle: {total}")
    for parent, imports in sorted(breakers.items()):
        print(f"  {parent}: {len(imports)}")
        if args.verbose:
            for importer, imported in sorted(imports):
                print(f"      {importer} -> {imported}")
    root = Path(__import__(args.package).__file__).parent
    funcs = local_imports(root)
    print(f"functions with an import inside: {len(funcs)}")
    modules = sorted({Path(p).name for p, _ in funcs})
    print(f"  in {len(modules)} modules")
    files = list(root.rglob("*.py"))
    print(f"modules: {len(files)}; lines: {sum(len(f.read_text().splitlines()) for f in files)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
