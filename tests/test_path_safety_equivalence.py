"""workspace.path_is_safe (string-based, for speed) decides exactly as the pathlib version did."""

from __future__ import annotations

import os
from pathlib import Path

from amr_tui.services.workspace import path_is_safe, read_bytes


def _reference(root: Path, rel: str) -> bool:
    if not rel or "\0" in rel or rel.startswith(("/", "\\")) or (len(rel) > 1 and rel[1] == ":"):
        return False
    parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts or any(p.rstrip(" .").casefold() == ".git" for p in parts):
        return False
    root_real = Path(root).resolve()
    try:
        real = root_real.joinpath(*parts).resolve(strict=False)
    except (OSError, RuntimeError):
        return False
    if real == root_real or not real.is_relative_to(root_real):
        return False
    return not any(p.rstrip(" .").casefold() == ".git" for p in real.relative_to(root_real).parts)


def test_same_answers(tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text("- x\n")
    root = tmp_path / "repo"
    (root / "notes" / "deep").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "notes" / "a.md").write_text("- a\n")
    (root / "notes" / "deep" / "b.md").write_text("- b\n")
    os.symlink(outside, root / "out")
    os.symlink(root / "notes", root / "inside")
    os.symlink(root / ".git", root / "gitlink")
    os.symlink(root / "loop1", root / "loop2")
    os.symlink(root / "loop2", root / "loop1")
    os.symlink("notes/a.md", root / "alias.md")
    via = tmp_path / "via"
    os.symlink(root, via)
    rels = [
        "notes/a.md",
        "notes/deep/b.md",
        "out/x.md",
        "inside/a.md",
        "gitlink/config",
        "loop1",
        "loop2/x",
        "alias.md",
        "missing.md",
        "notes/../notes/a.md",
        "./notes/a.md",
        "notes//a.md",
        ".git/config",
        ".GIT./x",
        "notes/.git",
        "",
        "/etc/passwd",
        "C:x",
        "a\0b",
        ".",
        "notes",
        "notes\\a.md",
        "x/..",
        "\u00e9t\u00e9.md",
        "sp ace.md",
    ]
    for base in (root, via):
        for rel in rels:
            assert path_is_safe(base, rel) == _reference(base, rel), (base, rel)
    (root / ".git" / "config").write_text("[core]\n")
    (root / "notes" / ".git").write_text("gitdir: elsewhere\n")
    for base in (root, via):
        checked: dict[str, bool] = {}
        for rel in rels * 2:  # the second pass answers from the folder cache
            assert read_bytes(base, rel, checked_dirs=checked) == read_bytes(base, rel), (base, rel)
