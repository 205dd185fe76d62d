"""The findings corpus (issue 39): memory folders in other agents' shapes, linted as a user would,
each finding judged by a reader in ``tests/data/findings/judged.json``.

``tests/data/findings/corpus.json`` names each folder's format, whether it is a git work tree, the
folder a user opens, and the true problems planted in it. ``run`` copies the folders to a scratch
folder (``git init`` and a commit where the manifest says so), lints each as
``amr lint --severity info --no-cache FOLDER`` does, and gives every finding with a key that does
not depend on its wording: ``part/folder|path|line|column|code`` (the path relative to the folder,
whatever root amr chose). ``bench/findings.py`` prints the precision tables and keeps the judged
table up to date; ``tests/test_findings_corpus.py`` fails when a finding judged false comes back or
one judged true goes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).parent / "data" / "findings"
MANIFEST = CORPUS / "corpus.json"
JUDGED = CORPUS / "judged.json"
PARTS = ("tuning", "sealed")

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Corpus Author",
    "GIT_AUTHOR_EMAIL": "author@example.test",
    "GIT_COMMITTER_NAME": "Corpus Author",
    "GIT_COMMITTER_EMAIL": "author@example.test",
    "GIT_AUTHOR_DATE": "2026-11-30T12:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-11-30T12:00:00+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@dataclass(frozen=True, slots=True)
class Found:
    folder: str  # "tuning/amr-team-infra"
    path: str  # relative to the folder the user opened (not to the root amr chose)
    line: int
    column: int
    code: str
    severity: str
    message: str

    @property
    def key(self) -> str:
        return f"{self.folder}|{self.path}|{self.line}|{self.column}|{self.code}"


@dataclass(slots=True)
class FolderRun:
    folder: str
    format: str  # the manifest's
    style: str  # what amr read the folder as (the first mount's)
    roots: list[str]  # the roots amr linted, relative to the folder ("." for the folder itself)
    entries: int  # entries amr reads in the folder
    found: list[Found] = field(default_factory=list)


def manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(MANIFEST.read_text("utf-8"))
    return data["folders"]


def folders(parts: Iterable[str] = PARTS) -> list[str]:
    wanted = tuple(parts)
    return sorted(f for f in manifest() if f.split("/", 1)[0] in wanted)


def materialise(folder: str, dest: Path) -> Path:
    """A copy of ``folder`` under ``dest`` (a git work tree with one commit when the manifest says
    so); returns the path a user opens."""
    spec = manifest()[folder]
    target = dest / folder.replace("/", "__")
    shutil.copytree(CORPUS / folder, target)
    if spec["git"]:
        env = {**os.environ, **_GIT_ENV}
        for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "Memory as found"]):
            subprocess.run(["git", *args], cwd=target, env=env, check=True, capture_output=True)
    return target / spec["open"] if spec["open"] != "." else target


def lint_folder(folder: str, opened: Path) -> FolderRun:
    """Lint what a user opens (``amr lint --severity info --no-cache``)."""
    from amr_tui.services.lint.run import lint_targets, resolve_targets
    from amr_tui.services.workspace import load_snapshot, style_of

    targets = resolve_targets([opened], explicit=True)
    results = lint_targets(targets, near_duplicates=True, use_cache=False)
    top = opened.resolve()
    roots: dict[str, str] = {}
    entries = 0
    style = ""
    for t in targets:
        root = t.mount.root.resolve()
        rel = Path(os.path.relpath(root, top)).as_posix()
        roots[t.mount.name] = "" if rel == "." else rel + "/"
        snap = load_snapshot(t.mount)
        entries += sum(len(d.entries) for d in snap.documents.values())
        style = style or style_of(t.mount)
    run = FolderRun(folder, manifest()[folder]["format"], style, [r or "." for r in roots.values()], entries)
    for r in results:
        d = r.finding.diagnostic
        path = roots.get(r.repo, "") + r.finding.path
        run.found.append(Found(folder, path, d.line, d.column, d.code, d.severity.value, d.message))
    run.found.sort(key=lambda f: (f.path, f.line, f.column, f.code))
    return run


def run(dest: Path, parts: Iterable[str] = PARTS) -> list[FolderRun]:
    """Every folder of ``parts``, copied under ``dest`` and linted."""
    out = []
    for folder in folders(parts):
        out.append(lint_folder(folder, materialise(folder, dest)))
    return out


def load_judged() -> dict[str, dict[str, Any]]:
    if not JUDGED.exists():
        return {}
    rows: list[dict[str, Any]] = json.loads(JUDGED.read_text("utf-8"))
    return {row["key"]: row for row in rows}


def save_judged(judged: dict[str, dict[str, Any]]) -> None:
    rows = [judged[k] for k in sorted(judged)]
    JUDGED.write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", "utf-8")


# --- planted problems -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Planted:
    folder: str
    index: int
    kind: str
    codes: tuple[str, ...]
    where: frozenset[tuple[str, int]]  # (path, line) a finding may be on

    @property
    def name(self) -> str:
        return f"{self.folder}#{self.index} {self.kind}"


def planted(parts: Iterable[str] = PARTS) -> list[Planted]:
    out = []
    spec = manifest()
    for folder in folders(parts):
        for i, p in enumerate(spec[folder]["planted"]):
            where: set[tuple[str, int]] = set()
            for path in p["paths"]:
                if "text" in p:
                    opened = CORPUS / folder / spec[folder]["open"]
                    text = (opened / path).read_text("utf-8")
                    where |= {(path, n) for n, line in enumerate(text.split("\n"), 1) if p["text"] in line}
                else:
                    where.add((path, p.get("line", -1)))  # -1: any line of the file
            out.append(Planted(folder, i, p["kind"], tuple(p["codes"]), frozenset(where)))
    return out


def is_found(p: Planted, found: Iterable[Found]) -> bool:
    return any(
        f.folder == p.folder and f.code in p.codes and ((f.path, f.line) in p.where or (f.path, -1) in p.where)
        for f in found
    )
