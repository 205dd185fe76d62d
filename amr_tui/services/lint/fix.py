"""``amr lint --fix``: apply lint's safe fixes, and in a git repo commit them as amr's own commit.

Rounds: lint the repo, take the safe fixes (``core.lint.repo.fix_edits``), apply them, lint
again (a fix can make another finding fixable), until none is left or ``MAX_FIX_ROUNDS``.

* **In a git repo** (the default) the rounds run on the files as read, in memory, and the result
  is one commit through the write gate (``services.writegate.commit``): the fixes only, based on
  the files as read and merged onto whatever is committed by then, with ``Edited-with: amr`` (so
  ``amr undo`` takes it back). A fix on a line nobody committed (an agent's uncommitted edit) is
  not made: that line is someone else's, and it stays as it is, in the file and out of the
  commit (``--fix --no-commit`` fixes it in the work tree). A file git does not track is not
  fixed either.
* **With** ``--no-commit``, **or in a folder that is not a git repo** (or a repo with no commit
  yet), each round's fixes go to the work tree only (``writegate.write_worktree``), onto each file
  as it is at that moment, so a line an agent wrote since the round read it is kept; nothing is
  committed, as ruff leaves its fixes for the user.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from amr_tui.core.format.parser import Document, parse
from amr_tui.core.lint.repo import RepoSnapshot, apply_edits, fix_edits, lint_repo, without_untracked_links
from amr_tui.core.model import Finding, LineEdit
from amr_tui.core.textsafety import make_visible
from amr_tui.git import AmrGitError, GitRepo, NotARepoError, UnsafeRepoError
from amr_tui.git.errors import ConflictError, EntryGoneError, RepoStateError
from amr_tui.git.gate import Change, ForeignConflictError
from amr_tui.git.worktree import UnsafePathError
from amr_tui.services import writegate
from amr_tui.services.lint.run import MAX_FIX_ROUNDS, FixRefusedError
from amr_tui.services.lint.tracked import git_tracked
from amr_tui.services.workspace import Mount, load_snapshot, paused_gc, read_bytes

COMMIT_ATTEMPTS = 3  # reads and commits of the fixes when a commit meanwhile changed the same lines
MAX_LISTED = 20  # fixes named in the commit message's body


@dataclass(frozen=True, slots=True)
class FixResult:
    applied: int  # fixes made (committed, or written to the work tree)
    commit: str | None = None  # the commit that holds them (None: work tree only, or nothing to fix)
    left: int = 0  # fixes not made: their line is someone's uncommitted edit (or the file is untracked)


def fix_repo(mount: Mount, *, duplicates: bool = True, commit: bool = True) -> FixResult:
    """Apply the safe fixes of ``mount`` (see the module docstring); ``commit`` False: the work
    tree only. Raises FixRefusedError, before writing anything, when git refuses the repo or the
    commit cannot be made (no identity, a merge in progress, a detached HEAD)."""
    try:
        tracked = git_tracked(mount.root)
    except UnsafeRepoError as exc:
        raise FixRefusedError(f"{exc} amr lint --fix wrote nothing in {mount.root}.") from None
    except AmrGitError:
        tracked = set()  # git cannot say what it tracks: link nothing
    git = _repo_of(mount) if commit and tracked is not None else None
    if git is None:
        return FixResult(_fix_worktree(mount, tracked, duplicates))
    try:
        return _fix_and_commit(mount, git, tracked or set(), duplicates)
    except RepoStateError as exc:
        raise FixRefusedError(
            f"{exc} amr lint --fix wrote nothing in {mount.root} (--fix --no-commit fixes the files without a commit)."
        ) from None


def _repo_of(mount: Mount) -> GitRepo | None:
    """The git repo whose commits hold ``mount``'s files; None when there is none yet to commit on."""
    try:
        git = GitRepo(mount.root)
    except (NotARepoError, AmrGitError):
        return None
    return git if git.head() is not None else None


def _fixes(
    snapshot: RepoSnapshot, tracked: set[str] | None, duplicates: bool, tried: set[tuple[object, ...]]
) -> dict[str, list[LineEdit]]:
    """The safe fixes of one round (a finding whose fix was applied before and came back is
    left: it could not take)."""
    with paused_gc():  # near-duplicates (AMR015) have no fix: no need to look for them
        findings = lint_repo(snapshot, duplicates=duplicates, near_duplicates=False)
    if tracked is not None:
        findings = without_untracked_links(findings, tracked)
    findings = [f for f in findings if f.diagnostic.fix is None or _fix_key(f, snapshot) not in tried]
    edits = fix_edits(findings)
    chosen = {id(e) for line_edits in edits.values() for e in line_edits}
    tried.update(
        _fix_key(f, snapshot)
        for f in findings
        if f.diagnostic.fix is not None and any(id(e) in chosen for e in f.diagnostic.fix.edits)
    )
    return edits


def _document(mount: Mount, snapshot: RepoSnapshot, path: str) -> Document | None:
    doc = snapshot.documents.get(path)
    if doc is None:
        data = read_bytes(mount.root, path)
        doc = parse(data, path) if data is not None else None
    return doc if doc is not None and doc.utf8 else None  # never rewrite bytes amr cannot decode


def _fix_worktree(mount: Mount, tracked: set[str] | None, duplicates: bool) -> int:
    """Each round's fixes written to the work tree, onto each file as it is then; how many."""
    applied = 0
    tried: set[tuple[object, ...]] = set()
    for _ in range(MAX_FIX_ROUNDS):
        snapshot = load_snapshot(mount)
        edits = _fixes(snapshot, tracked, duplicates, tried)
        if not edits:
            break
        changed = False
        for path, line_edits in edits.items():
            doc = _document(mount, snapshot, path)
            if doc is None:
                continue
            new, old = apply_edits(doc, line_edits), doc.to_bytes()
            if new == old:
                continue
            try:
                if writegate.write_worktree(mount.root, [Change(path, old, new)]):
                    applied += len(line_edits)
                    changed = True
            except (ForeignConflictError, UnsafePathError):
                continue  # the file changed in the same place meanwhile: left as it is
        if not changed:
            break
    return applied


def _fix_and_commit(mount: Mount, git: GitRepo, tracked: set[str], duplicates: bool) -> FixResult:
    """The rounds in memory on the files as read, then one commit of the fixes through the gate."""
    prefix = _prefix(mount, git)
    left = 0
    for _attempt in range(COMMIT_ATTEMPTS):
        head = git.head()
        snapshot = load_snapshot(mount)
        tried: set[tuple[object, ...]] = set()
        read: dict[str, bytes] = {}  # path -> the file as read, before any fix
        theirs: dict[str, set[str] | None] = {}  # path -> lines nobody committed (None: untracked)
        made: list[tuple[str, LineEdit, str]] = []  # (path, edit, the line it replaced)
        left = 0
        for _ in range(MAX_FIX_ROUNDS):
            edits = _fixes(snapshot, tracked, duplicates, tried)
            changed = False
            for path, line_edits in edits.items():
                doc = _document(mount, snapshot, path)
                if doc is None:
                    continue
                if path not in theirs:
                    theirs[path] = _uncommitted_lines(git, head, prefix + path, doc)
                mine = theirs[path]
                keep = [
                    e
                    for e in line_edits
                    if mine is not None and 1 <= e.line <= len(doc.lines) and doc.lines[e.line - 1].text not in mine
                ]
                left += len(line_edits) - len(keep)
                new = apply_edits(doc, keep)
                if not keep or new == doc.to_bytes():
                    continue
                read.setdefault(path, doc.to_bytes())
                made.extend((path, e, doc.lines[e.line - 1].text) for e in keep)
                snapshot.documents[path] = parse(new, path)
                snapshot.sizes[path] = len(new)
                changed = True
            if not changed:
                break
        changes = [
            Change(prefix + p, data, snapshot.documents[p].to_bytes(), head)
            for p, data in read.items()
            if snapshot.documents[p].to_bytes() != data
        ]
        if not changes:
            return FixResult(0, None, left)
        try:
            result = writegate.commit(git, changes, _message(made), trailers=(writegate.TRAILER,))
        except (ConflictError, EntryGoneError, ForeignConflictError):
            continue  # a commit (or an edit) meanwhile changed the same lines: read again
        return FixResult(len(made), result.head if result.committed else None, left)
    raise FixRefusedError(
        f"the files of {mount.root} kept changing in the same places while amr lint --fix ran: nothing was written."
    )


def _prefix(mount: Mount, git: GitRepo) -> str:
    """``mount``'s folder inside its work tree, as a path prefix ("" at the top)."""
    here, top = mount.root.resolve(), git.root.resolve()
    return "" if here == top else here.relative_to(top).as_posix() + "/"


def _uncommitted_lines(git: GitRepo, head: str | None, rel: str, doc: Document) -> set[str] | None:
    """The texts of ``doc``'s lines that are not in the committed version (someone's uncommitted
    edit), less any text the committed version holds too; None when the file is not committed."""
    committed = git.read_blob_or_none(head, rel) if head else None
    if committed is None:
        return None
    was = [ln.text for ln in parse(committed, rel).lines]
    now = [ln.text for ln in doc.lines]
    out: set[str] = set()
    for op, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, was, now, autojunk=False).get_opcodes():
        if op in ("insert", "replace"):
            out.update(now[j1:j2])
    return out - set(was)


def _message(made: list[tuple[str, LineEdit, str]]) -> str:
    n = len(made)
    files = sorted({p for p, _e, _t in made})
    where = files[0] if len(files) == 1 else f"{len(files)} files"
    body = [f"- {make_visible(p)}: {make_visible(old.strip()[:80])}" for p, _e, old in made[:MAX_LISTED]]
    if n > MAX_LISTED:
        body.append(f"- and {n - MAX_LISTED} more")
    return f"Fix {n} lint finding{'s' if n != 1 else ''} in {make_visible(where)} (amr lint --fix)\n\n" + "\n".join(
        body
    )


def _fix_key(f: Finding, snapshot: RepoSnapshot) -> tuple[object, ...]:
    """A finding, as far as telling "the same one came back" goes: with its line's text, so a
    second group moved to where the first one was is another finding."""
    d = f.diagnostic
    doc = snapshot.documents.get(f.path)
    text = doc.lines[d.line - 1].text if doc is not None and 1 <= d.line <= len(doc.lines) else None
    return f.path, d.code, d.line, d.column, d.message, text


__all__ = ["FixRefusedError", "FixResult", "fix_repo"]
