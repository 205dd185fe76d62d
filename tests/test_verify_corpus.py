"""Precision and recall of evidence extraction and of verdicts on the labelled corpus
(``tests/verify_corpus.py``), on the part the extractor was tuned on and on the sealed part,
separately: a "gone" must be one a reader agrees with. ``bench/verify_precision.py`` prints the
figures; docs/verify.md quotes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.verify_measure import measure
from tests.verifyscenario import build_code_repo


@pytest.fixture(scope="module")
def code(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_code_repo(tmp_path_factory.mktemp("corpus") / "payments")


@pytest.mark.parametrize("part", ["tune", "sealed"])
def test_extraction_and_verdicts_are_precise_on_each_part(part: str, code: Path, tmp_path: Path) -> None:
    m = measure(tmp_path / part, code, part)
    assert m.extraction.precision >= 0.95 and m.extraction.recall >= 0.9, (str(m.extraction), m.misses)
    assert m.verdict_right >= 0.95 * m.verdict_total, m.misses
    assert m.stale.precision >= 0.95 and m.stale.recall >= 0.9, (str(m.stale), m.misses)
    assert m.entries.precision >= 0.95, (str(m.entries), m.misses)
    assert m.extraction.tp >= 50  # the part is not empty: every format's lines were read
