"""Start-up (a) as a count: the Python function calls of the UI thread from process start to the
first painted frame, amr (at each size) and the hello-world app, each in a pty.

    .venv/bin/python bench/first_frame_calls.py                 # 1k and 100k
    .venv/bin/python bench/first_frame_calls.py --sizes 1000,100000,1000000 --base /tmp/main-checkout

A count, not a time: on a shared machine the wall clock (and even the CPU time) of one start
moves more between runs than a change of a few percent, while the count moves by a few hundred
calls in 800,000. It weighs every Python call alike (a call into C counts once), so it shows
where work was added or removed, not what it costs. cProfile runs in the child from its first
line: amr is counted until ``AmrApp.first_frame_painted`` (the first frame written), hello-world
until its first ``call_after_refresh`` after mounting. ``--base DIR``: another source tree too
(``git archive main | tar -x -C DIR``, run with ``PYTHONPATH=DIR``).
"""

from __future__ import annotations

import argparse
import compileall
import cProfile
import os
import pstats
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _child(kind: str, out: str, repo: str | None) -> None:
    """In the pty: run the app under cProfile and write the count to ``out`` at the first frame."""
    prof = cProfile.Profile()
    prof.enable()

    def done() -> None:
        prof.disable()
        Path(out).write_text(str(pstats.Stats(prof).total_calls))

    if kind == "hello":
        sys.path.insert(0, str(HERE))
        import hello_app

        class Hello(hello_app.Hello):
            def on_mount(self) -> None:
                self.call_after_refresh(done)

        Hello().run()
        return
    import amr_tui.app

    painted = amr_tui.app.AmrApp.first_frame_painted

    def first_frame_painted(app: amr_tui.app.AmrApp) -> None:
        done()
        painted(app)

    amr_tui.app.AmrApp.first_frame_painted = first_frame_painted  # type: ignore[method-assign]
    from amr_tui.cli.main import main

    main([str(repo)])


def _count(kind: str, repo: Path | None, path: str | None) -> int | None:
    sys.path.insert(0, str(HERE))
    from figures_proc import amr_checks, hello_useful
    from pty_probe import probe_screen, pythonpath

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "calls")
        argv = [sys.executable, __file__, "--child", kind, "--to", out] + ([str(repo)] if repo else [])
        checks = {"useful": hello_useful} if repo is None else {"useful": amr_checks(repo)["useful"]}
        with pythonpath(path):
            probe_screen(argv, checks, until="useful", timeout=120)
        return int(Path(out).read_text()) if os.path.exists(out) else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--base", type=Path, help="another source tree of amr to count too (before a change)")
    ap.add_argument("--out", type=Path, default=HERE / "out" / "corpora")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--to", help=argparse.SUPPRESS)
    ap.add_argument("repo", nargs="?", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child, args.to, args.repo)
        return 0
    import gen
    from figures_proc import MILLION

    for tree in [HERE.parent] + ([args.base] if args.base else []):
        compileall.compile_dir(str(tree / "amr_tui"), quiet=1)
    hello = _count("hello", None, None)
    print(f"hello-world: {hello:,} calls" if hello else "hello-world: no count")
    for n in [int(s) for s in args.sizes.split(",")]:
        repo = gen.million_repo(args.out) if n >= MILLION else gen.size_repo(args.out, n)
        for name, path in [("amr", None)] + ([("base", str(args.base.resolve()))] if args.base else []):
            calls = _count("amr", repo, path)
            ratio = f" ({calls / hello:.2f}x hello-world)" if calls and hello else ""
            print(f"{name:4} {n:>9,}: {calls:,} calls{ratio}" if calls else f"{name:4} {n:>9,}: no count")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    raise SystemExit(main())
