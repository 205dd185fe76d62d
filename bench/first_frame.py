"""Start-up (a) alone: amr's first useful frame vs the hello-world app's, interleaved, through a pty.

    .venv/bin/python bench/first_frame.py                       # 1k and 100k, 5 rounds
    .venv/bin/python bench/first_frame.py --sizes 1000,100000,1000000 --runs 5
    .venv/bin/python bench/first_frame.py --base /tmp/main-checkout   # another checkout too

The same checks as the start-up rows of ``run.py`` (``figures_proc.amr_checks``, ``hello_useful``),
waiting only for the first useful frame, so five rounds take seconds, not minutes. Each round
runs hello-world, then amr at each size (and, with ``--base DIR``, the amr of that source tree:
``git archive main | tar -x -C DIR``, run by this venv with ``PYTHONPATH=DIR``, right after
this one). A round's ratio is amr / that round's hello-world; the figures are the ratio of
the medians and the median of the rounds' ratios (the machine is noisy: the load average is
printed). The CPU time each app had used when its frame showed (``/proc/<pid>/task/*/schedstat``;
a thread that ended before, amr's first look of ~2 ms, is not counted) is printed beside: on a
loaded machine it moves far less than the wall clock. The 1M corpus is built by
``gen.million_repo`` (about 35 s, once).
"""

from __future__ import annotations

import argparse
import compileall
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen  # noqa: E402
from figures_proc import AMR, HELLO, MILLION, amr_checks, hello_useful  # noqa: E402
from pty_probe import probe_screen, pythonpath  # noqa: E402
from rows import median  # noqa: E402


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _probe(argv: list[str], checks: dict, path: str | None) -> tuple[float | None, float | None, str]:
    with pythonpath(path):
        p = probe_screen(argv, checks, until="useful", timeout=60)
    return p.seen.get("useful"), p.cpu.get("useful"), p.error


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--base", type=Path, help="another source tree of amr to time too (before a change)")
    ap.add_argument("--out", type=Path, default=HERE / "out" / "corpora")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    # An editable checkout run with PYTHONDONTWRITEBYTECODE would compile every changed module
    # in every timed process (run.py does the same).
    for tree in [HERE.parent] + ([args.base] if args.base else []):
        compileall.compile_dir(str(tree / "amr_tui"), quiet=1)
    args.out.mkdir(parents=True, exist_ok=True)
    repos = {n: gen.million_repo(args.out) if n >= MILLION else gen.size_repo(args.out, n) for n in sizes}
    checks = {n: {"useful": amr_checks(repos[n])["useful"]} for n in sizes}
    builds = {"amr": None} | ({"base": str(args.base.resolve())} if args.base else {})
    hello: list[float] = []
    hello_cpu: list[float] = []
    seen: dict[tuple[str, int], list[float]] = {(b, n): [] for b in builds for n in sizes}
    cpu: dict[tuple[str, int], list[float]] = {(b, n): [] for b in builds for n in sizes}
    ratios: dict[tuple[str, int], list[float]] = {(b, n): [] for b in builds for n in sizes}
    print(f"load average before: {_load()}")
    for k in range(args.runs):
        h, hc, error = _probe(HELLO, {"useful": hello_useful}, None)
        if h is None:
            print(f"round {k + 1}: hello-world: {error}")
            continue
        hello.append(h)
        if hc is not None:
            hello_cpu.append(hc)
        parts = [f"hello {h * 1000:5.0f} ms (cpu {(hc or 0) * 1000:3.0f})"]
        for n in sizes:
            for build, path in builds.items():
                t, c, error = _probe([AMR, str(repos[n])], checks[n], path)
                if t is None:
                    parts.append(f"{build} {n:,}: {error}")
                    continue
                seen[build, n].append(t)
                ratios[build, n].append(t / h)
                if c is not None:
                    cpu[build, n].append(c)
                parts.append(f"{build} {n:,} {t * 1000:5.0f} ms ({t / h:.2f}x, cpu {(c or 0) * 1000:3.0f})")
        print(f"round {k + 1}: " + "  ".join(parts) + f"  [load {os.getloadavg()[0]:.2f}]", flush=True)
    print(f"load average after: {_load()}")
    if not hello:
        return 1
    hello_c = median(hello_cpu) if hello_cpu else None
    print(
        f"hello-world: median {median(hello) * 1000:.0f} ms over {len(hello)} rounds"
        + (f", CPU median {hello_c * 1000:.0f} ms, least {min(hello_cpu) * 1000:.0f} ms" if hello_c else "")
    )
    for (build, n), times in seen.items():
        if times:
            r = ratios[build, n]
            print(
                f"{build:4} {n:>9,}: median {median(times) * 1000:5.0f} ms; ratio of medians "
                f"{median(times) / median(hello):.2f}x; median of the rounds' ratios {median(r):.2f}x "
                f"(min {min(r):.2f}, max {max(r):.2f})"
                + (
                    f"; CPU median {median(cpu[build, n]) * 1000:.0f} ms = {median(cpu[build, n]) / hello_c:.2f}x, "
                    f"least {min(cpu[build, n]) * 1000:.0f} ms = {min(cpu[build, n]) / min(hello_cpu):.2f}x"
                    if cpu[build, n] and hello_c
                    else ""
                )
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
