"""A reloaded file keeps the layout of unchanged lines, and every line reads as if laid out afresh."""

from __future__ import annotations

from textual.app import App

from amr_tui.core.format.links import LinkState
from amr_tui.core.format.parser import parse
from amr_tui.widgets.entry_view import EntryView

BEFORE = (
    "# Notes\n\n- Redis on 6380 see [[infra/redis]] [source: https://example.com/s/1; added: 2026-01-02]\n"
    "- Alice likes tea [source: https://example.com/s/2]\n  - nested detail\n- [[people]] and [[infra/redis]]\n"
)
AFTER = (
    "# Notes\n\n- A new first fact [added: 2026-03-04]\n"
    "- Redis on 6380 see [[infra/redis]] [source: https://example.com/s/1; added: 2026-01-02]\n"
    "- Alice likes tea [source: https://example.com/s/2]\n- nested detail\n- [[people]] and [[infra/redis]]\n"
)


class Host(App[None]):
    def compose(self):
        yield EntryView(id="view")


def _states(doc, ok: set[str]) -> dict[tuple[int, int], LinkState]:
    return {(lk.line, lk.start): LinkState.OK if lk.target in ok else LinkState.BROKEN for lk in doc.links}


async def test_reload_reuses_only_what_reads_the_same():
    before, after = parse(BEFORE.encode(), "n.md"), parse(AFTER.encode(), "n.md")
    app = Host()
    async with app.run_test(size=(100, 30)):
        view = app.query_one(EntryView)
        view.set_document(before, _states(before, {"infra/redis"}), {})
        kept = dict(view._displays)
        # a line inserted above, a sub-bullet now top level, [[people]] now exists
        view.set_document(after, _states(after, {"infra/redis", "people"}), {}, keep_cursor=True)
        reused = [view._line_display(i) for i in range(len(after.lines))]
        assert any(any(d is old for old in kept.values()) for d in reused)  # the layout was kept where it could be
        view._displays.clear()
        view._reuse = {}
        fresh = [view._line_display(i) for i in range(len(after.lines))]
        assert reused == fresh
