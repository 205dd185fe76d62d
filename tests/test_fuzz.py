"""Fuzzing, the short run. ``bench/fuzz_long.py`` is the million-input run.

Hypothesis over inputs built from the format's and hostile text's fragments (and raw bytes):
the parser never raises and round-trips byte for byte; the merge (the merge driver's core)
never raises, keeps every line either side inserted and passes one-sided changes through; the
``amr merge-driver`` command survives hostile files the way git calls it.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amr_tui.core.format.parser import parse, serialize
from amr_tui.core.merge.three_way import merge3
from tests.examples import examples

_spec = importlib.util.spec_from_file_location("fuzz_long", Path(__file__).parent.parent / "bench" / "fuzz_long.py")
fuzz_long = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz_long)

FAST = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
hostile_bytes = st.one_of(
    st.binary(max_size=300), st.lists(st.sampled_from(fuzz_long.FRAGMENTS), max_size=60).map(b"".join)
)
paths = st.sampled_from(fuzz_long.PATHS)


@FAST
@given(hostile_bytes, paths)
def test_parser_never_raises_and_round_trips(data: bytes, path: str) -> None:
    fuzz_long.check_parse(data, path)
    assert serialize(parse(data, path)) == data


@FAST
@given(hostile_bytes, hostile_bytes, hostile_bytes, paths)
def test_merge_never_raises_on_any_bytes(base: bytes, ours: bytes, theirs: bytes, path: str) -> None:
    result = merge3(base, ours, theirs, path)
    assert isinstance(result.merged, bytes)
    assert merge3(base, ours, theirs, path).merged == result.merged  # deterministic


@FAST
@given(st.randoms(use_true_random=False))
def test_merge_keeps_every_added_line(rng) -> None:
    fuzz_long.check_merge_structured(fuzz_long.make_merge_structured(rng))


def test_the_long_run_itself_on_a_small_budget() -> None:
    report = fuzz_long.run(inputs=3000, seed=5)
    assert report["failures"] == 0 and report["inputs"] == 3000, report


def test_merge_driver_command_on_hostile_files(tmp_path: Path) -> None:
    """As git runs it: %O %A %B %L %P; the result is written to %A, exit 0 clean, 1 conflict."""
    cases = [
        (b"- a\r\n", b"- a\r\n- ours \x1b]52;c;eA==\x07\r\n", b"- a\r\n- theirs [@click=app.quit]\r\n"),
        (b"\xef\xbb\xbf- caf\xe9\n", b"\xef\xbb\xbf- caf\xe9\n- ours\n", b"\xef\xbb\xbf- caf\xe9 edited\n"),
        (b"", b"\x00\x01binary\n", b"- text\n"),
        (b"- x", b"- x\n- y", b"- z\n- x"),
    ]
    for i, (base, ours, theirs) in enumerate(cases):
        names = [tmp_path / f"{i}-{n}" for n in ("O", "A", "B")]
        for p, data in zip(names, (base, ours, theirs)):
            p.write_bytes(data)
        res = subprocess.run(
            [sys.executable, "-m", "amr_tui", "merge-driver", *map(str, names), "7", "notes/\x1b[2J.md"],
            capture_output=True,
            timeout=60,
        )
        assert res.returncode in (0, 1), res.stderr
        assert b"Traceback" not in res.stderr
        merged = names[1].read_bytes()
        for line in ours.splitlines() + theirs.splitlines():
            if line and line not in base.splitlines():
                assert line in merged or b"binary" in line, (i, line, merged)
