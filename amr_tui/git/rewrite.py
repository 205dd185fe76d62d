"""New repositories for sharing: one branch of another repo (:func:`copy_branch`, whole shares),
or only some of its paths, history included (:func:`rewrite_history`, partial shares).

Each commit of the source branch is rewritten with plumbing only: ``ls-tree -r`` of the selected
paths into a throwaway index, ``write-tree``, ``commit-tree`` with the original author, committer
and dates. A commit whose filtered tree equals its (single) rewritten parent's is dropped, so
history shows only commits that touched the selection. The message is written here from the
shared trees' diff alone (:func:`describe`: "Update projects/website.md (+2 -1 entries)"), never
copied: an original message (and its trailers) can quote anything. With ``keep_messages`` the
original message is kept for a commit that touched only selected regular files (against every
parent); a commit that touched anything else still gets a written one. The rewrite is
deterministic: the same source, selection and choice give the same commit ids.

Both kinds are built in a temporary repository that borrows the source's objects (an alternate)
and holds one ref, ``refs/heads/main``; the new repository is ``git init`` and a ``fetch`` of that
one ref over git's own transport, so it receives exactly the objects reachable from that branch:
no tag, note, other branch, remote, config or reflog of the source, and no blob of a path outside
the selection. It has one branch, ``main``, no remote, and no reflog entry (the fetch runs with
``core.logAllRefUpdates=false``; the scratch ref's reflog message is neutral and is thrown away).

Symlinks and submodules are never copied into a partial share (only regular files, modes 100644
and 100755); a whole share is checked out with ``core.symlinks=false`` (also kept in its config),
so a symlink is a plain file holding its target path and never a live link out of the folder.
:func:`left_out` names them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from amr_tui.core.format.parser import parse
from amr_tui.core.paths import is_markdown
from amr_tui.core.textsafety import plural
from amr_tui.git.catfile import BlobReader
from amr_tui.git.handle import RepoHandle
from amr_tui.git.history import tree_changes
from amr_tui.git.runner import GitRunner, end_of_options
from amr_tui.git.worktree import normalize_rel

_REGULAR = (b"100644", b"100755")
_TreeKey = tuple[tuple[str, str, str], ...]  # a filtered tree's (path, mode, oid) files, sorted
_ABSENT = b"000000"
_SYMLINK, _GITLINK = b"120000", b"160000"
SHARE_BRANCH = "main"
_SCRATCH_REF = "refs/heads/main"
_REFLOG_MESSAGE = "amr share"
MAX_COUNTED_BYTES = 4 * 1024 * 1024  # larger files are named in a message, their lines not counted
MAX_TARGET_CHARS = 300
# The new repository's fetch: objects checked, no reflog written, no other transport, no submodules.
_PUBLISH_CONFIG = (
    ("core.logAllRefUpdates", "false"),
    ("transfer.fsckObjects", "true"),
    ("protocol.ext.allow", "never"),
    ("fetch.recurseSubmodules", "false"),
)


@dataclass(frozen=True)
class RewriteResult:
    dest: Path
    branch: str
    tip: str | None
    commits: int  # commits kept
    dropped: int  # commits that did not touch the selection
    kept_messages: int = 0  # commits whose original message was kept (keep_messages)


@dataclass(frozen=True)
class LeftOut:
    """A tree entry a share does not copy as it is."""

    path: str
    kind: str  # "symlink" or "submodule"
    target: str  # a symlink's target (as stored, shortened), a submodule's commit id


def list_tree(repo: RepoHandle, rev: str, paths: Sequence[str] = ()) -> dict[str, tuple[str, str]]:
    """``{path: (mode, blob oid)}`` of regular files at ``rev`` (under ``paths``, when given)."""
    spec = ["--", *[normalize_rel(p) for p in paths]] if paths else []
    out = repo.runner.run(["ls-tree", "-r", "-z", "--full-tree", *end_of_options(rev), *spec]).stdout
    files: dict[str, tuple[str, str]] = {}
    for rec in out.split(b"\0"):
        meta, _, name = rec.partition(b"\t")
        if not meta:
            continue
        mode, kind, oid = meta.split(b" ")
        if kind == b"blob" and mode in _REGULAR:
            files[name.decode("utf-8", "surrogateescape")] = (mode.decode(), oid.decode())
    return files


def left_out(repo: RepoHandle, rev: str, paths: Sequence[str] = ()) -> list[LeftOut]:
    """The symlinks and submodules at ``rev`` (under ``paths``, when given), by path."""
    spec = ["--", *[normalize_rel(p) for p in paths]] if paths else []
    out = repo.runner.run(["ls-tree", "-r", "-z", "--full-tree", *end_of_options(rev), *spec]).stdout
    keep = selection_filter(paths) if paths else (lambda _p: True)
    found: list[LeftOut] = []
    for rec in out.split(b"\0"):
        meta, _, name = rec.partition(b"\t")
        if not meta:
            continue
        mode, _kind, oid = meta.split(b" ")
        path = name.decode("utf-8", "surrogateescape")
        if mode not in (_SYMLINK, _GITLINK) or not keep(path):
            continue
        if mode == _SYMLINK:
            target = repo.runner.run(["cat-file", "blob", oid.decode()]).stdout.decode("utf-8", "surrogateescape")
            if len(target) > MAX_TARGET_CHARS:
                target = target[:MAX_TARGET_CHARS] + "…"
            found.append(LeftOut(path, "symlink", target))
        else:
            found.append(LeftOut(path, "submodule", oid.decode()))
    return sorted(found, key=lambda o: o.path)


def selection_filter(paths: Sequence[str]) -> Callable[[str], bool]:
    """True for a file equal to a selected path or inside a selected folder."""
    sel = [normalize_rel(p) for p in paths]

    def keep(path: str) -> bool:
        return any(path == s or path.startswith(s + "/") for s in sel)

    return keep


def _commit_meta(repo: RepoHandle, oid: str) -> tuple[dict[str, str], bytes]:
    raw = repo.runner.run(["cat-file", "commit", oid]).stdout
    head, _, message = raw.partition(b"\n\n")
    env: dict[str, str] = {}
    for line in head.decode("utf-8", "surrogateescape").split("\n"):
        key, _, value = line.partition(" ")
        if key in ("author", "committer"):
            name_email, _, when = value.rpartition("> ")
            name, _, email = name_email.partition(" <")
            who = key.upper()
            env[f"GIT_{who}_NAME"] = name
            env[f"GIT_{who}_EMAIL"] = email
            env[f"GIT_{who}_DATE"] = "@" + when
    return env, message


def _filtered_tree(
    repo: RepoHandle, oid: str, paths: Sequence[str], keep: Callable[[str], bool], tmp: Path, cache: dict[_TreeKey, str]
) -> tuple[str, dict[str, tuple[str, str]]]:
    files = {p: mo for p, mo in list_tree(repo, oid, paths).items() if keep(p)}
    key = tuple(sorted((p, m, o) for p, (m, o) in files.items()))
    if key in cache:
        return cache[key], files
    index = tmp / "index"
    if index.exists():
        index.unlink()
    env = {"GIT_INDEX_FILE": str(index)}
    data = b"".join(f"{m} {o}\t".encode() + p.encode("utf-8", "surrogateescape") + b"\0" for p, m, o in key)
    repo.runner.run(["update-index", "-z", "--index-info"], input=data, env=env, write=True)
    tree = repo.runner.text(["write-tree"], env=env, write=True).strip()
    cache[key] = tree
    return tree, files


# ---------------------------------------------------------------------------------------------
# Messages written from the shared trees' diff


def _shown(path: str) -> str:
    """A path as a message line can hold it (a control character becomes ``?``)."""
    return "".join("?" if ord(c) < 32 or ord(c) == 127 else c for c in path)


def _units(path: str, data: bytes) -> list[str]:
    """What a change is counted in: a Markdown file's entry lines, any other file's lines."""
    if is_markdown(path):
        doc = parse(data, path, check=False)
        return [doc.lines[e.line - 1].text for e in doc.entries]
    return data.decode("utf-8", "surrogateescape").splitlines()


def _count(path: str, old: str | None, new: str | None, read: Callable[[str], bytes | None]) -> tuple[int, int] | None:
    """(units added, units removed) between two blobs (None: too large or unreadable)."""
    sides: list[list[str]] = []
    for oid in (old, new):
        data = b"" if oid is None else read(oid)
        if data is None or len(data) > MAX_COUNTED_BYTES:
            return None
        sides.append(_units(path, data))
    before, after = Counter(sides[0]), Counter(sides[1])
    return sum((after - before).values()), sum((before - after).values())


def _counts_text(counts: Mapping[str, tuple[int, int]]) -> str:
    parts = []
    for unit in ("entries", "lines"):
        added, removed = counts.get(unit, (0, 0))
        if not added and not removed:
            continue
        noun = {"entries": "entry", "lines": "line"}[unit] if added + removed == 1 else unit
        parts.append(" ".join([*([f"+{added}"] if added else []), *([f"-{removed}"] if removed else []), noun]))
    return f" ({', '.join(parts)})" if parts else ""


def describe(
    old: Mapping[str, tuple[str, str]],
    new: Mapping[str, tuple[str, str]],
    read: Callable[[str], bytes | None],
    *,
    merge: bool = False,
) -> bytes:
    """A commit message for the change from tree ``old`` to tree ``new`` (``{path: (mode, oid)}``
    of regular files), written from those trees alone: which files were added, updated, deleted or
    renamed, and how many entries (lines, outside Markdown) each gained and lost."""
    added = sorted(p for p in new if p not in old)
    deleted = sorted(p for p in old if p not in new)
    renamed: list[tuple[str, str]] = []
    for a in list(added):  # the same blob and mode under a new name
        match = next((d for d in deleted if old[d] == new[a]), None)
        if match is not None:
            renamed.append((match, a))
            added.remove(a)
            deleted.remove(match)
    changes: list[tuple[str, str, str, str | None, str | None]] = []  # (sort key, verb, shown, old, new)
    for p in added:
        changes.append((p, "Add", _shown(p), None, new[p][1]))
    for p in deleted:
        changes.append((p, "Delete", _shown(p), old[p][1], None))
    for p in sorted(set(old) & set(new)):
        if old[p] != new[p]:
            changes.append((p, "Update", _shown(p), old[p][1], new[p][1]))
    for a, b in renamed:
        changes.append((b, "Rename", f"{_shown(a)} to {_shown(b)}", None, None))
    changes.sort()
    lines: list[str] = []
    total: dict[str, tuple[int, int]] = {}
    for path, verb, shown, before, after in changes:
        counts: dict[str, tuple[int, int]] = {}
        if verb != "Rename":
            got = _count(path, before, after, read)
            if got is not None:
                unit = "entries" if is_markdown(path) else "lines"
                counts[unit] = got
                t = total.get(unit, (0, 0))
                total[unit] = (t[0] + got[0], t[1] + got[1])
        lines.append(f"{verb} {shown}{_counts_text(counts)}")
    if len(lines) == 1:
        subject, body = lines[0], []
    elif lines:
        verbs = {c[1] for c in changes}
        verb = verbs.pop() if len(verbs) == 1 and "Rename" not in verbs else "Update"
        subject, body = f"{verb} {plural(len(lines), 'file')}{_counts_text(total)}", lines
    else:
        subject, body = "No change", []
    if merge:
        subject = f"Merge: {subject}" if lines else "Merge"
    text = subject + ("\n\n" + "\n".join(body) if body else "") + "\n"
    return text.encode("utf-8", "surrogateescape")


def _touched_only(repo: RepoHandle, oid: str, parents: Sequence[str], keep: Callable[[str], bool]) -> bool:
    """True when ``oid`` changed only selected regular files against each of its parents."""
    against: Sequence[str | None] = parents or [None]  # a root commit: against the empty tree
    for parent in against:
        for change in tree_changes(repo, parent, oid):
            if not keep(change.path):
                return False
            if {change.old_mode.encode(), change.new_mode.encode()} - {*_REGULAR, _ABSENT}:
                return False
    return True


# ---------------------------------------------------------------------------------------------


def rewrite_history(
    source: RepoHandle,
    rev: str,
    paths: Sequence[str],
    dest: str | os.PathLike[str],
    branch: str = SHARE_BRANCH,
    progress: Callable[[int, int], None] | None = None,
    *,
    keep_messages: bool = False,
) -> RewriteResult:
    """Create the repository ``dest`` holding only ``paths`` (files or folders) of ``rev``'s history.

    Messages are written from the shared change (:func:`describe`); ``keep_messages`` keeps the
    original message of a commit that touched only selected regular files."""
    target = Path(dest).absolute()
    if target.exists() and any(target.iterdir()):
        raise FileExistsError(f"{target} exists and is not empty")
    source.check_branch_name(branch)
    tip_src = source.resolve(rev)
    if tip_src is None:
        raise ValueError(f"{rev!r} is not a commit in {source.root}")
    keep = selection_filter(paths)
    sel = [normalize_rel(p) for p in paths]
    with tempfile.TemporaryDirectory(prefix="amr-share-") as tmpdir:
        tmp = Path(tmpdir)
        work = _borrowing_repo(source, tmp / "work")
        reader = BlobReader(work)
        try:
            order = work.runner.text(
                ["rev-list", "--topo-order", "--reverse", "--parents", *end_of_options(tip_src)]
            ).splitlines()
            mapped: dict[str, str | None] = {}
            trees: dict[str, str] = {}
            files: dict[str, dict[str, tuple[str, str]]] = {}  # new commit -> its shared files
            cache: dict[_TreeKey, str] = {}
            kept = dropped = originals = 0
            for n, line in enumerate(order, 1):
                oid, *parents = line.split()
                tree, now = _filtered_tree(work, oid, sel, keep, tmp, cache)
                new_parents: list[str] = []
                for p in parents:
                    m = mapped.get(p)
                    if m is not None and m not in new_parents:
                        new_parents.append(m)
                if len(new_parents) > 1:  # a side branch that never touched the selection: no merge left
                    independent = set(
                        work.runner.text(["merge-base", "--independent", *end_of_options(*new_parents)]).split()
                    )
                    new_parents = [p for p in new_parents if p in independent]
                if len(new_parents) <= 1 and tree == (
                    trees[new_parents[0]] if new_parents else _empty(work, cache, tmp)
                ):
                    mapped[oid] = new_parents[0] if new_parents else None
                    dropped += 1
                else:
                    env, original = _commit_meta(work, oid)
                    if keep_messages and _touched_only(work, oid, parents, keep):
                        message = original
                        originals += 1
                    else:
                        before = files[new_parents[0]] if new_parents else {}
                        message = describe(before, now, reader.read_oid, merge=len(new_parents) > 1)
                    args = ["commit-tree", "--no-gpg-sign"]
                    for p in new_parents:
                        args += ["-p", p]
                    new = work.runner.text([*args, *end_of_options(tree)], input=message, env=env, write=True).strip()
                    mapped[oid] = new
                    trees[new] = tree
                    files[new] = now
                    kept += 1
                if progress:
                    progress(n, len(order))
        finally:
            reader.close()
        tip = mapped.get(tip_src)
        _publish(work, tip, target, branch)
    return RewriteResult(target, branch, tip, kept, dropped, originals)


def copy_branch(
    source: RepoHandle, rev: str, dest: str | os.PathLike[str], branch: str = SHARE_BRANCH
) -> RewriteResult:
    """Create the repository ``dest`` holding ``rev`` and its history, as they are, and nothing else:
    no other branch, tag, note, remote, config or reflog of ``source``; the branch is ``branch``."""
    target = Path(dest).absolute()
    if target.exists() and any(target.iterdir()):
        raise FileExistsError(f"{target} exists and is not empty")
    source.check_branch_name(branch)
    tip = source.resolve(rev)
    with tempfile.TemporaryDirectory(prefix="amr-share-") as tmpdir:
        work = _borrowing_repo(source, Path(tmpdir) / "work")
        _publish(work, tip, target, branch)
    return RewriteResult(target, branch, tip, 0, 0)


def _publish(work: RepoHandle, tip: str | None, target: Path, branch: str) -> None:
    """``git init`` ``target`` and fetch ``tip`` from ``work`` over git's transport into ``branch``;
    check it out with symlinks as plain files."""
    target.parent.mkdir(parents=True, exist_ok=True)
    repo = RepoHandle.init(target, initial_branch=branch)
    repo.runner.run(["config", "core.symlinks", "false"], write=True)
    if tip is None:
        return
    work.runner.run(["update-ref", "-m", _REFLOG_MESSAGE, _SCRATCH_REF, tip], write=True)
    runner = GitRunner(target, config=_PUBLISH_CONFIG)
    runner.run(
        [
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--update-head-ok",
            "--no-recurse-submodules",
            "--",
            str(work.root),
            f"+{_SCRATCH_REF}:refs/heads/{branch}",
        ],
        write=True,
    )
    runner.run(["read-tree", "--reset", "-u", "HEAD"], write=True)


def _borrowing_repo(source: RepoHandle, path: Path) -> RepoHandle:
    """A scratch repository that can read every object of ``source`` (``objects/info/alternates``)."""
    work = RepoHandle.init(path)
    objects = source.runner.text(["rev-parse", "--git-path", "objects"]).strip()
    src_objects = Path(objects) if Path(objects).is_absolute() else source.root / objects
    (work.git_dir / "objects" / "info").mkdir(parents=True, exist_ok=True)
    (work.git_dir / "objects" / "info" / "alternates").write_text(str(src_objects.resolve()) + "\n")
    return work


def _empty(repo: RepoHandle, cache: dict[_TreeKey, str], tmp: Path) -> str:
    if () not in cache:
        cache[()] = repo.runner.text(["mktree", "-z"], input=b"", write=True).strip()
    return cache[()]


def remove_tree(path: Path) -> None:
    """Delete a folder amr created (used to clean up a failed share)."""
    shutil.rmtree(path, ignore_errors=True)
