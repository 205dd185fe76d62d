"""Rewrite the expected ``.json`` of conformance cases from the reference parser.

FOR REVIEWED CHANGES ONLY. The expected files are the specification, not a snapshot: a
difference between them and the parser is a bug until someone decides otherwise. Use this
script after changing a decision in docs/format.md (or adding a case), then read every changed
``.json`` against the doc before committing it (``git diff tests/conformance``).

    .venv/bin/python tests/conformance/regenerate.py              # only cases without a .json
    .venv/bin/python tests/conformance/regenerate.py NAME ...     # these cases
    .venv/bin/python tests/conformance/regenerate.py --all        # every case (review the diff!)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from test_conformance import dumps, load_cases, parse_json  # noqa: E402


def main(argv: list[str]) -> int:
    every = "--all" in argv
    wanted = {a for a in argv if not a.startswith("--")}
    cases = load_cases()
    unknown = wanted - {c.name for c in cases}
    if unknown:
        print(f"no such case: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    for case in cases:
        if not (every or case.name in wanted or (not wanted and not case.expected.exists())):
            continue
        text = dumps(parse_json(case.input.read_bytes(), case.path))
        old = case.expected.read_text(encoding="ascii") if case.expected.exists() else None
        if old != text:
            case.expected.write_text(text, encoding="ascii")
            print(f"{'wrote' if old is None else 'CHANGED'} {case.expected.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
