"""The session keeps a parsed Document only for MEMORY.md and the files opened last
(``KEEP_DOCS``); everything else is known by its facts and read again when asked for."""

from __future__ import annotations

from amr_tui.services.session.session import KEEP_DOCS, Session
from amr_tui.services.workspace import Mount


def test_backlinks_read_the_linking_files_without_pushing_the_open_ones_out(make_repo):
    n = KEEP_DOCS + 16
    files = {"MEMORY.md": "# Memory\n\n## Index\n- [[hub]]\n", "hub.md": "# Hub\n\n- The hub\n"}
    files.update({f"notes/n{i}.md": f"# N{i}\n\n- Fact {i} about [[hub]]\n" for i in range(n)})
    root = make_repo("memory", files)
    s = Session([Mount("memory", root)])
    s.load()
    state = s.repos["memory"]
    assert set(state.docs) == {"MEMORY.md"}  # parsed once for the index and the lint, then let go
    s.open("memory", "notes/n3.md")
    got = s.backlinks("memory", "hub.md")
    assert len(got) == n + 1 and {b.text for b in got} >= {"Fact 7 about [[hub]]", "[[hub]]"}
    assert set(state.docs) == {"MEMORY.md", "notes/n3.md"}  # the linking files were read, not kept
    for i in range(KEEP_DOCS + 4):  # opening keeps the newest KEEP_DOCS, MEMORY.md always
        s.document("memory", f"notes/n{i}.md")
    assert len(state.docs) == KEEP_DOCS and "MEMORY.md" in state.docs
    assert "notes/n0.md" not in state.docs and f"notes/n{KEEP_DOCS + 3}.md" in state.docs
