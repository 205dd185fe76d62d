"""Measuring evidence extraction and verdicts on the labelled corpus (``tests/verify_corpus.py``).

:func:`build_folders` writes each record into a memory folder of its format (AMR bullets with
metadata, a Claude Code memory with topic files in front matter, a memory bank, Hermes ``§``
paragraphs, Devin findings with nested answers, a plain folder of notes), :func:`measure` runs
``verify_mount`` on them against the scenario's code repo and compares, per part (tune, sealed):

* extraction: precision and recall of ``(kind, value)`` over every line of every format;
* verdicts: of the evidence found and labelled, how many got their label's verdict; precision and
  recall of the stale flags (gone or moved, exactly as labelled);
* entries: precision and recall of "this fact no longer holds" per line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from amr_tui.services.verify.coderepo import CodeSource
from amr_tui.services.verify.run import verify_mount
from amr_tui.services.workspace import Mount
from tests.verify_corpus import Record, records
from tests.verifyscenario import commit_of

STALE = ("gone", "moved")


def substitutions(code: Path) -> dict[str, str]:
    return {"{retry}": commit_of(code, "Retry refunds")[:10], "{init}": commit_of(code, "Payments service")[:10]}


def _sub(text: str, subs: dict[str, str]) -> str:
    for k, v in subs.items():
        text = text.replace(k, v)
    return text


def build_folders(dest: Path, recs: list[Record], subs: dict[str, str]) -> dict[tuple[str, str, int], Record]:
    """Write the records into one folder per format under ``dest``; ``(folder, path, line) -> record``."""
    where: dict[tuple[str, str, int], Record] = {}
    by_format: dict[str, list[Record]] = {}
    for r in recs:
        by_format.setdefault(r[1], []).append(r)

    def put(folder: str, path: str, lines: list[str], at: dict[int, Record]) -> None:
        target = dest / folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        for line, rec in at.items():
            where[(folder, path, line)] = rec

    for fmt, rs in by_format.items():
        if fmt == "amr":
            lines, at = ["# Memory: corpus", ""], {}
            for i, r in enumerate(rs):
                lines.append(
                    f"- {_sub(r[2], subs)} [source: https://example.com/s/{i}; added: 2026-06-{1 + i % 28:02d}]"
                )
                at[len(lines)] = r
            lines += ["", "## Index", ""]
            put("amr", "MEMORY.md", lines, at)
        elif fmt == "claude-code":
            index = []
            for i, r in enumerate(rs):
                name = f"project_fact_{i}.md"
                index.append(f"- [Fact {i}]({name}) \u2014 fact number {i}")
                head = ["---", f"name: Fact {i}", f"description: fact number {i}", "type: project", "---", ""]
                put("claude-code", name, [*head, _sub(r[2], subs)], {len(head) + 1: r})
            put("claude-code", "MEMORY.md", index, {})
        elif fmt == "memory-bank":
            lines, at = ["# Active Context", "", "## Current focus"], {}
            for r in rs:
                lines.append(f"- {_sub(r[2], subs)}")
                at[len(lines)] = r
            put("memory-bank", "memory-bank/activeContext.md", lines, at)
        elif fmt == "hermes":
            lines, at = [], {}
            for i, r in enumerate(rs):
                if i:
                    lines.append("\u00a7")
                lines.append(_sub(r[2], subs))
                at[len(lines)] = r
            put("hermes", "MEMORY.md", lines, at)
        elif fmt == "devin":
            lines, at = ["# Findings", ""], {}
            for i, r in enumerate(rs):
                indent = "  " if i % 2 else ""
                lines.append(f"{indent}- {_sub(r[2], subs)} [source: https://app.example.com/sessions/{i}]")
                at[len(lines)] = r
            put("devin", "findings.md", lines, at)
        else:
            for i, r in enumerate(rs):
                put("folder", f"notes/note-{i}.md", [f"# Note {i}", "", _sub(r[2], subs)], {3: r})
    return where


@dataclass
class Scores:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def __str__(self) -> str:
        return f"precision {self.precision:.3f} recall {self.recall:.3f} (tp {self.tp}, fp {self.fp}, fn {self.fn})"


@dataclass
class Measured:
    extraction: Scores = field(default_factory=Scores)
    verdict_right: int = 0
    verdict_total: int = 0
    stale: Scores = field(default_factory=Scores)  # evidence flagged gone/moved
    entries: Scores = field(default_factory=Scores)  # lines flagged as no longer holding
    misses: list[str] = field(default_factory=list)


def measure(dest: Path, code: Path, part: str) -> Measured:
    """Build the folders of ``part``'s records under ``dest`` and score them (see the module docstring)."""
    subs = substitutions(code)
    where = build_folders(dest, records(part), subs)
    out = Measured()
    judged: dict[tuple[str, str, int], dict[tuple[str, str], str]] = {}
    for folder in sorted({k[0] for k in where}):
        report = verify_mount(Mount(folder, dest / folder), [CodeSource(code, "--code")])
        for e in report.entries:
            judged[(folder, e.path, e.line)] = {(c.evidence.kind, c.evidence.value): c.verdict.status for c in e.checks}
    for key in set(judged) - set(where):
        for kv in judged[key]:
            out.extraction.fp += 1
            out.misses.append(f"{key}: extra {kv} (not a labelled line)")
    for key, rec in where.items():
        want = {(k, _sub(v, subs)): verdict for k, v, verdict in rec[3]}
        got = judged.get(key, {})
        for kv in set(want) | set(got):
            if kv in want and kv in got:
                out.extraction.tp += 1
                out.verdict_total += 1
                if want[kv] == got[kv]:
                    out.verdict_right += 1
                else:
                    out.misses.append(f"{rec[0]}: {kv} judged {got[kv]}, labelled {want[kv]}")
            elif kv in got:
                out.extraction.fp += 1
                out.misses.append(f"{rec[0]}: extra {kv}")
            else:
                out.extraction.fn += 1
                out.misses.append(f"{rec[0]}: missed {kv}")
            w, g = want.get(kv), got.get(kv)
            if g in STALE and w == g:
                out.stale.tp += 1
            elif g in STALE:
                out.stale.fp += 1
            elif w in STALE:
                out.stale.fn += 1
        w_stale = any(v in STALE for v in want.values())
        g_stale = any(v in STALE for v in got.values())
        out.entries.tp += w_stale and g_stale
        out.entries.fp += g_stale and not w_stale
        out.entries.fn += w_stale and not g_stale
    return out
