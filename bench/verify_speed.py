"""How fast ``amr verify`` judges a large memory repo against a large code repo.

    python bench/verify_speed.py [--entries 10000] [--files 5000] [--runs 3]

Builds, in a temporary folder, a code repo of ``--files`` files (TypeScript and Python, each
defining a function, a package.json with scripts, a Makefile) whose history renames and deletes
some of them, renames some functions and drops some scripts; and a memory repo of ``--entries``
entries in 100 topic files, each citing a path, a symbol or a script of it (about one in ten
of them renamed or deleted since). Then runs ``amr verify --code`` as a user does: once cold (the
code repo's facts gathered with git and cached per HEAD) and ``--runs`` times warm, and prints the
times, the warm median against the cold run, and against ``amr lint --no-cache`` on the same
memory repo (reading and parsing every file: the floor any pass over the entries pays).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.test",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.test",
    "GIT_CONFIG_NOSYSTEM": "1",
    "NO_COLOR": "1",
}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True)


def build_code(root: Path, files: int) -> None:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    per_dir = 50
    scripts = {f"task-{i}": f"node scripts/task-{i}.js" for i in range(200)}
    for i in range(files):
        d, f = divmod(i, per_dir)
        ext = "ts" if i % 2 else "py"
        path = root / "src" / f"mod_{d}" / f"file_{f}.{ext}"
        path.parent.mkdir(parents=True, exist_ok=True)
        name = f"handle_{d}_{f}" if ext == "py" else f"handleD{d}F{f}"
        body = (
            f"def {name}(x):\n    return x\n" if ext == "py" else f"export function {name}(x: number) {{ return x; }}\n"
        )
        path.write_text(body)
    (root / "package.json").write_text(json.dumps({"name": "big", "scripts": scripts}, indent=2))
    (root / "Makefile").write_text("".join(f"target-{i}:\n\techo {i}\n" for i in range(50)))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the code")
    # history: rename a few folders' files, delete others, rename functions, drop scripts
    for i in range(0, files, 40):
        d, f = divmod(i, per_dir)
        ext = "ts" if i % 2 else "py"
        old = f"src/mod_{d}/file_{f}.{ext}"
        if i % 80 == 0:
            git(root, "mv", old, f"src/mod_{d}/renamed_{f}.{ext}")
        else:
            git(root, "rm", "-q", old)
    git(root, "commit", "-q", "-m", "move and drop files")
    for i in range(1, files, 97):
        d, f = divmod(i, per_dir)
        ext = "ts" if i % 2 else "py"
        path = root / "src" / f"mod_{d}" / f"file_{f}.{ext}"
        if path.exists():
            path.write_text(path.read_text().replace("handle", "process"))
    del_scripts = {k: v for k, v in scripts.items() if int(k.split("-")[1]) % 10}
    (root / "package.json").write_text(json.dumps({"name": "big", "scripts": del_scripts}, indent=2))
    git(root, "commit", "-qam", "rename functions, drop scripts")


def build_memory(root: Path, entries: int, files: int) -> None:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    topics = 100
    per = entries // topics
    index = ["# Memory", "", "## Index", ""]
    per_dir = 50
    for t in range(topics):
        lines = [f"# Topic {t}", ""]
        for e in range(per):
            i = (t * per + e) % files
            d, f = divmod(i, per_dir)
            ext = "ts" if i % 2 else "py"
            sym = f"handle_{d}_{f}" if ext == "py" else f"handleD{d}F{f}"
            kind = e % 4
            if kind == 0:
                text = f"The handler for case {t}.{e} is in src/mod_{d}/file_{f}.{ext}"
            elif kind == 1:
                text = f"Call `{sym}` for case {t}.{e}, never the raw query"
            elif kind == 2:
                text = f"Run `npm run task-{(t * per + e) % 200}` before deploying part {t}.{e}"
            else:
                text = f"Team note {t}.{e}: ask the owner before changing anything here"
            lines.append(f"- {text} [source: https://example.com/s/{t}-{e}; added: 2026-06-01]")
        (root / f"topic_{t}.md").write_text("\n".join(lines) + "\n")
        index.append(f"- [[topic_{t}]]")
    (root / "MEMORY.md").write_text("\n".join(index) + "\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "memory")


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Wall time of one run (the CPU time it and its git children took is added to ``CPU``)."""
    before = os.times()
    start = time.perf_counter()
    res = subprocess.run(argv, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = os.times()
    CPU.append((after.children_user - before.children_user) + (after.children_system - before.children_system))
    return wall, res


CPU: list[float] = []


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--files", type=int, default=5_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        env = {**ENV, "XDG_CACHE_HOME": str(base / "cache"), "XDG_CONFIG_HOME": str(base / "cfg")}
        t0 = time.perf_counter()
        build_code(base / "code", args.files)
        build_memory(base / "memory", args.entries, args.files)
        print(f"built {args.files:,} code files and {args.entries:,} entries in {time.perf_counter() - t0:.1f} s")
        amr = [sys.executable, "-m", "amr_tui"]
        verify = [*amr, "verify", str(base / "memory"), "--code", str(base / "code"), "--json"]
        cold, res = timed(verify, env)
        cold_cpu = CPU[-1]
        data = json.loads(res.stdout)
        repo = data["repos"][0]
        print(
            f"cold: {cold:.2f} s wall, {cold_cpu:.2f} s CPU  "
            f"({repo['checked']:,} facts with evidence, {repo['stale']:,} no longer hold)"
        )
        warm, warm_cpu = [], []
        for _ in range(args.runs):
            took, res = timed(verify, env)
            assert json.loads(res.stdout)["repos"][0]["stale"] == repo["stale"]
            warm.append(took)
            warm_cpu.append(CPU[-1])
        lint = [
            timed([*amr, "lint", str(base / "memory"), "--no-cache", "--no-duplicates"], env)[0]
            for _ in range(args.runs)
        ]
        w, lt = statistics.median(warm), statistics.median(lint)
        print(
            f"warm: median {w:.2f} s wall of {args.runs} ({', '.join(f'{t:.2f}' for t in warm)}); "
            f"CPU {statistics.median(warm_cpu):.2f} s"
        )
        print(f"load average while measuring: {os.getloadavg()[0]:.1f}")
        print(f"warm / cold: {w / cold:.2f}")
        print(
            f"amr lint --no-cache --no-duplicates on the same memory: median {lt:.2f} s; warm verify / lint: {w / lt:.2f}"
        )
        print(f"cores: {os.cpu_count()}")


if __name__ == "__main__":
    main()
