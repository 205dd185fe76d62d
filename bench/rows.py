"""One result row of the harness, and small timing helpers shared by the figure modules."""

from __future__ import annotations

import gc
import statistics
import subprocess
import time
from dataclasses import asdict, dataclass


@dataclass
class Row:
    figure: str
    value: float | None  # None: skipped or pending
    unit: str  # "ms", "s", "MB", "x" ...
    baseline: float | None = None
    baseline_what: str = ""
    target: str = ""  # "<= 30 ms", "ratio <= 1.3" ...
    met: bool | None = None  # None when there is no target or no value
    ratio: float | None = None  # value / baseline
    note: str = ""

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def row(
    figure: str,
    value: float | None,
    unit: str,
    *,
    baseline: float | None = None,
    baseline_what: str = "",
    limit: float | None = None,
    ratio_limit: float | None = None,
    note: str = "",
) -> Row:
    """A row; ``limit`` is a target on the value, ``ratio_limit`` a target on value/baseline."""
    ratio = round(value / baseline, 2) if value is not None and baseline else None
    target, met = "", None
    if limit is not None:
        target = f"< {limit:g} {unit}"
        met = value is not None and value < limit
    elif ratio_limit is not None:
        target = f"ratio <= {ratio_limit:g}"
        met = ratio is not None and ratio <= ratio_limit
    return Row(figure, value, unit, baseline, baseline_what, target, met if value is not None else None, ratio, note)


def pending(figure: str, why: str, target: str = "") -> Row:
    return Row(figure, None, "", target=target, note=f"pending: {why}")


def skipped(figure: str, why: str, target: str = "") -> Row:
    return Row(figure, None, "", target=target, note=f"skipped: {why}")


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[max(0, min(len(s) - 1, round(p / 100 * (len(s) - 1))))]


def timed(fn, *args, **kwargs) -> tuple[float, object]:
    """(wall seconds, result) with the garbage collector quiet during the call."""
    gc.collect()
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t, out


def run_process(argv: list[str], cwd: str | None = None, stdin: bytes | None = None) -> tuple[float, int, bytes]:
    """Wall seconds of one process, start to exit; (seconds, exit code, stdout)."""
    t = time.perf_counter()
    res = subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True)
    return time.perf_counter() - t, res.returncode, res.stdout


def best_of(n: int, fn) -> float:
    """The median of ``n`` calls of ``fn() -> seconds``."""
    return median([fn() for _ in range(n)])
