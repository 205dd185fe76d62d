"""Diffs people can read: the words that changed inside an entry are highlighted, and a long
entry wraps onto more lines instead of being cut (core/diff/words.py, widgets/side_by_side.py)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st
from textual.app import App, ComposeResult

from amr_tui.app import AmrApp
from amr_tui.core.diff.align import Row
from amr_tui.core.diff.words import word_changes
from amr_tui.widgets.side_by_side import SideBySide


def marked(text: str, spans: list[tuple[int, int]]) -> list[str]:
    return [text[a:b] for a, b in spans]


def test_the_changed_value_is_what_is_marked():
    old = "Hero images are JPEG at 80% quality"
    new = "Hero images are AVIF at 80% quality, served from the CDN"
    a, b = word_changes(old, new)
    assert marked(old, a) == ["JPEG"] and marked(new, b) == ["AVIF", ", served from the CDN"]
    assert word_changes("same text", "same text") == ([], [])
    a, b = word_changes("", "a new entry")
    assert a == [] and marked("a new entry", b) == ["a new entry"]


_WORDS = st.lists(st.sampled_from(["redis", "port", "6379", "is", "the", "cache", ",", "JPEG", "AVIF"]), max_size=12)


@given(_WORDS.map(" ".join), _WORDS.map(" ".join))
def test_what_is_not_marked_is_the_same_on_both_sides(old, new):
    a, b = word_changes(old, new)
    for text, spans in ((old, a), (new, b)):
        assert all(0 <= s < e <= len(text) for s, e in spans)
        assert all(x[1] < y[0] for x, y in zip(spans, spans[1:], strict=False))  # sorted, apart

    def rest(text: str, spans: list[tuple[int, int]]) -> list[str]:
        keep, at = [], 0
        for s, e in spans:
            keep.append(text[at:s])
            at = e
        keep.append(text[at:])
        return re.findall(r"\w+|[^\w\s]+", " ".join(keep))

    assert rest(old, a) == rest(new, b)
    if old.split() == new.split():
        assert (a, b) == ([], [])


LONG_OLD = (
    "The production Postgres password rotates every 90 days and the rotation job is rotate-db-creds in "
    "Vault, owned by the platform team"
)
LONG_NEW = LONG_OLD.replace("90 days", "30 days")


class Host(App[None]):
    # the app's layout; the highlight is a component class of SideBySide's DEFAULT_CSS
    CSS_PATH = AmrApp.CSS_PATH + AmrApp.LATER_CSS_PATH

    def compose(self) -> ComposeResult:
        yield SideBySide(id="sbs")


async def test_a_long_entry_wraps_and_its_changed_words_are_marked():
    app = Host()
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(SideBySide)
        view.set_rows(
            [
                Row(1, 1, "# Database", "# Database", "context"),
                Row(3, 3, LONG_OLD, LONG_NEW, "reworded", "c1"),
                Row(4, 4, "- short", "- short", "unchanged"),
            ]
        )
        await pilot.pause()
        lines = [view.render_line(y) for y in range(8)]
        texts = ["".join(seg.text for seg in strip) for strip in lines]
        half = (80 - 3) // 2
        left = "".join(t[:half].rstrip() + " " for t in texts[1:-1] if t.strip())
        assert "\u2026" not in "".join(texts)  # nothing is cut
        assert " ".join(LONG_OLD.split()) in " ".join(left.split())  # the whole old text, over several lines
        assert texts[1][half : half + 3].strip() == "\u270e" and texts[2][half : half + 3].strip() == ""
        word = view.get_component_rich_style("side-by-side--word", partial=True)
        styled = [seg for strip in lines for seg in strip if seg.style is not None and seg.style.reverse]
        assert word.reverse and {seg.text for seg in styled} >= {"90", "30"}
        # the cursor is a row: moving down from the wrapped entry lands on the next entry
        view.cursor = 1
        view.action_move(1)
        assert view.row is not None and view.row.old_text == "- short"


def test_the_conflict_views_show_which_words_differ():
    from amr_tui.widgets.safe import word_diff

    shown = word_diff(
        "# Deploy\n- Deploys go through ArgoCD\n- Staging on every merge",
        "# Deploy\n- Deploys go through Flux\n- Staging on every merge",
        "bold reverse",
        "underline",
    )
    assert shown.plain == "- - Deploys go through ArgoCD\n+ - Deploys go through Flux"
    styled = {shown.plain[s.start : s.end]: str(s.style) for s in shown.spans}
    assert styled == {"ArgoCD": "bold reverse", "Flux": "underline"}
    assert word_diff("same", "same", "b", "u").plain == "(no line differs)"
    hostile = word_diff("- a \x1b[2J b", "- a \u202e b", "b", "u").plain
    assert "\x1b" not in hostile and "\u202e" not in hostile  # made visible, never sent raw
