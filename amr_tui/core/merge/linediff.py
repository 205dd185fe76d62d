"""A two-way diff of sequences (Myers' O(ND) algorithm), the building block of amr's merges.

Pure: no I/O. Items are any hashable values (amr diffs line *tokens*, see core.merge).
``diff_hunks(a, b)`` returns the places where ``a`` must change to become ``b``, as
``Hunk(a_start, a_end, b_start, b_end)``: ``a[a_start:a_end]`` is replaced by ``b[b_start:b_end]``.
Between hunks the two sequences are equal, item for item.

The result is a shortest edit script when the edit distance is at most ``max_cost``. Past that
(two unrelated files of thousands of lines) the middle is reported as one replacement, after
the common prefix and suffix are taken off: still correct, just coarse, and the time stays
bounded. The result is deterministic: the same input always gives the same hunks.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import NamedTuple

DEFAULT_MAX_COST = 1000


class Hunk(NamedTuple):
    a_start: int
    a_end: int
    b_start: int
    b_end: int


def _intern(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[list[int], list[int]]:
    ids: dict[Hashable, int] = {}
    return [ids.setdefault(x, len(ids)) for x in a], [ids.setdefault(x, len(ids)) for x in b]


def matches(a: Sequence[Hashable], b: Sequence[Hashable], max_cost: int = DEFAULT_MAX_COST) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` with ``a[i] == b[j]`` forming a longest common subsequence (in order)."""
    x, y = _intern(a, b)
    n, m = len(x), len(y)
    pre = 0
    while pre < n and pre < m and x[pre] == y[pre]:
        pre += 1
    suf = 0
    while suf < n - pre and suf < m - pre and x[n - 1 - suf] == y[m - 1 - suf]:
        suf += 1
    out = [(i, i) for i in range(pre)]
    mid = _myers(x[pre : n - suf], y[pre : m - suf], max_cost)
    out.extend((i + pre, j + pre) for i, j in mid)
    out.extend((n - suf + k, m - suf + k) for k in range(suf))
    return out


def _myers(a: list[int], b: list[int], max_cost: int) -> list[tuple[int, int]]:
    n, m = len(a), len(b)
    if not n or not m:
        return []
    limit = min(n + m, max_cost)
    offset = limit + 1
    v = [0] * (2 * limit + 3)
    trace: list[list[int]] = []  # trace[d] = v[offset-d .. offset+d] before step d
    for d in range(limit + 1):
        trace.append(v[offset - d : offset + d + 1])
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
                x = v[offset + k + 1]
            else:
                x = v[offset + k - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            v[offset + k] = x
            if x >= n and y >= m:
                return _backtrack(a, b, trace, d)
    return []  # too far apart: no matches in the middle (one replacement)


def _backtrack(a: list[int], b: list[int], trace: list[list[int]], depth: int) -> list[tuple[int, int]]:
    x, y = len(a), len(b)
    pairs: list[tuple[int, int]] = []
    for d in range(depth, 0, -1):
        prev = trace[d]  # indices k = -d..d map to prev[k + d]; values from step d-1
        k = x - y

        def at(kk: int, prev: list[int] = prev, d: int = d) -> int:
            return prev[kk + d]

        if k == -d or (k != d and at(k - 1) < at(k + 1)):
            pk = k + 1
            px = at(pk)
            start_x = px  # came down: an insertion from b
        else:
            pk = k - 1
            px = at(pk)
            start_x = px + 1  # came right: a deletion from a
        start_y = start_x - k
        while x > start_x and y > start_y:
            x -= 1
            y -= 1
            pairs.append((x, y))
        x, y = px, px - pk
    while x > 0 and y > 0:
        x -= 1
        y -= 1
        pairs.append((x, y))
    pairs.reverse()
    return pairs


def hunks_from_matches(n: int, m: int, pairs: list[tuple[int, int]]) -> list[Hunk]:
    out: list[Hunk] = []
    i = j = 0
    for pi, pj in [*pairs, (n, m)]:
        if pi > i or pj > j:
            out.append(Hunk(i, pi, j, pj))
        i, j = pi + 1, pj + 1
    return out


def diff_hunks(a: Sequence[Hashable], b: Sequence[Hashable], max_cost: int = DEFAULT_MAX_COST) -> list[Hunk]:
    """Where ``a`` and ``b`` differ, as hunks in order (see the module docstring)."""
    return hunks_from_matches(len(a), len(b), matches(a, b, max_cost))
