"""Findings a reader agrees with: precision and recall of ``amr lint`` on the findings corpus.

The corpus (``tests/data/findings/``, issue 39) is 30 memory folders in the shapes other agents
write, in two parts: ``tuning`` (what the rules were tuned on) and ``sealed`` (judged on the code
before the tuning and not looked at again until the end). Every finding ``amr lint --severity info``
gives on it is judged by a reader in ``tests/data/findings/judged.json``: true (something the reader
wants to know) or false, with a one-line reason. This prints, per part, for the findings the code
gives now and for those the code gave before the tuning (``baseline``):

* precision of the warnings and errors (true / all);
* notices (info) judged false, per 20 entries amr reads;
* recall of the planted problems (``corpus.json``): credentials, duplicates, a past-budget index...

    .venv/bin/python bench/findings.py                 # the tables; lists findings not judged yet
    .venv/bin/python bench/findings.py --part tuning   # only the tuning part
    .venv/bin/python bench/findings.py --update        # record which findings the code gives now
    .venv/bin/python bench/findings.py --markdown      # the tables of docs/findings.md
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.findingscorpus import (  # noqa: E402
    CORPUS,
    PARTS,
    FolderRun,
    Found,
    Planted,
    is_found,
    load_judged,
    manifest,
    planted,
    run,
    save_judged,
)

RUNS = CORPUS / "runs.json"  # entries and format read per folder, for the baseline and now


def _row(f: Found) -> dict[str, Any]:
    return {
        "key": f.key,
        "folder": f.folder,
        "path": f.path,
        "line": f.line,
        "column": f.column,
        "code": f.code,
        "severity": f.severity,
        "message": f.message,
        "verdict": None,
        "reason": "",
        "baseline": False,
        "now": False,
    }


def record(runs: list[FolderRun], judged: dict[str, dict[str, Any]], flag: str) -> None:
    """Mark the findings of ``runs`` with ``flag`` ("baseline" or "now"), adding rows to judge."""
    seen = {f.key for r in runs for f in r.found}
    folders = {r.folder for r in runs}
    for r in runs:
        for f in r.found:
            row = judged.setdefault(f.key, _row(f))
            if flag == "now":
                row["message_now"] = f.message
    for key, row in judged.items():
        if row["folder"] in folders:
            row[flag] = key in seen
    stats = json.loads(RUNS.read_text("utf-8")) if RUNS.exists() else {}
    for r in runs:
        stats.setdefault(r.folder, {})[flag] = {"entries": r.entries, "style": r.style, "roots": r.roots}
    RUNS.write_text(json.dumps(stats, ensure_ascii=False, indent=1, sort_keys=True) + "\n", "utf-8")


def _entries(folders: list[str], flag: str) -> int:
    stats = json.loads(RUNS.read_text("utf-8")) if RUNS.exists() else {}
    return sum(stats.get(f, {}).get(flag, {}).get("entries", 0) for f in folders)


def summary(rows: list[dict[str, Any]], entries: int, plants: list[Planted], found: list[Found]) -> dict[str, Any]:
    serious = [r for r in rows if r["severity"] in ("error", "warning")]
    notices = [r for r in rows if r["severity"] == "info"]
    true_serious = sum(1 for r in serious if r["verdict"] is True)
    false_notices = sum(1 for r in notices if r["verdict"] is False)
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed = []
    for p in plants:
        ok = is_found(p, found)
        by_kind[p.kind][0] += ok
        by_kind[p.kind][1] += 1
        if not ok:
            missed.append(p.name)
    all_true = sum(1 for r in rows if r["verdict"] is True)
    return {
        "findings": len(rows),
        "true": all_true,
        "serious": len(serious),
        "serious_true": true_serious,
        "precision": true_serious / len(serious) if serious else 1.0,
        "precision_all": all_true / len(rows) if rows else 1.0,
        "notices": len(notices),
        "false_notices": false_notices,
        "entries": entries,
        "false_notices_per_20": false_notices * 20 / entries if entries else 0.0,
        "planted": len(plants),
        "planted_found": sum(v[0] for v in by_kind.values()),
        "by_kind": {k: tuple(v) for k, v in sorted(by_kind.items())},
        "missed": missed,
        "unjudged": sum(1 for r in rows if r["verdict"] is None),
    }


def _found_of(rows: list[dict[str, Any]]) -> list[Found]:
    return [Found(r["folder"], r["path"], r["line"], r["column"], r["code"], r["severity"], r["message"]) for r in rows]


def tables(judged: dict[str, dict[str, Any]], parts: tuple[str, ...]) -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for part in parts:
        names = [f for f in manifest() if f.startswith(part + "/")]
        plants = planted((part,))
        for flag in ("baseline", "now"):
            rows = [r for r in judged.values() if r["folder"] in names and r[flag]]
            out[(part, flag)] = summary(rows, _entries(names, flag), plants, _found_of(rows))
    return out


def by(judged: dict[str, dict[str, Any]], parts: tuple[str, ...], what: str) -> dict[str, dict[str, Counter[str]]]:
    """Counts of findings by format or code: {group: {flag: Counter(true/false/?)}}."""
    spec = manifest()
    out: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    for r in judged.values():
        if r["folder"].split("/", 1)[0] not in parts:
            continue
        group = spec[r["folder"]]["format"] if what == "format" else r["code"]
        for flag in ("baseline", "now"):
            if r[flag]:
                v = {True: "true", False: "false", None: "?"}[r["verdict"]]
                out[group][flag][v] += 1
                out[group][flag][r["severity"]] += 1
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def print_tables(judged: dict[str, dict[str, Any]], parts: tuple[str, ...], markdown: bool) -> None:
    t = tables(judged, parts)
    print(
        "| part | code | findings | warnings+errors | true of them | precision | notices | false notices "
        "| entries | false notices per 20 entries | planted found |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (part, flag), s in t.items():
        print(
            f"| {part} | {'before' if flag == 'baseline' else 'now'} | {s['findings']} | {s['serious']} "
            f"| {s['serious_true']} | {_pct(s['precision'])} | {s['notices']} | {s['false_notices']} "
            f"| {s['entries']} | {s['false_notices_per_20']:.2f} | {s['planted_found']} of {s['planted']} |"
        )
    print()
    kinds = sorted({k for s in t.values() for k in s["by_kind"]})
    print("| part | code | " + " | ".join(kinds) + " |")
    print("|---|---|" + "---|" * len(kinds))
    for (part, flag), s in t.items():
        cells = [f"{s['by_kind'][k][0]} of {s['by_kind'][k][1]}" if k in s["by_kind"] else "" for k in kinds]
        print(f"| {part} | {'before' if flag == 'baseline' else 'now'} | " + " | ".join(cells) + " |")
    for what in ("format", "code"):
        print()
        print(
            f"| {what} | before: findings (true / false) | before: warnings+errors precision "
            "| now: findings (true / false) | now: warnings+errors precision |"
        )
        print("|---|---|---|---|---|")
        groups = by(judged, parts, what)
        for group in sorted(groups):
            cells = []
            for flag in ("baseline", "now"):
                c = groups[group][flag]
                n = c["true"] + c["false"] + c["?"]
                serious = [
                    r
                    for r in judged.values()
                    if r[flag]
                    and r["folder"].split("/", 1)[0] in parts
                    and (manifest()[r["folder"]]["format"] if what == "format" else r["code"]) == group
                    and r["severity"] != "info"
                ]
                prec = _pct(sum(1 for r in serious if r["verdict"] is True) / len(serious)) if serious else "—"
                cells += [f"{n} ({c['true']} / {c['false']})" if n else "0", prec]
            print(f"| {group} | " + " | ".join(cells) + " |")
    if not markdown:
        for (part, flag), s in t.items():
            if s["missed"]:
                print(f"\n{part} {flag}: planted problems missed: " + ", ".join(s["missed"]))
            if s["unjudged"]:
                print(f"\n{part} {flag}: {s['unjudged']} findings not judged yet")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--part", choices=(*PARTS, "all"), default="all")
    p.add_argument("--update", action="store_true", help="record which findings the code gives now")
    p.add_argument("--baseline", action="store_true", help="record the findings as the code before the tuning")
    p.add_argument("--markdown", action="store_true", help="print only the tables")
    p.add_argument("--list", action="store_true", help="list each finding the code gives now, with its verdict")
    args = p.parse_args()
    parts = PARTS if args.part == "all" else (args.part,)
    judged = load_judged()
    if args.update or args.baseline or args.list:
        with tempfile.TemporaryDirectory(prefix="amr-findings-") as tmp:
            runs = run(Path(tmp), parts)
        if args.update or args.baseline:
            record(runs, judged, "baseline" if args.baseline else "now")
            save_judged(judged)
        if args.list:
            for r in runs:
                print(f"== {r.folder} ({r.format}; read as {r.style}; roots {', '.join(r.roots)}; {r.entries} entries)")
                for f in r.found:
                    row = judged.get(f.key)
                    v = "?" if row is None or row["verdict"] is None else ("T" if row["verdict"] else "F")
                    print(f"  {v} {f.path}:{f.line}:{f.column} {f.code} [{f.severity}] {f.message}")
    print_tables(judged, parts, args.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
