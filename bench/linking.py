"""Figures of issue 42 (linking) on the 2,000-file corpus: ``[[`` completion per keystroke, the
tags view's count, the link graph's read and drawings, and the tree's order.

Builds (once) ``size_repo(out, 100_000)`` (100,000 entries in ~2,000 files, ``gen.py``) and a
copy of it where an agent tagged entries in one commit (``#area`` in text, ``[tags: ...]``, and
front matter on one file in ten), then times each step in this process. The finder's own search of
the same words (``Session.search``: its ranking without the finder box's cache of results), on the
same session, is the baseline each completion keystroke is given against.

    python bench/linking.py [OUT]        # OUT defaults to bench/out/corpora
"""

from __future__ import annotations

import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gen import size_repo  # noqa: E402

from amr_tui.core.graph import neighbourhood, overview  # noqa: E402
from amr_tui.core.order import tree_key  # noqa: E402
from amr_tui.services.session.linktargets import LinkTargets  # noqa: E402
from amr_tui.services.session.state import Session  # noqa: E402
from amr_tui.services.session.tags import tag_counts  # noqa: E402
from amr_tui.services.workspace import discover  # noqa: E402

_META = re.compile(r" \[source: ")


def tagged_repo(src: Path) -> Path:
    """A clone of ``src`` with one commit that tags entries, deterministically."""
    root = src.parent / (src.name + "-tagged")
    if (root / ".bench-tagged").exists():
        return root
    if root.exists():
        shutil.rmtree(root)
    subprocess.run(["git", "clone", "-q", str(src), str(root)], check=True)
    r = random.Random(42)
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        if "/" not in rel:
            continue
        area = rel.split("/", 1)[0]
        lines = path.read_text().split("\n")
        for i, line in enumerate(lines):
            if not line.startswith("- "):
                continue
            roll = r.random()
            if roll < 0.10:
                lines[i] = _META.sub(f" #{area} [source: ", line, count=1)
            elif roll < 0.13:
                lines[i] = _META.sub(f" #{area}/oncall [source: ", line, count=1)
            elif roll < 0.15:
                lines[i] = _META.sub(" [tags: release, " + area + "; source: ", line, count=1)
        text = "\n".join(lines)
        if r.random() < 0.1:
            text = f"---\ntags: [{area}, reviewed]\n---\n" + text
        path.write_text(text)
    env = {"GIT_AUTHOR_NAME": "Tagging Agent", "GIT_AUTHOR_EMAIL": "agent@example.com"}
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(root),
            "-c",
            "user.name=Tagging Agent",
            "-c",
            "user.email=agent@example.com",
            "commit",
            "-qm",
            "Tag entries",
        ],
        check=True,
        env={**__import__("os").environ, **env},
    )
    (root / ".bench-tagged").write_text("1\n")
    return root


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def timed(fn, *args, repeat: int = 1, **kw):
    best = float("inf")
    out = None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args, **kw)
        best = min(best, time.perf_counter() - start)
    return out, best


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/out/corpora")
    out.mkdir(parents=True, exist_ok=True)
    plain = size_repo(out, 100_000)
    root = tagged_repo(plain)
    files = sum(1 for _ in root.rglob("*.md"))
    print(f"corpus: {root} ({files:,} Markdown files)")
    start = time.perf_counter()
    session = Session(discover([root]))
    session.load()
    print(f"session load (index + lint):          {ms(time.perf_counter() - start)}")
    (repo,) = session.names

    # [[ completion: the first keystroke builds the targets; each later one ranks them
    targets = LinkTargets(session)
    _, first = timed(targets.index, repo)
    print(f"[[ targets built (first [[ only):      {ms(first)}  ({len(targets.index(repo)):,} files)")
    finder = session.search  # the finder's ranking, without its per-box cache of results
    ratios = []
    for typed in ["i", "in", "inf", "infr", "infra", "infra/", "infra/a", "runb", "runbooks/d", "peopl"]:
        text = f"See [[{typed}"
        found, took = timed(targets.complete, repo, "MEMORY.md", text, len(text), repeat=5)
        _, base = timed(finder, typed.replace("/", " "), 40, repeat=5)
        ratios.append(took / base if base else 0.0)
        first_row = found[0].insert if found else "-"
        print(f"  [[{typed:<12} {ms(took)}  finder {ms(base)}  ratio {took / base:5.2f}  top {first_row}")
    print(f"  completion / finder, median ratio:   {statistics.median(ratios):.2f}")

    counts, took = timed(tag_counts, session, repeat=3)
    print(
        f"tags view count:                      {ms(took)}  ({len(counts)} tags; top {counts[0].tag} {counts[0].entries})"
    )

    graph, took = timed(session.link_graph, repo, repeat=3)
    print(f"link graph read:                      {ms(took)}  ({len(graph.files):,} files, {graph.links:,} links)")
    _, took = timed(overview, graph, repeat=3)
    print(f"overview drawn:                       {ms(took)}")
    hub = max(graph.inn, key=lambda p: len(graph.inn[p]))
    big = max(graph.out, key=lambda p: len(graph.out[p]))
    for centre in (hub, big):
        for depth in (1, 2):
            d, took = timed(neighbourhood, graph, centre, depth, repeat=3)
            print(f"neighbourhood {centre} d{depth}: {ms(took)}  ({len(d.nodes)} nodes, {len(d.lines)} rows)")
    names = [p.rsplit("/", 1)[-1] for p in session.files(repo)]
    _, took = timed(sorted, names, key=tree_key, repeat=3)
    _, base = timed(sorted, names, key=str.lower, repeat=3)
    print(f"tree order of {len(names):,} names: natural {ms(took)}, by lower case {ms(base)}, ratio {took / base:.2f}")
    session.close()


if __name__ == "__main__":
    main()
