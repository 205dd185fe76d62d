"""Precision and recall of the possible-contradiction check (AMR033) on planted pairs.

tests/data/contradictions.json holds pairs that contradict (a value differs) and close
non-pairs; each is checked with ``core.lint.contradictions.contradiction`` and, for blocking,
all texts together with ``find_contradictions``. Also times ``find_contradictions`` on a
synthetic 100,000-entry repo.

    .venv/bin/python bench/contradictions.py
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from amr_tui.core.lint.contradictions import contradiction, find_contradictions  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "contradictions.json"


def measure() -> dict[str, float]:
    data = json.loads(DATA.read_text("utf-8"))
    pairs, non = data["pairs"], data["non_pairs"]
    tp = sum(1 for a, b in pairs if contradiction(a, b) is not None)
    fp = sum(1 for a, b in non if contradiction(a, b) is not None)
    # The blocked search over every text at once must find the same pairs.
    texts = [t for a, b in pairs + non for t in (a, b)]
    found = {(p.a, p.b) for p in find_contradictions(texts)}
    btp = sum(1 for k in range(len(pairs)) if (2 * k, 2 * k + 1) in found)
    bfp = sum(1 for k in range(len(pairs), len(pairs) + len(non)) if (2 * k, 2 * k + 1) in found)
    return {
        "pairs": len(pairs),
        "non_pairs": len(non),
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / len(pairs),
        "blocked_precision": btp / (btp + bfp) if btp + bfp else 1.0,
        "blocked_recall": btp / len(pairs),
    }


def speed(n: int = 100_000) -> tuple[float, int]:
    rnd = random.Random(7)
    vocab = [f"w{k}" for k in range(20_000)]
    texts = [" ".join(rnd.choice(vocab) for _ in range(rnd.randint(5, 14))) for _ in range(n)]
    texts[10] = "hero image format is JPEG for the landing page"
    texts[n - 10] = "hero image format is AVIF for the landing page"
    t0 = time.perf_counter()
    found = find_contradictions(texts)
    return time.perf_counter() - t0, len(found)


def main() -> None:
    m = measure()
    print(f"planted pairs: {m['pairs']}, non-pairs: {m['non_pairs']}")
    print(f"precision {m['precision']:.3f}  recall {m['recall']:.3f}  (pair by pair)")
    print(f"precision {m['blocked_precision']:.3f}  recall {m['blocked_recall']:.3f}  (all texts, blocked)")
    if "--no-speed" not in sys.argv:
        secs, hits = speed()
        print(f"100,000 entries: {secs:.2f} s, {hits} pair(s) found")


if __name__ == "__main__":
    main()
