"""services.workspace reads the path rules from core.paths, as the parser and lint do: the same answers."""

from amr_tui.core.format import parser as fmt
from amr_tui.core.lint import repo as lint
from amr_tui.services import workspace


def test_copies_match_core():
    assert workspace.MEMORY_FILE == lint.MEMORY_FILE
    for path in ("a.md", "A.MD", "b.markdown", "c.txt", "MEMORY.md", "x.md.bak", ""):
        assert workspace.is_markdown(path) == fmt.is_markdown(path)
