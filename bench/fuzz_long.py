"""Long fuzz run (issue 7, part 7): the parser, the serializer and the merge, a million inputs.

Inputs are built from fragments of the format and of hostile text (bullets, metadata brackets,
links, fences, HTML, front matter, CR/LF/CRLF, a BOM, bytes that are not UTF-8, NUL, escape
sequences, bidi overrides, markup) plus plain random bytes, at a rate Hypothesis cannot reach.
Checked for every input:

* parser: ``parse`` never raises, for Markdown and other paths; ``serialize(parse(b)) == b``;
  line numbers run 1..n; every entry sits on an entry line;
* merge (the merge driver's core, ``core.merge.merge3``): never raises on arbitrary byte
  triples; on structured triples every line either side inserted is in the result (between
  conflict markers or not), and a change made on one side only comes through byte for byte.

Usage: ``python bench/fuzz_long.py [--inputs 1000000] [--seed 1]``; prints JSON, exits 1 on a
failure (the failing inputs are written next to the report with ``--out``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from pathlib import Path

FRAGMENTS = [
    b"- ",
    b"* ",
    b"+ ",
    b"  ",
    b"    ",
    b"\t",
    b"# ",
    b"## Index",
    b"Title",
    b"[",
    b"]",
    b"[[",
    b"]]",
    b"|",
    b"#",
    b";",
    b":",
    b"source: ",
    b"added: 2026-01-01",
    b"https://x.example/a;b?c=[d]",
    b"`",
    b"``",
    b"```",
    b"~~~",
    b"<div>",
    b"</div>",
    b"<!--",
    b"-->",
    b"> ",
    b"1. ",
    b"2) ",
    b"---",
    b"...",
    b"***",
    b"\r\n",
    b"\n",
    b"\n",
    b"\n",
    b"\r",
    b"\xef\xbb\xbf",
    b"\xe9",
    b"\xff\xfe",
    b"\x00",
    b"\x1b]52;c;eA==\x07",
    b"\x1b[2J",
    b"\xc2\x9b",
    b"\xe2\x80\xae",
    b"\xe2\x80\xa8",
    b"[/bold]",
    b"[@click=app.quit]",
    b"\\",
    b"!",
    b"(",
    b")",
    b"word ",
    b"Joe leads the team ",
    b"[draft]",
    b"%3B",
    b"\xf0\x9f\x9a\x80",
    b"\xed\xa0\x80",
    b"[source: s/1]",
    b"[source: a; added: 2026-13-45]",
    b"[[notes]]",
    b"[[../x]]",
    b"[[a#h|alias]]",
    b"[link=x]",
    b"key:value",
    b"   ",
    b"\x0b",
    b"\x0c",
    b"=====",
    b"-----",
]
PATHS = ["MEMORY.md", "notes/a.md", "n.markdown", "q.sql", "x.txt", "MEMORY"]


def gen(rng: random.Random) -> bytes:
    if rng.random() < 0.1:
        return rng.randbytes(rng.randrange(0, 200))
    return b"".join(rng.choice(FRAGMENTS) for _ in range(rng.randrange(0, 60)))


def gen_lines(rng: random.Random, n: int) -> list[bytes]:
    lines = []
    for _ in range(n):
        frag = b"".join(rng.choice(FRAGMENTS) for _ in range(rng.randrange(0, 6)))
        lines.append(frag.replace(b"\n", b"").replace(b"\r", b""))
    return lines


def check_parse(data: bytes, path: str) -> None:
    from amr_tui.core.format.parser import parse, serialize

    doc = parse(data, path)
    if serialize(doc) != data or doc.to_bytes() != data:
        raise AssertionError("round trip changed the bytes")
    if [ln.number for ln in doc.lines] != list(range(1, len(doc.lines) + 1)):
        raise AssertionError("line numbers do not run 1..n")
    for e in doc.entries:
        if not 1 <= e.line <= len(doc.lines):
            raise AssertionError(f"entry on line {e.line} outside the file")


def make_merge_bytes(rng: random.Random) -> tuple:
    return gen(rng), gen(rng), gen(rng), rng.choice(PATHS)


def check_merge_bytes(case: tuple) -> None:
    from amr_tui.core.merge.three_way import merge3

    merge3(*case)


def make_merge_structured(rng: random.Random) -> tuple:
    eol = rng.choice([b"\n", b"\r\n"])
    base = gen_lines(rng, rng.randrange(0, 15))
    sides = []
    for tag in (b"ours", b"theirs"):
        lines = list(base)
        for k in range(rng.randrange(0, 6)):
            op = rng.random()
            if op < 0.5 or not lines:
                lines.insert(rng.randrange(len(lines) + 1), b"- added by %s %d %d" % (tag, k, rng.randrange(10**9)))
            elif op < 0.75:
                del lines[rng.randrange(len(lines))]
            else:
                i = rng.randrange(len(lines))
                lines[i] = lines[i] + b" edited by " + tag
        sides.append(lines)
    return tuple(b"".join(ln + eol for ln in x) for x in (base, *sides)) + (rng.choice(PATHS[:3]),)


def check_merge_structured(case: tuple) -> None:
    from amr_tui.core.merge.three_way import merge3

    base, ours, theirs, path = case
    added = [
        ln
        for side in (ours, theirs)
        for ln in side.replace(b"\r\n", b"\n").split(b"\n")
        if ln.startswith(b"- added by ")
    ]  # unique lines each side inserted (and kept)
    result = merge3(base, ours, theirs, path)
    merged = result.merged[3:] if result.merged.startswith(b"\xef\xbb\xbf") else result.merged  # the file's BOM
    out = set(merged.replace(b"\r\n", b"\n").split(b"\n"))
    missing = [a for a in added if a not in out]
    if missing:
        raise AssertionError(f"added lines dropped: {missing[:3]}")
    one = merge3(base, ours, base, path)
    if not one.clean or one.merged != ours:
        raise AssertionError("a one-sided change did not come through exactly")


def run(inputs: int = 1_000_000, seed: int = 1, out: Path | None = None) -> dict:
    rng = random.Random(seed)
    counts = {"parser": 0, "merge_bytes": 0, "merge_structured": 0}
    failures: list[dict] = []
    started = time.monotonic()
    for i in range(inputs):
        roll = i % 10
        case: tuple = ()
        try:
            if roll < 7:
                data, path = gen(rng), rng.choice(PATHS)
                case = (data, path)
                check_parse(data, path)
                counts["parser"] += 1
            elif roll < 8:
                case = make_merge_bytes(rng)
                check_merge_bytes(case)
                counts["merge_bytes"] += 1
            else:
                case = make_merge_structured(rng)
                check_merge_structured(case)
                counts["merge_structured"] += 1
        except Exception:
            failures.append(
                {
                    "input": i,
                    "case": [c.hex() if isinstance(c, bytes) else c for c in case],
                    "error": traceback.format_exc()[-1500:],
                }
            )
            if len(failures) >= 20:
                break
    report = {
        "inputs": sum(counts.values()) + len(failures),
        **counts,
        "failures": len(failures),
        "seconds": round(time.monotonic() - started, 1),
        "seed": seed,
    }
    if out is not None and failures:
        out.write_text(json.dumps(failures, indent=2))
    return {**report, "first_failures": failures[:3]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="write failing inputs here (JSON)")
    args = parser.parse_args()
    report = run(args.inputs, args.seed, args.out)
    print(json.dumps(report, indent=2))
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
