"""Every write goes through the write gate (issue 38 point 1): no module outside ``amr_tui/git/``
and ``services/writegate.py`` commits, moves a ref, stages or writes a repo's files.

The writers are found, not listed: in ``amr_tui/git/`` every function that runs a git command
making a commit or moving a ref (``commit-tree``, ``update-ref``), that writes
or removes a work-tree file (``atomic_write``, ``replace_checked``, ``remove_file``) or that swaps
an index in (``IndexLock.swap_in``/``install``), and every function that calls one of those,
transitively. Their public names are the writers. Then every other module of ``amr_tui`` is read:
importing a writer, calling one (by name, through a module of ``amr_tui.git``, or as a method of
``GitRepo``), or spelling one of those git commands is a side door around the gate.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "amr_tui"
GIT = ROOT / "git"
DOOR = ROOT / "services" / "writegate.py"
GIT_WRITES = {"commit-tree", "update-ref"}  # git commands that make a commit or move a ref
FILE_WRITES = {"atomic_write", "replace_checked", "remove_file", "swap_in", "install"}


def _functions(tree: ast.AST) -> Iterator[tuple[str | None, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(class name or None, function) for every function at module or class level."""
    for node in getattr(tree, "body", []):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield None, node
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield node.name, sub


def _called(fn: ast.AST) -> set[str]:
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name):
                out.add(f.id)
            elif isinstance(f, ast.Attribute):
                out.add(f.attr)
    return out


def _git_commands(fn: ast.AST) -> set[str]:
    """The git commands a function builds to run: the first word of a list literal (``["commit-tree",
    ...]``), outside the arguments of an exception it raises."""
    raised = {id(n) for r in ast.walk(fn) if isinstance(r, ast.Raise) for n in ast.walk(r)}
    return {
        str(node.elts[0].value)
        for node in ast.walk(fn)
        if isinstance(node, ast.List)
        and id(node) not in raised
        and node.elts
        and isinstance(node.elts[0], ast.Constant)
        and isinstance(node.elts[0].value, str)
    }


@functools.cache
def writers() -> tuple[set[str], set[str]]:
    """(public names of the git layer's writing functions, those of them that are methods of
    the repo classes)."""
    facts: list[tuple[str | None, str, set[str], bool]] = []  # (class, name, what it calls, writes itself)
    for path in sorted(GIT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls, fn in _functions(tree):
            called = _called(fn)
            facts.append((cls, fn.name, called, bool(_git_commands(fn) & GIT_WRITES or called & FILE_WRITES)))
        for node in ast.walk(tree):  # a method bound to a module's function: commit_changes = _commit.commit_changes
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if (
                        isinstance(item, ast.Assign)
                        and len(item.targets) == 1
                        and isinstance(item.targets[0], ast.Name)
                    ):
                        value = item.value
                        target = value.attr if isinstance(value, ast.Attribute) else getattr(value, "id", None)
                        if target is not None:
                            facts.append((node.name, item.targets[0].id, {target}, False))
    found = {name for _cls, name, _called_, writes in facts if writes} | (FILE_WRITES - {"swap_in", "install"})
    while True:  # callers of writers write too
        more = {name for _cls, name, called, _w in facts if name not in found and called & found}
        if not more:
            break
        found |= more
    public = {n for n in found if not n.startswith("_")}
    methods = {name for cls, name, _c, _w in facts if cls in ("GitRepo", "RepoHandle", "IndexLock") and name in public}
    return public, methods


def side_doors(source: str, where: str, names: set[str], methods: set[str]) -> list[str]:
    """Each place in ``source`` that imports or calls a writer, or spells a writing git command."""
    if not (
        "amr_tui.git" in source
        or "write=" in source
        or any(g in source for g in GIT_WRITES)
        or any(f".{m}(" in source for m in methods)
    ):
        return []  # nothing of git's writing here: no need to parse it
    tree = ast.parse(source)
    found: list[str] = []
    modules: set[str] = set()  # local names bound to a module of amr_tui.git
    calls: list[ast.Call] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("amr_tui.git"):
            for alias in node.names:
                if alias.name in names:
                    found.append(f"{where}:{node.lineno} imports {alias.name} from {node.module}")
                elif node.module == "amr_tui.git" and (GIT / f"{alias.name}.py").exists():
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("amr_tui.git"):
                    modules.add(alias.asname or alias.name.rsplit(".", 1)[-1])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            calls.append(node)
        elif isinstance(node, ast.Constant) and node.value in GIT_WRITES:
            found.append(f"{where}:{node.lineno} spells git {node.value}")
    for node in calls:
        assert isinstance(node.func, ast.Attribute)
        attr, owner = node.func.attr, node.func.value
        through_gate = isinstance(owner, ast.Name) and owner.id == "writegate"
        if not through_gate and (
            attr in methods or (attr in names and isinstance(owner, ast.Name) and owner.id in modules)
        ):
            found.append(f"{where}:{node.lineno} calls {ast.unparse(node.func)}")
        if attr in ("run", "text") and any(k.arg == "write" for k in node.keywords):
            found.append(f"{where}:{node.lineno} runs git to write: {ast.unparse(node)[:80]}")
    return sorted(found)


def test_the_git_layer_has_the_writers_the_gate_uses() -> None:
    names, methods = writers()
    for name in (
        "commit_files",
        "advance",
        "apply_in_worktree",
        "repair",
        "commit_changes",
        "commit_tree",
        "advance_branch",
        "make_commit",
        "set_ref",
        "fast_forward",
        "swap_ref",
        "atomic_write",
        "remove_file",
        "copy_branch",
        "rewrite_history",
    ):
        assert name in names, name
    assert {"write_files", "commit_changes", "create_branch"} <= methods
    # Objects only (no commit, no ref) and reads are not writers:
    assert not {"tree_with_files", "merge_commits", "check_ref", "current_branch", "fetch"} & names


def test_no_module_outside_the_gate_commits_or_writes_a_repo() -> None:
    names, methods = writers()
    doors = []
    for path in sorted(ROOT.rglob("*.py")):
        if path.is_relative_to(GIT) or path == DOOR:
            continue
        doors += side_doors(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)), names, methods)
    assert doors == [], "side doors around the write gate (route them through services.writegate):\n" + "\n".join(doors)


def test_the_door_check_sees_each_kind_of_side_door() -> None:
    """The check fails on each way a module could write around the gate (it can fail)."""
    names, methods = writers()
    cases = {
        "repo.write_files([ch], 'msg')": 1,
        "self.repo.commit_changes({}, 'm', None)": 1,
        "git.create_branch('x', 'HEAD')": 1,
        "from amr_tui.git.merging import commit_tree\ncommit_tree(r, t, [], 'm')": 1,
        "from amr_tui.git import gate as g\ng.commit_files(r, [], 'm')": 1,
        "from amr_tui.git.worktree import atomic_write": 1,
        "r.runner.run(['update-ref', 'refs/heads/x', 'y'], write=True)": 2,
        "from amr_tui.git.dreamrefs import set_ref": 1,
        "self.index.remove_file('repo', 'a.md')": 0,  # the search index's, not a file
        "from amr_tui.git.merging import tree_with_files\ntree_with_files(r, t, {})": 0,
    }
    for source, n in cases.items():
        assert len(side_doors(source, "case", names, methods)) == n, source
