"""Character spans ``(start, end)``: one helper the diff and the credential check share. Pure."""

from __future__ import annotations

from collections.abc import Iterable


def join_touching(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` (sorted by start) with the ones that overlap or touch joined into one."""
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out
