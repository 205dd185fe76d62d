"""Issue 25 point 7: wide (CJK) text wraps by cell width with the bullet on the first row, and no
wide character is split across rows."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from amr_tui.widgets.entry_view import wrap_points


@dataclass
class Shown:
    pieces: list[tuple[str, str]]


def rows(text: str, width: int) -> list[str]:
    """The rows ``text`` is shown in, cut at the cell offsets ``wrap_points`` gives."""
    points = [*wrap_points(Shown([(text, "")]), width), cell_len(text)]
    out, at, cells = [], 0, 0
    chars = list(text)
    for end in points[1:]:
        row = ""
        while at < len(chars) and cells + cell_len(chars[at]) <= end:
            row += chars[at]
            cells += cell_len(chars[at])
            at += 1
        out.append(row)
    return out


def test_a_long_cjk_run_starts_on_the_bullets_row() -> None:
    text = "\u2022 " + "\u8fd9\u662f\u4e00\u4e2a\u5f88\u957f\u7684\u4e2d\u6587\u53e5\u5b50" * 3
    shown = rows(text, 20)
    assert shown[0].startswith("\u2022 \u8fd9") and cell_len(shown[0]) == 20
    assert "".join(shown) == text


@given(st.text(alphabet="\u4e00\u4e01\u4e02ab \u3042", min_size=1, max_size=80), st.integers(2, 30))
def test_no_row_is_wider_than_the_view_and_nothing_is_lost(text: str, width: int) -> None:
    shown = rows(text, width)
    assert "".join(shown) == text
    assert all(cell_len(r.rstrip()) <= width for r in shown)
