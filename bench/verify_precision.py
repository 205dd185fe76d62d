"""Precision and recall of ``amr verify`` on the labelled corpus, per part (tune, sealed).

    python bench/verify_precision.py

Builds the scenario's code repo in a temporary folder, writes each part's records in every memory
format (tests/verify_measure.py) and prints extraction, verdict and stale-flag figures.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.verify_measure import measure  # noqa: E402
from tests.verifyscenario import build_code_repo  # noqa: E402


def main() -> None:
    os.environ.setdefault("AMR_NO_CACHE", "1")
    with tempfile.TemporaryDirectory() as tmp:
        code = build_code_repo(Path(tmp) / "payments")
        for part in ("tune", "sealed"):
            m = measure(Path(tmp) / part, code, part)
            print(f"{part}:")
            print(f"  evidence extraction: {m.extraction}")
            print(f"  verdicts right: {m.verdict_right} of {m.verdict_total}")
            print(f"  stale flags (gone/moved): {m.stale}")
            print(f"  entries flagged: {m.entries}")
            for miss in m.misses:
                print(f"    {miss}")


if __name__ == "__main__":
    main()
