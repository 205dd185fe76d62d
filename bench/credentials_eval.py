"""Precision and recall of the credential detector on the two case sets of issue 38.

    python bench/credentials_eval.py [--baseline REV] [--show tuning|sealed]

``tests/data/credentials_tuning.json`` is the set the detector was tuned on;
``tests/data/credentials_sealed.json`` was written before the detector changed and never used to
tune it. A positive case counts as found when ``find_secrets`` reports something and
``redact_secrets`` leaves none of the case's listed credential strings; a negative case is a false
alarm when ``find_secrets`` reports anything. ``--baseline REV`` adds the same figures for
``amr_tui/core/secrets.py`` as it was at git revision REV. ``--show`` lists the cases a set gets
wrong (do not use it on the sealed set while tuning).
"""

from __future__ import annotations

import argparse
import json
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

SETS = {
    "tuning": ROOT / "tests/data/credentials_tuning.json",
    "sealed": ROOT / "tests/data/credentials_sealed.json",
    "fresh": ROOT / "tests/data/credentials_fresh.json",
    # Issue 39: documentation and tutorials (placeholders, sample tokens, lab defaults) and token
    # shapes of more services; every third case sealed before the detector changed for them.
    "docs-tuning": ROOT / "tests/data/credentials_docs_tuning.json",
    "docs-sealed": ROOT / "tests/data/credentials_docs_sealed.json",
}


def cases(name: str) -> list[dict[str, Any]]:
    data = json.loads(SETS[name].read_text(encoding="utf-8"))
    return list(data["cases"])


def judge(mod: types.ModuleType, case: dict[str, Any]) -> bool:
    """True when the module says what the case says (found and fully redacted, or quiet)."""
    text = str(case["text"])
    wanted = [str(s) for s in case["secrets"]]
    found = bool(mod.find_secrets(text))
    if not wanted:
        return not found
    redacted = mod.redact_secrets(text)
    return found and not any(s in redacted for s in wanted)


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    wrong: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def score(mod: types.ModuleType, name: str) -> Score:
    s = Score()
    for case in cases(name):
        positive = bool(case["secrets"])
        right = judge(mod, case)
        if positive:
            s.tp, s.fn = s.tp + right, s.fn + (not right)
        else:
            s.tn, s.fp = s.tn + right, s.fp + (not right)
        if not right:
            s.wrong.append(("missed  " if positive else "alarmed ") + json.dumps(case["text"]))
    return s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", help="a git revision to compare with")
    ap.add_argument("--show", choices=sorted(SETS), help="list the cases this set gets wrong")
    ap.add_argument("--set", choices=sorted(SETS), help="score only this set (default: both)")
    args = ap.parse_args()
    from amr_tui.core import secrets as current

    mods: list[tuple[str, types.ModuleType]] = [("this tree", current)]
    if args.baseline:
        from secrets_bench import module_at

        mods.insert(0, (args.baseline, module_at(args.baseline)))
    print(
        f"{'detector':12s} {'set':7s} {'pos':>4s} {'neg':>4s} {'TP':>4s} {'FN':>4s} {'FP':>4s} {'precision':>10s} {'recall':>7s}"
    )
    for label, mod in mods:
        for name in [args.set] if args.set else list(SETS):
            s = score(mod, name)
            print(
                f"{label:12s} {name:7s} {s.tp + s.fn:4d} {s.fp + s.tn:4d} {s.tp:4d} {s.fn:4d} "
                f"{s.fp:4d} {s.precision:10.3f} {s.recall:7.3f}"
            )
    if args.show:
        for line in score(current, args.show).wrong:
            print(line)


if __name__ == "__main__":
    main()
