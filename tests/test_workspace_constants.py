"""services.workspace keeps its own copies of two core names (so `amr` starts without the parser)."""

from amr_tui.core.format import parser as fmt
from amr_tui.core.lint import repo as lint
from amr_tui.services import workspace


def test_copies_match_core():
    assert workspace.MEMORY_FILE == lint.MEMORY_FILE
    for path in ("a.md", "A.MD", "b.markdown", "c.txt", "MEMORY.md", "x.md.bak", ""):
        assert workspace.is_markdown(path) == fmt.is_markdown(path)
