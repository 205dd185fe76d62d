"""core.paths is the one source of the path rules, and each rule reads paths as the copies it replaced did."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from amr_tui.core import paths

ROOT = Path(__file__).resolve().parent.parent
NAMES = (
    "a.md",
    "A.MD",
    "b.markdown",
    "B.Markdown",
    "c.txt",
    "MEMORY.md",
    "x.md.bak",
    "",
    ".md",
    ".hidden.md",
    "dir.md/file",
    "notes",
    "v1.2",
    "a/b",
    ".amr/forgotten.md",
    ".AMR/forgotten.md",
    "İ.md",
    "notes.MD",
)
parts = st.text(alphabet=st.sampled_from("aZ.İ/-_ mMdDkK"), max_size=12)


def test_it_imports_nothing():
    tree = ast.parse((ROOT / "amr_tui" / "core" / "paths.py").read_text())
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]


@given(parts)
def test_each_rule_reads_a_path_as_the_copies_it_replaced(name):
    for path in (name, *NAMES):
        assert paths.is_markdown(path) == path.lower().endswith((".md", ".markdown"))
        assert paths.has_md_suffix(path) == path.lower().endswith(".md")
        assert paths.is_tombstone_path(path) == (path == ".amr/forgotten.md")
        assert paths.in_amr_folder(path) == path.startswith(".amr/")
        # services.session.editing.create_file and rename_file, before
        known = (".md", ".markdown", ".sql", ".sh", ".py", ".txt", ".json", ".yaml", ".yml", ".toml")
        last_has_dot = "." in path.rsplit("/", 1)[-1]
        created = path + ".md" if not path.lower().endswith(known) and not last_has_dot else path
        renamed = path + ".md" if not path.lower().endswith((".md", ".markdown")) and not last_has_dot else path
        assert paths.with_md_suffix(path) == created == renamed


def test_the_names():
    assert paths.MEMORY_FILE == "MEMORY.md"
    assert paths.TOMBSTONE_PATH == ".amr/forgotten.md" and paths.TOMBSTONE_PATH.startswith(paths.AMR_FOLDER)
