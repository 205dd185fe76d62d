"""The conformance suite: every case in tests/conformance/cases, read by the reference parser.

A case is ``NAME.md`` (the input bytes, parsed as ``NAME.md``) or ``NAME.input`` plus
``NAME.path`` (a path such as ``billing/q.sql`` when the name or the bytes are odd), and
``NAME.json``: the exact output of ``amr parse --json`` for it. Every input must also round-trip
byte-identically. tests/conformance/README.md says how another implementation runs the suite.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from amr_tui.core.format.jsonout import entries_json
from amr_tui.core.format.parser import parse, serialize

CASES_DIR = Path(__file__).parent / "conformance" / "cases"


@dataclass(frozen=True)
class Case:
    name: str
    input: Path
    path: str  # the path the file is parsed as (its suffix decides Markdown or not)
    expected: Path


def parse_json(data: bytes, path: str) -> list[dict]:
    """Exactly what ``amr parse --json`` prints for a file at ``path`` holding ``data``."""
    return entries_json(parse(data, path))


def dumps(rows: list[dict]) -> str:
    """The text of an expected file: the CLI's formatting (2-space indent, ASCII escapes)."""
    return json.dumps(rows, ensure_ascii=True, indent=2) + "\n"


def load_cases(directory: Path = CASES_DIR) -> list[Case]:
    cases = []
    for p in sorted(directory.iterdir()):
        if p.suffix == ".md":
            cases.append(Case(p.stem, p, p.name, p.with_suffix(".json")))
        elif p.suffix == ".input":
            path = p.with_suffix(".path").read_text(encoding="utf-8").strip()
            cases.append(Case(p.stem, p, path, p.with_suffix(".json")))
    return cases


CASES = load_cases()


def test_suite_is_complete() -> None:
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)), "a case name is used twice"
    assert len(CASES) >= 60
    for case in CASES:
        assert case.expected.exists(), f"{case.name}: no expected .json"
    known = (
        {c.input.name for c in CASES}
        | {c.expected.name for c in CASES}
        | {c.input.with_suffix(".path").name for c in CASES if c.input.suffix == ".input"}
    )
    stray = sorted(p.name for p in CASES_DIR.iterdir() if p.name not in known)
    assert stray == [], f"files that belong to no case: {stray}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case) -> None:
    data = case.input.read_bytes()
    expected_text = case.expected.read_text(encoding="ascii")
    got = parse_json(data, case.path)
    assert got == json.loads(expected_text)
    assert dumps(got) == expected_text  # byte-identical to the CLI's output


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_round_trips(case: Case) -> None:
    data = case.input.read_bytes()
    assert serialize(parse(data, case.path)) == data
