"""Deterministic benchmark corpora on disk, as real git repos (built with ``git fast-import``).

* ``size_repo(out, n)``: one memory repo of ~``n`` entries, ~50 per file (so 100,000 entries
  lie in ~2,000 files), grouped in ten area folders. ``MEMORY.md`` has an ``## Index`` that
  links one hub file per area (``infra.md``...), and each hub links every file of its area,
  so every file is reachable the way a curated repo is. One commit.
* ``history_repo(out)``: a repo with 5,000 commits: an initial 10,000-entry snapshot, then
  4,999 agent sessions that append, reword or delete entries in one or two files (a Zipf
  mix, so a few files have hundreds of commits). One tracked fact is added, reworded, then
  moved to another file; ``manifest.json`` names it, its commits and the busiest file. A
  branch ``dreams/bench-run`` on top of ``main`` is a dreaming run touching 100 files
  (near-duplicates merged with both sources kept, entries dropped, entries reworded).
* ``million_repo(out)``: 1,000,000 entries in ~20,000 files (~50 per file, the hubs and
  ``MEMORY.md`` of ``size_repo``) and 5,000 commits: an initial snapshot of 995,001 entries,
  then 4,999 agent sessions that each append one entry to a file (a Zipf mix) and in a third
  of them reword another. The scale bench (``bench/scale.py``) runs on it; built once (about a
  minute) and kept like the others.

Everything is seeded: the same version gives the same bytes and the same commit ids. A
corpus is rebuilt only when its folder lacks the ``.bench-stamp`` of this ``VERSION``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import generate_files  # noqa: E402

VERSION = "3"
EPOCH = 1767225600  # 2026-01-01T00:00:00Z
_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C"}


def _git(root: Path, *args: str, data: bytes | None = None) -> str:
    env = {**os.environ, **_ENV}
    res = subprocess.run(["git", *args], cwd=root, input=data, capture_output=True, env=env, check=True)
    return res.stdout.decode()


class _Stream:
    """Builds a ``git fast-import`` stream: commits of whole-file contents and deletions."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.mark = 0

    def commit(
        self,
        ref: str,
        author: str,
        when: int,
        message: str,
        files: dict[str, str | None],
        parent_mark: int | None = None,
    ) -> int:
        self.mark += 1
        email = author.lower().replace(" ", ".") + "@agents.example"
        msg = message.encode()
        out = [
            f"commit {ref}\nmark :{self.mark}\n".encode(),
            f"author {author} <{email}> {when} +0000\n".encode(),
            f"committer {author} <{email}> {when} +0000\n".encode(),
            b"data %d\n" % len(msg),
            msg,
            b"\n",
        ]
        if parent_mark is not None:
            out.append(f"from :{parent_mark}\n".encode())
        for path, text in sorted(files.items()):
            if text is None:
                out.append(f"D {path}\n".encode())
            else:
                blob = text.encode()
                out += [f"M 100644 inline {path}\n".encode(), b"data %d\n" % len(blob), blob, b"\n"]
        out.append(b"\n")
        self.parts += out
        return self.mark

    def run(self, root: Path) -> None:
        _git(root, "fast-import", "--quiet", "--force", data=b"".join(self.parts))


def _fresh(root: Path) -> None:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.name", "Bench")
    _git(root, "config", "user.email", "bench@example.com")


def _stamped(root: Path, key: str) -> bool:
    stamp = root / ".git" / "bench-stamp"
    return stamp.is_file() and stamp.read_text() == f"{VERSION}:{key}"


def _stamp(root: Path, key: str) -> None:
    (root / ".git" / "bench-stamp").write_text(f"{VERSION}:{key}")


def _fix_links(line: str) -> str:
    return line.replace(".md]]", "]]")  # the corpus writes [[area/x.md]]; a curated repo omits .md


def _hubs(paths: list[str]) -> dict[str, str]:
    by_area: dict[str, list[str]] = {}
    for p in paths:
        by_area.setdefault(p.split("/", 1)[0], []).append(p)
    out = {}
    for area in sorted(by_area):
        lines = [f"# {area}", "", f"Topic files about {area}.", "", "## Files", ""]
        lines += [f"- [[{p[:-3]}]]" for p in sorted(by_area[area])]
        out[f"{area}.md"] = "\n".join(lines) + "\n"
    index = [
        "# Memory",
        "",
        "What this agent remembers. Read the Index, then open the topic files you need.",
        "",
        "## Index",
        "",
    ]
    index += [
        f"- [[{area}]]: notes about {area} [source: https://example.com/sessions/0; added: 2026-01-01]"
        for area in sorted(by_area)
    ]
    out["MEMORY.md"] = "\n".join(index) + "\n"
    return out


def render(path: str, lines: list[str]) -> str:
    """A topic file: a title, sections of twelve entries."""
    out = [f"# {path.rsplit('/', 1)[-1][:-3]}", "", "## Notes"]
    for i, line in enumerate(lines):
        if i and i % 12 == 0:
            out += ["", "## More"]
        out.append(line)
    return "\n".join(out) + "\n"


def size_repo(out: Path, n: int) -> Path:
    root = out / f"repo-{n}"
    if _stamped(root, str(n)):
        return root
    _fresh(root)
    files = generate_files(n, seed=11, repos=("memory",))
    contents = {cf.path: render(cf.path, [_fix_links(full) for _l, _t, full in cf.entries]) for cf in files}
    contents.update(_hubs(list(contents)))
    stream = _Stream()
    stream.commit("refs/heads/main", "Agent Smith", EPOCH, f"memory with {n} entries\n", contents)
    stream.run(root)
    _git(root, "reset", "-q", "--hard", "main")
    _stamp(root, str(n))
    return root


# ---------------------------------------------------------------- history repo
HISTORY_COMMITS = 5000
TRACKED = "The billing webhook retries 5 times with jitter before paging on-call"
TRACKED_REWORDED = "The billing webhook retries 6 times with full jitter before paging on-call"
AGENTS = ("Claude Agent", "Devin Agent", "Letta Agent", "Night Dreamer")


def _meta(r: random.Random, n: int) -> str:
    return f" [source: https://example.com/sessions/{n}; added: 2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}]"


def history_repo(out: Path) -> Path:
    root = out / "history"
    if _stamped(root, str(HISTORY_COMMITS)):
        return root
    _fresh(root)
    files = generate_files(10_000, seed=23, repos=("memory",))
    state: dict[str, list[str]] = {cf.path: [_fix_links(full) for _l, _t, full in cf.entries] for cf in files}
    paths = sorted(state)
    pool = iter([e for cf in generate_files(20_000, seed=29, repos=("memory",)) for e in cf.entries])
    r = random.Random(31)
    stream = _Stream()
    initial = {p: render(p, state[p]) for p in paths}
    initial.update(_hubs(paths))
    stream.commit("refs/heads/main", AGENTS[0], EPOCH, "initial memory\n", initial)
    tracked_from, tracked_to = paths[7], paths[11]
    marks: dict[str, int] = {}
    for i in range(1, HISTORY_COMMITS):
        author = AGENTS[i % 3]
        touched: dict[str, str | None] = {}
        what = []
        if i == 1200:
            state[tracked_from].append(f"- {TRACKED}{_meta(r, i)}")
            touched[tracked_from] = None
            what.append("learned the webhook retry policy")
            marks["added"] = i
        elif i == 2600:
            lines = state[tracked_from]
            k = next(j for j, ln in enumerate(lines) if TRACKED in ln)
            lines[k] = lines[k].replace(TRACKED, TRACKED_REWORDED)
            touched[tracked_from] = None
            what.append("corrected the retry count")
            marks["reworded"] = i
        elif i == 3900:
            lines = state[tracked_from]
            k = next(j for j, ln in enumerate(lines) if TRACKED_REWORDED in ln)
            state[tracked_to].append(lines.pop(k))
            touched[tracked_from] = touched[tracked_to] = None
            what.append("moved the retry policy next to the other webhook notes")
            marks["moved"] = i
        else:
            for _ in range(1 if r.random() < 0.7 else 2):
                p = paths[min(int(len(paths) * r.random() ** 3), len(paths) - 1)]
                lines = state[p]
                roll = r.random()
                if roll < 0.6 or len(lines) < 10:
                    _l, _t, full = next(pool)
                    lines.append(_fix_links(full.split(" [source:")[0]) + _meta(r, i))
                    what.append("learned a fact")
                else:
                    k = r.randrange(len(lines))
                    if TRACKED in lines[k] or TRACKED_REWORDED in lines[k]:
                        continue
                    if roll < 0.85:
                        lines[k] = (
                            lines[k].replace(" the ", " this ", 1) if " the " in lines[k] else lines[k] + " (confirmed)"
                        )
                        what.append("reworded a fact")
                    else:
                        lines.pop(k)
                        what.append("forgot a stale fact")
                touched[p] = None
        for p in touched:
            touched[p] = render(p, state[p])
        msg = f"session {i}: {', '.join(what) or 'no change'}\n\nSession: https://example.com/sessions/{i}\n"
        stream.commit("refs/heads/main", author, EPOCH + i * 3600, msg, touched)
    main_mark = stream.mark
    dream = _dream(state, r)
    stream.commit(
        "refs/heads/dreams/bench-run",
        AGENTS[3],
        EPOCH + HISTORY_COMMITS * 3600,
        "dream: merged near-duplicates, dropped stale entries, reworded for clarity\n",
        {p: render(p, lines) for p, lines in dream.items()},
        parent_mark=main_mark,
    )
    stream.run(root)
    _git(root, "reset", "-q", "--hard", "main")
    counts = _git(root, "log", "--format=", "--name-only", "main").split()
    busiest = max(sorted(set(counts)), key=counts.count)
    manifest = {
        "commits": HISTORY_COMMITS,
        "tracked": {
            "text": TRACKED_REWORDED,
            "original": TRACKED,
            "file": tracked_to,
            "from": tracked_from,
            "commits": marks,
        },
        "busiest_file": busiest,
        "busiest_commits": counts.count(busiest),
        "dream_branch": "dreams/bench-run",
        "dream_files": len(dream),
    }
    (root / ".git" / "bench-manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    _stamp(root, str(HISTORY_COMMITS))
    return root


def _dream(state: dict[str, list[str]], r: random.Random) -> dict[str, list[str]]:
    """100 files rewritten the way a dreaming pass does: merge, drop, reword."""
    out: dict[str, list[str]] = {}
    for p in sorted(state, key=lambda p: (-len(state[p]), p))[:100]:
        lines = list(state[p])
        if len(lines) >= 4:  # merge two facts, keeping both sources
            a, b = lines[1], lines.pop(2)
            src_b = b.split("[source: ", 1)[-1].split(";", 1)[0] if "[source: " in b else ""
            if src_b and "[source: " in a:
                a = a.replace("[source: ", f"[source: {src_b}; source: ", 1)
            lines[1] = a
        for _ in range(r.randint(1, 3)):
            if len(lines) > 3:
                lines.pop(r.randrange(len(lines)))  # drop a stale fact
        k = r.randrange(len(lines))
        lines[k] = lines[k].replace(" is ", " remains ", 1) if " is " in lines[k] else lines[k]
        out[p] = lines
    return out


# ---------------------------------------------------------------- a million facts
MILLION = 1_000_000
MILLION_COMMITS = 5000


def million_repo(out: Path, n: int = MILLION, commits: int = MILLION_COMMITS) -> Path:
    """``n`` entries at HEAD after ``commits`` commits (``n - commits + 1`` in the first)."""
    root = out / f"repo-{n}"
    key = f"{n}:{commits}:million"
    if _stamped(root, key):
        return root
    _fresh(root)
    files = generate_files(n - commits + 1, seed=41, repos=("memory",))
    state: dict[str, list[str]] = {cf.path: [_fix_links(full) for _l, _t, full in cf.entries] for cf in files}
    del files
    paths = sorted(state)
    pool = iter([e for cf in generate_files(commits, seed=43, repos=("memory",)) for e in cf.entries])
    r = random.Random(47)
    stream = _Stream()
    initial = {p: render(p, state[p]) for p in paths}
    initial.update(_hubs(paths))
    stream.commit("refs/heads/main", AGENTS[0], EPOCH, f"memory with {n - commits + 1} entries\n", initial)
    del initial
    for i in range(1, commits):
        touched: dict[str, str | None] = {}
        what = ["learned a fact"]
        p = paths[min(int(len(paths) * r.random() ** 3), len(paths) - 1)]
        _l, _t, full = next(pool)
        state[p].append(_fix_links(full.split(" [source:")[0]) + _meta(r, i))
        touched[p] = None
        if r.random() < 0.33:
            q = paths[r.randrange(len(paths))]
            k = r.randrange(len(state[q]))
            line = state[q][k]
            state[q][k] = line.replace(" the ", " this ", 1) if " the " in line else line + " (confirmed)"
            touched[q] = None
            what.append("reworded a fact")
        for t in touched:
            touched[t] = render(t, state[t])
        msg = f"session {i}: {', '.join(what)}\n\nSession: https://example.com/sessions/{i}\n"
        stream.commit("refs/heads/main", AGENTS[i % 3], EPOCH + i * 600, msg, touched)
    stream.run(root)
    _git(root, "reset", "-q", "--hard", "main")
    _stamp(root, key)
    return root


def manifest(root: Path) -> dict[str, object]:
    return json.loads((root / ".git" / "bench-manifest.json").read_text())


if __name__ == "__main__":  # pragma: no cover
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    dest = Path(args[0] if args else "bench/out/corpora")
    dest.mkdir(parents=True, exist_ok=True)
    for size in (1000, 10_000, 100_000):
        print(size_repo(dest, size))
    print(history_repo(dest))
    if "--million" in sys.argv:
        print(million_repo(dest))
